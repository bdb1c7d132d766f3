"""Inputs and float64 reference outputs, made once per family, input and size.

Every variant of a family runs on the same inputs at a given size (the generator is
seeded by (seed, n)), so the generator's arrays and the reference's outputs are the
same for all of them; only a variant's ``generator_args`` (another input, e.g. a
skewed histogram) makes different ones. Before this cache every verify, time,
timeline and profile job generated them again, and every verify job recomputed the
reference: on the H200 machine's CPU, vecadd at n = 64M took 0.75 s to generate, 0.51
s for the reference and 0.78 s to compare, per variant and stage.

Layout: ``<root>/<n>-<key>/`` holds ``entry.json`` (what the generator returned: each
name an ``array``, a ``size`` with its value, or ``lazy``: built only when a launch
reads it), ``inputs/<name>.npy`` and ``reference/<name>.npy``. ``key`` hashes the
family folder's Python sources (generator and reference), the generator arguments,
``n``, the seed and numpy's version (a new numpy may draw other numbers). Files are
written under a temporary name and renamed, so jobs on several GPUs can share a
cache; arrays are read back memory-mapped copy-on-write (no copy until the device
upload, and a consumer that writes to one never changes the file).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from nsightflow.errors import ManifestError
from nsightflow.family.inputs import (
    GeneratedInputs,
    call_generator,
    check_reference,
    sizes_of,
    user_call,
)
from nsightflow.family.model import Family, Variant

FORMAT = 1  # bump when the layout changes: old entries are then never read


def entry_key(
    family: Family, generator_args: Mapping[str, Any], n: int, seed: int
) -> str:
    """Hash of everything the generated inputs and the reference depend on."""
    h = hashlib.sha256()
    for path in sorted(family.folder.glob("*.py")):
        h.update(f"{path.name}\0".encode() + path.read_bytes() + b"\0")
    facts = {
        "args": dict(sorted(generator_args.items())),
        "n": int(n),
        "seed": int(seed),
        "numpy": np.__version__,
        "format": FORMAT,
    }
    h.update(json.dumps(facts, sort_keys=True, default=str).encode())
    return h.hexdigest()[:20]


def _save(path: Path, array: np.ndarray) -> None:
    """``np.save`` under a temporary name, then renamed: readers never see half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".npy")
    with os.fdopen(fd, "wb") as f:
        np.save(f, np.asarray(array), allow_pickle=False)
    os.replace(tmp, path)


def _write_json(path: Path, data: Any) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def _kind(value: Any) -> str:
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return "size"
    if isinstance(value, np.ndarray):
        return "array"
    return (
        "lazy"  # a callable (built on first read) or another value: not stored eagerly
    )


