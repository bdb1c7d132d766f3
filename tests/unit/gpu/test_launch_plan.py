"""The launcher's data setup on the CPU: every variant of every family, small sizes.

pycuda is replaced by a recorder (``FakeDriver``) that keeps what the launcher asked
for: buffers, copies to __constant__ symbols, fills and launches. Nothing here runs a
kernel or stands in for a measurement; it checks that each manifest's expressions,
argument lists and generated sizes fit together before any GPU time is spent.
"""

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nsightflow.errors import ManifestError
from nsightflow.family.registry import load_families, load_family
from nsightflow.gpu.launch import Launcher

ROOT = Path(__file__).resolve().parents[3]
NEW = ["conv2d", "histogram", "reduction", "scan", "spmv", "vecadd"]


class _Error(Exception):
    pass


class _Buffer:
    def __init__(self, nbytes: int) -> None:
        self.nbytes = nbytes
        self.data = b""

    def free(self) -> None:
        pass


class _Function:
    def __init__(self, name: str, log: list[Any]) -> None:
        self.name, self.log, self.types = name, log, ""

    def prepare(self, types: str) -> None:
        self.types = types

    def prepared_async_call(self, grid, block, stream, *args, shared_size=0) -> None:
        self.log.append((self.name, self.types, grid, block, shared_size, args))


class _Module:
    def __init__(self, log: list[Any], symbols: dict[str, int]) -> None:
        self.log, self.symbols = log, symbols

    def get_function(self, name: str) -> _Function:
        return _Function(name, self.log)

    def get_global(self, name: str) -> tuple[_Buffer, int]:
        if name not in self.symbols:
            raise _Error(f"named symbol not found: {name}")
        return _Buffer(self.symbols[name]), self.symbols[name]


class FakeDriver:
    """Records the pycuda calls the launcher makes."""

    Error = _Error

    def __init__(self, symbols: dict[str, int] | None = None) -> None:
        self.launches: list[Any] = []
        self.copies: list[tuple[_Buffer, np.ndarray]] = []
        self.symbols = symbols or {}

    def module_from_file(self, path: str) -> _Module:
        return _Module(self.launches, self.symbols)

    def to_device(self, array: np.ndarray) -> _Buffer:
        assert array.size > 0, "pycuda cannot allocate 0 bytes"
        return _Buffer(array.nbytes)

    def mem_alloc(self, nbytes: int) -> _Buffer:
        assert nbytes > 0
        return _Buffer(nbytes)

    def memcpy_htod(self, buf: _Buffer, array: np.ndarray) -> None:
        assert array.nbytes <= buf.nbytes, "copy larger than the allocation"
        self.copies.append((buf, array))

    def memcpy_dtoh(self, host: np.ndarray, buf: _Buffer) -> None:
        assert host.nbytes <= buf.nbytes

    def memset_d8(self, buf: _Buffer, value: int, nbytes: int) -> None:
        assert nbytes <= buf.nbytes
        self.copies.append((buf, np.full(nbytes, value, dtype=np.uint8)))


class FakeGpu:
    def __init__(self, driver: FakeDriver) -> None:
        self.cuda = driver


def _setup(family, variant, n: int, symbols=None) -> tuple[Launcher, FakeDriver]:
    driver = FakeDriver(symbols)
    launcher = Launcher(FakeGpu(driver), family, variant, Path("x.cubin"), n)  # type: ignore[arg-type]
    launcher.setup(np.random.default_rng(0))
    launcher.launch()
    return launcher, driver


CASES = [
    (fam, name, n)
    for fam in load_families(ROOT / "kernels", NEW)
    for name, var in fam.variants.items()
    if not var.is_python  # a Python launcher's kernels are its framework's
    for n in (1, 1000)
]


@pytest.mark.parametrize(
    ("family", "variant", "n"), CASES, ids=lambda x: getattr(x, "name", str(x))
)
def test_every_variant_sets_up_its_launches(family, variant, n):
    var = family.variants[variant]
    symbols = {a.name: 4096 for a in family.args if a.role == "constant"}
    launcher, driver = _setup(family, var, n, symbols)
    assert [call[0] for call in driver.launches] == [
        launch.kernel
        for launch in var.launches
        if min(launch.shape(launcher.sizes, var.where)[0]) > 0
    ]
    assert driver.launches, "no launch at all"
    for name, types, grid, block, _shared, args in driver.launches:
        assert len(types) == len(args), name
        assert min(grid) > 0 and int(np.prod(block)) <= 1024
        for t, value in zip(types, args, strict=True):
            assert isinstance(value, _Buffer) if t == "P" else np.isscalar(value)
    outputs = launcher.outputs()
    assert set(outputs) == {a.name for a in family.args if a.role == "output"}
    expected = family.reference_module().reference(launcher.inputs, n)
    for name, out in outputs.items():
        assert out.size == np.asarray(expected[name]).size, (name, out.shape)


