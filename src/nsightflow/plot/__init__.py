"""Figures from the analysis tables (matplotlib's object API)."""
