"""Redaction reads the secret values once per state of the environment and still sees every change."""

from __future__ import annotations

import re

from egoworld.core.process import secrets
from egoworld.core.process.secrets import REDACTED, redact, secret_values


class CountingPattern:
    """`secrets._SECRET_NAME` that counts the variable names it is asked about."""

    def __init__(self) -> None:
        self.pattern = re.compile(secrets._SECRET_NAME.pattern, re.IGNORECASE)
        self.names = 0

    def search(self, name: str) -> re.Match[str] | None:
        self.names += 1
        return self.pattern.search(name)


def test_the_environment_is_scanned_once_until_it_changes(monkeypatch):
    counter = CountingPattern()
    monkeypatch.setattr(secrets, "_SECRET_NAME", counter)
    monkeypatch.setenv("EGOWORLD_TEST_API_KEY", "first-secret-value")
    assert redact("echo first-secret-value") == f"echo {REDACTED}"
    scanned = counter.names
    assert scanned > 0
    for _ in range(50):
        assert redact("echo first-secret-value") == f"echo {REDACTED}"
    assert counter.names == scanned  # 50 more responses, no rescan
    monkeypatch.setenv("EGOWORLD_TEST_TOKEN", "second-secret-value")  # set after the first call
    assert redact("a second-secret-value b") == f"a {REDACTED} b"
    assert counter.names > scanned


def test_a_changed_or_removed_secret_is_seen(monkeypatch):
    monkeypatch.setenv("EGOWORLD_TEST_SECRET", "old-secret-value")
    assert "old-secret-value" in secret_values()
    monkeypatch.setenv("EGOWORLD_TEST_SECRET", "new-secret-value")
    assert redact("new-secret-value") == REDACTED
    assert "old-secret-value" not in secret_values()
    monkeypatch.delenv("EGOWORLD_TEST_SECRET")
    assert "new-secret-value" not in secret_values()
    monkeypatch.setenv("EGOWORLD_TEST_PLAIN", "plain-value-here")  # extra names are cached apart
    assert redact("plain-value-here") == "plain-value-here"
    assert redact("plain-value-here", extra_names=("EGOWORLD_TEST_PLAIN",)) == REDACTED


def test_values_are_longest_first(monkeypatch):
    monkeypatch.setenv("EGOWORLD_TEST_PASSWORD", "abcdef")
    monkeypatch.setenv("EGOWORLD_TEST_CREDENTIAL", "abcdefghij")
    values = secret_values()
    assert values.index("abcdefghij") < values.index("abcdef")
    assert redact("abcdefghij") == REDACTED  # the longer one first: no "[redacted]ghij"
