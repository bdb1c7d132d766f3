"""Text from records, paths and file names is data in report.md, report.html and
report.pdf: a recording's provenance, a time record's, the recording folder's name,
file names, ncu's kernel names and rule texts add no element, link or file."""

import json
import re
from collections import Counter
from pathlib import Path

import html5lib
import pandas as pd
import pytest
from PIL import Image
from pypdf import PdfReader

from nsightflow.diagnosis.build import family_findings
from nsightflow.errors import StageInputError
from nsightflow.i18n.markup import code_span
from nsightflow.report import embed
from nsightflow.report.html import to_html
from nsightflow.report.pdf import build as pdf
from nsightflow.report.sections.family import ReportBuilder
from nsightflow.report.text import plain
from recorded import analyze as _analyze

SVG = "{http://www.w3.org/2000/svg}"


def hostile(field: str) -> str:
    """Markdown and HTML that would add an image, a link, a local file, emphasis,
    a heading or a table cell if it were markup."""
    return (
        f"{field} ![{field}I](https://evil.example/{field}.png) "
        f"[{field}J](javascript:alert(1)) <img src=x onerror=alert(1)> "
        f"<b>{field}B</b> ![{field}P](/etc/hostname) "
        f"![{field}Q](figures/roofline.png) *{field}E* __{field}S__ | {field}pipe | "
        f"<https://auto.example/{field}> [^1] `{field}tick &lt;lt\n\n# {field}H\n"
        f"![{field}N](https://evil.example/n.png)"
    )


def _poison(value: object, field: str) -> object:
    if isinstance(value, dict):
        return {k: _poison(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_poison(v, field) for v in value]
    return hostile(field) if isinstance(value, str) else value


def _elements(page: str) -> tuple[Counter[str], set[tuple[str, str, str]]]:
    """The page's HTML elements (SVG figures apart) and its addresses."""
    doc = html5lib.parse(page, treebuilder="etree", namespaceHTMLElements=False)
    tags: Counter[str] = Counter()
    links = set()
    for el in doc.iter():
        if not isinstance(el.tag, str) or el.tag.startswith(SVG):
            continue
        tags[el.tag if el.get("class") != "clamp" else "clamp"] += 1
        for attr, value in el.attrib.items():
            assert not attr.lower().startswith("on"), (el.tag, attr, value)
            if attr in ("href", "src", "data-png"):
                links.add((el.tag, attr, value[:60]))
    return tags, links


def _png(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), "red").save(path)


@pytest.fixture(scope="module")
def faulty(recording, tmp_path_factory):
    """The faulty family analyzed, its context and tables."""
    tmp = tmp_path_factory.mktemp("faulty")
    analysis = _analyze(recording, "faulty", tmp)
    ctx = json.loads((analysis / "context.json").read_text())
    frame = pd.read_csv(analysis / "analysis.csv")
    stalls = pd.read_csv(analysis / "stalls.csv")
    rules = pd.read_csv(analysis / "rules.csv")
    return ctx, frame, stalls, rules


def _report(faulty, ctx, rules=None) -> str:
    _, frame, stalls, recorded_rules = faulty
    rules = recorded_rules if rules is None else rules
    found = family_findings(frame, stalls, rules, ctx)
    return ReportBuilder(frame, stalls, rules, ctx, findings=found).build()


def _hostile_ctx(ctx: dict) -> dict:
    """Every string of the records' provenance, the replay's recording, the
    ceilings, the timing runs and the variants' file names made hostile."""
    bad = json.loads(json.dumps(ctx))
    bad["provenance"] = _poison(ctx["provenance"], "prov")
    bad["replay"] = _poison(ctx["replay"], "rec")
    bad["ceilings"] = {
        k: hostile(k) if isinstance(v, str) else v for k, v in ctx["ceilings"].items()
    }
    for v in bad["variants"]:
        v["files"] = _poison(v.get("files", {}), "file")
    return bad


REPLAY = {  # a recording's fields as context.json holds them
    **{"source": "examples/h200", "gpu": "NVIDIA H200", "driver": "580.159.04"},
    **{"ncu": "2025.3.1.0", "clock_control": "none", "kernels_git": "b9854dbeb98b"},
    "date": "2026-12-01T15:30:12+00:00",
}


