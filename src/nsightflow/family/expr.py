"""Safe, bounded evaluation of the manifest's size expressions (grid, shapes, FLOPs, bytes).

Only arithmetic on numbers and the size variables is allowed, plus ``cdiv`` (ceiling
division), ``min``, ``max`` and ``log2``; anything else is rejected with the offending
expression. Expressions come from a file anyone can edit, so they are bounded by
construction: before evaluating, the text's length, the syntax tree's size and depth
and every constant are checked; while evaluating, every exponent and every
intermediate value is checked (finite, real, of bounded magnitude) before the next
operation, and the whole evaluation runs under a time limit. A bad expression is a
:class:`~nsightflow.errors.ManifestError` naming the file, field and size, never a hang,
an ``OverflowError`` or a number such as ``inf``, ``nan`` or a complex value.
"""

import ast
import gc
import math
import operator
import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from nsightflow.errors import ManifestError

# Bounds. The manifests' longest expressions today have ~30 characters, ~15 nodes and
# depth 5; these leave room for real formulas and none for a parser or CPU bomb.
MAX_CHARS = 400
MAX_NODES = 120
MAX_DEPTH = 24
MAX_EXPONENT = 128  # |b| in a ** b (the magnitude bound is checked first anyway)
MAX_MAGNITUDE = 2**100  # any constant, size or intermediate value (~1.3e30)
MAX_ARGS = 8  # arguments of min / max
_MAX_BITS = MAX_MAGNITUDE.bit_length() - 1
# One evaluation's time: wall clock past it, then this thread's CPU time too (a process
# the machine leaves waiting, as at load average 13 on 2 cores, spends none; reading the
# wall clock costs 0.08 us a node, the CPU clock 1.2 us). Bounded trees take microseconds.
TIME_LIMIT_S = 0.1