def test_zero_init_and_sentinel_fill_follow_the_manifest():
    fam = load_family(ROOT / "kernels" / "reduction")
    atomic, _ = _setup(fam, fam.variants["v4_vec4_atomic"], 1000)
    fills = {id(buf): arr for buf, arr in atomic.gpu.cuda.copies}
    assert fills[id(atomic._buffers["S"])].tolist() == [0.0]
    two_pass, _ = _setup(fam, fam.variants["v3_vec4"], 1000)
    fills = {id(buf): arr for buf, arr in two_pass.gpu.cuda.copies}
    assert np.isnan(fills[id(two_pass._buffers["S"])]).all()
    # scratch is allocated for the launches that use it, never returned as output
    assert "partial" in two_pass._buffers and "partial" not in two_pass.outputs()


def test_constant_array_goes_to_its_symbol_and_is_no_kernel_argument():
    fam = load_family(ROOT / "kernels" / "conv2d")
    _, driver = _setup(fam, fam.variants["v0_naive_const"], 16, {"M": 100})
    masks = [arr for _, arr in driver.copies if arr.shape == (5, 5)]
    assert len(masks) == 1 and masks[0].dtype == np.float32
    ((_, types, *_rest),) = driver.launches
    assert types == "PPi"  # N, P, n: the mask is not passed
    with pytest.raises(ManifestError, match="__constant__ symbol 'M'"):
        _setup(fam, fam.variants["v0_naive_const"], 16, {})


def test_generated_sizes_shape_buffers_and_only_used_inputs_are_built():
    fam = load_family(ROOT / "kernels" / "spmv")
    launcher, driver = _setup(fam, fam.variants["v7_hyb_skewed"], 1000)
    sizes = launcher.sizes
    assert sizes["nnz"] > 9 * 1000 and sizes["ncoo"] > 0 and sizes["hyb_width"] == 9
    ell, coo = driver.launches
    assert ell[2] == (4, 1, 1) and coo[2] == (-(-sizes["ncoo"] // 256), 1, 1)
    assert coo[5][-1] == sizes["ncoo"]
    # CSR-only variant: the ELL arrays (14x the CSR size when skewed) are never built
    csr, _ = _setup(fam, fam.variants["v4_csr_thread_skewed"], 1000)
    assert "ell_col" not in csr._buffers and "col" in csr._buffers
    assert not callable(csr.inputs["col"])
    # a banded HYB has no COO part: that launch is skipped
    _, banded = _setup(fam, fam.variants["v3_hyb"], 1000)
    assert [c[0] for c in banded.launches] == ["spmv_ell"]


def test_generated_array_of_the_wrong_size_names_the_field(tmp_path):
    import shutil

    folder = tmp_path / "vecadd"
    shutil.copytree(ROOT / "kernels" / "vecadd", folder)
    ref = folder / "reference.py"
    ref.write_text(
        ref.read_text().replace('"A": rng.random(n,', '"A": rng.random(n - 1,')
    )
    fam = load_family(folder)
    with pytest.raises(ManifestError, match="'A' with shape"):
        _setup(fam, fam.variants["v0_one_per_thread"], 10)


def test_zero_fill_clears_outputs_and_scratch_on_the_device():
    fam = load_family(ROOT / "kernels" / "reduction")
    driver = FakeDriver()
    launcher = Launcher(FakeGpu(driver), fam, fam.variants["v3_vec4"], Path("x"), 5000)  # type: ignore[arg-type]
    launcher.setup(np.random.default_rng(0), fill="zero")
    zeroed = {id(buf) for buf, arr in driver.copies if arr.dtype == np.uint8}
    assert zeroed == {id(launcher._buffers["S"]), id(launcher._buffers["partial"])}
    assert not any(
        np.isnan(arr).any() for _, arr in driver.copies if arr.dtype.kind == "f"
    )
