"""``egoworld models``: the model backends and their options."""

from __future__ import annotations

from egoworld.core.errors import exit_on_user_error


@exit_on_user_error
def models_list() -> None:
    """List model backends and their options."""
    from egoworld.models.spec import available_backends

    for name, help_text in available_backends().items():
        print(f"{name:<10} {help_text}")
