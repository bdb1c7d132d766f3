"""Load-time checks of a manifest: every expression at every declared size.

The registry calls :func:`check_family` on each family it loads, so a manifest whose
FLOPs, bytes, shapes, scalar values, grids, shared-memory sizes or ``accepts``
condition cannot be evaluated, or gives a value its field cannot hold (negative
bytes, a fractional grid, a scalar beyond its dtype), fails before any job runs,
naming the file, the field and the size. The checks are those the launcher and the
analysis apply when they evaluate the same expressions (:mod:`nsightflow.family.model`),
here at every size of ``sizes``, ``profile_sizes`` and ``verify_sizes``.

Sizes that ``generate()`` returns (``generated``, e.g. ``nnz``) are known only when
the generator runs; here each stands in as ``n``, which catches every expression
that is malformed or unbounded whatever the sizes are. Their real values are checked
the same way when verify, time and analyze evaluate the expressions.

The manifest's names and text are checked as read (:func:`check_manifest`): a
parameter or define reaches nvcc as ``-D<NAME>``, so it may not be a CUDA built-in
(``blockDim``), a C++ keyword or a name reserved to the compiler (``__CUDA_ARCH__``,
``_Foo``); the title, description and ideas link only to ``http(s)`` addresses
with a host, and every bidirectional-text control they (or an expression) open is
closed on its line, so no text reads in another order than it runs.
"""

import urllib.parse
from collections.abc import Iterator
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import markdown

from nsightflow.errors import ManifestError
from nsightflow.family.model import (
    MAX_BLOCK,
    MAX_THREADS_PER_BLOCK,
    Arg,
    Family,
    Variant,
)
from nsightflow.family.params import points


def check_block(block: tuple[int, ...], where: str, at: str = "") -> None:
    """A block shape within the device's limits.

    Args:
        block: The block, resolved.
        where: The launch's field, for the message.
        at: The parameter values it was resolved at (" at {...}"), if any.

    Raises:
        ManifestError: a dimension or the thread count is beyond the limits.
    """
    fix = "; add a constraint that excludes it, or drop the value" if at else ""
    for i, (dim, most) in enumerate(zip(block, MAX_BLOCK, strict=False)):
        if not 1 <= dim <= most:
            raise ManifestError(
                f"{where}.block.{i}: {dim}{at} is outside 1..{most} (CUDA's block "
                f"limit){fix}"
            )
    threads = 1
    for dim in block:
        threads *= dim
    if threads > MAX_THREADS_PER_BLOCK:
        raise ManifestError(
            f"{where}.block: {list(block)}{at} is {threads} threads per block, more "
            f"than CUDA's {MAX_THREADS_PER_BLOCK}{fix}"
        )


def check_family(family: Family) -> None:
    """Evaluate and check every expression of ``family`` at every declared size.

    Raises:
        ManifestError: the first expression that fails, naming file, field and size.
    """
    for variant in family.variants.values():
        _check_blocks(variant)
    where = f"{family.folder / 'family.yaml'}: field"
    sizes = sorted({*family.sizes, *family.profile_sizes, *family.verify_sizes})
    for n in sizes:
        stand_in = {"n": n, **dict.fromkeys(family.generated, n)}
        try:
            family.ideal_flops(stand_in)
            family.ideal_bytes(stand_in)
            _check_args(family.args, stand_in, f"{where} args")
            for variant in family.variants.values():
                if variant.accepts_size(n):
                    _check_variant(variant, stand_in)
        except ManifestError as exc:
            if not family.generated:
                raise
            raise ManifestError(
                f"{exc} (at load, the generated sizes {list(family.generated)} stand "
                "in as n)"
            ) from exc


def _check_args(args: tuple[Arg, ...], sizes: dict[str, int], where: str) -> None:
    for arg in args:
        if arg.shape is not None:
            arg.shape_for(sizes, where)
        if arg.value is not None:
            arg.value_for(sizes, where)


