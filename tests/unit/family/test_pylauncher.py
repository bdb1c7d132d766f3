"""Python launcher variants on CPU: the manifest, the compile record, the shared buffers
and the ncu command line (the frameworks themselves: tests/gpu/test_pylaunch_gpu.py)."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from nsightflow.errors import ManifestError
from nsightflow.family.inputs import plan_buffers
from nsightflow.family.registry import load_family
from nsightflow.gpu.pylaunch import DeviceArray
from nsightflow.tools.ncu import NcuSettings, ncu_argv
from nsightflow.tools.nvcc import compile_variant

ROOT = Path(__file__).resolve().parents[3]
FAKE = ROOT / "tests" / "data" / "families" / "fakelaunch"


@pytest.fixture
def family_copy(tmp_path) -> Path:
    folder = tmp_path / "fakelaunch"
    shutil.copytree(FAKE, folder)
    return folder


def test_a_py_source_is_a_launcher_with_every_array():
    family = load_family(FAKE)
    variant = family.variants["v0_launcher"]
    assert variant.is_python and variant.requires == ("fakeframework",)
    assert variant.launches == () and variant.kernels == ()
    assert variant.kernel == "v0_launcher.py" and variant.block == ()
    assert variant.dynamic_shared(4096) == 0
    plan = plan_buffers(family, variant)
    assert [a.name for a in plan.uploads] == ["x"]
    assert [a.name for a in plan.allocations] == ["y"]


def test_the_bundled_launchers_load_as_variants_of_their_families():
    for family, name, requires in (
        ("vecadd", "v4_triton", ("torch", "triton")),
        ("reduction", "v5_cupy_sum", ("cupy",)),
        ("sgemm", "v8_torch_matmul", ("torch",)),
    ):
        variant = load_family(ROOT / "kernels" / family).variants[name]
        assert variant.is_python and variant.requires == requires


def _edit(folder: Path, old: str, new: str) -> None:
    manifest = folder / "family.yaml"
    manifest.write_text(manifest.read_text().replace(old, new, 1))


def test_a_launcher_with_a_kernel_field_names_the_field(family_copy):
    _edit(family_copy, "    requires: [fakeframework]\n", "    kernel: k\n")
    with pytest.raises(
        ManifestError, match=r"variants\.v0_launcher\.kernel: .*launches its own"
    ):
        load_family(family_copy)


def test_a_source_that_is_neither_cuda_nor_python_is_refused(family_copy):
    (family_copy / "v0_launcher.sh").write_text("echo\n")
    _edit(family_copy, "source: v0_launcher.py", "source: v0_launcher.sh")
    with pytest.raises(ManifestError, match=r"variants\.v0_launcher\.source"):
        load_family(family_copy)


def test_init_of_a_launcher_names_outputs_only(family_copy):
    _edit(family_copy, "    requires: [fakeframework]\n", "    init: {x: zero}\n")
    with pytest.raises(ManifestError, match=r"init\.x: not an output or scratch"):
        load_family(family_copy)


def test_compile_reads_a_launcher_without_importing_it(family_copy, tmp_path):
    variant = load_family(family_copy).variants["v2_missing"]
    cubin = tmp_path / "v2.cubin"
    record = compile_variant(variant, "sm_90", cubin)
    # its framework is missing here: that is for the GPU stages to record (skipped)
    assert record["status"] == "ok" and record["kind"] == "python"
    assert record["requires"] == {"nsightflow_no_such_framework": None}
    assert cubin.read_bytes() == b""
    assert len(record["source_sha256"]) == 64


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("def prepare(args:\n", "does not parse"),
        ("def launch(args):\n    pass\n", "no top-level def prepare(args)"),
    ],
)
def test_a_broken_launcher_fails_to_compile(family_copy, tmp_path, text, message):
    (family_copy / "v0_launcher.py").write_text(text)
    variant = load_family(family_copy).variants["v0_launcher"]
    record = compile_variant(variant, "sm_90", tmp_path / "v0.cubin")
    assert record["status"] == "compile_failed"
    assert message in record["message"] and "v0_launcher.py" in record["message"]


def test_numpys_version_is_recorded_when_a_launcher_requires_it(family_copy, tmp_path):
    _edit(family_copy, "requires: [fakeframework]", "requires: [numpy]")
    variant = load_family(family_copy).variants["v0_launcher"]
    record = compile_variant(variant, "sm_90", tmp_path / "v0.cubin")
    assert record["requires"] == {"numpy": np.__version__}


class _Allocation:
    def __int__(self) -> int:
        return 0x7F0000001000


def test_a_device_array_speaks_the_cuda_array_interface():
    array = DeviceArray("C", _Allocation(), (4, 3), "float32")
    assert array.ptr == 0x7F0000001000
    assert array.__cuda_array_interface__ == {
        "shape": (4, 3),
        "typestr": "<f4",
        "data": (0x7F0000001000, False),
        "strides": None,
        "version": 3,
    }


def test_a_launcher_is_profiled_by_its_profiler_range_not_by_kernel_name():
    argv = ncu_argv(NcuSettings(), None, Path("r.ncu-rep"), ["python", "w.py"])
    assert argv[:7] == [
        "ncu",
        "--clock-control",
        "none",
        "--profile-from-start",
        "off",
        "--target-processes",
        "all",
    ]
    assert "--kernel-name" not in argv and "--launch-count" not in argv
    assert argv[-4:] == ["r.ncu-rep", "--force-overwrite", "python", "w.py"]
