"""EXPLORE-Bench: predict the final scene of an egocentric activity from its first frame and its atomic actions.

The package's layout (evaluation at the top, the generator in ``build/``) is in its README.md.
Heavy dependencies (spaCy, sentence-transformers, torch) are imported only inside the scoring modules.
"""

BENCHMARK_NAME = "explore"

#: tasks: annotated normal instances, abnormal instances (with key states) and real sequences without a
#: final annotation (EPIC-KITCHENS-100: inference and cost studies only)
TASK_SCENE = "scene"
TASK_ABNORMAL = "abnormal"
TASK_UNANNOTATED = "unannotated"
TASK_ORDER = (TASK_SCENE, TASK_ABNORMAL, TASK_UNANNOTATED)
