"""The report's words in English and Chinese: every sentence, heading and table header.

The entries live in :mod:`nsightflow.i18n.catalogue` (and, for the ECE408 pattern
metrics, :mod:`nsightflow.i18n.patterns`; for ``nsightflow compare``,
:mod:`nsightflow.i18n.compare`; for the diagnosis's causes,
:mod:`nsightflow.i18n.findings`). Each is a :meth:`str.format`
template with named fields; both languages of an entry name the same fields.
:func:`T` fills the template of the language in force, which :func:`language` sets
for the ``with`` block that builds a report (English outside one). What stays as it
is in every language: ncu metric names, variant names, numbers, code, the family
manifest's own texts (title, description, ideas), the stages' error messages, and
the rule texts Nsight Compute wrote, which are quoted.

The Chinese terms follow the seed Jacobi-2D report (基础测评, 理论分析, bound 定位,
逐级优化策略及实验结果, 相关性能指标, 原因分析) and keep the English words Chinese
CUDA writing keeps: kernel, warp, block, bank, sector, roofline.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from string import Formatter
from typing import Literal, get_args

from nsightflow.i18n.catalogue import CATALOGUE
from nsightflow.i18n.compare import COMPARE_MESSAGES
from nsightflow.i18n.figures import FIGURE_MESSAGES
from nsightflow.i18n.findings import FINDING_MESSAGES
from nsightflow.i18n.integrity import INTEGRITY_MESSAGES
from nsightflow.i18n.page import PAGE_MESSAGES
from nsightflow.i18n.patterns import PATTERN_MESSAGES

CATALOGUE.update(PATTERN_MESSAGES)
CATALOGUE.update(COMPARE_MESSAGES)
CATALOGUE.update(FIGURE_MESSAGES)
CATALOGUE.update(PAGE_MESSAGES)
CATALOGUE.update(FINDING_MESSAGES)
CATALOGUE.update(INTEGRITY_MESSAGES)

Language = Literal["en", "zh"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
DEFAULT_LANGUAGE: Language = "en"
HTML_LANG: dict[Language, str] = {"en": "en", "zh": "zh-CN"}

_CURRENT: ContextVar[Language] = ContextVar("nsightflow_language", default="en")

__all__ = [
    "CATALOGUE",
    "DEFAULT_LANGUAGE",
    "HTML_LANG",
    "LANGUAGES",
    "Language",
    "T",
    "current",
    "field_names",
    "language",
    "parse_language",
    "size_text",
]


def parse_language(value: str) -> Language:
    """A language code checked against :data:`LANGUAGES`.

    Args:
        value: ``en`` or ``zh``.

    Raises:
        ValueError: The code is not one the catalogue has.
    """
    if value not in LANGUAGES:
        raise ValueError(
            f"report language {value!r} is not one of {', '.join(LANGUAGES)}"
        )
    return value


def current() -> Language:
    """The language :func:`T` writes in now."""
    return _CURRENT.get()


@contextmanager
def language(value: str) -> Iterator[Language]:
    """Write every message of the ``with`` block in one language.

    Args:
        value: ``en`` or ``zh``.

    Yields:
        The language, checked.

    Raises:
        ValueError: The code is not one the catalogue has.
    """
    token = _CURRENT.set(parse_language(value))
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)


def T(key: str, /, **fields: object) -> str:
    """The message ``key`` in the current language, its named fields filled in.

    Args:
        key: A key of :data:`CATALOGUE`.
        **fields: One value per named field of the template.

    Raises:
        KeyError: The key is unknown, or a field of the template is not given.
    """
    for name in SIZE_FIELDS:  # a size, as a reader writes it
        n = fields.get(name)
        if isinstance(n, int) and not isinstance(n, bool):
            fields[name] = size_text(n)
    return CATALOGUE[key][_CURRENT.get()].format(**fields)


POW2_FROM = 1 << 16  # powers of two from here on read as 2^k
SIZE_FIELDS = ("n", "lo", "hi")  # the templates' fields that hold a problem size


def size_text(n: object) -> str:
    """A problem size as a reader writes it: ``2^24``, ``1.5M``, ``8192``.

    :func:`T` writes every field of :data:`SIZE_FIELDS` so: the diagnosis said
    "at n = 16777216" where the report's own said "at n = 2^24".
    """
    try:
        k = int(n)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return str(n)
    if k >= POW2_FROM and k & (k - 1) == 0:
        return f"2^{k.bit_length() - 1}"
    if k >= 1_000_000:
        return f"{k / 1e6:.3g}M"
    return str(k)


def field_names(template: str) -> set[str]:
    """The named fields of a template (``{pct:.1f}`` names ``pct``)."""
    return {name for _, name, _, _ in Formatter().parse(template) if name}
