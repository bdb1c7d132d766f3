"""The report pages in a real browser: layout, links, nothing fetched, no errors.

Opens index.html and two family reports of a replay run at 1280 and 800 px wide, and
every figure's SVG as the browser lays out its text.
"""

import base64
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from figure_text import SVG_TEXT_BOXES, svg_problems
from nsightflow.report.html import to_html

RECORDING = Path(__file__).resolve().parents[2] / "examples" / "h200"

pytestmark = pytest.mark.browser

WIDTHS = (1280, 800)
REPORTS = ("jacobi2d/report.html", "sgemm/report.html")
PAGES = ("index.html", *REPORTS)
LANDED_PX = 40  # a followed link puts its target this close to the top of the window


def _open(chrome: Any, url: str, width: int) -> None:
    chrome.get_log("browser")  # what an earlier page logged is not this page's
    chrome.get("about:blank")
    chrome.set_window_size(width, 900)
    chrome.get(url)
    # on a loaded machine the 1 MB SGEMM page was read before it replaced
    # about:blank (no parts found); wait until it is this page and complete
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(chrome, 120).until(
        lambda d: d.execute_script(
            "return document.URL === arguments[0] && document.readyState === 'complete'",
            url,
        )
    )


def _inner_width(chrome: Any) -> int:
    return chrome.execute_script("return window.innerWidth")


