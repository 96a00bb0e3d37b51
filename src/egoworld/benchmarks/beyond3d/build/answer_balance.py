"""Exact answer balance: quotas and a capacitated assignment that can re-route earlier choices.

`split_even` splits ``n`` over classes as evenly as possible (``334/333/333``; the caller orders the
classes, so which get the extra one is seed-determined). `CapacitatedAssignment` gives each item one of its allowed
classes without exceeding any class's capacity: when every allowed class is full it searches an
augmenting path (move earlier items to other allowed classes) before giving up, so a pool that admits
an exact assignment gets one. Items can be removed again (used to roll back a rejected anchor).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Sequence

Label = Hashable


def split_even(n: int, labels: Sequence[Label]) -> dict[Label, int]:
    """``n`` split over ``labels`` as evenly as possible; the first ``n % k`` labels get one more."""
    k = len(labels)
    return {lab: n // k + (1 if i < n % k else 0) for i, lab in enumerate(labels)}


class CapacitatedAssignment:
    """Items → classes under per-class capacities, with augmenting-path repair."""

    def __init__(self, capacity: dict[Label, int]):
        self.capacity = dict(capacity)
        self.members: dict[Label, list[Hashable]] = {c: [] for c in capacity}
        self.options: dict[Hashable, tuple[Label, ...]] = {}
        self.assigned: dict[Hashable, Label] = {}

    def room(self, label: Label) -> int:
        return self.capacity.get(label, 0) - len(self.members.get(label, ()))

    def add(self, item: Hashable, options: Sequence[Label]) -> bool:
        """Assign ``item`` to one of ``options`` (in preference order); False (and no change) when
        impossible."""
        opts = tuple(dict.fromkeys(o for o in options if o in self.capacity))
        if not opts:
            return False
        free = [o for o in opts if self.room(o) > 0]
        if free:
            best = max(free, key=lambda o: (self.room(o), -opts.index(o)))
            self._put(item, opts, best)
            return True
        path = self._augment(opts)
        if path is None:
            return False
        for moved, src, dst in reversed(path):
            self.members[src].remove(moved)
            self.members.setdefault(dst, []).append(moved)
            self.assigned[moved] = dst
        self._put(item, opts, path[0][1])
        return True

    def remove(self, item: Hashable) -> None:
        label = self.assigned.pop(item)
        self.members[label].remove(item)
        del self.options[item]

    def _put(self, item: Hashable, opts: tuple[Label, ...], label: Label) -> None:
        self.options[item] = opts
        self.assigned[item] = label
        self.members.setdefault(label, []).append(item)

    def _augment(self, start: tuple[Label, ...]) -> list[tuple[Hashable, Label, Label]] | None:
        """Moves ``(item, from, to)`` from a full start class to a class with room (first move first)."""
        parent: dict[Label, tuple[Label, Hashable] | None] = {s: None for s in start}
        queue = deque(start)
        while queue:
            cls = queue.popleft()
            for item in self.members.get(cls, []):
                for alt in self.options[item]:
                    if alt in parent:
                        continue
                    parent[alt] = (cls, item)
                    if self.room(alt) > 0:
                        moves = []
                        node = alt
                        while parent[node] is not None:
                            prev, moved = parent[node]
                            moves.append((moved, prev, node))
                            node = prev
                        return moves[::-1]
                    queue.append(alt)
        return None