_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_CMPOPS: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_FUNCS: dict[str, tuple[Callable[..., Any], int, int]] = {  # name: (f, min, max args)
    "cdiv": (lambda a, b: -(-a // b), 2, 2),
    "min": (min, 1, MAX_ARGS),
    "max": (max, 1, MAX_ARGS),
    "log2": (math.log2, 1, 1),
}
_HINT = "Use arithmetic on the sizes and cdiv/min/max/log2 only."


class _Invalid(Exception):
    """What is wrong with an expression; ManifestError adds the file and field."""


def evaluate(expression: str, names: Mapping[str, Any], where: str = "") -> Any:
    """Evaluate ``expression`` with the given variables, within bounds.

    Args:
        expression: e.g. ``"cdiv(n, 32)"`` or ``"5*(n-2)**2"``.
        names: variable values, e.g. ``{"n": 2048}``.
        where: file and field, used in the error message.

    Returns:
        The value (int, float or bool): real, finite, at most ``MAX_MAGNITUDE``.

    Raises:
        ManifestError: the expression is malformed, too large, uses anything but
            arithmetic and known names, or its value (or a step towards it) is not a
            finite real number within bounds.
    """
    tree = _checked_tree(expression, where)
    try:
        values = {k: _number(v, f"size {k}") for k, v in names.items()}
        # With the collector paused: a collection of the caller's heap (a Snakemake
        # run's, over 0.1 s on a busy machine) is not this expression's time.
        collecting = gc.isenabled()
        gc.disable()
        try:
            deadline = _Deadline(
                time.monotonic() + TIME_LIMIT_S, time.thread_time() + TIME_LIMIT_S
            )
            return _eval(tree, values, deadline)
        finally:
            if collecting:
                gc.enable()
    except (_Invalid, ArithmeticError, ValueError, TypeError) as exc:
        at = ", ".join(f"{k} = {v}" for k, v in names.items())
        raise ManifestError(
            f"{where}: cannot evaluate {_short(expression)} at {at}: "
            f"{_reason(exc)}. {_HINT}"
        ) from exc


def names(expression: str, where: str = "") -> set[str]:
    """The variable names an expression (or a shape ``"n, n"``) uses, not functions.

    Raises:
        ManifestError: the expression is malformed or beyond the bounds.
    """
    text = str(expression)
    if len(text.strip()) > MAX_CHARS:
        _checked_tree(text, where)  # raises: too long
    found: set[str] = set()
    for part in split_dims(text) or [text]:
        tree = _checked_tree(part, where)
        called = {
            id(node.func)
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        found |= {
            node.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and id(node) not in called
        }
    return found


def split_dims(shape: str) -> list[str]:
    """The dimensions of a shape such as ``"n, cdiv(n, 4)"``: commas outside calls."""
    dims, depth, start = [], 0, 0
    for i, char in enumerate(shape):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            dims.append(shape[start:i])
            start = i + 1
    dims.append(shape[start:])
    return [d.strip() for d in dims if d.strip()]


def _checked_tree(expression: str, where: str) -> ast.expr:
    tree, problem = _compile(str(expression))
    if tree is None:
        raise ManifestError(f"{where}: cannot evaluate {_short(expression)}: {problem}")
    return tree


@lru_cache(maxsize=4096)
def _compile(expression: str) -> tuple[ast.expr | None, str]:
    """The checked syntax tree of an expression, or what is wrong with it.

    Cached: the registry evaluates every expression at every declared size.
    """
    text = expression.strip()
    if len(text) > MAX_CHARS:
        return None, f"{len(text)} characters, more than {MAX_CHARS}. {_HINT}"
    try:
        tree = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return None, f"not an expression ({type(exc).__name__}: {exc}). {_HINT}"
    try:
        _check_static(tree)
    except _Invalid as exc:
        return None, f"{exc}. {_HINT}"
    return tree, ""


def _check_static(tree: ast.expr) -> None:
    """Size, depth, node kinds and constants, walked without recursion."""
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise _Invalid(f"more than {MAX_NODES} terms")
        if depth > MAX_DEPTH:
            raise _Invalid(f"nested more than {MAX_DEPTH} deep")
        children = _children(node)
        stack += [(child, depth + 1) for child in children]


def _children(node: ast.AST) -> list[ast.AST]:
    """The operands of an allowed node; raises _Invalid for anything else."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise _Invalid(f"constant {node.value!r} is not a number")
        _number(node.value, "constant")
        return []
    if isinstance(node, ast.Name):
        return []
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return [node.operand]
    if (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and type(node.ops[0]) in _CMPOPS
    ):
        return [node.left, node.comparators[0]]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        spec = _FUNCS.get(node.func.id)
        if spec is None:
            raise _Invalid(f"unknown function {node.func.id!r}")
        _, least, most = spec
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise _Invalid(f"{node.func.id}() takes plain arguments only")
        if not least <= len(node.args) <= most:
            raise _Invalid(
                f"{node.func.id}() takes {least}"
                + (f" to {most}" if most > least else "")
                + f" arguments, not {len(node.args)}"
            )
        return list(node.args)
    raise _Invalid(f"unsupported syntax {ast.unparse(node)[:60]!r}")


class _Deadline(NamedTuple):
    wall: float  # time.monotonic()
    cpu: float  # time.thread_time()


def _eval(node: ast.AST, names: Mapping[str, int | float], deadline: _Deadline) -> Any:
    if time.monotonic() > deadline.wall and time.thread_time() > deadline.cpu:
        raise _Invalid(f"evaluation took longer than {TIME_LIMIT_S} s")
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise _Invalid(f"unknown name {node.id!r}")
        return names[node.id]
    if isinstance(node, ast.BinOp):
        left = _eval(node.left, names, deadline)
        right = _eval(node.right, names, deadline)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        return _number(_BINOPS[type(node.op)](left, right), "a step")
    if isinstance(node, ast.UnaryOp):
        return -_eval(node.operand, names, deadline)
    if isinstance(node, ast.Compare):
        op = _CMPOPS[type(node.ops[0])]
        left = _eval(node.left, names, deadline)
        return op(left, _eval(node.comparators[0], names, deadline))
    if isinstance(node, ast.BoolOp):
        values = [bool(_eval(v, names, deadline)) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise _Invalid(f"unsupported syntax {ast.unparse(node)[:60]!r}")
    func = _FUNCS[node.func.id][0]
    return _number(func(*(_eval(a, names, deadline) for a in node.args)), "a step")


def _check_power(base: Any, exponent: Any) -> None:
    """Refuse an exponent, or a power, beyond the bounds before computing it."""
    if abs(exponent) > MAX_EXPONENT:
        raise _Invalid(f"exponent {exponent} is beyond +-{MAX_EXPONENT}")
    if abs(base) > 1 and exponent * math.log2(abs(base)) > math.log2(MAX_MAGNITUDE):
        raise _Invalid(f"{base}**{exponent} is beyond 2**{_MAX_BITS}")


def _number(value: Any, what: str) -> int | float:
    """``value`` as a finite real int or float within ``MAX_MAGNITUDE``."""
    if isinstance(value, bool):
        return value
    if hasattr(value, "item") and not isinstance(value, int | float):
        value = value.item()  # numpy scalars: Python numbers, no silent wrap-around
    if isinstance(value, complex):
        raise _Invalid(f"{what} gives the complex number {value}")
    if not isinstance(value, int | float):
        raise _Invalid(f"{what} is {value!r}, not a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise _Invalid(f"{what} gives {value}, not a finite number")
    if abs(value) > MAX_MAGNITUDE:
        raise _Invalid(f"{what} gives {value:.3g}, beyond 2**{_MAX_BITS}")
    return value


def _reason(exc: Exception) -> str:
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    return str(exc) or type(exc).__name__


def _short(expression: Any) -> str:
    text = str(expression)
    return repr(text if len(text) <= 80 else text[:60] + "...")
