"""The plot stage's file names, in one place: the workflow and the report read them here.

Every figure is written twice with one stem: ``<name>.png`` (Markdown, PDF) and
``<name>.svg`` (the HTML page). The per-step figures go to the ``steps/`` folder
beside the family figures, one ``step_<variant>`` per optimization step.
"""

FIGURES = ("perf_vs_size", "roofline", "stalls", "bytes_by_level", "step_changes")
FORMATS = ("png", "svg")
STEP_DIR = "steps"


def figure_files() -> list[str]:
    """File names of the family figures, every format."""
    return [f"{name}.{ext}" for name in FIGURES for ext in FORMATS]


def step_stem(variant: str) -> str:
    """Stem of a step's figure relative to the figures folder: ``steps/step_<variant>``."""
    return f"{STEP_DIR}/step_{variant}"
