"""The timeline on the GPU.

The driver (choosing nsys or CUPTI), the worker that runs a variant under it, and the
CUPTI activity reader.
"""
