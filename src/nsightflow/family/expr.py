"""Safe evaluation of the manifest's size expressions (grid, shapes, FLOPs, bytes).

Only arithmetic on numbers and the size variables is allowed, plus ``cdiv`` (ceiling
division), ``min`` and ``max``; anything else is rejected with the offending expression.
"""

import ast
import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

from nsightflow.errors import ManifestError

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
_FUNCS: dict[str, Callable[..., Any]] = {
    "cdiv": lambda a, b: -(-a // b),
    "min": min,
    "max": max,
    "log2": math.log2,
}


def evaluate(expression: str, names: Mapping[str, float], where: str = "") -> Any:
    """Evaluate ``expression`` with the given variables.

    Args:
        expression: e.g. ``"cdiv(n, 32)"`` or ``"5*(n-2)**2"``.
        names: variable values, e.g. ``{"n": 2048}``.
        where: file and field, used in the error message.

    Returns:
        The value (int, float or bool).

    Raises:
        ManifestError: the expression uses anything but arithmetic and known names.
    """
    try:
        tree = ast.parse(str(expression).strip(), mode="eval")
        return _eval(tree.body, names)
    except (SyntaxError, ValueError, ZeroDivisionError, TypeError) as exc:
        raise ManifestError(
            f"{where}: cannot evaluate {expression!r}: {exc}. Use arithmetic on "
            f"{sorted(names)} and cdiv/min/max only."
        ) from exc


def names(expression: str, where: str = "") -> set[str]:
    """The variable names an expression uses (function names excluded).

    Raises:
        ManifestError: the expression is not valid Python syntax.
    """
    try:
        tree = ast.parse(str(expression).strip(), mode="eval")
    except SyntaxError as exc:
        raise ManifestError(f"{where}: cannot parse {expression!r}: {exc}") from exc
    called = {
        id(node.func)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and id(node) not in called
    }


def _eval(node: ast.AST, names: Mapping[str, float]) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ValueError(f"unknown name {node.id!r}")
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, names), _eval(node.right, names))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, names)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = _CMPOPS.get(type(node.ops[0]))
        if op is not None:
            return op(_eval(node.left, names), _eval(node.comparators[0], names))
    if isinstance(node, ast.BoolOp):
        values = [bool(_eval(v, names)) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCS
        and not node.keywords
    ):
        return _FUNCS[node.func.id](*(_eval(a, names) for a in node.args))
    raise ValueError(f"unsupported syntax {ast.dump(node)[:60]}")