def test_record_text_adds_no_element_link_or_file_to_the_page(faulty, tmp_path):
    ctx = {**faulty[0], "replay": REPLAY}
    report = tmp_path / "report"
    md_before, md_after = _report(faulty, ctx), _report(faulty, _hostile_ctx(ctx))
    for name in set(re.findall(r"\]\(figures/([\w/]+\.png)\)", md_before)):
        _png(report / "figures" / name)
    before = to_html(md_before, "t", base_dir=report)
    after = to_html(md_after, "t", base_dir=report)
    for shown in ("sourceB", "driverB", "resourcesB", "methodB"):
        assert shown in after, shown
    tags_before, links_before = _elements(before)
    tags_after, links_after = _elements(after)
    assert links_after == links_before
    gained = {
        t: n - tags_before[t] for t, n in tags_after.items() if n > tags_before[t]
    }
    assert set(gained) <= {"clamp"}  # longer cells set on one line: no new element
    assert tags_after["code"] == tags_before["code"]  # no span closed or opened
    # the text reads as written: its Markdown shown, not applied
    assert "*driverE* __driverS__ | driverpipe |" in " ".join(after.split())


def test_ncu_kernel_names_and_rule_texts_are_data(faulty, tmp_path):
    ctx, _, _, rules = faulty
    bad = rules.copy()
    if bad.empty:
        pytest.skip("the faulty family's reports hold no rule")
    bad["rule"] = hostile("rule")
    bad["kernel"] = [hostile("kern"), "other"] * (len(bad) // 2) + ["x"] * (
        len(bad) % 2
    )
    bad["message"] = hostile("msg") + " @url:docs:https://docs.nvidia.com/x@"
    report = tmp_path / "report"
    page = to_html(_report(faulty, ctx, bad), "t", base_dir=report)
    before = to_html(_report(faulty, ctx), "t", base_dir=report)
    assert "msgB" in page
    # ncu's texts keep their web links (its documentation), nothing else
    gained = _elements(page)[1] - _elements(before)[1]
    assert gained and all(
        tag == "a" and re.match(r"https?://[\w.]+/", value) for tag, _, value in gained
    ), gained


def test_a_report_pdf_opens_no_file_outside_its_folder(faulty, tmp_path, monkeypatch):
    """The PDF stage reads a figure only from the report folder, and hostile text
    reaches the paper as text."""
    report = tmp_path / "report"
    md = _report(faulty, _hostile_ctx({**faulty[0], "replay": REPLAY}))
    for name in set(re.findall(r"\]\(figures/([\w/]+\.png)\)", md)):
        _png(report / "figures" / name)
    opened: list[object] = []
    real = pdf._print_size
    monkeypatch.setattr(
        pdf,
        "_print_size",
        lambda image, name: opened.append(image) or real(image, name),
    )
    out = report / "report.pdf"
    pdf.write_pdf(to_html(md, "t", base_dir=report), report, out)
    files = [Path(p) for p in opened if isinstance(p, Path)]
    assert all(p.is_relative_to(report.resolve()) for p in files)
    text = " ".join(" ".join(p.extract_text() for p in PdfReader(out).pages).split())
    assert "driverB" in text and "https://evil.example" in text  # shown, not loaded


@pytest.mark.parametrize(
    "src",
    [
        "/etc/hostname",
        "../../etc/passwd.png",
        "figures/../../../x.png",
        "https://evil.example/x.png",
        "file:///etc/hostname",
        "//evil.example/x.png",
        "figures\\..\\x.png",
        "javascript:alert(1)",
        "figures/link.png",  # a link to a file elsewhere
    ],
)
def test_a_figure_outside_the_report_folder_is_refused(tmp_path, src):
    folder = tmp_path / "report"
    (folder / "figures").mkdir(parents=True)
    (folder / "figures" / "link.png").symlink_to("/etc/hostname")
    with pytest.raises(StageInputError, match="report's folder"):
        to_html(f"# R\n\n![f]({src})\n", "t", base_dir=folder)
    with pytest.raises(StageInputError, match="report's folder"):
        to_html(f"# R\n\nsee ![f]({src}) here\n", "t", base_dir=folder)
    page = to_html("# R\n\n![f](figures/x.png)\n", "t").replace("figures/x.png", src)
    with pytest.raises(StageInputError, match="report's folder"):
        pdf.write_pdf(page, folder, folder / "report.pdf")
    assert not (folder / "report.pdf").exists()


def test_the_report_stage_embeds_its_own_figures_folder(tmp_path):
    """A figures folder the report stage was given elsewhere is the report's too."""
    figures = tmp_path / "figures"
    _png(figures / "a.png")
    src = (figures / "a.png").as_posix()
    with pytest.raises(StageInputError):
        embed.figure(src, "a", tmp_path / "report")
    assert "data:image/png" in embed.figure(src, "a", tmp_path / "report", (figures,))


