"""The SVG check before a figure is embedded: on the parsed document, not on text.

Harmless text (a title "stride one = 1", words such as onload = in a tooltip) passes;
elements that act or load, handlers and addresses out of the page do not, however
they are spelled.
"""

import io

import matplotlib.pyplot as plt
import pytest

from nsightflow.report.embed import unsafe_svg

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'


def _svg(body: str) -> str:
    return f"<?xml version='1.0'?>\n{HEAD}<g>{body}</g></svg>\n"


@pytest.mark.parametrize(
    "body",
    [
        "<title>Vector addition (stride one = 1)</title>",
        "<title>onload = fine; href='http://x' is text; &lt;script&gt;</title>",
        "<text>javascript: is a word here, url(http://x) too</text>",
        '<rect style="fill: url(#grad)" clip-path="url(#c1)"/>',
        '<use xlink:href="#m0"/><use href="#m1"/>',
        '<image xlink:href="data:image/png;base64,iVBORw0KGgo=" width="1"/>',
        '<metadata><rdf:RDF><dc:type rdf:resource="http://purl.org/x"/></rdf:RDF>'
        "</metadata>",
        '<style type="text/css">*{stroke-linejoin: round}</style>',
    ],
)
def test_harmless_svg_passes(body):
    assert unsafe_svg(_svg(body)) is None


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ("<script>alert(1)</script>", "<script>"),
        ("<SCRIPT>alert(1)</SCRIPT>", "<script>"),
        ('<circle onload="alert(1)" r="1"/>', "onload"),
        ('<circle ONLOAD="alert(1)" r="1"/>', "onload"),
        ('<rect onmouseover = "x()"/>', "onmouseover"),
        ("<foreignObject><div>x</div></foreignObject>", "<foreignObject>"),
        ('<a href="https://example.org"><text>x</text></a>', "<a>"),
        ('<a xlink:href="javascript:alert(1)"><text>x</text></a>', "<a>"),
        ('<image href="https://example.org/x.png"/>', "href"),
        ('<image xlink:href="//example.org/x.png"/>', "href"),
        ('<use xlink:href="http://example.org/s.svg#m"/>', "href"),
        ('<set attributeName="href" to="javascript:alert(1)"/>', "<set>"),
        ('<animate attributeName="x" values="1;2"/>', "<animate>"),
        ('<rect style="fill: url(https://example.org/p.svg#g)"/>', "style"),
        ("<rect fill=\"url('//example.org/p#g')\"/>", "fill"),
        ("<style>@import url(https://example.org/x.css);</style>", "<style>"),
        ("<style>rect{fill:url(http://example.org/x)}</style>", "<style>"),
        ('<iframe src="https://example.org"></iframe>', "<iframe>"),
        ('</g></svg><img src="x" onerror="alert(1)"><svg><g>', "<img>"),
        ("<filter><feImage href='http://example.org/x.png'/></filter>", "<filter>"),
    ],
)
def test_svg_that_acts_or_loads_is_named(body, named):
    found = unsafe_svg(_svg(body))
    assert found is not None and named.lower() in found.lower(), found


def test_a_matplotlib_figure_titled_with_harmless_words_passes():
    fig, ax = plt.subplots()
    ax.plot([1, 2], [3, 4], label="onload = 1")
    ax.set_title("Vector addition (stride one = 1) <b> & href='x'")
    ax.legend()
    out = io.StringIO()
    fig.savefig(out, format="svg")
    plt.close(fig)
    assert "stride one = 1" in out.getvalue()
    assert unsafe_svg(out.getvalue()) is None
