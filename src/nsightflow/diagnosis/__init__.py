"""Findings: the diagnosis rules over the analysis table."""
