"""A family's reference.py is the family's code: it runs within a time limit, what
it raises (or fails to import with) is one line naming the file, and its outputs
are checked against the manifest before they are cached."""

import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from nsightflow.errors import ManifestError
from nsightflow.family.reference_cache import ReferenceCache
from nsightflow.family.registry import load_family

ROOT = Path(__file__).resolve().parents[3]
GENERATE = """
import numpy as np


def generate(n, rng):
    return {"A": np.ones(n, np.float32), "B": np.ones(n, np.float32)}

"""


def _family(tmp_path: Path, reference: str, generate: str = GENERATE) -> Path:
    folder = tmp_path / "kernels" / "vecadd"
    shutil.copytree(ROOT / "kernels" / "vecadd", folder)
    (folder / "reference.py").write_text(generate + reference)
    manifest = (folder / "family.yaml").read_text()  # small sizes: a quick test
    manifest = manifest.replace(
        "sizes: [1048576, 4194304, 16777216, 67108864]", "sizes: [1024, 4096]"
    ).replace("profile_sizes: [16777216]", "profile_sizes: [4096]")
    manifest = manifest.replace("verify_sizes: [1, 1000, 1000003]", "verify_sizes: [1]")
    (folder / "family.yaml").write_text(manifest)
    return folder


def _reference_stage(folder: Path, timeout_s: float) -> subprocess.CompletedProcess:
    out = folder.parents[1] / "ref" / "index.json"
    return subprocess.run(
        [
            *(sys.executable, "-m", "nsightflow", "reference"),
            *("--kernels-dir", str(folder.parent), "--family", folder.name),
            *("--timeout-s", str(timeout_s), "--threads", "1", "--out", str(out)),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _one_line_error(done: subprocess.CompletedProcess, *words: str) -> str:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "bug in nsightflow" not in done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_a_sleeping_reference_is_stopped_at_the_time_limit(tmp_path):
    folder = _family(
        tmp_path, "def reference(inputs, n):\n    import time\n    time.sleep(600)\n"
    )
    entries = len({*load_family(folder).sizes, *load_family(folder).verify_sizes})
    start = time.monotonic()
    done = _reference_stage(folder, 0.5)
    took = time.monotonic() - start
    _one_line_error(done, "reference.py", "ran past", "verify.timeout_s")
    assert took < 0.5 * entries + 60  # stopped, not the 600 s it asked for


@pytest.mark.parametrize(
    ("reference", "words"),
    [
        (
            "def reference(inputs, n):\n    return {'C': 1 / 0}\n",
            ["reference.py:9", "reference() raised ZeroDivisionError", "division"],
        ),
        (
            "def reference(inputs, n):\n    return {'C': inputs['missing']}\n",
            ["reference() raised KeyError", "generate() returned no 'missing'"],
        ),
        ("import no_such_module_here\n", ["cannot import", "ModuleNotFoundError"]),
        ("def reference(inputs, n)\n    pass\n", ["reference.py:8", "SyntaxError"]),
    ],
)
def test_what_reference_py_raises_is_one_line_naming_it(tmp_path, reference, words):
    done = _reference_stage(_family(tmp_path, reference), 60)
    _one_line_error(done, str(tmp_path / "kernels" / "vecadd" / "reference.py"), *words)


def test_a_raising_generator_is_one_line_naming_it(tmp_path):
    folder = _family(
        tmp_path,
        "def reference(inputs, n):\n    return {}\n",
        generate="def generate(n, rng):\n    raise ValueError('no inputs today')\n",
    )
    _one_line_error(
        _reference_stage(folder, 60), "generate() raised ValueError", "no inputs today"
    )


@pytest.mark.parametrize(
    ("returned", "words"),
    [
        ("{'D': inputs['A'] + inputs['B']}", ["returned ['D']", "outputs ['C']"]),
        ("{'C': np.zeros(n + 1)}", ["'C' is float64 of shape", "declares float32"]),
        ("{'C': np.array(['x'] * n)}", ["'C' is <U1"]),
        ("{'C': (inputs['A'] + 1j).astype(np.complex128)}", ["'C' is complex128"]),
        ("[inputs['A']]", ["returned a list"]),
    ],
)
def test_reference_outputs_unlike_the_manifest_are_refused_before_caching(
    tmp_path, returned, words
):
    folder = _family(
        tmp_path,
        f"def reference(inputs, n):\n    import numpy as np\n    return {returned}\n",
    )
    family = load_family(folder)
    cache = ReferenceCache(tmp_path / "cache", family, 408)
    variant = next(iter(family.variants.values()))
    with pytest.raises(ManifestError) as error:
        cache.reference(variant, 64, cache.inputs(variant, 64))
    for word in words:
        assert word in str(error.value), str(error.value)
    assert not list((tmp_path / "cache").glob("*/reference/outputs.json"))


def test_the_bundled_references_pass_their_checks(tmp_path):
    for name in ("vecadd", "histogram", "jacobi2d"):
        family = load_family(ROOT / "kernels" / name)
        cache = ReferenceCache(None, family, 408)
        variant = next(iter(family.variants.values()))
        n = min(family.verify_sizes)
        out = cache.reference(variant, n, cache.inputs(variant, n))
        assert all(isinstance(v, np.ndarray) for v in out.values())
