# ruff: noqa: RUF001  (Chinese text uses full-width punctuation on purpose)
"""The message catalogue, the Chinese report built from the recording, and its PDF."""

import json
import re
import shutil
import subprocess
from pathlib import Path
from string import Formatter

import jsonschema
import pytest
import yaml
from PIL import Image
from pypdf import PdfReader

from nsightflow import i18n
from nsightflow.cli import build_parser
from nsightflow.errors import StageInputError
from nsightflow.i18n import CATALOGUE, LANGUAGES, T, field_names
from nsightflow.plot.figures import write_figures
from nsightflow.report.build import write_report
from nsightflow.report.html import to_html
from nsightflow.report.pdf import fonts as pdf_fonts
from nsightflow.report.pdf.build import page_language, write_pdf
from recorded import analyze as _analyze

ROOT = Path(__file__).resolve().parents[3]
PDFTOPPM = shutil.which("pdftoppm")
needs_pdftoppm = pytest.mark.skipif(
    PDFTOPPM is None, reason="pdftoppm not found (apt-get install poppler-utils)"
)


def _cjk_font() -> Path | None:
    try:
        return pdf_fonts.cjk_font_file()
    except StageInputError:
        return None


needs_cjk_font = pytest.mark.skipif(
    _cjk_font() is None,
    reason="no CJK TrueType font (apt-get install fonts-wqy-microhei)",
)
CJK = re.compile(r"[\u2e80-\u9fff\uff00-\uffef]")


# --- the catalogue -----------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(CATALOGUE))
def test_every_message_has_both_languages_with_the_same_fields(key):
    entry = CATALOGUE[key]
    assert set(entry) == set(LANGUAGES)
    assert all(entry[lang].strip() for lang in LANGUAGES)
    assert field_names(entry["en"]) == field_names(entry["zh"])
    fields = {name: 1.0 for name in field_names(entry["en"])}
    for lang in LANGUAGES:  # every template formats with its fields
        with i18n.language(lang):
            assert T(key, **fields)


def test_chinese_templates_are_chinese_and_english_ones_are_not():
    for key, entry in CATALOGUE.items():
        assert not CJK.search(entry["en"]), key
    translated = [k for k, e in CATALOGUE.items() if e["en"] != e["zh"]]
    assert all(CJK.search(CATALOGUE[k]["zh"]) for k in translated)
    assert len(translated) > 0.85 * len(CATALOGUE)  # the rest: units, metric names


def test_language_is_scoped_to_the_with_block():
    assert i18n.current() == "en" and T("h_steps") == "2. Optimization steps"
    with i18n.language("zh") as lang:
        assert lang == "zh" and T("h_steps") == "2. 逐级优化策略及实验结果"
        assert T("stall_rose", reason="barrier", x=0, y=5.25, metric="m") == (
            "停顿 **barrier** 从每条发射指令 0.00 个周期升至 5.25 个周期（`m`）。"
        )
    assert T("h_steps") == "2. Optimization steps"
    with pytest.raises(ValueError, match="fr"):
        with i18n.language("fr"):
            pass


def test_config_schema_takes_en_or_zh_and_defaults_to_en():
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    report = schema["properties"]["report"]
    assert report["properties"]["language"]["default"] == "en"
    jsonschema.validate({"report": {"language": "zh"}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"report": {"language": "fr"}}, schema)
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    assert config["report"]["language"] == "en"


def test_cli_report_and_pdf_take_a_language():
    parser = build_parser()
    common = ["--analysis-dir", "a", "--figures-dir", "f", "--out-dir", "o"]
    assert parser.parse_args(["report", *common]).language == "en"
    assert parser.parse_args(["report", *common, "--language", "zh"]).language == "zh"
    assert parser.parse_args(["pdf", "r.html", "-o", "r.pdf"]).language is None
    with pytest.raises(SystemExit):
        parser.parse_args(["report", *common, "--language", "fr"])


# --- the Chinese report from the recording -------------------------------------------


@pytest.fixture(scope="module")
def reports(recording, tmp_path_factory):
    """report.md / .html of jacobi2d and faulty in English, report.zh.* in Chinese."""
    out = {}
    for family in ("jacobi2d", "faulty"):
        work = tmp_path_factory.mktemp(family)
        analysis = _analyze(recording, family, work)
        figures = work / "figures"
        write_figures(analysis, figures)
        for lang in LANGUAGES:
            folder = work / lang
            folder.mkdir()
            shutil.copytree(figures, folder / "figures")
            write_report(analysis, folder / "figures", folder, language=lang)
            out[family, lang] = folder
    return out


