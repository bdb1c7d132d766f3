"""PDF output of a family report."""
