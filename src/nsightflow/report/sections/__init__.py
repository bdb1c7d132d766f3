"""The sections of a family report, in the order of the seed Jacobi-2D report."""
