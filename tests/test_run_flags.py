"""The one `RunConfig` builder of `egoworld run` and `egoworld explore run` (`runner.run_flags`)."""

from __future__ import annotations

from pathlib import Path

from egoworld.runner.run_flags import run_config_from_flags, task_list

FLAGS = {"base_url": None, "max_tokens": None, "temperature": 0.5, "timeout": None, "api_key_env": None}


def test_flags_become_model_args_tasks_and_settings() -> None:
    cfg = run_config_from_flags(
        bench=Path("b"), model="oracle", out=Path("o"), model_arg=["stop=</s>"], tasks=" VMR, ,VOC", **FLAGS,
        seed=3, options={"strategy": "one-go"},
    )  # fmt: skip
    assert cfg.model_args == {"stop": "</s>", "temperature": "0.5"}
    assert cfg.tasks == ["VMR", "VOC"] and cfg.seed == 3 and cfg.options == {"strategy": "one-go"}
    assert task_list(None) is None and task_list("") is None


def test_the_server_limit_goes_to_server_models_only_and_gives_way_to_flags() -> None:
    def args(model: str, **given: object) -> dict[str, str]:
        flags = FLAGS | given
        return run_config_from_flags(
            bench=Path("b"), model=model, out=Path("o"), model_arg=None, tasks=None, server_max_tokens="2048",
            **flags,  # type: ignore[arg-type]
        ).model_args  # fmt: skip

    assert args("openai:m")["max_tokens"] == "2048"
    assert args("openai:m", max_tokens=64)["max_tokens"] == "64"
    assert "max_tokens" not in args("oracle")
