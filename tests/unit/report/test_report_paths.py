"""Each language writes files of its own; figures and the summary
are shared, so English and Chinese reports coexist."""

import pytest

from nsightflow.report.build import write_index, write_report, write_summary
from nsightflow.report.paths import index_stem, report_stem, stem_language
from recorded import analyze as _analyze


def test_stems_per_language_and_back():
    assert (report_stem("en"), report_stem("zh")) == ("report", "report.zh")
    assert (index_stem("en"), index_stem("zh")) == ("index", "index.zh")
    assert [stem_language(s) for s in ("report", "report.zh", "index.zh")] == [
        "en",
        "zh",
        "zh",
    ]
    with pytest.raises(ValueError):
        report_stem("fr")


def test_each_language_writes_its_own_files_and_leaves_the_others(recording, tmp_path):
    analysis = _analyze(recording, "jacobi2d", tmp_path)
    out = tmp_path / "report" / "jacobi2d"
    (out / "figures").mkdir(parents=True)
    write_report(analysis, out / "figures", out, language="en", summary=False)
    assert sorted(p.name for p in out.iterdir()) == [
        "figures",
        "report.html",
        "report.json",
        "report.md",
    ]
    english = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    write_report(analysis, out / "figures", out, language="zh", summary=False)
    write_summary(analysis, out)
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "figures",
        "report.html",
        "report.json",
        "report.md",
        "report.zh.html",
        "report.zh.json",
        "report.zh.md",
        "summary.csv",
    ]
    assert {n: (out / n).read_bytes() for n in english} == english
    assert "基础测评" in (out / "report.zh.md").read_text()
    write_index(out.parent, ["jacobi2d"], language="zh")
    index = (out.parent / "index.zh.md").read_text()
    assert "jacobi2d/report.zh.html" in index and "jacobi2d/report.zh.pdf" in index
    page = (out.parent / "index.zh.html").read_text()
    assert 'href="jacobi2d/report.zh.html#' in page  # the card's section links
    assert 'href="jacobi2d/report.html' not in page
    assert not (out.parent / "index.md").exists()
