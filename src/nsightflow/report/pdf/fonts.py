"""Fonts of the PDF report: which files are embedded, and widths measured with them.

Latin text is set in DejaVu Sans and DejaVu Sans Mono, embedded from the copy
matplotlib ships (found without importing matplotlib); they cover Latin, Greek,
Cyrillic, arrows and math symbols. Without them the PDF base fonts Helvetica and
Courier are used, which cover Latin-1 only.

A Chinese report (``language="zh"``) also embeds a CJK TrueType font, by default
WenQuanYi Micro Hei from Debian's ``fonts-wqy-microhei``, and every character the
Latin face lacks falls back to it glyph by glyph. ReportLab embeds TrueType
outlines only (``.ttf``, or ``.ttc`` collections whose first face is TrueType);
CFF-based OpenType fonts such as Noto Sans CJK cannot be embedded. The font is
looked for at run time: ``$NSIGHTFLOW_CJK_FONT`` if set, else the places Linux
distributions install the WenQuanYi package; a missing font is an error that
names the package.

An English report keeps the old fallback for stray Chinese characters: ReportLab's
Adobe CID font ``STSong-Light``, named in the PDF but not embedded, which a viewer
draws only with a Chinese font of its own.
"""

import importlib.util
import os
from pathlib import Path

from nsightflow.errors import StageInputError

CJK_FALLBACK_FONT = "STSong-Light"  # ReportLab's CID font for Simplified Chinese
CJK_FONT_FAMILY = "nsf-cjk"
CJK_FONT_ENV = "NSIGHTFLOW_CJK_FONT"  # a TrueType .ttf/.ttc with Chinese glyphs
CJK_FONT_PACKAGE = "fonts-wqy-microhei"  # Debian/Ubuntu; wqy-microhei-fonts on Fedora
CJK_FONT_FILES = (
    Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"),  # Debian, Ubuntu
    Path("/usr/share/fonts/wqy-microhei/wqy-microhei.ttc"),  # Fedora
    Path("/usr/share/fonts/wenquanyi/wqy-microhei/wqy-microhei.ttc"),  # Arch
)
WIDE_CHARS_FROM = 0x2E80  # CJK and full-width forms: about 1 em each
_TRUETYPE_TAGS = (b"\x00\x01\x00\x00", b"true")  # sfnt versions with glyf outlines

# (file in matplotlib's mpl-data/fonts/ttf, CSS family, font-weight, font-style)
DEJAVU_FACES = (
    ("DejaVuSans.ttf", "nsf-sans", "normal", "normal"),
    ("DejaVuSans-Bold.ttf", "nsf-sans", "bold", "normal"),
    ("DejaVuSans-Oblique.ttf", "nsf-sans", "normal", "italic"),
    ("DejaVuSans-BoldOblique.ttf", "nsf-sans", "bold", "italic"),
    ("DejaVuSansMono.ttf", "nsf-mono", "normal", "normal"),
    ("DejaVuSansMono-Bold.ttf", "nsf-mono", "bold", "normal"),
    ("DejaVuSansMono-Oblique.ttf", "nsf-mono", "normal", "italic"),
    ("DejaVuSansMono-BoldOblique.ttf", "nsf-mono", "bold", "italic"),
)
# Faces table cells are measured with: DejaVu file, or base font without it.
METRIC_FACES = {
    "regular": ("DejaVuSans.ttf", "Helvetica"),
    "bold": ("DejaVuSans-Bold.ttf", "Helvetica-Bold"),
    "mono": ("DejaVuSansMono.ttf", "Courier"),
}


def dejavu_dir() -> Path | None:
    """The folder of matplotlib's bundled DejaVu fonts, found without importing it."""
    spec = importlib.util.find_spec("matplotlib")
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "mpl-data" / "fonts" / "ttf"
        if all((folder / name).is_file() for name, *_ in DEJAVU_FACES):
            return folder
    return None


