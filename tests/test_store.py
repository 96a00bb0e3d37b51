"""The response store: an ok row is never overwritten; error rows are replaced and counted."""

from __future__ import annotations

from egoworld.core.folders import store as store_module
from egoworld.core.folders.store import ResponseStore


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


def _media_request(order: str) -> dict:
    frames = [{"type": "image", "sha256": f"{i:064x}", "mime": "image/jpeg", "frame": i} for i in range(128)]
    labelled = [p for i, f in enumerate(frames) for p in ({"type": "text", "text": f"Frame {i + 1}:"}, f)]
    question = {"type": "text", "text": f"Which way? options in order {order}"}
    return {"messages": [{"role": "user", "content": [*labelled, question]}], "media_bytes": 7}


def test_a_questions_option_orders_store_their_frame_descriptions_once(tmp_path):
    orders = ["0123", "1032", "2301", "3210"]
    with ResponseStore(tmp_path / "r.sqlite") as store:
        for order in orders:
            store.put_request(f"k{order}", _media_request(order))
        store.put_request(
            "text-only", {"messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]}
        )
        assert store.db.execute("SELECT COUNT(*) FROM request_blocks").fetchone()[0] == 1
        size = store.db.execute(
            "SELECT SUM(LENGTH(request)) FROM requests WHERE key != 'text-only'"
        ).fetchone()[0]
        assert size < 200 * len(orders), size  # each row keeps its question and the block's hash only
    with ResponseStore(tmp_path / "r.sqlite", readonly=True) as ro:  # every reader sees the whole request
        for order in orders:
            assert ro.request(f"k{order}") == _media_request(order)
        assert ro.request("text-only")["messages"][0]["content"] == [{"type": "text", "text": "q"}]


def test_is_ok_looks_up_one_key(tmp_path):
    with ResponseStore(tmp_path / "r.sqlite") as store:
        row = {"sample_id": "s", "permutation": "0123", "epoch": 0}
        store.put(key="a", status="ok", raw="B", **row)
        store.put(key="b", status="error", error="HTTP 500", **row)
        assert (store.is_ok("a"), store.is_ok("b"), store.is_ok("c")) == (True, False, False)


def test_a_media_block_is_packed_once_and_stored_byte_identical(tmp_path, monkeypatch):
    packed: list[object] = []
    pack = store_module._pack

    def counting_pack(value):
        packed.append(value)
        return pack(value)

    monkeypatch.setattr(store_module, "_pack", counting_pack)
    orders = ["0123", "1032", "2301", "3210"]
    with ResponseStore(tmp_path / "memo.sqlite") as store:
        for order in orders:
            store.put_request(f"k{order}", _media_request(order))
    assert sum(isinstance(v, list) for v in packed) == 1 and len(packed) == 1 + len(orders)
    monkeypatch.setattr(store_module, "_BLOCK_MEMO", 0)  # nothing remembered: every order packs its block
    with ResponseStore(tmp_path / "plain.sqlite") as store:
        for order in orders:
            store.put_request(f"k{order}", _media_request(order))
    assert sum(isinstance(v, list) for v in packed) == 1 + len(orders)
    tables = []
    for name in ("memo", "plain"):
        with ResponseStore(tmp_path / f"{name}.sqlite", readonly=True) as ro:
            tables.append(
                [
                    ro.db.execute("SELECT * FROM requests ORDER BY key").fetchall(),
                    ro.db.execute("SELECT * FROM request_blocks ORDER BY hash").fetchall(),
                ]
            )
    assert [[tuple(r) for r in t] for t in tables[0]] == [[tuple(r) for r in t] for t in tables[1]]


def test_a_block_is_recognised_by_its_content_not_by_its_frames_hashes(tmp_path):
    with ResponseStore(tmp_path / "r.sqlite") as store:
        first = _media_request("0123")
        moved = _media_request("0123")
        moved["messages"][0]["content"][1]["frame"] = 0.0  # equal to 0 in Python, not in JSON
        store.put_request("a", first)
        store.put_request("b", moved)
        assert store.db.execute("SELECT COUNT(*) FROM request_blocks").fetchone()[0] == 2
        assert store.request("b") == moved and store.request("b")["messages"][0]["content"][1]["frame"] == 0.0
        assert isinstance(store.request("a")["messages"][0]["content"][1]["frame"], int)


def test_a_block_written_in_a_rolled_back_transaction_is_written_again(tmp_path):
    with ResponseStore(tmp_path / "r.sqlite") as store:
        try:
            with store.transaction():
                store.put_request("a", _media_request("0123"))
                raise RuntimeError("the shard failed")
        except RuntimeError:
            pass
        assert store.db.execute("SELECT COUNT(*) FROM request_blocks").fetchone()[0] == 0
        store.put_request("b", _media_request("1032"))
        assert store.request("b") == _media_request("1032")
