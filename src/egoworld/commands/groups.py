"""Help texts of the root command groups. A ``egoworld.commands`` entry point that names a string (not a
function) makes the group at its path; packages add commands to any group through their own entry points."""

from __future__ import annotations

IMPORT = "Import an official benchmark file as a benchmark folder."
BENCH = "Inspect and check benchmark folders."
BUILD = "Build a benchmark from worlds (recordings or synthetic)."
EXPORT = "Write benchmarks and runs in other tools' formats (lmms-eval, Inspect, Hugging Face, Parquet)."
SWEEP = "Evaluation campaigns: models × benchmarks × settings, each cell a run folder."
