"""The family figures of the bundled H200 recording, read through their tooltips
(the values each cell or point draws): the step-change map and the roofline.
"""

import matplotlib.pyplot as plt
import pytest

from nsightflow.contracts.bundle import Bundle
from nsightflow.plot.steps import step_changes_figure
from recorded import analyze as _analyze


@pytest.fixture(scope="module")
def bundles(recording, tmp_path_factory):
    """family -> its analysis bundle, once per module."""
    return {
        f: Bundle(_analyze(recording, f, tmp_path_factory.mktemp(f)))
        for f in ("sgemm", "histogram", "scan")
    }


def _map_tips(bundle):
    fig = step_changes_figure(
        bundle.analysis, bundle.context, bundle.findings, bundle.stalls
    )
    tips = list(fig.tooltips.values())
    plt.close(fig)
    return tips


def test_load_requests_row_reads_every_step_from_the_counters(bundles):
    """SGEMM's map has a global load requests row (v0 -> v1's primary cause); every
    step's cell is the two variants' measured requests, not "n/a" where another
    finding was that step's primary."""
    b = bundles["sgemm"]
    a = b.analysis
    rows = a[a["size"] == 4096].set_index("variant")["global_ld_requests"]
    assert rows.notna().all()  # measured for every variant
    tips = [t for t in _map_tips(b) if "global load requests" in t]
    assert len(tips) == len(rows) - 1  # one per step
    assert not [t for t in tips if "n/a" in t]
    v2 = next(t for t in tips if t.startswith("v1_tiled32 → v2_tiled_transposed"))
    assert v2.endswith("134M → 134M")


def test_histogram_map_shows_the_shared_atomic_conflicts_it_counted(bundles):
    """Histogram v4 -> v5 (8 replicated sub-histograms, skewed input) raised the
    shared-memory atomic conflicts 205 K -> 1.48 M (7.2x) while its ld/st conflicts
    fell 37 -> 0: the map shows the atomic row, and the share row says it is ld/st."""
    b = bundles["histogram"]
    a = b.analysis.set_index(["variant", "size"])
    n = 2**24
    x = a.loc[("v4_private_skewed", n), "smem_conflicts_atom"]
    y = a.loc[("v5_replicated_skewed", n), "smem_conflicts_atom"]
    assert y / x == pytest.approx(7.2, abs=0.05)
    tips = _map_tips(b)
    atomic = [t for t in tips if "smem atomic conflicts" in t]
    v5 = next(t for t in atomic if t.startswith("v4_private_skewed → v5_"))
    assert v5.endswith("205k → 1.48M")
    shares = [t for t in tips if "conflict share" in t]
    assert shares and all("smem ld/st conflict share" in t for t in shares)


def test_map_has_no_atomic_row_where_no_variant_counted_any(bundles):
    """SGEMM's kernels issue no shared atomics: no row of 0 = 0 cells."""
    assert not [t for t in _map_tips(bundles["sgemm"]) if "atomic" in t]


def test_scan_roofline_reads_the_ideal_work_not_the_counted_adds(bundles):
    """Scan's work is n adds (its manifest's ``flops: "n"``); ncu counts the tree's
    adds too (Kogge-Stone ~10 per element). Each DRAM point is n over the DRAM
    bytes, at n over ncu's time: v0 at 2^24 is 16.8 M / 223 MB = 0.075 FLOP/B."""
    from nsightflow.plot.roofline import roofline_figure
    from nsightflow.plot.style import flops_text

    b = bundles["scan"]
    n = 2**24
    a = b.analysis[b.analysis["size"] == n].set_index("variant")
    fig = roofline_figure(b.analysis, b.context)
    tips = list(fig.tooltips.values())
    plt.close(fig)
    for variant, row in a.iterrows():
        assert row["measured_flops"] > 2 * n  # the counted adds: not the work
        ai = n / row["dram_bytes"]
        rate = flops_text(n / row["ncu_time_ns"])
        want = f"{variant}, n = 2^24, {rate} at {ai:.3g} FLOP/byte (DRAM"
        assert any(t.startswith(want) for t in tips), (want, tips[:4])
