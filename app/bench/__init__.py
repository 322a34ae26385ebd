"""Benchmarks behind ``signpost bench NAME``: one module per NAME with
``add_arguments(parser)`` and ``run(args) -> int``. They print a table and write CSV
(and PNG when matplotlib is present); they never import Qt except ``gui``."""

# The first columns of every per-map table: (row key, heading, format).
MAP_COLS = [("map", "map", "{}"), ("nodes", "nodes", "{:,}"), ("arcs", "arcs", "{:,}")]
