"""Pure argument builders and output parsers of the external tools (nvcc, ncu, compute-sanitizer, nsys)."""
