"""Inlined call sites: nvdisasm's listing, the stored table, and the parse stage's use."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from nsightflow.cli import main
from nsightflow.family.registry import load_family
from nsightflow.tools.ncu_source import locate
from nsightflow.tools.nvcc import compile_variant
from nsightflow.tools.nvdisasm import (
    CallSite,
    find_nvdisasm,
    pack,
    parse_listing,
    unpack,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "nvdisasm"
KERNELS = Path(__file__).resolve().parents[3] / "kernels"
HEADER = "device_atomic_functions.hpp"


def _sites(name: str, own: set[str]) -> list[CallSite]:
    return parse_listing((DATA / name).read_text(), own)


def test_the_atomic_of_histogram_v0_is_called_from_line_13():
    # nvdisasm -gi of the compiled v0_global_atomic.cu (CUDA 13.0, sm_90)
    sites = _sites("histogram_v0.sm_90.lst", {"v0_global_atomic.cu"})
    red = [s for s in sites if s["opcode"] == "REDG"]
    assert len(red) == 1
    assert red[0]["pc"] == 0x1D0 and red[0]["function"] == "histogram_v0"
    assert Path(red[0]["file"]).name == HEADER and red[0]["line"] == 112
    assert Path(red[0]["call_file"]).name == "v0_global_atomic.cu"
    assert red[0]["call_line"] == 13
    # every site is of the header: the kernel's own lines are not listed
    assert {Path(s["file"]).name for s in sites} == {HEADER}


def test_a_nested_chain_names_the_first_of_the_variants_own_files():
    # shfl (sm_30_intrinsics.hpp) <- warp_sum (reduce_common.cuh:7) <- :15 <- .cu:24
    sites = _sites("reduce_v2.excerpt.lst", {"v2_shuffle.cu", "reduce_common.cuh"})
    assert [(s["pc"], s["opcode"]) for s in sites] == [(0x4F0, "SHFL")]
    assert Path(sites[0]["call_file"]).name == "reduce_common.cuh"
    assert sites[0]["call_line"] == 7
    # without the header among the own files, the kernel's line is the call site
    only_cu = _sites("reduce_v2.excerpt.lst", {"v2_shuffle.cu"})
    assert (Path(only_cu[0]["call_file"]).name, only_cu[0]["call_line"]) == (
        "v2_shuffle.cu",
        24,
    )
    # the FADD after it is of reduce_common.cuh:7: a call site only where the header
    # is not the variant's own
    assert 0x500 in {s["pc"] for s in only_cu}
    assert 0x500 not in {s["pc"] for s in sites}


def test_no_own_file_in_the_chain_gives_no_site():
    assert _sites("histogram_v0.sm_90.lst", {"other.cu"}) == []


def test_stored_table_round_trips_and_lists_each_file_once():
    sites = _sites("histogram_v0.sm_90.lst", {"v0_global_atomic.cu"})
    stored = json.loads(json.dumps(pack(sites)))
    assert len(stored["files"]) == 2
    back = unpack(stored)
    assert [{**s, "function": ""} for s in sites] == back


SITE = CallSite(
    function="",
    pc=0x1D0,
    opcode="REDG",
    file="/usr/local/cuda-13.0/include/" + HEADER,
    line=112,
    call_file="/src/v0_global_atomic.cu",
    call_line=13,
)


def test_a_site_applies_only_where_offset_file_line_and_opcode_agree():
    report_file = "/usr/local/cuda/targets/x86_64-linux/include/" + HEADER
    hit = locate(0x1D0, "REDG", report_file, 112, [SITE])
    assert (hit.file, hit.line, hit.inlined) == (
        "/src/v0_global_atomic.cu",
        13,
        f"{HEADER}:112",
    )
    for offset, opcode, line in (
        (0x1E0, "REDG", 112),
        (0x1D0, "ATOMG", 112),
        (0x1D0, "REDG", 111),
    ):
        miss = locate(offset, opcode, report_file, line, [SITE])
        assert (miss.file, miss.line, miss.inlined) == (report_file, line, "")


@pytest.mark.skipif(
    shutil.which("nvcc") is None or find_nvdisasm() is None,
    reason="needs nvcc and nvdisasm (pip install nvidia-cuda-nvdisasm)",
)
def test_compile_records_the_call_site_of_atomic_add(tmp_path):
    variant = load_family(KERNELS / "histogram").variants["v0_global_atomic"]
    record = compile_variant(variant, "sm_90", tmp_path / "v0.cubin")
    sites = unpack(record["inlined"])
    red = [s for s in sites if s["opcode"] == "REDG"]
    assert [(Path(s["call_file"]).name, s["call_line"]) for s in red] == [
        ("v0_global_atomic.cu", 13)
    ]


def _parse(recording: Path, tmp_path: Path, *extra: str) -> pd.DataFrame:
    out = tmp_path / "m.csv"
    source = tmp_path / "s.csv"
    folder = recording / "profile" / "histogram" / "v0_global_atomic"
    assert (
        main(["parse", str(folder), "-o", str(out), "--source", str(source), *extra])
        == 0
    )
    return pd.read_csv(source, keep_default_na=False)


def test_parse_names_the_kernels_line_of_a_recorded_atomic(recording, tmp_path):
    resources = recording / "build" / "histogram" / "v0_global_atomic.resources.json"
    plain = _parse(recording, tmp_path)
    red = plain[plain["sass"].str.startswith("REDG")]
    assert set(red["file"].map(lambda f: Path(f).name)) == {HEADER}
    mapped = _parse(recording, tmp_path, "--resources", str(resources))
    red = mapped[mapped["sass"].str.startswith("REDG")]
    assert not red.empty
    assert set(red["file"].map(lambda f: Path(f).name)) == {"v0_global_atomic.cu"}
    assert set(red["line"]) == {13}
    assert set(red["inlined"]) == {f"{HEADER}:112"}
    assert set(red["source"]) == {"atomicAdd(&hist[data[i]], 1u);"}
    # the samples are the report's: only their line changed
    assert mapped["samples"].sum() == plain["samples"].sum()


def test_a_malformed_table_is_a_one_line_error(recording, tmp_path, capfd):
    bad = tmp_path / "v0_global_atomic.resources.json"
    record = json.loads(
        (
            recording / "build" / "histogram" / "v0_global_atomic.resources.json"
        ).read_text()
    )
    bad.write_text(json.dumps({**record, "inlined": {"files": [], "sites": [[1, 2]]}}))
    out, source = tmp_path / "m.csv", tmp_path / "s.csv"
    folder = recording / "profile" / "histogram" / "v0_global_atomic"
    code = main(
        [
            "parse",
            str(folder),
            "-o",
            str(out),
            "--source",
            str(source),
            "--resources",
            str(bad),
        ]
    )
    err = capfd.readouterr().err.strip().splitlines()
    assert code != 0
    assert len(err) == 1 and str(bad) in err[0] and "'inlined'" in err[0]


@pytest.mark.parametrize("family", ["histogram", "reduction", "scan"])
def test_every_sampled_line_of_the_recording_is_a_line_of_the_variants_source(
    recording, family
):
    # the families whose kernels inline toolkit code (atomicAdd, __shfl_down_sync)
    from nsightflow.analysis.hotspots import line_table
    from nsightflow.family.sources import local_includes
    from nsightflow.stages.parse import inlined_sites
    from nsightflow.tools.ncu_source import parse_source_files

    for name, variant in load_family(KERNELS / family).variants.items():
        if variant.is_python:  # a library's kernels: no lines of the family's files
            continue
        resources = recording / "build" / family / f"{name}.resources.json"
        samples, _ = parse_source_files(
            [recording / "profile" / family / name],
            inlined=inlined_sites([resources]),
        )
        lines = line_table(samples)
        assert not lines.empty, name
        own = {variant.source, *local_includes(variant.source)}
        by_name = {p.name: p for p in own}
        for file, rows in lines.groupby("file"):
            assert Path(file).name in by_name, (name, file)
            length = len(by_name[Path(file).name].read_text().splitlines())
            assert rows["line"].between(1, length).all(), (name, file)
        shares = lines.groupby(["size", "launch"])["share"].sum()
        assert shares.between(0.99, 1.01).all(), name