class ReferenceCache:
    """Generated inputs and reference outputs of one family and seed, on disk.

    ``root`` None keeps nothing: inputs are generated and references computed each
    time, as without a cache.
    """

    def __init__(self, root: Path | None, family: Family, seed: int) -> None:
        self.root, self.family, self.seed = root, family, seed
        self._generated: dict[tuple[str, int], Mapping[str, Any]] = {}

    def folder(self, variant: Variant, n: int) -> Path | None:
        """The entry's folder for the variant's input at size ``n`` (None: no cache)."""
        if self.root is None:
            return None
        key = entry_key(self.family, variant.generator_args, n, self.seed)
        return self.root / f"{n}-{key}"

    def _generate(self, variant: Variant, n: int) -> Mapping[str, Any]:
        """The generator's raw result, seeded by (seed, n) as every stage seeds it."""
        rng = np.random.default_rng([self.seed, n])
        generate = self.family.generator()
        return call_generator(generate, self.family, variant, n, rng).raw()

    def _lazy_source(self, variant: Variant, n: int) -> Mapping[str, Any]:
        """The raw result lazy values are built from, kept once made in this process.

        Only entries with lazy values keep it: eager arrays are read back from disk.
        """
        memo = (json.dumps(dict(variant.generator_args), sort_keys=True), n)
        if memo not in self._generated:
            self._generated[memo] = self._generate(variant, n)
        return self._generated[memo]

    def inputs(self, variant: Variant, n: int) -> GeneratedInputs:
        """The generator's result for ``variant`` at ``n``: from the cache, else made.

        A miss generates the inputs and stores the arrays and sizes; a ``lazy`` value
        is stored the first time it is read.
        """
        where = str(self.family.folder / "reference.py")
        folder = self.folder(variant, n)
        if folder is None:
            return GeneratedInputs(self._generate(variant, n), where)
        entry = folder / "entry.json"
        if not entry.is_file():
            self._store_inputs(variant, n, folder)
        kinds: dict[str, Any] = json.loads(entry.read_text())["inputs"]
        raw: dict[str, Any] = {}
        for name, kind in kinds.items():
            if kind["kind"] == "size":
                raw[name] = int(kind["value"])
            else:
                raw[name] = self._loader(variant, n, folder, name)
        return GeneratedInputs(raw, where)

    def _loader(
        self, variant: Variant, n: int, folder: Path, name: str
    ) -> Callable[[], Any]:
        path = folder / "inputs" / f"{name}.npy"

        def load() -> Any:
            if path.is_file():
                return np.load(path, mmap_mode="c")
            value = self._lazy_source(variant, n)[name]
            value = value() if callable(value) else value
            if isinstance(value, np.ndarray) and value.dtype != object:
                _save(path, value)
            return value

        return load

    def _store_inputs(self, variant: Variant, n: int, folder: Path) -> None:
        raw = self._generate(variant, n)
        kinds: dict[str, Any] = {}
        tmp = Path(tempfile.mkdtemp(dir=_made(folder.parent), prefix=f".{n}-"))
        for name, value in raw.items():
            kind = _kind(value)
            if kind == "array" and value.dtype == object:
                kind = "lazy"
            kinds[name] = {"kind": kind}
            if kind == "size":
                kinds[name]["value"] = int(value)
            elif kind == "array":
                _save(tmp / "inputs" / f"{name}.npy", value)
        _write_json(tmp / "entry.json", {"inputs": kinds, "n": n, "format": FORMAT})
        if any(k["kind"] == "lazy" for k in kinds.values()):
            memo = (json.dumps(dict(variant.generator_args), sort_keys=True), n)
            self._generated[memo] = raw
        try:
            os.rename(tmp, folder)
        except OSError:  # another job stored it first: the same bytes
            shutil.rmtree(tmp, ignore_errors=True)

    def reference(
        self, variant: Variant, n: int, inputs: GeneratedInputs
    ) -> dict[str, np.ndarray]:
        """The float64 reference outputs at ``n``: from the cache, else computed."""
        folder = self.folder(variant, n)
        index = folder / "reference" / "outputs.json" if folder else None
        if index is not None and index.is_file():
            names = json.loads(index.read_text())
            return {k: np.load(index.parent / f"{k}.npy", mmap_mode="c") for k in names}
        module = self.family.reference_module()
        where = self.family.folder / "reference.py"
        result = user_call(where, "reference", n, module.reference, inputs, n)
        sizes = sizes_of(self.family, n, inputs)
        expected = check_reference(self.family, n, sizes, result)  # before it is kept
        if index is not None:
            for name, value in expected.items():
                _save(index.parent / f"{name}.npy", np.asarray(value))
            _write_json(index, sorted(expected))
        return {k: np.asarray(v) for k, v in expected.items()}


