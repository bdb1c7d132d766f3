"""Variants written in Python: a launcher file that launches kernels through a framework.

A manifest entry whose ``source`` ends in ``.py`` is a *Python launcher*: a file in
the family folder that defines ``prepare(args)``. nsightflow allocates the family's
arrays as for any variant and calls ``prepare`` once per size with them (each array
exposes ``__cuda_array_interface__``, so ``torch.as_tensor(args["A"], device="cuda")``
or ``cupy.asarray(args["A"])`` wraps it without a copy; scalars come as numpy
scalars). ``prepare`` returns a callable without arguments that launches the kernels
(Triton, CuPy, PyTorch, cuBLAS through them) on the current stream; that callable is
what verify checks, time queues between CUDA events and profile runs under ncu.

``requires`` lists the modules the launcher imports (``[torch, triton]``): a machine
without one of them records the variant as ``skipped`` with the reason, and the run
goes on. The checks here read the file without importing it, so they run on any
machine (the GPU side is :mod:`nsightflow.gpu.pylaunch`).
"""

import ast
import importlib.metadata
import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nsightflow.errors import ManifestError
from nsightflow.family.model import Arg, Variant

ENTRY = "prepare"  # the function a launcher defines
# Manifest fields of a CUDA variant that a launcher cannot have: it launches its own
# kernels with its own shapes and compiles nothing with nvcc.
CUDA_ONLY = (
    "kernel",
    "block",
    "grid",
    "launches",
    "shared_bytes",
    "args",
    "defines",
    "params",
    "constraints",
)


def launcher_variant(
    path: Path,
    name: str,
    entry: Mapping[str, Any],
    source: Path,
    scratch: tuple[Arg, ...],
) -> Variant:
    """A ``variants.<name>`` entry whose source is a ``.py`` launcher, as a ``Variant``.

    Raises:
        ManifestError: the entry has a field only a CUDA variant can have.
    """
    where = f"variants.{name}"
    found = [key for key in CUDA_ONLY if key in entry]
    if found:
        raise ManifestError(
            f"{path}: field {where}.{found[0]}: {source.name} is a Python launcher, "
            "which launches its own kernels; remove "
            f"{found} (a launcher gets every family arg in prepare(args))"
        )
    return Variant(
        family=path.parent.name,
        name=name,
        source=source,
        idea=entry["idea"],
        launches=(),
        improves_on=entry.get("improves_on"),
        accepts=entry.get("accepts"),
        scratch=scratch,
        init=dict(entry.get("init", {})),
        generator_args=dict(entry.get("generator_args", {})),
        kind="python",
        requires=tuple(entry.get("requires", [])),
    )


def check_launcher(source: Path) -> str:
    """What is wrong with a launcher file read without running it ("" when nothing).

    The file must parse and define ``prepare`` at its top level.
    """
    try:
        tree = ast.parse(source.read_text(errors="replace"), filename=str(source))
    except SyntaxError as exc:
        return f"{source}:{exc.lineno}: {exc.msg} (the launcher does not parse)"
    defined = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    if ENTRY not in defined:
        return (
            f"{source}: no top-level def {ENTRY}(args); a launcher defines "
            f"{ENTRY}(args) returning a callable that launches its kernels"
        )
    return ""


def missing_modules(requires: tuple[str, ...]) -> list[str]:
    """The required modules that cannot be imported here (found without importing)."""
    missing = []
    for module in requires:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(module)
    return missing


def framework_versions(requires: tuple[str, ...]) -> dict[str, str | None]:
    """Installed version of each required module's distribution (None where absent)."""
    dists = importlib.metadata.packages_distributions()
    versions: dict[str, str | None] = {}
    for module in requires:
        names = dists.get(module.split(".")[0], [])
        try:
            versions[module] = importlib.metadata.version(names[0]) if names else None
        except importlib.metadata.PackageNotFoundError:
            versions[module] = None
    return versions


def missing_message(variant: Variant, missing: list[str]) -> str:
    """Why a launcher cannot run here: its frameworks, and what to do."""
    return (
        f"{variant.source.name} needs {', '.join(missing)}, not installed here "
        f"(family.yaml variants.{variant.name}.requires); install "
        f"{'it' if len(missing) == 1 else 'them'} where the GPU stages run to "
        "measure this variant"
    )
