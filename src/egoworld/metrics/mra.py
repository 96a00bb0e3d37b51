"""Mean relative accuracy for numeric answers.

* `mra_linear` — VSI-Super-Wild: ``max(0, 1 − |ŷ − y| / max(y, 1))``.
* `mra_staircase` — VSI-Bench: the share of the 10 thresholds θ ∈ {0.50, 0.55, …, 0.95} with
  ``|ŷ − y| / y ≤ 1 − θ``, computed with the official float arithmetic (``np.linspace`` thresholds), so
  e.g. y = 10, ŷ = 8 gives 0.6 rather than 0.7. For y = 0 the official code divides by zero; here an exact
  answer scores 1 and any other 0.
"""

from __future__ import annotations

import numpy as np


def mra_linear(pred: float, gt: float) -> float:
    return max(0.0, 1.0 - abs(float(pred) - float(gt)) / max(float(gt), 1.0))


_START, _END, _STEP = 0.5, 0.95, 0.05
_THRESHOLDS = np.linspace(_START, _END, int((_END - _START) / _STEP + 2))


def mra_staircase(pred: float, gt: float) -> float:
    if float(gt) == 0.0:
        return 1.0 if float(pred) == 0.0 else 0.0
    rel = abs(float(pred) - float(gt)) / float(gt)
    return float((rel <= 1 - _THRESHOLDS).mean())
