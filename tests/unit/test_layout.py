"""The package's layers: no import cycle, and the pure layers load no GPU or probe code."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "nsightflow"
PURE = ("analysis", "plot", "report")
# Layers the pure ones must not import (machine.provenance: data types and JSON only).
FORBIDDEN = ("nsightflow.gpu", "nsightflow.stages", "nsightflow.machine")
ALLOWED = ("nsightflow.machine.provenance",)


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


@pytest.mark.parametrize("layer", PURE)
def test_pure_layers_import_no_gpu_stage_or_machine_module(layer):
    bad = []
    for path in (PACKAGE / layer).rglob("*.py"):
        for module in _imports(path):
            if module.startswith(FORBIDDEN) and not module.startswith(ALLOWED):
                bad.append(f"{path.relative_to(SRC)} imports {module}")
    assert not bad, "\n".join(bad)


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
CATALOGUES = ("i18n/catalogue.py", "i18n/findings.py")
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
