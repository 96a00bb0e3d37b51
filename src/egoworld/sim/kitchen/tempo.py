"""The pace of a sim kitchen story, taken from HD-EPIC (`egoworld.world.hd_epic.movement_stats` over the
156 videos of ``assoc_info.json``; a test checks these constants against the real annotation).

HD-EPIC wearers move 7.75 objects a minute (median over videos) and mostly work at one place: many short
moves between fixtures within reach, with the hands busy nearby in between. A moved object then rests a
median 37 s (quartiles 8.8 s / 142 s) before its next move. The story reproduces that with *work
sessions* (several moves within reach of one standing place, dwelling on the work in between) beside
the room-crossing moves, and draws the dwell after each move from the short end of HD-EPIC's rest times.
"""

from __future__ import annotations

from random import Random

HD_EPIC_MOVES_PER_MIN = 7.75
HD_EPIC_REST_QUANTILES_S = {10: 2.4, 25: 8.8, 50: 37.1, 75: 141.9, 90: 400.7}
REACH_M = 1.3
"""fixtures whose standing place lies within this distance are worked at without crossing the room"""
SESSION_MOVES = (3, 8)
"""moves in one work session (inclusive range)"""
GATHER_MOVES = (1, 3)
"""objects brought over from elsewhere to the work place at the start of a session (inclusive range)"""
PUT_AWAY_MOVES = (1, 2)
"""things taken back across the room at the end of a session (inclusive range)"""
SHIFT_SHARE = 0.6
"""share of the moves within reach followed by a quick shift of something on the worktop"""
DWELL_GLANCES = (0.3, 0.55, 0.65, 0.85)
"""cumulative shares of glances while dwelling: at the work, to a fixture beside, up at a wall cupboard,
at a fixture within reach (the rest: anywhere in the room)"""
CLOSED_SHARE = 0.6
"""share of moves that put the object into a closed fixture (out of sight until it is moved again)"""


def dwell_s(rng: Random) -> float:
    """Seconds the wearer keeps working near a just-moved object: uniform between HD-EPIC's 10th and 25th
    rest percentiles (2.4–8.8 s), the part of the rest spent at the same place."""
    return rng.uniform(HD_EPIC_REST_QUANTILES_S[10], HD_EPIC_REST_QUANTILES_S[25])
