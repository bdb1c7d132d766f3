"""Tunable params in manifests: axes, constraints, use in block/grid/defines, and the
errors a bad declaration gets (file and field named, how to fix it)."""

import shutil
from pathlib import Path

import pytest
import yaml

from nsightflow.errors import ManifestError
from nsightflow.family.params import config_id, points, space_size
from nsightflow.family.registry import built_params, find_variant, load_family
from nsightflow.tools.nvcc import nvcc_argv

ROOT = Path(__file__).resolve().parents[3]
SWEEPY = ROOT / "tests" / "data" / "families"


def _copy(tmp_path: Path, family: str, edit, source: str | None = None) -> Path:
    folder = tmp_path / family
    shutil.copytree(ROOT / "kernels" / family, folder)
    (folder / "tuned.yaml").unlink(missing_ok=True)  # edits may leave its values
    data = yaml.safe_load((folder / "family.yaml").read_text())
    edit(data)
    (folder / "family.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    if source is not None:
        name, text = source.split("\n", 1)
        (folder / name).write_text(text)
    return folder


def test_sgemm_v7_loads_at_its_defaults_with_the_hand_picked_shape():
    var = load_family(ROOT / "kernels" / "sgemm").variants["v7_double_buffer"]
    assert var.config == {
        "BM": 128,
        "BN": 128,
        "BK": 8,
        "TM": 8,
        "TN": 8,
        "WN": 16,
        "MIN_BLOCKS": 2,
    }
    # the shape the manifest had before it was parameterized
    assert var.launch_shape(4096) == ((32, 32, 1), (256, 1, 1))
    assert var.accepts_size(384) and not var.accepts_size(320)


def test_other_params_move_block_grid_accepts_and_defines():
    var = load_family(ROOT / "kernels" / "sgemm").variants["v7_double_buffer"]
    other = var.with_params({"BM": 64, "BN": 256, "TM": 4})
    # (64 // 4) * (256 // 8) = 512 threads; grid x over BN, y over BM
    assert other.launch_shape(4096) == ((16, 64, 1), (512, 1, 1))
    assert other.accepts_size(320) is False and other.accepts_size(512) is True
    argv = nvcc_argv(other, "sm_90", Path("x.cubin"))
    assert "-DBM=64" in argv and "-DBN=256" in argv and "-DMIN_BLOCKS=2" in argv
    assert other.config_id == "BM64_BN256_BK8_TM4_TN8_WN16_MIN_BLOCKS2"
    assert var.config["BM"] == 128  # the loaded variant is unchanged


def test_a_variant_without_params_compiles_as_before():
    var = load_family(ROOT / "kernels" / "jacobi2d").variants["v0_naive"]
    assert var.params == () and var.config == {}
    assert not any(a.startswith("-D") for a in nvcc_argv(var, "sm_90", Path("x")))


def test_the_jacobi_space_and_its_constraint():
    var = load_family(ROOT / "kernels" / "jacobi2d").variants["v5_strip_vec4"]
    assert space_size(var.params) == 4 * 4 * 5
    ok = [p for p in points(var.params) if not var.unmet_constraints(p)]
    # 32 x 1 (32 threads) and 256 x 8 (2048) break 64 <= threads <= 1024, at 5 ROWS each
    assert len(ok) == 80 - 10
    assert var.unmet_constraints({"BLOCK_X": 32, "BLOCK_Y": 1, "ROWS": 8})
    quick = list(points(var.params, "quick"))
    assert len(quick) == 8 and {"BLOCK_X": 32, "BLOCK_Y": 8, "ROWS": 8} in quick
    shaped = var.with_params({"BLOCK_X": 128, "BLOCK_Y": 2, "ROWS": 16})
    assert shaped.launch_shape(8192) == ((16, 256, 1), (128, 2, 1))


def test_with_params_rejects_unknown_names_and_undeclared_values():
    var = load_family(ROOT / "kernels" / "jacobi2d").variants["v3_colstrip"]
    with pytest.raises(ManifestError, match="no parameter 'ROW'"):
        var.with_params({"ROW": 4})
    with pytest.raises(ManifestError, match=r"params.ROWS: 3 is not one of"):
        var.with_params({"ROWS": 3})


def _v3(edit_variant):
    def edit(d):
        edit_variant(d["variants"]["v3_colstrip"])

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            _v3(lambda v: v["params"].update(ROWS={"values": [4, 8], "default": 16})),
            r"params.ROWS: \[16\] not among the values",
        ),
        (
            _v3(lambda v: v["constraints"].append("ROWS * WARPS < 64")),
            r"constraints.1: 'ROWS \* WARPS < 64' uses \['WARPS'\]",
        ),
        (
            _v3(lambda v: v["constraints"].append("ROWS < 8")),
            r"defaults .* break the constraint 'ROWS < 8'",
        ),
        (
            _v3(lambda v: v["params"].update(UNROLL=[1, 2])),
            r"params.UNROLL: used neither in \['v3_colstrip.cu'\]",
        ),
        (
            _v3(lambda v: v["params"].update(n=[1, 2])),
            r"params: \['n'\] already name sizes",
        ),
        (
            _v3(lambda v: v.update(block=["BLOCK_X - 32", "BLOCK_Y", 1])),
            r"launches.0.block: \[0, 2, 1\] at \{'BLOCK_X': 32, 'BLOCK_Y': 2",
        ),
        (
            _v3(lambda v: v.update(grid=["cdiv(n, BLOCK_X)", "cdiv(n, ROWZ)", "1"])),
            r"launches.0.grid.1: .* uses \['ROWZ'\]; known are the sizes \['n'\] and "
            r"the params \['BLOCK_X', 'BLOCK_Y', 'ROWS'\]",
        ),
        (
            _v3(lambda v: v["params"].update(ROWS={"values": "many"})),
            r"field variants.v3_colstrip.params.ROWS",
        ),
    ],
)
def test_bad_params_name_file_and_field(tmp_path, edit, message):
    folder = _copy(tmp_path, "jacobi2d", edit)
    with pytest.raises(ManifestError, match=message) as info:
        load_family(folder)
    assert str(folder / "family.yaml") in str(info.value)


