"""Parameter sweeps on the GPU.

The driver (one job per variant), its worker process, the search space and the search
strategies (exhaustive, or Kernel Tuner's).
"""
