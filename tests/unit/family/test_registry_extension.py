"""The registry's extension for the ECE408 families: generated sizes, launches,
scratch, init, constants, generator arguments; bad manifests name file and field."""

import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from nsightflow.errors import ManifestError
from nsightflow.family.expr import names
from nsightflow.family.registry import load_family
from nsightflow.gpu.verify import compare

ROOT = Path(__file__).resolve().parents[3]


def _copy(tmp_path: Path, family: str, edit) -> Path:
    folder = tmp_path / family
    shutil.copytree(ROOT / "kernels" / family, folder)
    data = yaml.safe_load((folder / "family.yaml").read_text())
    edit(data)
    (folder / "family.yaml").write_text(yaml.safe_dump(data))
    return folder


def test_expression_names_skip_function_names():
    assert names("cdiv(n, 256) + max(nnz, 1)") == {"n", "nnz"}
    assert names("n, n") == {"n"}


def test_generated_sizes_enter_flops_bytes_and_shapes():
    fam = load_family(ROOT / "kernels" / "spmv")
    sizes = {"n": 1000, "nnz": 9000, "ell_width": 9, "hyb_width": 9, "ncoo": 0}
    assert fam.ideal_flops(sizes) == 18000
    assert fam.ideal_bytes(sizes) == 8 * 9000 + 4 * 1001 + 8 * 1000
    ell = {a.name: a for a in fam.args}["ell_col"]
    assert ell.shape_for(sizes, "where") == (9000,)
    var = fam.variants["v7_hyb_skewed"]
    assert var.generator_args == {"kind": "skewed"}
    assert var.kernels == ("spmv_ell", "spmv_coo")
    assert var.source.name == "v3_hyb.cu"


def test_launches_resolve_names_scratch_and_inline_scalars():
    fam = load_family(ROOT / "kernels" / "scan")
    var = fam.variants["v1_brent_kung"]
    assert [launch.kernel for launch in var.launches] == [
        "scan_v1_tiles",
        "scan_tile_sums",
        "scan_add_offsets",
    ]
    scan_sums = var.launches[1]
    assert [a.name for a in scan_sums.args] == ["sums", "count"]
    assert scan_sums.args[0].role == "scratch"
    assert scan_sums.args[1].value_for({"n": 5000}, "w") == 3
    assert var.launches[2].shape({"n": 5000}, "w") == ((3, 1, 1), (1024, 1, 1))
    # the main kernel (first launch) represents the variant
    assert var.kernel == "scan_v1_tiles" and var.block == (1024,)


def test_init_and_constants():
    red = load_family(ROOT / "kernels" / "reduction")
    s = {a.name: a for a in red.args}["S"]
    assert red.variants["v4_vec4_atomic"].init_of(s) == "zero"
    assert red.variants["v3_vec4"].init_of(s) == "sentinel"
    conv = load_family(ROOT / "kernels" / "conv2d")
    (launch,) = conv.variants["v0_naive_const"].launches
    assert [a.name for a in launch.args] == ["N", "P", "n"]  # M is a __constant__


def test_single_kernel_manifests_load_unchanged():
    jac = load_family(ROOT / "kernels" / "jacobi2d")
    var = jac.variants["v4_vec4"]
    assert len(var.launches) == 1 and var.kernels == ("jacobi2d_v4",)
    assert [a.name for a in var.launches[0].args] == ["A", "B", "n"]


@pytest.mark.parametrize(
    ("family", "edit", "field", "hint"),
    [
        (
            "spmv",
            lambda d: d.update(flops="2*nonzeros"),
            "field flops",
            "generated",
        ),
        (
            "spmv",
            lambda d: d["generated"].remove("ncoo"),
            "args.7.shape",
            "['ncoo']",
        ),
        (
            "scan",
            lambda d: d["variants"]["v0_kogge_stone"]["launches"][0]["args"].append(
                "blocksums"
            ),
            "variants.v0_kogge_stone.launches.0.args.4",
            "unknown argument 'blocksums'",
        ),
        (
            "conv2d",
            lambda d: d["variants"]["v0_naive_const"].update(args=["N", "M", "P", "n"]),
            "variants.v0_naive_const.launches.0.args.1",
            "__constant__",
        ),
        (
            "reduction",
            lambda d: d["variants"]["v4_vec4_atomic"].update(init={"X": "zero"}),
            "variants.v4_vec4_atomic.init.X",
            "not an output or scratch",
        ),
        (
            "reduction",
            lambda d: d["variants"]["v4_vec4_atomic"].update(
                launches=[{"kernel": "k", "block": [1], "grid": ["1"]}]
            ),
            "variants.v4_vec4_atomic",
            "not both",
        ),
        (
            "reduction",
            lambda d: d["variants"]["v0_interleaved"]["launches"][1].pop("grid"),
            "field variants.v0_interleaved.launches.1",
            "'grid' is a required property",
        ),
        (
            "vecadd",
            lambda d: d["variants"]["v3_float4"].update(accepts="nnz > 4"),
            "variants.v3_float4.accepts",
            "['nnz']",
        ),
        (
            "histogram",
            lambda d: d["args"][1].update(init="ones"),
            "field args.1.init",
            "'ones' is not one of",
        ),
    ],
)
def test_bad_extension_names_file_and_field(tmp_path, family, edit, field, hint):
    folder = _copy(tmp_path, family, edit)
    with pytest.raises(ManifestError) as info:
        load_family(folder)
    message = str(info.value)
    assert str(folder / "family.yaml") in message
    assert field in message and hint in message, message


def test_integer_outputs_compare_exactly():
    ref = np.arange(256, dtype=np.int64)
    assert compare(ref.astype(np.uint32), ref, 1.0)["ok"]
    off = ref.astype(np.uint32)
    off[7] += 1  # one count off passes no relative tolerance
    result = compare(off, ref, 1.0)
    assert not result["ok"] and result["mismatches"] == 1
    assert result["first_mismatch"]["index"] == [7]
    unwritten = ref.astype(np.uint32)
    unwritten[3] = np.iinfo(np.uint32).max
    assert compare(unwritten, ref, 1.0)["unwritten_or_nonfinite"] == 1


@pytest.mark.parametrize(
    "family", ["vecadd", "reduction", "histogram", "conv2d", "scan", "spmv"]
)
def test_sweeps_include_sizes_that_are_not_powers_of_two(family):
    fam = load_family(ROOT / "kernels" / family)
    sizes = set(fam.sizes) | set(fam.verify_sizes)
    assert any(n & (n - 1) for n in sizes)
    assert set(fam.profile_sizes) <= set(fam.sizes) and len(fam.profile_sizes) <= 2


def test_an_explicit_revision_wins_over_the_enclosing_checkout(monkeypatch):
    from nsightflow.tools.provenance import git_revision

    monkeypatch.delenv("NSIGHTFLOW_GIT_REVISION", raising=False)
    assert git_revision(ROOT / "kernels") not in (None, "0123abcd")
    monkeypatch.setenv("NSIGHTFLOW_GIT_REVISION", "0123abcd")
    assert git_revision(ROOT / "kernels") == "0123abcd"
