"""Verdicts and winners at every timed size, as spans a reader takes in at once (pure).

A step's outcome and the brief's best variant are read at the key size; a step that
pays at n = 8192 and loses at n = 512, or a best variant that another beats below
n = 8192, hides that unless every size is said. Each size's verdict is
:func:`nsightflow.diagnosis.verdict.outcome`'s (the same noise line as the key
size's); each size's fastest is the variant with the least median time, and the best
variant *holds* there where it is that one or ties it
(:func:`nsightflow.diagnosis.verdict.ties`). Runs of neighbouring sizes with one
answer are written as one span (``n = 512..4096``).
"""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.verdict import outcome, ties

Row = Mapping[str, Any]


def spans(values: Sequence[tuple[int, str]]) -> list[tuple[str, int, int]]:
    """(value, first size, last size) of each run of neighbouring sizes."""
    out: list[tuple[str, int, int]] = []
    for n, value in values:
        if out and out[-1][0] == value:
            out[-1] = (value, out[-1][1], n)
        else:
            out.append((value, n, n))
    return out


def verdicts(
    sizes: Sequence[int], row: Callable[[str, int], Row], before: str, after: str
) -> list[tuple[int, str]]:
    """The step's verdict (paid / not_paid / no_gain) at each size both timed."""
    out = []
    for n in sizes:
        v = outcome(row(before, n), row(after, n))
        if v:
            out.append((n, v))
    return out


def fastest(
    sizes: Sequence[int],
    row: Callable[[str, int], Row],
    names: Sequence[str],
    best: str,
) -> list[tuple[int, str]]:
    """At each timed size: ``best`` where it holds (fastest or tied), else the fastest."""
    out = []
    for n in sizes:
        rows = [r for v in names if ok(num(r := row(v, n), col.TIME_MEDIAN_US))]
        if not rows or best not in {str(r[col.VARIANT]) for r in rows}:
            continue
        top = min(rows, key=lambda r: num(r, col.TIME_MEDIAN_US))
        holds = top[col.VARIANT] == best or best in ties(top, rows)
        out.append((n, best if holds else str(top[col.VARIANT])))
    return out
