"""This machine: what it can do, its GPU lock, earlier measurements, recordings.

Capabilities and ``doctor``; one GPU job per GPU and NVML's account of the GPU a job
was given; the archive that keeps measurements a run would overwrite; and replay,
which rebuilds the stage outputs from a recording instead of measuring.
"""