def _check_blocks(variant: Variant) -> None:
    """Every block a default run launches is within CUDA's limits.

    At the defaults, whatever sizes the variant accepts (a block does not depend on
    ``n``), and at every point of the ``quick`` space that meets the constraints (a
    default run sweeps it). Points only the ``full`` space holds are left to the
    sweep, which records one beyond the limits as ``too_many_threads``.
    """
    field = variant.where.replace(": variants.", ": field variants.", 1)
    several = len(variant.launches) > 1
    for values in [{}, *points(variant.params, "quick")]:
        if values and variant.unmet_constraints(values):
            continue
        at = f" at {values}" if values else ""
        for i, launch in enumerate(variant.launches):
            where = f"{field}.launches.{i}" if several else field
            block = launch.at(values, where).block if values else launch.block
            check_block(block, where, at)


def _check_variant(variant: Variant, sizes: dict[str, int]) -> None:
    field = variant.where.replace(": variants.", ": field variants.", 1)
    _check_args(variant.scratch, sizes, f"{field}.scratch")
    several = len(variant.launches) > 1
    for i, launch in enumerate(variant.launches):
        at = f"{field}.launches.{i}" if several else field
        launch.shape(sizes, at)
        launch.dynamic_shared(sizes, at)
        inline = tuple(a for a in launch.args if a.role == "scalar")
        _check_args(inline, sizes, f"{at}.args")