def _english_fragments() -> dict[str, list[str]]:
    """Per key, the English template's fixed text that its Chinese one does not have."""
    fragments = {}
    for key, entry in CATALOGUE.items():
        literal = [text for text, *_ in Formatter().parse(entry["en"])]
        pieces = [
            p.strip(" .,:;()`*")
            for text in literal
            for p in re.split(r"`[^`]*`", text)  # code spans may stay the same
        ]
        kept = [
            p
            for p in pieces
            if len(p) >= 12 and re.search(r"[a-z]{3}", p) and p not in entry["zh"]
        ]
        if kept:
            fragments[key] = kept
    return fragments


def _prose(md: str, ctx_strings: list[str]) -> str:
    """The report's own prose: code, ncu's quoted rules and manifest texts removed."""
    md = re.sub(r"```.*?```", "", md, flags=re.S)
    md = "\n".join(line for line in md.splitlines() if not line.startswith("> ncu "))
    for text in sorted(ctx_strings, key=len, reverse=True):
        md = md.replace(text, "")
    return md


def _manifest_strings(folder: Path) -> list[str]:
    """The family manifest's texts and the stages' messages, which stay as written."""
    ctx = json.loads((folder.parent / "analysis" / "context.json").read_text())
    strings = [ctx["family"]["title"], ctx["family"]["description"]]
    for v in ctx["variants"]:
        strings += [v["idea"], v.get("message", ""), v.get("profile_message", "")]
        strings += [v["message"][:800], v["message"].replace("\n", " ")[:300]]
    return [s for s in strings if s]


@pytest.mark.parametrize("family", ["jacobi2d", "faulty"])
def test_chinese_report_has_the_seed_headings_and_no_english_sentences(reports, family):
    md = (reports[family, "zh"] / "report.zh.md").read_text()
    headings = [
        "## 摘要",
        "## 1. bound 定位",
        "## 2. 逐级优化策略及实验结果",
        "## 附录（Appendix）",
        "### A.1 总览：n = ",
        "基础测评：不同规模下的性能",
        "理论分析：各采样规模的 bound",
        "测量检查",
        "局限性",
        "数据来源",
    ]
    if family == "jacobi2d":
        headings += ["相关性能指标", "原因分析：", "**结论：**", "> ncu CPIStall（"]
        headings += ["**原因：**屏障等待", "**下一步**"]
    else:
        headings += ["失败的版本", "保留在报告中，但不参与排名。"]
    for heading in headings:
        assert heading in md
    assert T("kept_in_english") not in md  # English outside the with block
    with i18n.language("zh"):
        assert T("kept_in_english") in md  # said once, in Chinese
    prose = _prose(md, _manifest_strings(reports[family, "zh"]))
    leftovers = {
        key: [f for f in fragments if f in prose]
        for key, fragments in _english_fragments().items()
    }
    assert {k: v for k, v in leftovers.items() if v} == {}


def test_chinese_and_english_reports_carry_the_same_numbers(reports):
    number = re.compile(r"-?\d[\d,]*\.\d+")
    en = (reports["jacobi2d", "en"] / "report.md").read_text()
    zh = (reports["jacobi2d", "zh"] / "report.zh.md").read_text()
    assert sorted(number.findall(zh)) == sorted(number.findall(en))
    assert (
        "主要原因：**屏障（__syncthreads）**" in zh and "停顿 **barrier** 从每条" in zh
    )
    assert "Primary cause: **Barriers (__syncthreads)**" in en
    assert "dram__bytes_read.sum" in zh and "+++ v1_smem.cu" in zh


def test_html_says_its_language_only_when_not_english(reports):
    en = (reports["jacobi2d", "en"] / "report.html").read_text()
    zh = (reports["jacobi2d", "zh"] / "report.zh.html").read_text()
    assert en.startswith("<!doctype html>\n<html><head>")
    assert zh.startswith('<!doctype html>\n<html lang="zh-CN"><head>')
    assert page_language(zh) == "zh" and page_language(en) == "en"


# --- PDF -----------------------------------------------------------------------------


def _render(pdf_path: Path, out: Path, *, no_system_fonts: bool = False) -> Image.Image:
    """Page 1 at 40 dpi, grey; optionally with fontconfig finding no font at all."""
    env = None
    if no_system_fonts:
        conf = out.parent / "empty-fonts.conf"
        conf.write_text(
            '<?xml version="1.0"?>\n<fontconfig><cachedir>'
            f"{out.parent / 'fc-cache'}</cachedir></fontconfig>\n"
        )
        env = {"FONTCONFIG_FILE": str(conf), "PATH": "/usr/bin:/bin"}
    assert PDFTOPPM is not None
    subprocess.run(
        [PDFTOPPM, "-r", "40", "-f", "1", "-l", "1", "-gray", str(pdf_path), str(out)],
        check=True,
        capture_output=True,
        env=env,
    )
    (page,) = out.parent.glob(f"{out.name}*.pgm")
    return Image.open(page)


