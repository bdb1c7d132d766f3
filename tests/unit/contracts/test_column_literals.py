"""No module spells a column name or a status value as a string: it names the contract.

A column written as ``"time_median_us"`` in a module is a second declaration of it: a
renamed column would not reach it. Outside nsightflow.contracts every column is
``col.<NAME>`` (``from nsightflow.contracts import columns as col``) and every status
``Status.<NAME>``.

A string spelled like a column is not always one. These stay strings:

- docstrings and bare string statements, f-string pieces, annotations and
  ``Literal[...]``, ``__all__``;
- a string compared with ``==`` / ``!=`` or looked up in a literal collection
  (``kind == "kernel"``: a cell's value), unless it is a status;
- a status value used as a key (``record["errors"]``: a field of a record);
- the direct arguments of :data:`OTHER_NAMES` (file modes, attributes, CLI
  arguments, XML tags, regex groups, message ids, code languages, argv);
- JSON Schema's ``"type"`` keyword;
- a line marked ``# contracts: literal`` (a string spelled like a column that is not
  one: a timeline kind, a file's field of another tool);
- the packages in :data:`ALLOWED_PACKAGES`.
"""

import ast
from pathlib import Path

import pytest

from nsightflow.contracts import Status, columns

PACKAGE = Path(__file__).resolve().parents[3] / "src" / "nsightflow"
MARKER = "# contracts: literal"
COLUMNS = {v for k, v in vars(columns).items() if k.isupper() and isinstance(v, str)}
STATUSES = {s.value for s in Status}
ALLOWED_PACKAGES = {
    "contracts": "the declarations themselves",
    "i18n": "message ids and display text ('variant' is a word of the page there)",
    "family": "the fields of family.yaml (name, params, sizes, bytes, kernel), "
    "declared by its own JSON Schema, family/schemas/family.schema.yaml",
}
OTHER_NAMES = {
    *("open", "getattr", "hasattr", "setattr", "delattr"),
    *("add_argument", "add_parser", "Element", "SubElement", "iter", "find"),
    *("findall", "iterfind", "group", "T", "msg", "code_block", "fenced"),
    *("_run", "run", "check_output", "Popen", "cast", "TypeVar", "NewType"),
    *("NamedTuple", "namedtuple", "TypedDict"),
}
SPECIAL = {"__all__", "__slots__", "__match_args__"}
JSON_TYPES = {"object", "string", "array", "integer", "number", "boolean", "null"}


def _skipped(tree: ast.Module) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        within: list[ast.AST | None] = []
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            within = [node.value]
        elif isinstance(node, ast.JoinedStr):
            within = [node]
        elif isinstance(node, ast.arg | ast.AnnAssign):
            within = [node.annotation]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            within = [node.returns]
        elif isinstance(node, ast.Subscript):
            head = node.value
            if getattr(head, "attr", getattr(head, "id", "")) == "Literal":
                within = [node]
        elif isinstance(node, ast.Assign):
            if any(getattr(t, "id", "") in SPECIAL for t in node.targets):
                within = [node.value]
        for part in filter(None, within):
            skip.update(id(n) for n in ast.walk(part))
    return skip


def _role(node: ast.Constant, parents: dict[int, ast.AST]) -> str:
    """key (names a column or field), value, compared or other."""
    holder, parent = node, parents.get(id(node))
    while isinstance(parent, ast.List | ast.Tuple | ast.Set | ast.Starred):
        holder, parent = parent, parents.get(id(parent))
    if isinstance(parent, ast.keyword | ast.Call):
        call = parents.get(id(parent)) if isinstance(parent, ast.keyword) else parent
        func = getattr(call, "func", None)
        name = getattr(func, "attr", getattr(func, "id", ""))
        if name in OTHER_NAMES and (parent is not call or holder in call.args):
            return "other"
        if parent is call and call.args and call.args[0] is node:
            return "key" if name in {"get", "pop", "setdefault"} else "value"
        return "value"
    if isinstance(parent, ast.Compare):
        in_ = any(isinstance(op, ast.In | ast.NotIn) for op in parent.ops)
        return "key" if in_ and holder is node is parent.left else "compared"
    if isinstance(parent, ast.Subscript):
        return "key"
    if isinstance(parent, ast.Dict) and any(k is node for k in parent.keys):
        value = parent.values[[id(k) for k in parent.keys].index(id(node))]
        items = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
        typed = any(getattr(i, "value", None) in JSON_TYPES for i in items)
        return "other" if node.value == "type" and typed else "key"
    return "value"


def spelled(path: Path, root: Path = PACKAGE) -> list[str]:
    """``file:line: 'name'`` for each column or status spelled as a string."""
    text = path.read_text()
    tree, lines = ast.parse(text), text.splitlines()
    parents = {id(c): n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    skip, found = _skipped(tree), []
    for node in ast.walk(tree):
        v = node.value if isinstance(node, ast.Constant) else None
        if not isinstance(v, str) or (v not in COLUMNS and v not in STATUSES):
            continue
        if id(node) in skip or MARKER in lines[node.lineno - 1]:
            continue
        role = _role(node, parents)
        if v in STATUSES:
            named = role in ("value", "compared")  # as a key: a record's field
        else:
            named = role in ("key", "value")
        if named:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {v!r}")
    return found


def modules(package: Path = PACKAGE) -> list[Path]:
    """The modules the rule covers."""
    return [
        p
        for p in sorted(package.rglob("*.py"))
        if p.relative_to(package).parts[0] not in ALLOWED_PACKAGES
    ]


def test_no_column_or_status_is_spelled_outside_the_contracts():
    found = [line for path in modules() for line in spelled(path)]
    assert not found, "name the contract (col.<NAME>, Status.<NAME>):\n" + "\n".join(
        found
    )


@pytest.mark.parametrize(
    ("source", "count"),
    [
        ('frame["time_median_us"]', 1),
        ('row.get("variant")', 1),
        ('{"status": "ok"}', 2),  # the column, and the status as a value
        ('x = ["family", "variant", "size"]', 3),
        ('if r["kind"] == "kernel": pass', 1),  # the column; the kind is a value
        ('record["errors"]', 0),  # a status spelled as a field of a record
        ('open(path, "a")', 0),
        ('def f(x: Literal["ok"]) -> None:\n    """time_median_us"""', 0),
        ('f"{x}_time_median_us"', 0),
        ('{"type": "object"}', 0),
        ('frame["time_median_us"]  # contracts: literal', 0),
        ("frame[col.TIME_MEDIAN_US] == Status.OK", 0),
    ],
)
def test_the_rule_finds_spelled_names_and_leaves_other_words(tmp_path, source, count):
    module = tmp_path / "m.py"
    module.write_text(source + "\n")
    assert len(spelled(module, tmp_path)) == count, spelled(module, tmp_path)
