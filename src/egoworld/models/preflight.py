"""The connection preflight: one cheap check that a server can be reached before any request is sent.

A run (and a judge) calls `check_connection` once, before its first request. An unreachable host, a DNS
failure, a refused connection or a rejected API key stops the command with one clear error instead of
retrying every request for minutes. ``egoworld doctor`` runs the fuller checks (`models.doctor`).
"""

from __future__ import annotations

import os

import httpx

from egoworld.core.model import ModelUnavailable


class ServerUnreachable(ModelUnavailable):
    """The server cannot be used at all (no connection, DNS failure, key refused): fatal for the command."""


def check_connection(
    base_url: str, *, api_key_env: str = "OPENAI_API_KEY", timeout: float = 10.0
) -> list[str] | None:
    """``GET {base_url}/models`` once; returns the listed model ids (None when the server has no listing).

    Raises `ServerUnreachable` naming the URL, what went wrong and the fix.
    """
    base_url = base_url.rstrip("/")
    key = os.environ.get(api_key_env)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    fix = f"start the server or fix the URL (`egoworld doctor --base-url {base_url}` checks it)"
    try:
        with httpx.Client(base_url=base_url, headers=headers, timeout=timeout) as client:
            resp = client.get("/models")
    except httpx.TimeoutException as exc:
        raise ServerUnreachable(
            f"{base_url}: no answer within {timeout:g} s ({type(exc).__name__}); {fix}"
        ) from None
    except httpx.TransportError as exc:
        reason = str(exc) or type(exc).__name__
        raise ServerUnreachable(f"{base_url}: cannot connect ({reason}); {fix}") from None
    if resp.status_code in (401, 403):
        where = f"${api_key_env} is {'set' if key else 'not set'}"
        raise ServerUnreachable(
            f"{base_url}: the server refused the API key (HTTP {resp.status_code}; {where}); put the key "
            f"in ${api_key_env} (or name another variable with api_key_env=NAME)"
        )
    if resp.status_code != 200:
        return None  # reachable, but no model listing (some servers lack /models): requests will tell
    try:
        return [str(m.get("id", "")) for m in resp.json().get("data", []) if isinstance(m, dict)]
    except (ValueError, AttributeError):
        return None


def served_model_warning(requested: str, served: list[str] | set[str] | None, source: str) -> str | None:
    """A warning when the server does not list (or did not answer with) the requested model id."""
    if not served:
        return None
    names = sorted(set(served))
    if requested in names:
        return None
    return f"requested model {requested!r} but the server {source} {', '.join(map(repr, names))}"