# Longest family or variant name. A file name holds 255 bytes (NAME_MAX on Linux and
# macOS); the longest a stage derives from a variant adds 19 characters
# (<variant>.resources.json.tmp), the figures add "step_" and a family's shared
# report its hash. 64 leaves room for all of them and keeps the report's tables
# readable.
MAX_NAME = 64
# CUDA's built-in variables (CUDA C++ Programming Guide, "Built-in Variables") and
# the C++ keywords and macros a kernel relies on: as a -D macro each would replace
# them in every line of the variant's source and headers.
CUDA_BUILTINS = frozenset(
    "threadIdx blockIdx blockDim gridDim warpSize clusterDim clusterIdx".split()
)
CXX_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char
    char8_t char16_t char32_t class compl concept const consteval constexpr
    constinit const_cast continue co_await co_return co_yield decltype default delete
    do double dynamic_cast else enum explicit export extern false float for friend
    goto if inline int long mutable namespace new noexcept not not_eq nullptr operator
    or or_eq private protected public register reinterpret_cast requires return short
    signed sizeof static static_assert static_cast struct switch template this
    thread_local throw true try typedef typeid typename union unsigned using virtual
    void volatile wchar_t while xor xor_eq""".split()
)
STANDARD_MACROS = frozenset(
    "NULL INFINITY NAN FLT_MAX FLT_MIN DBL_MAX INT_MAX INT_MIN UINT_MAX assert".split()
)
# Embeddings and overrides end at U+202C (PDF), isolates at U+2069 (PDI): Unicode
# bidirectional algorithm, explicit formatting characters.
_OPENERS = {
    "\u202a": "\u202c",
    "\u202b": "\u202c",
    "\u202d": "\u202c",
    "\u202e": "\u202c",
}
_OPENERS |= dict.fromkeys(("\u2066", "\u2067", "\u2068"), "\u2069")
_CLOSERS = {"\u202c", "\u2069"}


def reserved_why(name: str) -> str | None:
    """Why ``name`` cannot be a ``-D`` macro of a kernel, or None."""
    if name in CUDA_BUILTINS:
        return "a CUDA built-in variable"
    if name in CXX_KEYWORDS:
        return "a C++ keyword"
    if name in STANDARD_MACROS:
        return "a standard macro the kernels and CUDA's headers use"
    if name.startswith("__") or (name[:1] == "_" and name[1:2].isupper()):
        return "reserved to the compiler (C++ [lex.name]: __x and _X names)"
    return None


def check_manifest(path: Path, data: dict[str, Any]) -> None:
    """Macro names, links and bidirectional controls of a manifest's YAML data.

    Run on the data as read, before anything is built from it: every string and key
    for bidirectional controls, ``params`` and ``defines`` names for what a ``-D``
    macro must not be, ``title``, ``description`` and each ``idea`` for links.

    Raises:
        ManifestError: the first name, link or control at fault, naming its field.
    """
    top = f"{path}: field"
    names = [("name", data.get("name"))]
    names += [(f"variants.{v}", v) for v in data.get("variants") or {}]
    for field, name in names:
        if isinstance(name, str) and len(name) > MAX_NAME:
            raise ManifestError(
                f"{top} {field}: the name is {len(name)} characters, more than "
                f"{MAX_NAME}; every stage names files after it and a file name holds "
                "255 bytes: shorten it"
            )
    for field, text in _strings(data, ""):
        check_bidi(text, f"{top} {field or '(top level)'}")
    check_text(str(data.get("title", "")), f"{top} title")
    check_text(str(data.get("description", "")), f"{top} description")
    names = [("params", k) for k in data.get("params") or {}]
    for name, entry in (data.get("variants") or {}).items():
        check_text(str(entry.get("idea", "")), f"{top} variants.{name}.idea")
        for kind in ("params", "defines"):
            names += [(f"variants.{name}.{kind}", k) for k in entry.get(kind) or {}]
    for field, name in names:
        why = reserved_why(str(name))
        if why is not None:
            raise ManifestError(
                f"{top} {field}.{name}: {name!r} is {why}; as -D{name}=... it would "
                "change every kernel line that uses it: rename it"
            )


def _strings(value: Any, field: str) -> Iterator[tuple[str, str]]:
    """Every string of the YAML data (keys too), with its dotted field."""
    if isinstance(value, str):
        yield field, value
    elif isinstance(value, dict):
        for key, item in value.items():
            inner = f"{field}.{key}" if field else str(key)
            yield inner, str(key)
            yield from _strings(item, inner)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{field}.{i}" if field else str(i))


def check_text(text: str, where: str) -> None:
    """Manifest text links only to ``http(s)`` addresses with a host, bidi closed.

    Raises:
        ManifestError: a link to anything else (``javascript:``, ``//host``, a
            relative path), or an unclosed bidirectional control.
    """
    check_bidi(text, where)
    if "[" not in text and "<" not in text:
        return  # every Markdown link starts with one of them: nothing to render
    finder = _Links()
    finder.feed(_markdown().reset().convert(text))
    for link in finder.links:
        parts = urllib.parse.urlsplit(link.strip())
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ManifestError(
                f"{where}: links to {link[:80]!r}; a report links only to http:// or "
                "https:// addresses with a host: write the whole address"
            )


def check_bidi(text: str, where: str) -> None:
    """Every bidirectional embedding, override or isolate in ``text`` closes on its line.

    Raises:
        ManifestError: naming the control and where it is.
    """
    for number, line in enumerate(text.splitlines(), start=1):
        open_: list[tuple[str, int]] = []
        for column, char in enumerate(line, start=1):
            if char in _OPENERS:
                open_.append((char, column))
            elif char in _CLOSERS:
                if not open_ or _OPENERS[open_[-1][0]] != char:
                    open_.append((char, column))
                    break
                open_.pop()
        if open_:
            char, column = open_[-1]
            raise ManifestError(
                f"{where}: the bidirectional control U+{ord(char):04X} at line {number}, "
                f"column {column} is not matched on its line; text after it would "
                "read in another order than it is: remove it, or close it (U+202C "
                "after U+202A..U+202E, U+2069 after U+2066..U+2068)"
            )


@cache
def _markdown() -> "markdown.Markdown":
    """Python-Markdown as the report renders manifest text: raw HTML is text there."""
    import markdown

    md = markdown.Markdown()
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return md


class _Links(HTMLParser):
    """The addresses of the links and images of a rendered Markdown text."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"a": "href", "img": "src"}.get(tag)
        self.links += [v or "" for k, v in attrs if k == wanted]
