"""Analysis: pandas over the stages' output files, one family or run at a time.

Joins, rates, regimes, hotspots, timelines, sweeps and comparisons of runs. It reads
the tools' metric names and report parsers and runs no tool, no GPU work and no probe
of this machine.
"""