def test_an_unguarded_define_of_a_param_is_refused(tmp_path):
    source = (ROOT / "kernels/jacobi2d/v3_colstrip.cu").read_text()
    unguarded = source.replace("#ifndef ROWS\n", "").replace(
        "#define ROWS 8", "#define ROWS 8\n#if 0", 1
    )
    folder = _copy(tmp_path, "jacobi2d", lambda d: None, "v3_colstrip.cu\n" + unguarded)
    with pytest.raises(
        ManifestError, match=r"#define ROWS is not inside '#ifndef ROWS'"
    ):
        load_family(folder)


def test_a_space_too_large_to_check_is_refused(tmp_path):
    many = {"values": list(range(1, 200))}
    folder = _copy(
        tmp_path,
        "jacobi2d",
        _v3(lambda v: v["params"].update(BLOCK_X=many, BLOCK_Y=many)),
    )
    with pytest.raises(ManifestError, match=r"the space has 198,005 points"):
        load_family(folder)


def test_family_level_params_reach_the_variants_that_use_them(tmp_path):
    def edit(d):
        d["params"] = {"ROWS": {"values": [2, 8], "default": 8}}
        d["variants"]["v3_colstrip"]["params"].pop("ROWS")
        d["variants"]["v5_strip_vec4"]["params"]["ROWS"] = [16, 8]

    fam = load_family(_copy(tmp_path, "jacobi2d", edit))
    v3, v5 = fam.variants["v3_colstrip"], fam.variants["v5_strip_vec4"]
    assert {a.name: a.values for a in v3.params}["ROWS"] == (2, 8)
    assert v5.config["ROWS"] == 16  # a bare list: its first value is the default
    assert fam.variants["v0_naive"].config == {}  # its source has no ROWS


def test_config_ids_follow_declaration_order():
    assert config_id({"BM": 64, "TM": 4}) == "BM64_TM4"
    assert config_id({}) == ""


def test_the_gpu_stages_run_the_configuration_the_cubin_was_built_with(tmp_path):
    cubin = tmp_path / "v5_strip_vec4.cubin"
    _, default = find_variant(ROOT / "kernels", "jacobi2d", "v5_strip_vec4", cubin)
    assert default.config["ROWS"] == 8  # no resources JSON: the defaults
    cubin.with_suffix(".resources.json").write_text(
        '{"status": "ok", "params": {"BLOCK_X": 64, "BLOCK_Y": 4, "ROWS": 16}}'
    )
    assert built_params(cubin) == {"BLOCK_X": 64, "BLOCK_Y": 4, "ROWS": 16}
    _, built = find_variant(ROOT / "kernels", "jacobi2d", "v5_strip_vec4", cubin)
    assert built.launch_shape(8192) == ((32, 128, 1), (64, 4, 1))


def test_the_sweep_test_family_loads():
    var = load_family(SWEEPY / "sweepy").variants["v0_modes"]
    assert var.config == {"BLOCK": 256, "MODE": 0}
    assert var.dynamic_shared(1000) == 0
    assert var.with_params({"MODE": 6}).dynamic_shared(1000) == 65536
