"""Metrics: accuracy, MRA variants, SEM, clustered bootstrap CIs, Shuffle24 diagnostics."""

from egoworld.metrics.mra import mra_linear, mra_staircase
from egoworld.metrics.shuffle import ShuffleStats, shuffle_stats
from egoworld.metrics.stats import cluster_bootstrap_ci, mean_sem

__all__ = ["ShuffleStats", "cluster_bootstrap_ci", "mean_sem", "mra_linear", "mra_staircase", "shuffle_stats"]
