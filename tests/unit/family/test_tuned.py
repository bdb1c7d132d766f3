"""tuned.yaml: validation, GPU-model matching, the quick space, the starting point."""

import shutil
from pathlib import Path

import pytest

from nsightflow.errors import ManifestError
from nsightflow.family import tuned
from nsightflow.family.registry import load_family
from nsightflow.gpu.sweep.space import plan

KERNELS = Path(__file__).parents[3] / "kernels"
V7 = {"BM": 64, "BN": 256, "BK": 8, "TM": 16, "TN": 8, "WN": 8, "MIN_BLOCKS": 2}


@pytest.fixture
def sgemm(tmp_path: Path) -> Path:
    folder = tmp_path / "sgemm"
    shutil.copytree(KERNELS / "sgemm", folder)
    return folder


def write(folder: Path, text: str) -> None:
    (folder / "tuned.yaml").write_text(text)


def test_the_bundled_files_load_and_name_the_recorded_best() -> None:
    for name in ("sgemm", "jacobi2d"):
        family = load_family(KERNELS / name)
        assert tuned.load(family.folder, family.variants)
    family = load_family(KERNELS / "sgemm")
    entry = tuned.entry_for(
        tuned.load(family.folder, family.variants), "v7_double_buffer", "NVIDIA H200"
    )
    assert entry is not None and entry.params == V7


@pytest.mark.parametrize(
    ("text", "field", "fix"),
    [
        ("gpus: {}\n", "top level", "schema_version and gpus"),
        ("schema_version: 2\ngpus: {}\n", "schema_version", "reads 1"),
        (
            "schema_version: 1\ngpus: {H200: {v9_nope: {params: {}}}}\n",
            "gpus.H200.v9_nope",
            "use one of",
        ),
        (
            "schema_version: 1\ngpus: {H200: {v7_double_buffer: {params: {BM: 64}}}}\n",
            "gpus.H200.v7_double_buffer.params",
            "give exactly",
        ),
        (
            "schema_version: 1\ngpus: {H200: {v7_double_buffer: {params: "
            "{BM: 96, BN: 256, BK: 8, TM: 16, TN: 8, WN: 8, MIN_BLOCKS: 2}}}}\n",
            "gpus.H200.v7_double_buffer.params.BM",
            "declare it in family.yaml",
        ),
        (
            "schema_version: 1\ngpus: {H200: {v7_double_buffer: {params: "
            "{BM: 64, BN: 128, BK: 8, TM: 4, TN: 8, WN: 8, MIN_BLOCKS: 1}}}}\n",
            "gpus.H200.v7_double_buffer.params",
            "constraint false",
        ),
        (
            "schema_version: 1\ngpus: {H200: {v7_double_buffer: {parms: {}}}}\n",
            "gpus.H200.v7_double_buffer",
            "expected params",
        ),
        ("schema_version: 1\ngpus: [\n", "not readable YAML", "fix it"),
    ],
)
def test_a_bad_file_is_one_line_naming_file_field_and_fix(
    sgemm: Path, text: str, field: str, fix: str
) -> None:
    write(sgemm, text)
    with pytest.raises(ManifestError) as error:
        load_family(sgemm)  # loading the family validates its tuned file
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{sgemm / 'tuned.yaml'}: ")
    assert field in message and fix in message


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("NVIDIA H200", "NVIDIA H200", True),
        ("nvidia  h200", "NVIDIA H200 ", True),
        ("NVIDIA H200", "NVIDIA H200 NVL", False),
        ("NVIDIA H200", "NVIDIA H100 80GB HBM3", False),
        ("", "", False),
    ],
)
def test_gpu_models_match_by_name(a: str, b: str, same: bool) -> None:
    assert tuned.same_gpu(a, b) is same


def test_a_matching_gpu_starts_from_the_tuned_entry_another_from_defaults() -> None:
    family = load_family(KERNELS / "sgemm")
    v7 = family.variants["v7_double_buffer"]
    at, config = tuned.starting_config(v7, "NVIDIA H200")
    assert (at.config, config["origin"]) == (V7, tuned.TUNED)
    assert config["id"] == "BM64_BN256_BK8_TM16_TN8_WN8_MIN_BLOCKS2"
    at, config = tuned.starting_config(v7, "NVIDIA A100-SXM4-80GB")
    assert config["origin"] == tuned.DEFAULT and config["params"]["BM"] == 128
    assert "no tuned entry for NVIDIA A100-SXM4-80GB" in config["detail"]
    _, unknown = tuned.starting_config(v7, "")
    assert unknown["detail"] == "GPU model unknown"


def test_the_quick_space_includes_the_tuned_point(sgemm: Path) -> None:
    v7 = load_family(sgemm).variants["v7_double_buffer"]
    ids = [p["id"] for p in plan(v7, "quick")]
    assert "BM64_BN256_BK8_TM16_TN8_WN8_MIN_BLOCKS2" in ids
    assert len(ids) == 4 + 1  # BK x MIN_BLOCKS around the defaults, and the tuned
    (sgemm / "tuned.yaml").unlink()
    v7 = load_family(sgemm).variants["v7_double_buffer"]
    assert len(plan(v7, "quick")) == 4


def test_write_entry_adds_and_replaces_and_says_what_it_replaced(
    sgemm: Path,
) -> None:
    family = load_family(sgemm)
    entry = tuned.TunedEntry("NVIDIA H200", "v7_double_buffer", {**V7, "BN": 128})
    line = tuned.write_entry(sgemm, entry)
    assert "was BM64_BN256_BK8_TM16_TN8_WN8_MIN_BLOCKS2" in line
    entries = tuned.load(sgemm, family.variants)
    assert len(entries) == 4  # v4..v6 kept
    found = tuned.entry_for(entries, "v7_double_buffer", "nvidia h200")
    assert found is not None and found.params["BN"] == 128
    tuned.write_entry(sgemm, tuned.TunedEntry("NVIDIA L4", "v7_double_buffer", V7))
    assert len(tuned.load(sgemm, family.variants)) == 5
