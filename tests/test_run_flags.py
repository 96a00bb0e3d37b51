"""The `RunConfig` builder of `egoworld run` (`runner.run_flags`)."""

from __future__ import annotations

from pathlib import Path

from egoworld.runner.run_flags import run_config_from_flags, task_list

FLAGS = {"base_url": None, "max_tokens": None, "temperature": 0.5, "timeout": None, "api_key_env": None}


def test_flags_become_model_args_tasks_and_settings() -> None:
    cfg = run_config_from_flags(
        bench=Path("b"), model="oracle", out=Path("o"), model_arg=["stop=</s>"], tasks=" VMR, ,VOC", **FLAGS,
        seed=3, options={"strategy": "one-go"}, command={"name": "run", "config": {}},
    )  # fmt: skip
    assert cfg.model_args == {"stop": "</s>", "temperature": "0.5"}
    assert cfg.tasks == ["VMR", "VOC"] and cfg.seed == 3 and cfg.options == {"strategy": "one-go"}
    assert cfg.command == {"name": "run", "config": {}}
    assert task_list(None) is None and task_list("") is None
