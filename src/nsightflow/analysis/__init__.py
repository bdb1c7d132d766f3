"""Analysis: pure pandas over the stages' outputs (no GPU, no tools, no machine probes)."""
