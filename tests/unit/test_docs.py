"""The documentation holds together: short README, links that land, no orphan page.

Every relative link (and image) in README.md, docs/**/*.md and scripts/README.md must
name a file or folder of the repository, and a ``#anchor`` into a Markdown page must be
one of that page's headings (GitHub's slugs). Links inside code blocks and code spans
are text, not links.
"""

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
README_MAX_LINES = 200
PAGES = sorted([README, ROOT / "scripts" / "README.md", *(ROOT / "docs").rglob("*.md")])
FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
LINK = re.compile(
    r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"
)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _prose(text: str) -> str:
    """The page without its fenced code blocks and code spans."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)  # code spans keep their text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links keep their text
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor GitHub gives the headings of ``page`` (repeats get -1, -2, ...)."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text())):
        slug = _slug(heading)
        count = seen.get(slug, 0)
        found.add(slug if count == 0 else f"{slug}-{count}")
        seen[slug] = count + 1
    return found


def links(page: Path) -> list[str]:
    """The relative link targets of ``page`` (web and mail addresses left out)."""
    targets = LINK.findall(_prose(page.read_text()))
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I)]


def broken(page: Path) -> list[str]:
    """Each link of ``page`` that names no file, or no heading of its target page."""
    bad = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / unquote(path)).resolve() if path else page
        if not dest.exists():
            bad.append(f"{target}: no such file or folder")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no heading #{anchor} in {dest.name}")
    return bad


def test_the_readme_stays_short():
    lines = README.read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines (at most {README_MAX_LINES}): "
        "move the detail into a page of docs/ and link it"
    )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_lands(page):
    assert page.is_file()
    assert broken(page) == []


def test_every_docs_page_is_reachable_from_the_readme():
    reached, todo = set(), [README.resolve()]
    while todo:
        page = todo.pop()
        if page in reached or page.suffix != ".md" or not page.is_file():
            continue
        reached.add(page)
        for target in links(page):
            path = target.partition("#")[0]
            if path:
                dest = (page.parent / unquote(path)).resolve()
                todo.append(dest / "README.md" if dest.is_dir() else dest)
    docs = {p.resolve() for p in (ROOT / "docs").rglob("*.md")}
    orphans = sorted(str(p.relative_to(ROOT)) for p in docs - reached)
    assert orphans == [], "pages no link from README.md leads to"


def test_the_checker_finds_a_broken_link_and_a_missing_anchor(tmp_path):
    (tmp_path / "b.md").write_text("# Title here\n\n## Set-up: run, and `test`\n")
    page = tmp_path / "a.md"
    page.write_text(
        "[ok](b.md#set-up-run-and-test) [gone](c.md) [bad](b.md#nowhere)\n"
        "`[code](c.md)` [web](https://example.org/x)\n"
        "```\n[fenced](c.md)\n```\n"
    )
    assert broken(page) == [
        "c.md: no such file or folder",
        "b.md#nowhere: no heading #nowhere in b.md",
    ]


def test_the_architecture_page_lists_the_layers_of_the_layer_test():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "layer_test", Path(__file__).with_name("test_layout.py")
    )
    assert spec is not None and spec.loader is not None
    layer_test = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layer_test)
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = [
        line.split("|")[2]
        for line in section.splitlines()
        if re.match(r"\|\s*\d+", line)
    ]
    names = {"__init__": "nsightflow"}  # the package's own module
    documented = [
        tuple(
            names.get(n, n)
            for n in (re.sub(r"(\.py|/)$", "", c) for c in re.findall(r"`([^`]+)`", r))
        )
        for r in rows
    ]
    assert documented == list(layer_test.LAYERS)