def _requests(chrome: Any) -> list[str]:
    """URLs the page asked for since the last call (Chromium's network log)."""
    urls = []
    for entry in chrome.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def _shot(chrome: Any, folder: Path, page: str, width: int, tag: str = "") -> None:
    name = page.replace("/", "_").removesuffix(".html")
    chrome.save_screenshot(str(folder / f"{name}{tag}_{width}.png"))


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page", PAGES)
def test_page_fits_loads_nothing_and_logs_no_error(
    chrome, replayed, screenshots, page, width
):
    url = (replayed / page).as_uri()
    chrome.get_log("performance")
    _open(chrome, url, width)
    assert _inner_width(chrome) == width
    overflow = chrome.execute_script(
        "const d = document.documentElement;"
        "return [d.scrollWidth, d.clientWidth, document.body.scrollWidth];"
    )
    assert overflow[0] <= overflow[1] and overflow[2] <= overflow[1], (page, overflow)
    # every table box ends inside the window: wide tables scroll in their box
    boxes = chrome.execute_script(
        "return [...document.querySelectorAll('.table-wrap')].map("
        "b => b.getBoundingClientRect().right)"
    )
    assert all(right <= overflow[1] for right in boxes), (page, boxes)
    assert chrome.execute_script(
        "return document.querySelectorAll('table').length"
    ) == (len(boxes))
    requests = _requests(chrome)
    outside = [u for u in requests if u != url and not u.startswith("data:")]
    assert not outside, f"{page} asked for {outside}"
    resources = chrome.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    assert all(r.startswith("data:") for r in resources), resources
    errors = [e for e in chrome.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    _shot(chrome, screenshots, page, width)
    if page in REPORTS:
        chrome.execute_script("document.getElementById('steps').scrollIntoView()")
        _shot(chrome, screenshots, page, width, "_steps")


def _same_page_links(chrome: Any, selector: str) -> list[str]:
    return chrome.execute_script(
        f"return [...document.querySelectorAll({json.dumps(selector)})]"
        ".map(a => a.getAttribute('href'))"
    )


def _lands(chrome: Any, href: str) -> bool:
    """Follow an in-page link; whether its target is at the top of the window."""
    return chrome.execute_script(
        "const a = [...document.querySelectorAll('a')]"
        ".find(x => x.getAttribute('href') === arguments[0]);"
        "a.click();"
        "const t = document.getElementById(decodeURIComponent(arguments[0].slice(1)));"
        "if (!t || location.hash !== arguments[0]) return false;"
        "const top = t.getBoundingClientRect().top;"
        "const d = document.documentElement;"
        "const bottom = window.scrollY + window.innerHeight >= d.scrollHeight - 2;"
        f"return (top >= -2 && top <= {LANDED_PX}) || (bottom && top >= 0);",
        href,
    )


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page", REPORTS)
def test_contents_and_summary_rows_link_to_their_sections(
    chrome, replayed, page, width
):
    _open(chrome, (replayed / page).as_uri(), width)
    contents = _same_page_links(chrome, "nav.toc a")
    assert len(contents) >= 8, contents  # sections and steps
    assert "#brief" in contents and "#steps" in contents and "#summary" in contents
    # the brief's ladder: every variant links to its section, a step or the baseline's
    rows = chrome.execute_script(
        "const box = document.querySelector('#brief ~ .table-wrap');"
        "return [...box.querySelectorAll('tbody tr')].map(r => {"
        "  const a = r.cells[0].querySelector('a');"
        "  return [r.cells[0].textContent.trim(), a && a.getAttribute('href')]; })"
    )
    assert len(rows) >= 6
    for variant, href in rows:
        assert href in (f"#step-{variant}", f"#baseline-ncu-{variant}"), (variant, href)
    # each step of the body links its part of the appendix, folded until followed
    details = _same_page_links(chrome, "#steps ~ p a[href^='#detail-step-']")
    assert len(details) >= 5, details
    for href in [*contents, *(href for _, href in rows), *details]:
        assert _lands(chrome, href), f"{page}: {href} lands nowhere"
        assert chrome.execute_script(
            "const t = document.getElementById(arguments[0].slice(1));"
            "const d = t.closest('details'); return !d || d.open;",
            href,
        ), f"{page}: {href} lands in a closed part"


@pytest.mark.parametrize("page", REPORTS)
def test_the_appendix_is_folded_and_metric_marks_name_their_metric(
    chrome, replayed, screenshots, page
):
    _open(chrome, (replayed / page).as_uri(), 1280)
    parts, open_parts, titles = chrome.execute_script(
        "const parts = [...document.querySelectorAll('details.part')];"
        "return [parts.length, parts.filter(d => d.open).length,"
        " [...document.querySelectorAll('a.footnote-ref')].map(a => a.title)];"
    )
    assert parts >= 10 and open_parts == 0  # the appendix: one closed part each
    assert titles and all(re.fullmatch(r"[\w.()+ /{},x-]+", t) for t in titles), titles
    assert any(t.startswith(("smsp__", "sm__", "l1tex__", "dram__")) for t in titles)
    # the body, brief to last step, is what the page shows before the appendix
    height = chrome.execute_script(
        "return document.getElementById('appendix').getBoundingClientRect().top"
        " + window.scrollY"
    )
    total = chrome.execute_script("return document.documentElement.scrollHeight")
    assert total - height < 2000, (height, total)  # the folded parts, one line each
    _shot(chrome, screenshots, page, 1280, "_folded")


@pytest.mark.parametrize("width", WIDTHS)
def test_index_cards_link_to_each_family_section(chrome, replayed, screenshots, width):
    index = (replayed / "index.html").as_uri()
    _open(chrome, index, width)
    cards = chrome.execute_script(
        "return [...document.querySelectorAll('.family')].map(c => c.textContent)"
    )
    assert len(cards) == 2
    # the day the recording was made (recording.json's date: 2026-12-02)
    made = json.loads((RECORDING / "recording.json").read_text())["date"]
    for text in cards:
        assert (
            f"Replayed from examples/h200: measured on NVIDIA H200 on {made[:10]}"
            in text
        )
        assert "ok" in text
    figures = chrome.execute_script(
        "return [...document.querySelectorAll('.family img.figure')]"
        ".map(i => [i.complete, i.naturalWidth, i.getBoundingClientRect().width,"
        " i.closest('.family').clientWidth])"
    )
    assert len(figures) == 2
    for done, natural, shown, card in figures:  # the card's width, never blown up
        assert done and shown >= 0.9 * (card - 40) and natural >= shown
    links = chrome.execute_script(
        "return [...document.querySelectorAll('.family a')]"
        ".map(a => a.href).filter(h => h.includes('#'))"
    )
    # per family its figure and its sections: brief, bound, steps, appendix
    assert len(links) >= 2 * 5, links
    for link in links:
        chrome.get(link)
        parts = urlsplit(link)
        found = chrome.execute_script(
            "return !!document.getElementById(arguments[0])", unquote(parts.fragment)
        )
        assert found, f"{link} lands nowhere"
    chrome.get(index)
    _shot(chrome, screenshots, "index", width, "_cards")


def test_summary_scrolls_in_its_box_with_the_variant_column_in_view(
    chrome, replayed, screenshots
):
    page = "jacobi2d/report.html"
    _open(chrome, (replayed / page).as_uri(), 800)
    box, first, clamp = chrome.execute_script(
        "document.getElementById('summary').closest('details').open = true;"
        "document.getElementById('summary').scrollIntoView();"
        "const box = document.getElementById('summary').querySelector('.table-wrap');"
        "const before = box.getBoundingClientRect().left;"
        "box.scrollLeft = box.scrollWidth;"
        "const cell = box.querySelector('tbody td');"
        "const c = box.querySelector('.clamp');"
        "return [[box.scrollWidth, box.clientWidth, box.scrollLeft],"
        " [cell.getBoundingClientRect().left - before],"
        " [c.title, c.textContent, c.getBoundingClientRect().height,"
        "  parseFloat(getComputedStyle(c).lineHeight)]];"
    )
    scroll_width, client_width, scrolled = box
    assert (
        scroll_width > client_width and scrolled > 0
    )  # the table scrolls, not the page
    assert abs(first[0]) <= 1.5  # the variant column stays put (sticky)
    title, text, height, line = clamp
    assert title == " ".join(text.split()) and len(title) > 60  # the idea, whole
    assert height < 1.5 * line  # on one line
    _shot(chrome, screenshots, page, 800, "_summary_scrolled")


A4_TEXT_PX = 717  # A4 less Chromium's default print margins, in CSS pixels


@pytest.mark.parametrize("page", REPORTS)
def test_printed_pages_fit_the_paper(chrome, replayed, screenshots, page):
    _open(chrome, (replayed / page).as_uri(), A4_TEXT_PX)
    chrome.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        width = chrome.execute_script(
            "const d = document.documentElement; return [d.scrollWidth, d.clientWidth]"
        )
        printed = chrome.execute_cdp_cmd(
            "Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69}
        )
    finally:
        chrome.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert width[0] <= width[1], width  # nothing is cut or shrunk to fit the paper
    name = page.replace("/", "_").removesuffix(".html")
    (screenshots / f"{name}_print.pdf").write_bytes(base64.b64decode(printed["data"]))


SVG = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
 width="460pt" height="200pt" viewBox="0 0 460 200" version="1.1">
 <defs><path id="m0" d="M 0 3 A 3 3 0 1 0 0 -3 A 3 3 0 1 0 0 3 z"/></defs>
 <g id="points"><g><title>v1_smem, n = 8192: 275.63 us</title>
  <use xlink:href="#m0" x="100" y="80" style="fill: #1f77b4"/></g></g>
 <text x="200" y="190" style="font: 10px sans-serif">problem size n</text>
</svg>
"""


def test_svg_figures_are_inline_with_their_point_titles(chrome, tmp_path, screenshots):
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "roofline.png").write_bytes(b"not read: the SVG wins")
    (tmp_path / "figures" / "roofline.svg").write_text(SVG)
    page = to_html("# R\n\n![roofline](figures/roofline.png)\n", "R", tmp_path)
    (tmp_path / "report.html").write_text(page)
    chrome.get_log("performance")
    _open(chrome, (tmp_path / "report.html").as_uri(), 800)
    found = chrome.execute_script(
        "const s = document.querySelector('figure#figure-roofline svg');"
        "const p = s.querySelector('use');"
        "return [p.parentNode.querySelector('title').textContent,"
        " s.getBoundingClientRect().width, p.getBoundingClientRect().width,"
        " s.querySelector('text').textContent];"
    )
    title, svg_width, point_width, label = found
    assert title == "v1_smem, n = 8192: 275.63 us"  # the browser's tooltip text
    assert 0 < svg_width <= 800 and point_width > 0  # drawn, scaled to the page
    assert label == "problem size n"  # text stays text
    assert all(u.startswith("file:") for u in _requests(chrome))
    assert not [e for e in chrome.get_log("browser") if e["level"] == "SEVERE"]
    _shot(chrome, screenshots, "svg_figure", 800)


# The index's numbers, as a reader sees them: every result cell drawn, inside the
# window, not cut (no ellipsis, nothing scrolled inside its box), at both widths.
RESULT_CELLS = """
return [...document.querySelectorAll('.family')].map(card => {
  const cells = [...card.querySelectorAll('.result dd')].map(dd => {
    const r = dd.getBoundingClientRect();
    const s = getComputedStyle(dd);
    const cut = [dd, ...dd.querySelectorAll('*')].some(
      e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow !== 'visible'
        || getComputedStyle(e).textOverflow === 'ellipsis');
    return [dd.textContent.trim(), r.left, r.right, r.width, r.height,
            s.visibility, dd.offsetParent !== null, cut];
  });
  return [card.querySelector('h3').id, card.textContent, cells,
          card.querySelector('.origin').textContent];
});
"""
UNITS_US = {"us": 1.0, "ms": 1e3, "s": 1e6}


def _headlines(replayed: Path, family: str) -> list[dict]:
    import pandas as pd

    found = pd.read_csv(replayed.parent / "analysis" / family / "findings.csv")
    return [json.loads(p) for p in found[found["section"] == "headline"]["params"]]


@pytest.mark.parametrize("width", WIDTHS)
def test_index_shows_each_familys_numbers_whole(chrome, replayed, screenshots, width):
    _open(chrome, (replayed / "index.html").as_uri(), width)
    cards = chrome.execute_script(RESULT_CELLS)
    assert len(cards) == 2
    for card_id, _text, cells, origin in cards:
        family = card_id.removeprefix("family-")
        heads = _headlines(replayed, family)
        assert heads and len(cells) == 4 * len(heads), (family, cells)
        for value, left, right, w, h, visibility, drawn, cut in cells:
            assert drawn and visibility == "visible" and w > 0 and h > 0, value
            assert 0 <= left and right <= width, (value, left, right)
            assert not cut, value
        for i, head in enumerate(heads):  # the headline's numbers, read back
            best, time, speedup, pct = (c[0] for c in cells[4 * i : 4 * i + 4])
            assert best.split()[0] == head["variant"]
            number, unit = time.split()[:2]
            shown_us = float(number.replace(",", "")) * UNITS_US[unit]
            assert shown_us == pytest.approx(head["time"], 0.01)
            assert float(speedup.split("x")[0]) == pytest.approx(head["speedup"], 0.01)
            assert float(pct.split("%")[0]) == pytest.approx(head["pct"], abs=0.5)
        assert len(re.findall(r"\d{4}-\d{2}-\d{2}", origin)) == 1, origin
    _shot(chrome, screenshots, "index", width, "_numbers")


def test_no_figure_text_overlaps_as_the_browser_lays_out_the_svg(chrome, replayed):
    """Each figure's SVG as Chromium lays out its text (its own fonts): no two texts
    overlap and none leaves the drawing."""
    svgs = sorted(replayed.glob("*/figures/**/*.svg"))
    assert len(svgs) >= 2 * 8
    problems = {}
    for svg in svgs:
        chrome.get(svg.as_uri())
        boxes, frame = chrome.execute_script(SVG_TEXT_BOXES)
        assert boxes, svg
        found = svg_problems(boxes, frame)
        if found:
            problems[svg.relative_to(replayed).as_posix()] = found
    assert problems == {}


def test_the_svg_text_check_catches_overlapping_and_clipped_text(chrome, tmp_path):
    svg = tmp_path / "bad.svg"
    svg.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="200pt" height="50pt" '
        'viewBox="0 0 200 50"><g style="font: 10px sans-serif">'
        '<text x="10" y="20">one label</text><text x="20" y="22">another</text>'
        '<text x="150" y="45">runs off the right edge</text></g></svg>'
    )
    chrome.get(svg.as_uri())
    found = svg_problems(*chrome.execute_script(SVG_TEXT_BOXES))
    assert ("one label", "another") in found
    assert ("runs off the right edge", "<outside>") in found
