"""The package's layers: no import cycle, and the pure layers load no GPU or probe code."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "nsightflow"
# The layers, lowest first. A module imports modules of its own layer (a name of the
# row) or of a lower one: never of a higher one. Layers of one row may import each
# other (sideways), though not in a circle.
LAYERS = (
    # ground: the package's version, errors, the contracts (status values, exchanged
    # tables, results folders, a family's analysis bundle), JSON files and the
    # report's words; plain data every layer above shares
    # and the one reader of recordings and run folders (untrusted: paths, schemas)
    # and where a command may write (outputs: the guard every writer calls)
    (
        "nsightflow",
        "errors",
        "contracts",
        "records",
        "io",
        "i18n",
        "untrusted",
        "outputs",
    ),
    ("family",),  # the kernel families: manifests, expressions, inputs
    ("tools",),  # nvcc, ncu, nsys, compute-sanitizer: argv, runs, parsers, versions
    ("analysis",),  # pandas over the stages' outputs
    ("diagnosis",),  # the rules that name causes, over the analysis tables
    ("plot", "report"),  # figures and text from the analysis and findings tables
    # analysis to report import nothing of this machine or its GPU: they sit below
    # machine and gpu, which keeps them pure without a second rule
    ("machine",),  # this machine: capabilities, doctor, GPU lock, recordings
    ("gpu",),  # the GPU work: launcher, worker process, timing, sweeps, timelines
    ("stages", "cli", "__main__", "examples"),  # one module per subcommand, the CLI
    ("api",),  # the Python API: the same stages, called from Python and notebooks
)
RANK = {layer: rank for rank, row in enumerate(LAYERS) for layer in row}


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Modules of nsightflow that ``path`` imports, at load or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("nsightflow"):
                found.add(node.module)
                for alias in node.names:  # `from nsightflow.gpu import isolate`
                    candidate = f"{node.module}.{alias.name}"
                    if _exists(candidate):
                        found.add(candidate)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("nsightflow")}
    return found


def _exists(module: str) -> bool:
    rel = Path(*module.split("."))
    return (SRC / rel).with_suffix(".py").is_file() or (
        SRC / rel / "__init__.py"
    ).is_file()


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in PACKAGE.rglob("*.py")}


def test_no_import_cycle_between_modules():
    graph = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


def _layer(module: str) -> str:
    """The layer of a module: its folder (or file) under the package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_every_module_has_a_declared_layer():
    unplaced = sorted({_layer(m) for m in _graph()} - set(RANK))
    assert not unplaced, f"place these in LAYERS: {unplaced}"


def test_no_import_climbs_from_a_lower_layer_to_a_higher_one():
    climbing = [
        f"{module} ({_layer(module)}) imports {target} ({_layer(target)})"
        for module, targets in sorted(_graph().items())
        for target in sorted(targets)
        if RANK.get(_layer(target), -1) > RANK.get(_layer(module), -1)
    ]
    assert not climbing, "\n".join(climbing)


def test_layers_of_one_row_import_each_other_in_no_circle():
    ties: dict[str, set[str]] = {}
    for module, targets in _graph().items():
        for target in targets:
            a, b = _layer(module), _layer(target)
            if a != b and RANK.get(a) == RANK.get(b):
                ties.setdefault(a, set()).add(b)
    for start in ties:
        seen, todo = set(), list(ties[start])
        while todo:
            layer = todo.pop()
            assert layer != start, f"layers {start} and {layer} import each other"
            if layer not in seen:
                seen.add(layer)
                todo += ties.get(layer, ())


def test_the_layer_test_sees_an_import_inside_a_function(tmp_path):
    path = tmp_path / "late.py"
    path.write_text("def f():\n    from nsightflow.report import build\n")
    assert "nsightflow.report.build" in _imports(path)


def test_importing_the_pure_layers_loads_no_gpu_or_probe_module():
    code = (
        "import sys, nsightflow.analysis.analyze, nsightflow.plot.figures, "
        "nsightflow.report.build;"
        "print(' '.join(m for m in sys.modules if m.startswith(('nsightflow.gpu', "
        "'nsightflow.stages', 'nsightflow.machine.capabilities', "
        "'nsightflow.machine.doctor', 'pycuda'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""


def test_no_private_name_is_imported_across_modules():
    bad = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "nsightflow"
            ):
                bad += [
                    f"{path.relative_to(SRC)}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and a.name != "__version__"
                ]
    assert not bad, "\n".join(bad)


# Declared data catalogues: the report's strings in both languages.
CATALOGUES = ("i18n/catalogue.py", "i18n/findings.py", "i18n/advice.py")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def test_modules_and_functions_stay_small():
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        text = path.read_text()
        if rel not in CATALOGUES and len(text.splitlines()) > MAX_MODULE_LINES:
            too_long.append(f"{rel}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES and node.name != "build_parser":
                    too_long.append(f"{rel}:{node.lineno} {node.name}: {length} lines")
    assert not too_long, too_long