def test_the_index_embeds_no_figure_a_report_json_names_elsewhere(tmp_path):
    from nsightflow.report.index import _figure

    _png(tmp_path / "secret.png")
    with pytest.raises(StageInputError, match="report's folder"):
        _figure(tmp_path / "fam", {"main_figure": "../secret.png"}, "fam/report.html")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("v0_one_per_thread.json", True),  # underscores inside a word
        ('{"min_reps": 20, "budget_s": 0.3}', True),
        ("580.159.04", True),  # a number and a dot, no space: no list
        ("-1.5", True),
        ("nvcc -arch=sm_90 -o results/build/x/v0_a.cubin k/v0_a.cu", True),
        ("_w_", False),
        ("__init__", False),
        ("1. x", False),
        ("- x", False),
        ("---", False),
        ("===", False),
        ("a|b", False),
    ],
)
def test_plain_leaves_text_that_cannot_be_markup_as_it_is(text, kept):
    assert (plain(text) == text) is kept
    shown = to_html(f"para\n{plain(text)}", "t").split("<main>")[1]
    body = re.sub(r"\s+", " ", re.sub(r"</?p>", "", shown.split("</main>")[0])).strip()
    assert body.replace("&#61;", "=") == f"para {text}".replace("&", "&amp;")


def test_a_code_span_stays_on_one_line():
    html = to_html("see " + code_span("a\n\n![i](https://e.org/x.png)\n# h"), "t")
    assert "<img" not in html and "<h1" not in html


def test_a_compare_page_of_a_hostile_recording_adds_no_image_or_link(
    recording, tmp_path
):
    """Every provenance string of a recording (and its folder's name) hostile: the
    compare page sets them in code spans; no image, no link out, no handler."""
    import shutil
    import subprocess
    import sys

    bad = tmp_path / "rec ![n](x.png) [j](javascript:alert(9)) *e* `t |p"
    shutil.copytree(recording, bad, ignore=shutil.ignore_patterns("*.ncu-rep"))
    for path in [bad / "recording.json", *bad.glob("time/vecadd/*.json")]:
        data = json.loads(path.read_text())
        for key in ("gpu", "driver", "cuda_driver", "nvcc", "ncu", "kernels_git"):
            for where in (data, data.get("provenance", {})):
                if isinstance(where.get(key), str):
                    where[key] = hostile(key)
        path.write_text(json.dumps(data))
    out = tmp_path / "cmp"
    options = ["--families", "vecadd", "--no-counters", "-o", str(out)]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nsightflow",
            "compare",
            str(recording),
            str(bad),
            *options,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    page = (out / "compare.html").read_text()
    assert "gpuB" in page  # shown
    _, links = _elements(page)
    assert all(v.startswith(("#", "data:image/")) for _, _, v in links), links


def test_the_index_line_of_a_hostile_recording_is_text(tmp_path):
    from nsightflow.report.build import _origin_of

    replay = {"source": hostile("source"), "gpu": hostile("gpu"), "date": "2026"}
    (tmp_path / "context.json").write_text(json.dumps({"replay": replay}))
    line = _origin_of(tmp_path)
    page = to_html(f"| numbers |\n|---|\n| {line} |\n", "t")
    tags, links = _elements(page)
    assert not links and not tags["img"] and not tags["a"] and not tags["em"]
    assert tags["td"] == 1 and "gpuB" in page
    (tmp_path / "context.json").write_text(json.dumps({"replay": REPLAY}))
    assert _origin_of(tmp_path) == (
        "replayed from `examples/h200`, recorded on NVIDIA H200 (2026-12-01)"
    )


def test_a_hot_line_s_file_name_from_a_recording_stays_one_code_span():
    import markdown as md
    from test_hotspots_drain import _hot

    from nsightflow.diagnosis.lines import with_line
    from nsightflow.diagnosis.record import Finding, msg, render

    hot = _hot(0.71, "global_store", drained=500)
    hot["file"] = "a` [x](javascript:alert(1)) `b.cuh"  # a recorded header's name
    head = Finding(
        "uncoalesced_stores",
        params=msg("mech_uncoalesced_stores"),
        evidence="lg_throttle, drain",
    )
    text = render("", with_line(head, hot, "v0", 64).params)
    assert "javascript:alert(1)" in text
    assert "<a" not in md.markdown(text)  # the name is text, not a link
