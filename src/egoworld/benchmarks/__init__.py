"""Benchmarks: one sub-package per benchmark (its builder, prompts, scoring and plug-in); the folder contract
they write is `egoworld.core`'s."""
