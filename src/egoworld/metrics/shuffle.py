"""Shuffle24 diagnostics on a correctness matrix ``C[q, j]`` (question q answered right in order j).

Orders are numbered lexicographically over permutations of the original option positions (order 0 is the
original order), so order j means the same rearrangement for every question.

* Top-K  = share of questions right in at least one of the first K orders (K = 1 … 24).
* Pass@K = share of questions right in at least K of the 24 orders.
* option-order bias = standard deviation (population, ddof = 0) of the per-order accuracies; plus the
  best − worst gap between orders.
* position pick rate = share of all answers that picked display position A, B, C, D (unparsed separately).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ShuffleStats:
    n_questions: int
    n_orders: int
    top_k: list[float]
    pass_at_k: list[float]
    order_accuracy: list[float]
    order_bias_std: float
    best_worst_gap: float
    position_pick_rate: dict[str, float]

    def as_dict(self) -> dict:
        return {
            "n": self.n_questions,
            "orders": self.n_orders,
            "top_k": self.top_k,
            "pass_at_k": self.pass_at_k,
            "order_accuracy": self.order_accuracy,
            "order_bias_std": self.order_bias_std,
            "best_worst_gap": self.best_worst_gap,
            "position_pick_rate": self.position_pick_rate,
        }


def shuffle_stats(correct: np.ndarray, picked: np.ndarray) -> ShuffleStats:
    """``correct``: bool [Q, J]; ``picked``: int [Q, J] display position chosen (−1 = no answer). Percent out."""
    correct = np.asarray(correct, dtype=bool)
    picked = np.asarray(picked, dtype=int)
    if correct.ndim != 2 or correct.shape != picked.shape:
        raise ValueError("correct and picked must be [questions, orders] arrays of the same shape")
    q, j = correct.shape
    if q == 0:
        raise ValueError("no questions with a complete set of orders")
    seen = np.logical_or.accumulate(correct, axis=1)
    top_k = (100.0 * seen.mean(axis=0)).tolist()
    hits = correct.sum(axis=1)
    pass_at_k = [100.0 * float((hits >= k).mean()) for k in range(1, j + 1)]
    order_acc = 100.0 * correct.mean(axis=0)
    n_pos = int(max(picked.max(initial=-1) + 1, 4))
    rates = {chr(ord("A") + p): 100.0 * float((picked == p).mean()) for p in range(n_pos)}
    rates["none"] = 100.0 * float((picked < 0).mean())
    return ShuffleStats(
        n_questions=q,
        n_orders=j,
        top_k=top_k,
        pass_at_k=pass_at_k,
        order_accuracy=order_acc.tolist(),
        order_bias_std=float(order_acc.std(ddof=0)),
        best_worst_gap=float(order_acc.max() - order_acc.min()),
        position_pick_rate=rates,
    )