def _ink(image: Image.Image, top: float = 0.0, bottom: float = 1.0) -> int:
    """Dark pixels in a horizontal band of the page (fractions of its height)."""
    w, h = image.size
    band = image.crop((0, int(top * h), w, int(bottom * h)))
    return sum(band.histogram()[:128])


def _embedded_fonts(pdf_path: Path) -> dict[str, bool]:
    """BaseFont -> whether its TrueType program is embedded (FontFile2)."""
    fonts = {}
    for page in PdfReader(pdf_path).pages:
        for ref in page["/Resources"]["/Font"].values():
            font = ref.get_object()
            if "/DescendantFonts" in font:
                font = font["/DescendantFonts"][0].get_object()
            desc = font.get("/FontDescriptor")
            desc = desc.get_object() if desc is not None else {}
            fonts[str(font["/BaseFont"])] = "/FontFile2" in desc
    return fonts


@needs_cjk_font
@needs_pdftoppm
def test_chinese_pdf_embeds_its_font_and_draws_glyphs_without_system_fonts(tmp_path):
    page = to_html("# 理论分析与优化\n\n逐级优化策略及实验结果。", "t", language="zh")
    other = to_html("# 基础测评数据\n\n逐级优化策略及实验结果。", "t", language="zh")
    write_pdf(page, tmp_path, tmp_path / "zh.pdf")  # language from <html lang>
    write_pdf(other, tmp_path, tmp_path / "other.pdf")
    write_pdf(page, tmp_path, tmp_path / "en.pdf", language="en")  # font missing

    fonts = _embedded_fonts(tmp_path / "zh.pdf")
    cjk = [name for name in fonts if "WenQuanYi" in name]
    assert cjk and all(fonts[name] for name in cjk)
    assert not any("STSong" in name for name in fonts)

    zh = _render(tmp_path / "zh.pdf", tmp_path / "zh", no_system_fonts=True)
    missing = _render(tmp_path / "en.pdf", tmp_path / "en", no_system_fonts=True)
    title = (0.0, 0.1)
    assert _ink(zh, *title) > 50  # the heading is drawn from the embedded font
    assert _ink(missing, *title) < _ink(zh, *title) / 4  # STSong-Light: not drawn
    # Boxes (.notdef) look alike for every character; real glyphs do not.
    other_page = _render(
        tmp_path / "other.pdf", tmp_path / "other", no_system_fonts=True
    )
    assert (
        zh.crop((0, 0, zh.width, zh.height // 10)).tobytes()
        != other_page.crop((0, 0, zh.width, zh.height // 10)).tobytes()
    )


@needs_cjk_font
@needs_pdftoppm
def test_chinese_report_pdf_from_the_recording(reports, tmp_path):
    folder = reports["jacobi2d", "zh"]
    out = folder / "report.zh.pdf"
    write_pdf((folder / "report.zh.html").read_text(), folder, out)
    reader = PdfReader(out)
    assert len(reader.pages) >= 2
    text = reader.pages[0].extract_text()
    assert "优化报告" in text and "摘要" in text and "第 1 页" in text
    fonts = _embedded_fonts(out)
    assert any("WenQuanYi" in name and emb for name, emb in fonts.items())
    page = _render(out, tmp_path / "p", no_system_fonts=True)
    assert _ink(page, 0.0, 0.08) > 50  # title area


@needs_pdftoppm
def test_english_report_pdf_renders_with_ink(reports, tmp_path):
    folder = reports["jacobi2d", "en"]
    out = folder / "report.pdf"
    write_pdf((folder / "report.html").read_text(), folder, out)
    reader = PdfReader(out)
    assert len(reader.pages) >= 2
    assert "page 1" in reader.pages[0].extract_text()
    assert not any("WenQuanYi" in name for name in _embedded_fonts(out))
    page = _render(out, tmp_path / "p")
    assert _ink(page, 0.0, 0.08) > 50 and _ink(page) > 1000


def test_missing_cjk_font_names_the_package(tmp_path, monkeypatch):
    monkeypatch.delenv(pdf_fonts.CJK_FONT_ENV, raising=False)
    monkeypatch.setattr(pdf_fonts, "CJK_FONT_FILES", (tmp_path / "none.ttc",))
    html = to_html("# 理论分析\n", "t", language="zh")
    with pytest.raises(StageInputError, match="apt-get install fonts-wqy-microhei"):
        write_pdf(html, tmp_path, tmp_path / "r.pdf")
    assert not (tmp_path / "r.pdf").exists()


def test_a_cff_font_is_refused(tmp_path, monkeypatch):
    cff = tmp_path / "NotoSansCJK.otf"
    cff.write_bytes(b"OTTO" + bytes(60))
    monkeypatch.setenv(pdf_fonts.CJK_FONT_ENV, str(cff))
    with pytest.raises(StageInputError, match="not a TrueType font"):
        pdf_fonts.cjk_font_file()
