"""The response store: an ok row is never overwritten; error rows are replaced and counted."""

from __future__ import annotations

from egoworld.core.store import ResponseStore


def test_ok_rows_are_final_and_errors_are_retried(tmp_path):
    with ResponseStore(tmp_path / "r.sqlite") as store:
        row = {"sample_id": "s", "permutation": "0123", "epoch": 0}
        store.put(key="a", status="ok", raw="B", **row)
        store.put(key="a", status="error", error="late failure", **row)
        assert store.get("a").status == "ok" and store.get("a").raw == "B" and store.get("a").attempts == 1
        store.put(key="b", status="error", error="HTTP 500", **row)
        store.put(key="b", status="error", error="HTTP 503", **row)
        assert store.get("b").error == "HTTP 503" and store.get("b").attempts == 2
        store.put(key="b", status="ok", raw="C", **row)
        b = store.get("b")
        assert (b.status, b.raw, b.attempts) == ("ok", "C", 3)
        assert store.counts()["ok"] == 2 and store.counts()["error"] == 0
        store.put_request("b", {"messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]})
        assert store.request("b")["messages"][0]["content"][0]["text"] == "q"
    with ResponseStore(tmp_path / "r.sqlite", readonly=True) as ro:
        assert ro.ok_keys() == {"a", "b"}
