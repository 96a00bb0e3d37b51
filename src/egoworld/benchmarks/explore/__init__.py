"""EXPLORE-Bench: predict the final scene of an egocentric activity from its first frame and its atomic actions.

Modules: ``instances`` (the official annotation schema), ``partitions`` (short / medium / long, tiny subset),
``importer`` / ``epic`` / ``from_world`` / ``build`` (benchmark folders), ``prompts`` and ``strategy`` (one-go and stepwise
inference), ``plan`` (a strategy's request chains, which `egoworld run` sends), ``nlp`` / ``matching`` / ``judges`` / ``scorer`` (S_obj,
S_att, S_rel, S_uni, S_key, S_abn), ``score_run`` (scores.jsonl / scores.json), ``agreement`` and ``report``.
Heavy dependencies (spaCy, sentence-transformers, torch) are imported only inside the scoring modules.
"""

BENCHMARK_NAME = "explore"

#: tasks: annotated normal instances, abnormal instances (with key states) and real sequences without a
#: final annotation (EPIC-KITCHENS-100: inference and cost studies only)
TASK_SCENE = "scene"
TASK_ABNORMAL = "abnormal"
TASK_UNANNOTATED = "unannotated"
TASK_ORDER = (TASK_SCENE, TASK_ABNORMAL, TASK_UNANNOTATED)
