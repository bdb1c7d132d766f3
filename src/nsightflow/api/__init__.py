"""nsightflow from Python: replay or measure families, read the results as DataFrames.

The stable import path is ``nsightflow.api``. It runs the same stages as the
``nsightflow`` command line and the Snakemake workflow, with the same files in and
out, and reads their outputs; it measures and diagnoses nothing in a way of its own::

    import nsightflow.api as nf

    run = nf.replay(["vecadd"], source=Path("examples/h200"))   # no GPU needed
    run.ladder("vecadd")              # one row per variant at the largest size
    run.findings("vecadd")            # the diagnosis as records
    run.figure_file("vecadd", "roofline")
    nf.compare(Path("examples/h200"), Path("examples/h200_rerun"), ("vecadd",)).pairs

    # on a GPU machine: some variants at some sizes, then the same tables
    run = nf.measure("vecadd", ["v3_float4", "v4_triton"], sizes=[1 << 24])

A variant may be a Python launcher that runs Triton, CuPy or PyTorch kernels on the
buffers nsightflow allocates (:mod:`nsightflow.family.pylauncher`).
"""

from nsightflow.api.compare import Compared, compare
from nsightflow.api.pipeline import MeasureOptions, measure, replay
from nsightflow.api.run import LADDER_COLUMNS, Results
from nsightflow.family.registry import Family, Variant, load_family

__all__ = [
    "LADDER_COLUMNS",
    "Compared",
    "Family",
    "MeasureOptions",
    "Results",
    "Variant",
    "compare",
    "load_family",
    "measure",
    "replay",
]
