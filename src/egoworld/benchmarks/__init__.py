"""Benchmarks: the folder contract (manifest + samples) and one sub-package per benchmark."""

from egoworld.benchmarks.folder import Benchmark, load_benchmark, save_benchmark
from egoworld.benchmarks.schema import Manifest, Media, Sample, TaskInfo

__all__ = ["Benchmark", "Manifest", "Media", "Sample", "TaskInfo", "load_benchmark", "save_benchmark"]
