"""Manifest expressions are bounded, checked per field, and every
one is evaluated at load at every declared size, so a bad one fails before any job."""

import shutil
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from nsightflow.errors import ManifestError
from nsightflow.family.expr import MAX_MAGNITUDE, evaluate, names
from nsightflow.family.registry import load_family

ROOT = Path(__file__).resolve().parents[3]


def _family(tmp_path: Path, name: str, edit) -> Path:
    dst = tmp_path / name
    shutil.copytree(ROOT / "kernels" / name, dst)
    data = yaml.safe_load((dst / "family.yaml").read_text())
    edit(data)
    (dst / "family.yaml").write_text(yaml.safe_dump(data))
    return dst


def _variant(data, name="v1_smem"):
    return data["variants"][name]


def _balanced_sum(depth: int) -> str:
    """n + n + ... with 2**depth terms, nested only `depth` deep."""
    return (
        "n"
        if depth == 0
        else f"({_balanced_sum(depth - 1)})+({_balanced_sum(depth - 1)})"
    )


# (edit of kernels/jacobi2d/family.yaml, field named, words of the reason)
BAD = {
    "tower_of_powers": (lambda d: d.update(flops="n*9**9**9"), "flops", "exponent"),
    "power_of_n": (lambda d: d.update(flops="2**n"), "flops", "exponent"),
    "negative_bytes": (lambda d: d.update(bytes="12*n - 2**40"), "bytes", "negative"),
    "infinite_constant": (lambda d: d.update(bytes="1e309*n"), "bytes", "finite"),
    # inf - inf would be NaN: no value on the way there can be that large
    "nan": (lambda d: d.update(flops="1e308*10 - 1e308*10"), "flops", "beyond 2**100"),
    "log_of_negative": (lambda d: d.update(flops="log2(-n)"), "flops", "math domain"),
    "complex": (lambda d: d.update(flops="(-n)**0.5"), "flops", "complex"),
    "huge": (lambda d: d.update(bytes="n**30"), "bytes", "beyond 2**100"),
    "unary_minus_bomb": (
        lambda d: d.update(flops="-" * 200_000 + "n"),
        "flops",
        "characters",
    ),
    "long_sum": (
        lambda d: d.update(bytes="+".join(["n"] * 50_000)),
        "bytes",
        "characters",
    ),
    "deep": (lambda d: d.update(bytes="-" * 100 + "n"), "bytes", "nested"),
    "many_terms": (lambda d: d.update(bytes=_balanced_sum(6)), "bytes", "terms"),
    "fractional_grid": (
        lambda d: _variant(d).update(grid=["n / 3", "cdiv(n, 8)"]),
        "variants.v1_smem.grid.0",
        "not an integer",
    ),
    "grid_beyond_limit": (
        lambda d: _variant(d).update(grid=["cdiv(n, 32)", "n*n"]),
        "variants.v1_smem.grid.1",
        "outside 0..65,535",
    ),
    "negative_grid": (
        lambda d: _variant(d).update(grid=["cdiv(n, 32) - 100", "1"]),
        "variants.v1_smem.grid.0",
        "outside",
    ),
    "grid_division_by_zero_at_a_verify_size": (
        lambda d: _variant(d).update(grid=["1000 // (n - 257)", "1"]),
        "variants.v1_smem.grid.0",
        "n = 257: division by zero",
    ),
    "accepts_division_by_zero": (
        lambda d: _variant(d).update(accepts="n % 0 == 0"),
        "variants.v1_smem.accepts",
        "division by zero",
    ),
    "accepts_unbounded": (
        lambda d: _variant(d).update(accepts="9**9**9 > n"),
        "variants.v1_smem.accepts",
        "exponent",
    ),
    "accepts_not_an_expression": (
        lambda d: _variant(d).update(accepts="n %% 4"),
        "variants.v1_smem.accepts",
        "not an expression",
    ),
    "shared_bytes_beyond_the_device": (
        lambda d: _variant(d).update(shared_bytes="n*64"),
        "variants.v1_smem.shared_bytes",
        "outside 0..232,448",
    ),
    "scalar_beyond_int32": (
        lambda d: d["args"][2].update(value="n*n*n"),
        "args.n.value",
        "outside -2,147,483,648..2,147,483,647",
    ),
    "negative_shape": (
        lambda d: d["args"][0].update(shape="n, n - 600"),
        "args.A.shape",
        "outside",
    ),
    "nan_tolerance": (
        lambda d: d.update(tolerance=float("nan")),
        "tolerance",
        "finite",
    ),
    "infinite_tolerance": (
        lambda d: d.update(tolerance=float("inf")),
        "tolerance",
        "finite",
    ),
    "block_too_large": (
        lambda d: _variant(d).update(block=[64, 32, 1]),
        "variants.v1_smem.block",
        "2048 threads per block",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_expression_fails_at_load_naming_file_and_field_in_under_a_second(
    tmp_path, case
):
    edit, field, reason = BAD[case]
    folder = _family(tmp_path, "jacobi2d", edit)
    start = time.perf_counter()
    with pytest.raises(ManifestError) as info:
        load_family(folder)
    elapsed = time.perf_counter() - start
    message = str(info.value)
    assert elapsed < 1.0, f"{case}: {elapsed:.2f} s"
    assert str(folder / "family.yaml") in message, message
    assert field in message, message
    assert reason in message, message
    assert "\n" not in message and len(message) < 600, message


def test_every_bundled_manifest_passes_the_load_checks_quickly():
    start = time.perf_counter()
    for folder in sorted((ROOT / "kernels").iterdir()):
        if (folder / "family.yaml").is_file():
            load_family(folder)
    assert time.perf_counter() - start < 1.0


def test_generated_sizes_stand_in_as_n_and_say_so(tmp_path):
    folder = _family(tmp_path, "spmv", lambda d: d.update(bytes="8*nnz - 2**40"))
    with pytest.raises(ManifestError, match=r"bytes.*negative.*stand in as n"):
        load_family(folder)


def test_real_generated_sizes_are_checked_when_evaluated():
    fam = load_family(ROOT / "kernels" / "spmv")
    sizes = {"n": 8, "nnz": -5, "ell_width": 1, "hyb_width": 1, "ncoo": 0}
    with pytest.raises(ManifestError, match=r"flops.*negative"):
        fam.ideal_flops(sizes)


def test_sizes_from_numpy_do_not_wrap_around():
    # np.int64 arithmetic wraps silently; the evaluator works on Python numbers
    n = np.int64(2**40)
    assert evaluate("n*n", {"n": n}) == 2**80
    with pytest.raises(ManifestError, match="beyond 2\\*\\*100"):
        evaluate("n*n*n", {"n": n})


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("cdiv(n, 32)", 32),
        ("max(n, 2*n, 3)", 2048),
        ("log2(n)", 10.0),
        ("n % 4 == 0 and n > 8", True),
        ("-n + 2**100 - 2**100", -1024),
    ],
)
def test_bounded_expressions_still_evaluate(expression, value):
    assert evaluate(expression, {"n": 1024}) == value