def cjk_font_file() -> Path:
    """The CJK TrueType font a Chinese PDF embeds.

    Returns:
        ``$NSIGHTFLOW_CJK_FONT`` when set, else the first of CJK_FONT_FILES that
        exists.

    Raises:
        StageInputError: No font is found, or the one found has no TrueType
            outlines; the message names the package to install.
    """
    override = os.environ.get(CJK_FONT_ENV)
    candidates = [Path(override)] if override else list(CJK_FONT_FILES)
    found = next((path for path in candidates if path.is_file()), None)
    if found is None:
        where = (
            f"${CJK_FONT_ENV} = {override}"
            if override
            else (", ".join(str(path) for path in CJK_FONT_FILES))
        )
        raise StageInputError(
            "PDF report: a Chinese report needs a CJK TrueType font to embed, and "
            f"none was found ({where}). Install it with `apt-get install "
            f"{CJK_FONT_PACKAGE}` (Fedora: wqy-microhei-fonts), or point "
            f"{CJK_FONT_ENV} at a .ttf/.ttc file with Chinese glyphs"
        )
    if not _has_truetype_outlines(found):
        raise StageInputError(
            f"PDF report: {found} is not a TrueType font (CFF-based OpenType "
            "cannot be embedded by ReportLab); use WenQuanYi Micro Hei from "
            f"{CJK_FONT_PACKAGE}, or another .ttf/.ttc with glyf outlines"
        )
    return found


def _has_truetype_outlines(path: Path) -> bool:
    """Whether a font file (or a collection's first face) has TrueType outlines."""
    with path.open("rb") as font:
        head = font.read(16)
        if head[:4] == b"ttcf":
            font.seek(int.from_bytes(head[12:16], "big"))
            head = font.read(4)
    return head[:4] in _TRUETYPE_TAGS


def font_css(
    font_dir: Path | None, cjk_file: Path | None = None
) -> tuple[str, str, str]:
    """``@font-face`` rules and the sans and monospace font stacks.

    Args:
        font_dir: Folder holding the DejaVu files, or None for the PDF base fonts.
        cjk_file: CJK font to embed and fall back to, or None for the
            non-embedded STSong-Light alone.

    Returns:
        The rules, the sans stack and the mono stack.
    """
    rules = ""
    sans, mono = "Helvetica", "Courier"
    if font_dir is not None:
        rules = "".join(
            f"@font-face {{ font-family: {family}; font-weight: {weight}; "
            f"font-style: {style}; src: url('{(font_dir / name).as_posix()}'); }}\n"
            for name, family, weight, style in DEJAVU_FACES
        )
        sans, mono = "nsf-sans", "nsf-mono"
    fallback = CJK_FALLBACK_FONT
    if cjk_file is not None:
        rules += (
            f"@font-face {{ font-family: {CJK_FONT_FAMILY}; "
            f"src: url('{cjk_file.as_posix()}'); }}\n"
        )
        fallback = f"{CJK_FONT_FAMILY}, {CJK_FALLBACK_FONT}"
    return rules, f"{sans}, {fallback}", f"{mono}, {fallback}"


class Meter:
    """Widths of text in em, measured with the faces the PDF is set in."""

    def __init__(self, font_dir: Path | None) -> None:
        from reportlab.pdfbase import pdfmetrics
        from reportlab.pdfbase.ttfonts import TTFont

        self._string_width = pdfmetrics.stringWidth
        self._faces: dict[str, str] = {}
        registered = set(pdfmetrics.getRegisteredFontNames())
        for face, (file_name, base_font) in METRIC_FACES.items():
            if font_dir is None:
                self._faces[face] = base_font
                continue
            name = f"nsf-metrics-{face}"
            if name not in registered:
                pdfmetrics.registerFont(TTFont(name, str(font_dir / file_name)))
            self._faces[face] = name

    def em(self, text: str, face: str) -> float:
        """Width of text set in one of the faces (regular, bold, mono), in em."""
        wide = sum(1 for char in text if ord(char) >= WIDE_CHARS_FROM)
        narrow = "".join(char for char in text if ord(char) < WIDE_CHARS_FROM)
        return wide + float(self._string_width(narrow, self._faces[face], 1.0))
