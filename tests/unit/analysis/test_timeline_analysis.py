"""Timeline analysis and findings on small hand-made traces (pure functions)."""

import numpy as np
import pandas as pd
import pytest

from nsightflow import i18n
from nsightflow.analysis.timeline import (
    key_size,
    sequence_summary,
    summarize,
)
from nsightflow.contracts import TIMELINE, TIMELINE_SUMMARY
from nsightflow.gpu.timeline.driver import tidy
from nsightflow.report.sections.timeline import transfer_findings

MIB = 2**20


def _rows(*spans: tuple[str, int, int, int | None]) -> list[dict]:
    return [
        {"kind": k, "name": k, "start_ns": s, "end_ns": e, "bytes": b, "stream": 7}
        for k, s, e, b in spans
    ]


SEQUENCE = _rows(
    ("memcpy_htod", 5_000, 10_005_000, 256 * MIB),
    ("memset", 10_010_000, 10_110_000, 256 * MIB),
    ("kernel", 10_140_000, 10_340_000, None),
    ("memcpy_dtoh", 10_400_000, 30_400_000, 256 * MIB),
)


def _table(variant: str = "v0", size: int = 8192, rows=SEQUENCE) -> pd.DataFrame:
    return tidy(list(rows), ("fam", variant), size)


def test_tidy_orders_by_time_and_starts_at_zero():
    table = tidy(list(reversed(SEQUENCE)), ("fam", "v0"), 8192)
    assert tuple(table.columns) == TIMELINE.columns
    assert list(table["kind"]) == ["memcpy_htod", "memset", "kernel", "memcpy_dtoh"]
    assert table["start_ns"].iloc[0] == 0
    assert table["end_ns"].iloc[-1] == 30_400_000 - 5_000
    assert pd.isna(table["bytes"].iloc[2]) and table["bytes"].iloc[0] == 256 * MIB


def test_sequence_summary():
    s = sequence_summary(_table())
    assert s["htod_ns"] == 10_000_000 and s["dtoh_ns"] == 20_000_000
    assert s["kernel_ns"] == 200_000 and s["memset_ns"] == 100_000
    assert s["htod_gbps"] == pytest.approx(256 * MIB / 10_000_000)  # 26.8 GB/s
    assert s["dtoh_gbps"] == pytest.approx(256 * MIB / 20_000_000)
    assert s["transfer_to_kernel"] == pytest.approx(30_000_000 / 200_000)
    assert s["launch_gap_ns"] == 30_000  # memset ends 10,110,000; kernel 10,140,000
    assert s["span_ns"] == 30_395_000 and s["overlap_ns"] == 0


def test_overlap_counts_time_covered_twice():
    rows = _rows(
        ("memcpy_htod", 0, 1_000, 10),
        ("kernel", 600, 1_600, None),
        ("memcpy_dtoh", 1_500, 2_000, 10),
    )
    s = sequence_summary(tidy(rows, ("f", "v"), 1))
    assert s["overlap_ns"] == 400 + 100
    assert np.isnan(s["launch_gap_ns"])  # nothing ends before the kernel starts


def test_summary_keeps_failed_and_unsupported_variants_and_copies_nothing_in():
    table = pd.concat([_table("v0"), _table("v1")], ignore_index=True)
    before = table.copy()
    records = [
        {
            "family": "fam",
            "variant": "v0",
            "status": "ok",
            "message": "",
            "backend": "cupti",
            "sizes": [
                {"size": 8192, "status": "ok"},
                {"size": 100, "status": "unsupported"},
            ],
            "provenance": {"gpu": "NVIDIA H200", "date": "2026-11-30"},
        },
        {"family": "fam", "variant": "v2", "status": "crashed", "message": "boom"},
    ]
    summary = summarize(table, records)
    pd.testing.assert_frame_equal(table, before)
    assert list(summary.columns) == list(TIMELINE_SUMMARY.columns)
    assert list(summary["variant"]) == ["v0", "v0", "v2"]  # v1 has no record
    assert list(summary["status"]) == ["ok", "unsupported", "crashed"]
    assert summary["gpu"].iloc[0] == "NVIDIA H200"
    assert summary["message"].iloc[2] == "boom"
    assert key_size(summary) == 8192


def _ok(ratios: dict[str, float]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "variant": list(ratios),
            "kernel_ns": [1e6] * len(ratios),
            "transfer_ns": [1e6 * r for r in ratios.values()],
            "transfer_to_kernel": list(ratios.values()),
        }
    )


def test_finding_when_transfers_dominate_every_variant_gives_the_ratio():
    found = transfer_findings(_ok({"v0": 150.0, "v1": 320.0}), 8192)
    assert "transfers dominate every variant" in found[0]
    assert "150-320x the kernel time" in found[0] and len(found) == 1


def test_finding_names_the_variants_transfers_dominate():
    found = transfer_findings(_ok({"v0": 0.4, "v7": 3.25}), 4096)
    assert found[0].startswith("At n = 4096, transfers dominate 1 of 2 variants")
    assert "`v7` 3.2x" in found[0] and "`v0`" not in found[0] and len(found) == 1


def test_no_transfer_finding_when_kernels_take_longer():
    found = transfer_findings(_ok({"v0": 0.4, "v2": 0.12}), 4096)
    assert found == [
        "At n = 4096, every kernel takes longer than its copies (transfers "
        "0.12-0.40x the kernel time)."
    ]
    with i18n.language("zh"):
        assert (
            "拷贝为 kernel 时间的 0.12-0.40 倍"
            in transfer_findings(_ok({"v0": 0.4, "v2": 0.12}), 4096)[0]
        )