def test_powers_of_a_size_within_bounds():
    assert evaluate("2**n", {"n": 20}) == 2**20
    with pytest.raises(ManifestError, match="n = 1024: exponent 1024 is beyond"):
        evaluate("2**n", {"n": 1024})


def test_the_magnitude_bound_is_inclusive():
    assert evaluate("2**100", {}) == MAX_MAGNITUDE
    with pytest.raises(ManifestError):
        evaluate("2**100 + 1", {})


@pytest.mark.parametrize(
    "expression",
    ["(lambda: 1)()", "[n]", "n if n else 1", "min()", "cdiv(n)", "max(*[n])"],
)
def test_names_rejects_what_evaluate_would(expression):
    with pytest.raises(ManifestError, match="cannot evaluate"):
        names(expression, "family.yaml: field grid.0")


def _clock(step_s: float):
    """A clock that moves ``step_s`` on every reading."""
    now = [0.0]

    def read() -> float:
        now[0] += step_s
        return now[0]

    return read


def test_waiting_for_the_cpu_does_not_count_as_evaluation_time(monkeypatch):
    # a loaded machine leaves the process waiting: the wall clock runs on, 1 s a
    # reading here, while this thread computes nothing
    for wall in ("monotonic", "perf_counter", "time"):
        monkeypatch.setattr(time, wall, _clock(1.0))
    assert evaluate("2*4*n*n + min(n, 3)", {"n": 64}, "bytes") == 2 * 4 * 64 * 64 + 3


def test_an_evaluation_that_uses_the_cpu_past_the_limit_fails(monkeypatch):
    for clock in ("monotonic", "thread_time"):  # the thread computed all that time
        monkeypatch.setattr(time, clock, _clock(1.0))
    with pytest.raises(ManifestError, match=r"evaluation took longer than 0\.1 s"):
        evaluate("2*4*n*n + min(n, 3)", {"n": 64}, "bytes")
