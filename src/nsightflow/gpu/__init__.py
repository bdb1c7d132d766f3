"""GPU work: the drivers of the GPU stages and what runs on the GPU.

The drivers of verify, time, profile, sanitize, sweep and timeline read the upstream
status, run the work in a process of its own with a time limit (the worker) and
write the stage's JSON. In the worker the one launcher loads the cubin and runs it:
verification, timing, sweep points, traced sequences. The ceilings (a copy and an
FMA kernel) are measured in the stage's own process.
"""
