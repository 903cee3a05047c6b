"""Independent plain-Python (and SimPy) models of the engines, written apart from ``mopt``: the tests
compare the compiled engines with them job by job or replication by replication, and the benchmark
scripts in ``benchmarks/`` time them."""
