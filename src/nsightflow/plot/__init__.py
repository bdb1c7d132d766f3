"""Figures from the analysis and findings tables (matplotlib's object API)."""
