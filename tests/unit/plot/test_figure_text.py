"""Every figure of the bundled recording keeps its text apart and on the canvas.

Twice per figure: as matplotlib lays it out for the PNG (each text artist's extent
against every other's and the figure's; :mod:`nsightflow.plot.check`), and as a PDF
viewer reads it (each word's box from poppler against every other word's and the
page). The browser's layout of the SVG is checked in tests/browser.
"""

import json
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure

from figure_text import pdf_problems, pdftotext
from nsightflow.analysis import compare as C
from nsightflow.plot.check import text_overlaps
from nsightflow.plot.compare import ratio_figure
from nsightflow.plot.figures import family_figures, read_findings
from nsightflow.plot.names import FIGURES, step_figured, step_stem
from nsightflow.plot.svg import tipped_figure
from nsightflow.plot.sweep import sweep_figure
from nsightflow.plot.timeline import timeline_figure
from recorded import FAMILIES


def every_figure(folder: Path) -> dict[str, Figure]:
    """Each figure the plot stages draw for one family's analysis folder."""
    ctx = json.loads((folder / "context.json").read_text())
    figures = family_figures(
        pd.read_csv(folder / "analysis.csv"),
        pd.read_csv(folder / "stalls.csv"),
        ctx,
        read_findings(folder),
    )
    if (folder / "timeline_summary.csv").is_file():
        figures["timeline"] = timeline_figure(
            pd.read_csv(folder / "timeline.csv"),
            pd.read_csv(folder / "timeline_summary.csv"),
            ctx["family"]["name"],
        )
    if (folder / "sweep_summary.csv").is_file():
        configs = pd.read_csv(folder / "sweep.csv")
        for row in pd.read_csv(folder / "sweep_summary.csv").to_dict("records"):
            if row["status"] == "ok":
                mine = configs[configs["variant"] == row["variant"]]
                figures[f"sweep/{row['variant']}"] = sweep_figure(mine, row)
    return figures


@pytest.mark.parametrize("family", FAMILIES)
def test_no_figure_text_overlaps_or_leaves_the_png_or_the_pdf(
    analyses, family, tmp_path
):
    figures = every_figure(analyses[family])
    ctx = json.loads((analyses[family] / "context.json").read_text())
    variants = {v["name"]: v for v in ctx["variants"]}
    steps = {step_stem(v) for v, x in variants.items() if x["improves_on"]}
    shown = {s for s in steps if step_figured(variants, s.removeprefix("steps/step_"))}
    assert {*FIGURES, *shown} <= set(figures)
    png = {name: text_overlaps(fig) for name, fig in figures.items()}
    assert {name: p for name, p in png.items() if p} == {}
    if pdftotext() is None:
        pytest.skip("pdftotext is missing (apt-get install poppler-utils)")
    pdf = {
        name: pdf_problems(fig, tmp_path / f"{name.replace('/', '_')}.pdf")
        for name, fig in figures.items()
    }
    assert {name: p for name, p in pdf.items() if p} == {}


def test_the_checks_catch_overlapping_and_clipped_text(tmp_path):
    fig = tipped_figure(3, 2)
    ax = fig.subplots()
    ax.set_title("a title much too long for a small figure of three inches")
    ax.text(0.5, 0.5, "one label")
    ax.text(0.52, 0.5, "another label")
    png = text_overlaps(fig)
    assert ("one label", "another label") in png
    assert any(b == "<outside the figure>" for _a, b in png)
    if pdftotext() is None:
        pytest.skip("pdftotext is missing (apt-get install poppler-utils)")
    pdf = pdf_problems(fig, tmp_path / "bad.pdf")
    assert ("one", "another") in pdf or ("label", "another") in pdf
    assert any(b == "<outside>" for _a, b in pdf)


def test_the_compare_figure_keeps_its_text_apart(tmp_path):
    rows = []
    for family, variants in (("jacobi2d", 6), ("sgemm", 8)):
        for i in range(variants):
            for k, size in enumerate((256, 512, 1024, 2048, 4096, 8192)):
                ratio = 4.0 + 0.1 * k if (family, i) == ("sgemm", 3) else 1.0
                rows.append(
                    {
                        "family": family,
                        "variant": f"v{i}_a_longish_variant_name",
                        "size": size,
                        "ratio": ratio,
                        "ci_low": ratio / 1.01,
                        "ci_high": ratio * 1.01,
                        "verdict": C.SLOWER if ratio > 1 else C.SAME,
                        "caveats": "",
                    }
                )
    fig = ratio_figure(pd.DataFrame(rows), 0.03)
    assert text_overlaps(fig) == []
    if pdftotext() is not None:
        assert pdf_problems(fig, tmp_path / "compare.pdf") == []
