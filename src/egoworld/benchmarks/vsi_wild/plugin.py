"""VSI-Super-Wild plug-in: the paper's column order (Table 1: VMR, VPO, VOO, VOC, Overall)."""

from egoworld.benchmarks.registry import BenchmarkPlugin
from egoworld.benchmarks.vsi_wild import BENCHMARK_NAME, TASK_ORDER

PLUGIN = BenchmarkPlugin(name=BENCHMARK_NAME, report_columns=TASK_ORDER)