def _made(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def needed(family: Family, sizes: Iterable[int]) -> dict[tuple[str, int], Variant]:
    """One variant per distinct input and size some variant of that input accepts."""
    found: dict[tuple[str, int], Variant] = {}
    for variant in family.variants.values():
        args = json.dumps(dict(variant.generator_args), sort_keys=True)
        for n in sizes:
            if (args, n) not in found and variant.accepts_size(n):
                found[(args, n)] = variant
    return found


def prefill(
    root: Path, family: Family, seed: int, sizes: Iterable[int], threads: int
) -> list[dict[str, Any]]:
    """Store inputs and references for every input and size; drop stale entries.

    Entries are made on ``threads`` threads, the largest sizes first (numpy's
    generators and array operations release the GIL). Returns one line per entry:
    input, size, folder name and the seconds it took (0 when it was there).
    """
    import time

    todo = sorted(needed(family, sizes).items(), key=lambda item: -item[0][1])

    def one(item: tuple[tuple[str, int], Variant]) -> dict[str, Any]:
        (args, n), variant = item
        cache = ReferenceCache(root, family, seed)  # one per entry: memory freed after
        folder = cache.folder(variant, n)
        assert folder is not None
        hit = (folder / "reference" / "outputs.json").is_file()
        start = time.perf_counter()
        cache.reference(variant, n, cache.inputs(variant, n))
        seconds = 0.0 if hit else time.perf_counter() - start
        return {"input": args, "n": n, "entry": folder.name, "seconds": seconds}

    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        entries = list(pool.map(one, todo))
    keep = {e["entry"] for e in entries}
    for old in root.iterdir() if root.is_dir() else []:
        if _stale_entry(old) and old.name not in keep:
            shutil.rmtree(old, ignore_errors=True)
    return entries


ENTRY_NAME = re.compile(r"\d+-[0-9a-f]{20}")  # <n>-<key>: what _store_inputs names


def _stale_entry(path: Path) -> bool:
    """A folder this cache made: ``<n>-<key>`` holding ``entry.json``, not a link.

    Anything else beside the index (a results folder's ``time/``, a project's
    ``kernels/``) is not the cache's and is never removed.
    """
    return (
        ENTRY_NAME.fullmatch(path.name) is not None
        and not path.is_symlink()
        and path.is_dir()
        and (path / "entry.json").is_file()
    )


def prefill_within(
    timeout_s: float,
    root: Path,
    family: Family,
    seed: int,
    sizes: Iterable[int],
    threads: int,
) -> list[dict[str, Any]]:
    """:func:`prefill` in a child process, stopped after ``timeout_s`` per entry.

    ``generate()`` and ``reference()`` are the family's code: one that never
    returns would hold the stage (and the GPU jobs waiting for its references)
    forever. Each input and size has ``timeout_s`` (a verify job's limit), so the
    child is killed after ``timeout_s`` times the entries; what it raised comes
    back as the one-line error it became there.

    Raises:
        ManifestError: the family's code raised, or ran past ``timeout_s``.
    """
    import multiprocessing

    sizes = sorted(sizes)
    limit = timeout_s * max(1, len(needed(family, sizes)))
    context = multiprocessing.get_context("spawn")  # no thread of this process
    with context.Pool(1) as pool:
        job = pool.apply_async(
            _prefill_child, (family.folder, root, seed, sizes, threads)
        )
        try:
            ok, found = job.get(timeout=limit)
        except multiprocessing.TimeoutError:
            raise ManifestError(
                f"{family.folder / 'reference.py'}: generate() and reference() ran "
                f"past {limit:g} s ({timeout_s:g} s per input and size, config "
                "verify.timeout_s); stopped: make them faster, or raise the limit"
            ) from None
    if not ok:
        raise ManifestError(str(found))
    return list(found)


def _prefill_child(
    folder: Path, root: Path, seed: int, sizes: list[int], threads: int
) -> tuple[bool, Any]:
    """In the child: the entries, or (False, the error's line)."""
    from nsightflow.errors import NsightflowError
    from nsightflow.family.registry import load_family

    try:
        return True, prefill(root, load_family(folder), seed, sizes, threads)
    except NsightflowError as exc:
        return False, str(exc)
