"""One example command per subcommand, shown at the end of ``nsightflow <cmd> --help``.

Kept beside the stage list rather than in each stage module so that a test can check
that every registered subcommand has one, and so that they read as one set.
"""

EXAMPLES = {
    "sweep-compile": "nsightflow sweep-compile --family sgemm --variant "
    "v7_double_buffer --space quick --build-dir results/sweep/sgemm/v7/build "
    "--out results/sweep/sgemm/v7/compile.json",
    "sweep": "nsightflow sweep --family sgemm --variant v7_double_buffer "
    "--compiled compile.json --build-dir build --cache cache.jsonl --out v7.json "
    "--write-tuned",
    "compile": "nsightflow compile --family sgemm --variant v7_double_buffer "
    "--cubin v7.cubin --resources v7.resources.json",
    "verify": "nsightflow verify --family sgemm --variant v0_naive --cubin v0.cubin "
    "--resources v0.resources.json --out v0.verify.json",
    "time": "nsightflow time --family sgemm --variant v0_naive --cubin v0.cubin "
    "--verify v0.verify.json --out v0.time.json",
    "profile": "nsightflow profile --family sgemm --variant v0_naive --cubin v0.cubin "
    "--verify v0.verify.json --out-dir results/profile/sgemm",
    "sanitize": "nsightflow sanitize --family sgemm --variant v0_naive --cubin "
    "v0.cubin --resources v0.resources.json --out v0.sanitize.json",
    "reference": "nsightflow reference --family jacobi2d "
    "--out results/reference/jacobi2d/index.json",
    "measure": "nsightflow measure --family sgemm --variant v0_naive --cubin v0.cubin "
    "--resources v0.resources.json --verify-out v0.verify.json --time-out v0.time.json",
    "ceilings": "nsightflow ceilings --out results/ceilings.json",
    "ceilings-table": "nsightflow ceilings-table results/ceilings.json "
    "-o results/report/ceilings.csv",
    "timeline-backend": "nsightflow timeline-backend --out backend.json",
    "timeline": "nsightflow timeline --family sgemm --variant v0_naive --cubin "
    "v0.cubin --verify v0.verify.json --backend-choice backend.json --out v0.json "
    "--table v0.csv",
    "parse": "nsightflow parse examples/h200/profile/sgemm/v0_naive/*.ncu-rep "
    "-o metrics.csv",
    "analyze": "nsightflow analyze --family sgemm --metrics metrics.csv "
    "--out-dir results/analysis/sgemm",
    "timeline-analyze": "nsightflow timeline-analyze --records t.json --tables "
    "t.csv --out-dir results/analysis/sgemm",
    "plot": "nsightflow plot --analysis-dir results/analysis/sgemm "
    "--out-dir results/report/sgemm/figures",
    "timeline-plot": "nsightflow timeline-plot --analysis-dir "
    "results/analysis/sgemm --family sgemm --out timeline.png",
    "sweep-analyze": "nsightflow sweep-analyze --family sgemm --records "
    "examples/h200/sweep/sgemm/v7_double_buffer.json --out-dir results/analysis/sgemm",
    "sweep-plot": "nsightflow sweep-plot --analysis-dir results/analysis/sgemm "
    "--out-dir figures/sweep --variants v7_double_buffer",
    "report": "nsightflow report --analysis-dir results/analysis/sgemm "
    "--figures-dir results/report/sgemm/figures --out-dir results/report/sgemm",
    "pdf": "nsightflow pdf results/report/sgemm/report.html -o report.pdf",
    "index": "nsightflow index --families sgemm jacobi2d",
    "compare": "nsightflow compare examples/h200 results -o results/compare",
    "record": "nsightflow record --results results --out my-recording",
    "replay": "nsightflow replay examples/h200 results",
    "replay-family": "nsightflow replay-family --source examples/h200 --family sgemm",
    "doctor": "nsightflow doctor",
    "gpu-lock": "nsightflow gpu-lock --devices 0 -- python -m nsightflow time ...",
}


def example_epilog(name: str) -> str:
    """The ``--help`` epilog of subcommand ``name`` (``%`` escaped for argparse)."""
    return "example: " + EXAMPLES[name].replace("%", "%%")
