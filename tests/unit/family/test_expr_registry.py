from pathlib import Path

import pytest
import yaml

from nsightflow.errors import ManifestError
from nsightflow.family.expr import evaluate
from nsightflow.family.registry import load_families, load_family

ROOT = Path(__file__).resolve().parents[3]


def test_evaluate_arithmetic_and_cdiv():
    assert evaluate("cdiv(n, 32)", {"n": 1000}) == 32
    assert evaluate("5*(n-2)**2", {"n": 4}) == 20
    assert evaluate("n % 4 == 0", {"n": 8}) is True


@pytest.mark.parametrize("expr", ["__import__('os')", "n.real", "open('x')", "m + 1"])
def test_evaluate_rejects_anything_else(expr):
    with pytest.raises(ManifestError, match="cannot evaluate"):
        evaluate(expr, {"n": 1}, "family.yaml: grid")


def test_jacobi_manifest_loads_in_story_order():
    fam = load_family(ROOT / "kernels" / "jacobi2d")
    names = list(fam.variants)
    assert names[:3] == ["v0_naive", "v1_smem", "v2_coarsen2"]
    assert names == sorted(names, key=lambda v: int(v[1:].split("_")[0]))
    assert fam.variants["v2_coarsen2"].launch_shape(1000) == ((32, 63, 1), (32, 8, 1))
    assert fam.ideal_bytes(2048) == 2 * 4 * 2048 * 2048
    # at least one verify size is not a multiple of any block edge
    assert any(n % 32 and n % 8 for n in fam.verify_sizes)


def test_reference_matches_direct_stencil():
    import numpy as np

    fam = load_family(ROOT / "kernels" / "jacobi2d")
    ref = fam.reference_module()
    a = ref.generate(6, np.random.default_rng(1))
    b = ref.reference(a, 6)["B"]
    x = a["A"].astype(np.float64)
    assert b[2, 3] == pytest.approx(
        0.2 * (x[2, 3] + x[2, 2] + x[2, 4] + x[1, 3] + x[3, 3])
    )
    assert b[0, 3] == x[0, 3]


def _write_family(tmp_path: Path, edit) -> Path:
    src = ROOT / "kernels" / "jacobi2d"
    dst = tmp_path / "jacobi2d"
    dst.mkdir()
    for f in src.iterdir():
        (dst / f.name).write_bytes(f.read_bytes())
    data = yaml.safe_load((dst / "family.yaml").read_text())
    edit(data)
    (dst / "family.yaml").write_text(yaml.safe_dump(data))
    return dst


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["variants"]["v1_smem"].pop("kernel"), "variants.v1_smem"),
        (lambda d: d.update(baseline="v9_nothing"), "field baseline"),
        (
            lambda d: d["variants"]["v2_coarsen2"].update(improves_on="v7_x"),
            "improves_on",
        ),
        (lambda d: d["variants"]["v1_smem"].update(source="missing.cu"), "missing.cu"),
        (lambda d: d.update(sizes="big"), "field sizes"),
    ],
)
def test_bad_manifest_names_file_and_field(tmp_path, edit, message):
    folder = _write_family(tmp_path, edit)
    with pytest.raises(ManifestError) as info:
        load_family(folder)
    assert str(folder / "family.yaml") in str(info.value)
    assert message in str(info.value)


def test_unknown_family_lists_available():
    with pytest.raises(ManifestError, match=r"available: \[.*'jacobi2d', .*'sgemm'"):
        load_families(ROOT / "kernels", ["nbody"])
