"""`AdaptiveLimit`: how many requests a server model keeps in flight — AIMD, as TCP does.

It starts at ``--concurrency``; a throttled reply (429, 5xx) or latency rising well above the fastest seen
halves the limit (at most once per cool-down), each success adds 1/limit (about one more slot per round of
replies) back up to the start value, and a ``Retry-After`` pauses new requests until it has passed. The
figures (time-weighted mean in flight, seconds spent below the start value) go into run.json.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

POLL_S = 0.005
LATENCY_FACTOR = 3.0  # mean latency this many times the fastest seen counts as the server slowing down
LATENCY_MIN_SAMPLES = 8
LATENCY_MIN_RISE_S = 0.25  # ... and at least this much slower (jitter of fast local servers is no signal)


class AdaptiveLimit:
    def __init__(self, start: int, *, cooldown_s: float = 0.5, clock: Any = time.monotonic):
        self.max = max(1, int(start))
        self.limit = float(self.max)
        self.in_flight = 0
        self.cooldown_s = cooldown_s
        self.clock = clock
        self.hold_until = 0.0
        self.last_decrease = -1e18
        self.fastest: float | None = None
        self.mean_latency: float | None = None
        self.latency_samples = 0
        self.decreases = 0
        self.lowest = self.max
        self.peak_in_flight = 0
        self._t0: float | None = None
        self._last = 0.0
        self._area = 0.0  # in-flight × seconds
        self._throttled = 0.0  # seconds with the limit below the start value

    def _tick(self) -> None:
        now = self.clock()
        if self._t0 is None:
            self._t0 = self._last = now
        dt = now - self._last
        self._area += self.in_flight * dt
        if self.limit < self.max:
            self._throttled += dt
        self._last = now

    async def acquire(self) -> None:
        while self.in_flight >= int(self.limit) or self.clock() < self.hold_until:
            await asyncio.sleep(POLL_S)
        self._tick()
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)

    def release(self) -> None:
        self._tick()
        self.in_flight -= 1

    def success(self, latency_s: float) -> None:
        self._tick()
        self.fastest = latency_s if self.fastest is None else min(self.fastest, latency_s)
        self.mean_latency = (
            latency_s if self.mean_latency is None else 0.8 * self.mean_latency + 0.2 * latency_s
        )
        self.latency_samples += 1
        slow = (
            self.latency_samples >= LATENCY_MIN_SAMPLES
            and self.fastest > 0
            and self.mean_latency > LATENCY_FACTOR * self.fastest
            and self.mean_latency - self.fastest > LATENCY_MIN_RISE_S
        )
        if slow:
            self._decrease()
        else:
            self.limit = min(float(self.max), self.limit + 1.0 / self.limit)

    def throttled(self, retry_after: float | None = None) -> None:
        """A 429 / 5xx / timeout: halve the limit; pause new requests for ``retry_after`` seconds."""
        self._tick()
        if retry_after:
            self.hold_until = max(self.hold_until, self.clock() + retry_after)
        self._decrease()

    def _decrease(self) -> None:
        now = self.clock()
        if now - self.last_decrease < self.cooldown_s:
            return
        self.last_decrease = now
        self.limit = max(1.0, self.limit / 2.0)
        self.lowest = min(self.lowest, int(self.limit))
        self.decreases += 1
        if self.mean_latency is not None and self.fastest is not None:
            self.mean_latency = self.fastest * 2.0  # judge the next slowdown afresh

    def figures(self) -> dict[str, Any]:
        self._tick()
        span = (self._last - self._t0) if self._t0 is not None else 0.0
        return {
            "start": self.max,
            "mean_in_flight": round(self._area / span, 3) if span > 0 else None,
            "peak_in_flight": self.peak_in_flight,
            "lowest_limit": self.lowest,
            "final_limit": round(self.limit, 3),
            "decreases": self.decreases,
            "throttled_seconds": round(self._throttled, 3),
        }
