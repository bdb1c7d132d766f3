"""nsightflow: an Nsight-driven profiling pipeline for CUDA kernel variants."""

__version__ = "0.1.0"
SCHEMA_VERSION = 1
