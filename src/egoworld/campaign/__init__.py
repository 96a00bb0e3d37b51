"""Evaluation campaigns: a matrix of models × benchmarks × settings, each cell a normal run folder."""
