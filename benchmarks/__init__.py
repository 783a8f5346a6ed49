"""Throughput and learning benchmarks; results are written to ``benchmarks/results/``."""
