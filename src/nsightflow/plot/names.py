"""The plot stage's file names, in one place: the workflow and the report read them here.

Every figure is written twice with one stem: ``<name>.png`` (Markdown, PDF) and
``<name>.svg`` (the HTML page). The per-step figures go to the ``steps/`` folder
beside the family figures, one ``step_<variant>`` per optimization step whose
section shows it (:func:`step_figured`).
"""

from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col

FIGURES = ("perf_vs_size", "roofline", "stalls", "bytes_by_level", "step_changes")
FORMATS = ("png", "svg")
STEP_DIR = "steps"


def figure_files() -> list[str]:
    """File names of the family figures, every format."""
    return [f"{name}.{ext}" for name in FIGURES for ext in FORMATS]


def step_stem(variant: str) -> str:
    """Stem of a step's figure relative to the figures folder: ``steps/step_<variant>``."""
    return f"{STEP_DIR}/step_{variant}"


def step_figured(variants: Mapping[str, Mapping[str, Any]], variant: str) -> bool:
    """Whether ``variant``'s step section shows a figure, so the plot stage draws one.

    A step whose variant failed says why instead, and a step onto another input only
    names it (its times are not comparable): neither has a figure to show.
    """
    after = variants[variant]
    before = variants[str(after[col.IMPROVES_ON])]
    same_input = after.get(col.INPUT, "") == before.get(col.INPUT, "")
    return bool(after[col.STATUS] == Status.OK and same_input)
