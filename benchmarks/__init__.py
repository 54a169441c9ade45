"""Benchmarks that print numbers: training speed, and what pages and figures weigh.

Run them from the repository's root as modules, e.g. ``python -m benchmarks.page_weight``.
"""
