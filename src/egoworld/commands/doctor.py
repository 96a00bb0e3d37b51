"""``egoworld doctor``: check an OpenAI-compatible server before a long run."""

from __future__ import annotations

from typing import Annotated

import typer

from egoworld.core.errors import exit_on_user_error


@exit_on_user_error
def doctor(
    base_url: Annotated[str, typer.Option(help="Server URL, e.g. http://127.0.0.1:8000/v1.")],
    model: Annotated[
        str | None, typer.Option(help="Model name to check (default: the only one served).")
    ] = None,
    api_key_env: Annotated[
        str, typer.Option(help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    timeout: Annotated[float, typer.Option(help="Seconds per check.")] = 30.0,
    frames: Annotated[
        int | None,
        typer.Option(
            help="Also send one request shaped like the run: this many frames (as `run --frames`), at "
            "--max-pixels in --image-format; a refusal is explained with the server flag that fixes it."
        ),
    ] = None,
    max_pixels: Annotated[
        int, typer.Option(help="Pixel budget per frame of the run-shaped request (as `run --max-pixels`).")
    ] = 448 * 448,
    image_format: Annotated[
        str, typer.Option(help="Frame encoding of the run-shaped request (as `run --image-format`).")
    ] = "png",
) -> None:
    """Check an OpenAI-compatible server before a long run: reachable, model listed, a text round trip,
    images accepted or not, context length, and with --frames one request as large as the run's (image
    limit, context length, body size). Exit code 1 if a required check fails.

    Example: egoworld doctor --base-url http://127.0.0.1:8000/v1 --frames 128 --max-pixels 200704
    """
    from egoworld.media.formats import canonical_image_format
    from egoworld.models.doctor import check_server

    image_format = canonical_image_format(image_format)
    if frames is not None and frames < 1:
        raise ValueError(f"--frames must be at least 1, got {frames}")
    report = check_server(
        base_url,
        model,
        api_key_env=api_key_env,
        timeout=timeout,
        frames=frames,
        max_pixels=max_pixels,
        image_format=image_format,
    )
    for c in report.checks:
        mark = "ok " if c.ok else ("?  " if c.ok is None or not c.required else "FAIL")
        print(f"{mark:<4} {c.name:<15} {c.detail}")
    if not report.ok:
        raise typer.Exit(1)
