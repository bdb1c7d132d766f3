"""The external tools: nvcc, nvdisasm, ncu, nsys and compute-sanitizer.

Argument lists built by pure functions, the runs, parsers of what the tools write
(ptxas output, ``.ncu-rep`` through ``ncu_report``, nsys CSV), and the provenance
stamped into every stage output (the tools' versions, the git revision).
"""
