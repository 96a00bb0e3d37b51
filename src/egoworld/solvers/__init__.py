"""Baseline solvers: backends that may read the benchmark (``random``, ``prior``, ``oracle``).

They sit above the benchmarks: a solver looks a request's sample up by ``request.sample_id`` in the benchmark
of its `ModelContext` and asks the benchmark's plug-in for what differs (the gold reply, the query time of a
time + point question), while HTTP and in-process backends (`egoworld.models`) see requests only. Each
module registers one `Backend` under the ``egoworld.backends`` entry-point group.
"""
