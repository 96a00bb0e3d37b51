"""The decoded-frame cache: content addressing, size cap with LRU eviction, and concurrent writers."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sqlite3
import threading
import time

from egoworld.media.cache import FrameCache


def _blob(i: int, size: int = 1000) -> bytes:
    return hashlib.sha256(str(i).encode()).digest() * (size // 32)


def test_put_lookup_get_round_trip(tmp_path):
    cache = FrameCache(tmp_path, max_bytes=10**9)
    data = _blob(1)
    sha = cache.put("k1", data, "image/png")
    assert sha == hashlib.sha256(data).hexdigest()
    assert cache.lookup(["k1", "nope"]) == {"k1": (sha, "image/png", len(data))}
    assert cache.get("k1") == data and cache.get("nope") is None
    cache.put("k1", data, "image/png")  # same key again: nothing added
    assert cache.usage()["entries"] == 1 and cache.usage()["bytes"] == len(data)
    cache.close()
    again = FrameCache(tmp_path, max_bytes=10**9)  # persists across openings
    assert again.get("k1") == data
    again.close()


def test_size_cap_evicts_least_recently_used(tmp_path):
    cache = FrameCache(tmp_path, max_bytes=10 * 992)
    for i in range(8):
        cache.put(f"k{i}", _blob(i), "image/png")
        time.sleep(0.002)
    cache.lookup(["k0", "k1"])  # used recently: kept
    for i in range(8, 14):
        cache.put(f"k{i}", _blob(i), "image/png")
        time.sleep(0.002)
    usage = cache.usage()
    assert usage["bytes"] <= cache.max_bytes
    kept = set(cache.lookup([f"k{i}" for i in range(14)]))
    assert {"k0", "k1", "k13"} <= kept
    assert "k2" not in kept and "k3" not in kept  # the least recently used went first
    with sqlite3.connect(cache.path) as db:
        assert db.execute("SELECT SUM(size) FROM blobs").fetchone()[0] == usage["bytes"]
    cache.close()


def test_file_hash_is_memoised_and_follows_edits(tmp_path):
    cache = FrameCache(tmp_path / "c")
    f = tmp_path / "v.bin"
    f.write_bytes(b"one")
    first = cache.file_sha256(f)
    assert first == hashlib.sha256(b"one").hexdigest()
    f.write_bytes(b"two!")
    os.utime(f, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert cache.file_sha256(f) == hashlib.sha256(b"two!").hexdigest()
    cache.close()


def _writer(root: str, worker: int, n: int) -> None:
    cache = FrameCache(root, max_bytes=10**9)
    for i in range(n):
        key = i if i % 2 == 0 else 1000 * worker + i  # even keys are shared by every worker
        cache.put(f"k{key}", _blob(key, 2000), "image/png")
        cache.lookup([f"k{key}"])
    cache.close()


def test_concurrent_processes_and_threads_share_one_cache(tmp_path):
    root = str(tmp_path)
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(root, w, 40)) for w in range(3)]
    for p in procs:
        p.start()
    threads = [threading.Thread(target=_writer, args=(root, 10 + w, 40)) for w in range(3)]
    for t in threads:
        t.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    for t in threads:
        t.join(120)
    cache = FrameCache(root, max_bytes=10**9)
    keys = {i for i in range(0, 40, 2)} | {
        1000 * w + i for w in (0, 1, 2, 10, 11, 12) for i in range(1, 40, 2)
    }
    found = cache.lookup([f"k{k}" for k in keys])
    assert len(found) == len(keys) == 20 + 6 * 20
    assert all(cache.get(f"k{k}") == _blob(k, 2000) for k in keys)
    assert cache.usage()["bytes"] == sum(len(_blob(k, 2000)) for k in keys)  # running total stayed exact
    cache.close()
