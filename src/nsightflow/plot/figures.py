"""Plot stage: figures from the analysis tables (matplotlib object API, no pyplot).

Each ``*_figure`` function takes frames and returns a :class:`Figure`; only
:func:`write_figures` saves. This is the only module that imports matplotlib.
"""

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

STYLE: Any = {  # rcParams shared by every figure
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
}
FIGURES = ("perf_vs_size", "roofline", "stalls", "bytes_by_level", "step_changes")
# Metrics whose change per step the step_changes figure shows: column -> label.
STEP_METRICS = {
    "time_median_us": "time",
    "dram_bytes": "DRAM bytes",
    "l2_bytes_moved": "L2 bytes",
    "achieved_occupancy_pct": "achieved occupancy",
    "sectors_per_request": "sectors / request",
    "smem_conflict_share": "smem conflict share",
    "registers": "registers",
}
MAX_STALL_REASONS = 6


def _colors(variants: list[str]) -> dict[str, Any]:
    import matplotlib

    cmap = matplotlib.colormaps["tab10"]
    return {v: cmap(i % 10) for i, v in enumerate(variants)}


def _new_figure(width: float, height: float) -> Figure:
    import matplotlib

    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(width, height), layout="constrained")
        FigureCanvasAgg(fig)
    return fig


def perf_vs_size_figure(analysis: pd.DataFrame, ctx: dict[str, Any]) -> Figure:
    """Median time and achieved GB/s against size, one line per correct variant."""
    import matplotlib

    with matplotlib.rc_context(STYLE):
        fig = _new_figure(9, 3.6)
        ax_t, ax_bw = fig.subplots(1, 2)
        ok = analysis[(analysis["status"] == "ok") & analysis["time_median_us"].notna()]
        colors = _colors(list(dict.fromkeys(analysis["variant"])))
        for variant, rows in ok.groupby("variant", sort=False):
            rows = rows.sort_values("size")
            style = {
                "marker": "o",
                "ms": 3,
                "color": colors[str(variant)],
                "label": variant,
            }
            ax_t.errorbar(
                rows["size"],
                rows["time_median_us"],
                yerr=[
                    rows["time_median_us"] - rows["time_q1_us"],
                    rows["time_q3_us"] - rows["time_median_us"],
                ],
                **style,
            )
            ax_bw.plot(rows["size"], rows["gbps"], **style)
        ceilings = ctx["ceilings"]
        if ceilings.get("copy_gbps"):
            ax_bw.axhline(
                ceilings["copy_gbps"],
                color="k",
                ls="--",
                lw=1,
                label="measured copy bandwidth",
            )
        l2 = ceilings.get("l2_bytes")
        if l2:
            over = analysis[analysis["ideal_bytes"] > l2]["size"]
            if not over.empty:
                for ax in (ax_t, ax_bw):
                    ax.axvline(over.min(), color="grey", ls=":", lw=1)
                ax_bw.annotate(
                    "working set > L2",
                    (over.min(), ax_bw.get_ylim()[0]),
                    rotation=90,
                    va="bottom",
                    ha="right",
                    fontsize=7,
                    color="grey",
                )
        for ax in (ax_t, ax_bw):
            ax.set_xscale("log", base=2)
            ax.set_xlabel("problem size n")
            if ok.empty:
                ax.text(0.5, 0.5, "no timings", ha="center", transform=ax.transAxes)
        if not ok.empty:
            ax_t.set_yscale("log")
        ax_t.set_ylabel("median time [us] (IQR bars)")
        ax_bw.set_ylabel("achieved bandwidth [GB/s] (ideal bytes / time)")
        ax_bw.legend(fontsize=7, loc="lower right")
        fig.suptitle(f"{ctx['family']['title']}: time and bandwidth over sizes")
    return fig


def roofline_figure(analysis: pd.DataFrame, ctx: dict[str, Any]) -> Figure:
    """Roofline with measured and datasheet ceilings; each variant at profiled sizes.

    Points use ncu's counts: FLOPs executed / DRAM bytes moved (x) and FLOPs / ncu
    duration (y). Arrows run from the variant each step improves on to the step.
    """
    import matplotlib

    with matplotlib.rc_context(STYLE):
        fig = _new_figure(6.5, 4.5)
        ax = fig.subplots()
        prof = analysis[
            (analysis["status"] == "ok") & analysis["profiled"].astype(bool)
        ].copy()
        prof["ai"] = prof["measured_flops"] / prof["dram_bytes"]
        prof["perf"] = prof["measured_flops"] / prof["ncu_time_ns"]  # GFLOP/s
        c = ctx["ceilings"]
        ai_axis = np.logspace(-2, 2.5, 200)
        for bw, peak, label, ls in (
            (c.get("copy_gbps"), c.get("fp32_gflops"), "measured", "-"),
            (
                c.get("datasheet_dram_gbps"),
                c.get("datasheet_fp32_gflops"),
                "datasheet",
                "--",
            ),
        ):
            if bw and peak:
                ax.plot(
                    ai_axis,
                    np.minimum(ai_axis * bw, peak),
                    color="k",
                    ls=ls,
                    lw=1,
                    label=f"{label}: {bw:,.0f} GB/s, {peak / 1e3:,.1f} TFLOP/s",
                )
        colors = _colors(list(dict.fromkeys(analysis["variant"])))
        markers = dict(zip(sorted(prof["size"].unique()), "os^Dv", strict=False))
        for row in prof.to_dict("records"):
            ax.scatter(
                row["ai"],
                row["perf"],
                color=colors[row["variant"]],
                marker=markers[row["size"]],
                s=30,
                zorder=3,
            )
        by_key = prof.set_index(["variant", "size"])
        for v in ctx["variants"]:
            for n in prof["size"].unique():
                before = v["improves_on"]
                if (
                    before
                    and (before, n) in by_key.index
                    and (v["name"], n) in by_key.index
                ):
                    a, b = by_key.loc[(before, n)], by_key.loc[(v["name"], n)]
                    ax.annotate(
                        "",
                        (b["ai"], b["perf"]),
                        (a["ai"], a["perf"]),
                        arrowprops={
                            "arrowstyle": "->",
                            "color": colors[v["name"]],
                            "lw": 0.8,
                        },
                    )
        for variant in prof["variant"].unique():
            ax.scatter([], [], color=colors[variant], label=variant)
        for n, marker in markers.items():
            ax.scatter([], [], color="grey", marker=marker, label=f"n = {n}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("arithmetic intensity [FLOP / DRAM byte] (ncu counts)")
        ax.set_ylabel("performance [GFLOP/s] (ncu counts / ncu time)")
        ax.legend(fontsize=7, loc="upper left")
        ax.set_title(f"{ctx['family']['title']}: roofline")
    return fig


def stalls_figure(stalls: pd.DataFrame, ctx: dict[str, Any]) -> Figure:
    """Stacked bars: warp stall cycles per issued instruction, per variant and size."""
    import matplotlib

    with matplotlib.rc_context(STYLE):
        bars = stalls.groupby(["variant", "size"]).ngroups if not stalls.empty else 1
        fig = _new_figure(7.5, max(3.0, 0.3 * bars + 1.2))  # one readable row per bar
        ax = fig.subplots()
        if stalls.empty:
            ax.text(
                0.5,
                0.5,
                "no ncu data (profiling off or failed)",
                ha="center",
                transform=ax.transAxes,
            )
            return fig
        top = (
            stalls.groupby("reason")["cycles"]
            .sum()
            .sort_values(ascending=False)
            .index[:MAX_STALL_REASONS]
        )
        table = stalls.assign(
            reason=stalls["reason"].where(stalls["reason"].isin(top), "other")
        )
        table = table.pivot_table(
            index=["variant", "size"], columns="reason", values="cycles", aggfunc="sum"
        ).fillna(0.0)
        table = table[[*top, *(["other"] if "other" in table.columns else [])]]
        labels = [f"{v}  n={n}" for v, n in table.index]
        left = np.zeros(len(table))
        import matplotlib as mpl

        cmap = mpl.colormaps["tab20"]
        for i, reason in enumerate(table.columns):
            ax.barh(labels, table[reason], left=left, label=reason, color=cmap(i))
            left += table[reason].to_numpy()
        ax.invert_yaxis()
        ax.set_xlabel("warp cycles per issued instruction, by stall reason")
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
        ax.set_title(f"{ctx['family']['title']}: where warps wait")
    return fig


def _largest_profiled(analysis: pd.DataFrame) -> tuple[pd.DataFrame, int] | None:
    """Correct, profiled rows at the largest profiled size, indexed by variant."""
    prof = analysis[(analysis["status"] == "ok") & analysis["profiled"].astype(bool)]
    if prof.empty:
        return None
    size = int(prof["size"].max())
    return prof[prof["size"] == size].set_index("variant"), size


def bytes_by_level_figure(analysis: pd.DataFrame, ctx: dict[str, Any]) -> Figure:
    """Bytes moved at DRAM, L2 and L1 per variant (largest profiled size) vs the ideal."""
    import matplotlib

    with matplotlib.rc_context(STYLE):
        fig = _new_figure(7, 3.6)
        ax = fig.subplots()
        largest = _largest_profiled(analysis)
        if largest is None:
            ax.text(0.5, 0.5, "no ncu data", ha="center", transform=ax.transAxes)
            return fig
        rows, size = largest
        levels = [
            ("dram_bytes", "DRAM"),
            ("l2_bytes_moved", "L2"),
            ("l1_bytes_moved", "L1 (global ld/st)"),
        ]
        x = np.arange(len(rows))
        width = 0.8 / len(levels)
        for i, (col, label) in enumerate(levels):
            if col in rows and rows[col].notna().any():
                ax.bar(x + i * width, rows[col] / 1e6, width, label=label)
        ideal = float(rows["ideal_bytes"].iloc[0]) / 1e6
        ax.axhline(ideal, color="k", ls="--", lw=1, label="ideal (each byte once)")
        ax.set_xticks(x + width, list(rows.index))
        ax.set_ylabel("MB moved (ncu)")
        ax.legend(fontsize=7)
        ax.set_title(f"{ctx['family']['title']}: bytes per memory level, n = {size}")
    return fig


STEP_CLIP = 64.0  # the step-changes axis spans 1/64x .. 64x; beyond, bars are labelled


def _times(ratio: float) -> str:
    """A ratio as the step-changes axis writes it: 16x, 1x, 1/4x, 0."""
    if ratio == 0:
        return "0"
    return f"{ratio:,.0f}x" if ratio >= 1 else f"1/{1 / ratio:,.0f}x"


def step_changes_figure(analysis: pd.DataFrame, ctx: dict[str, Any]) -> Figure:
    """Ratio after / before of key metrics per step, on a log axis.

    2x and 1/2x are bars of the same length; ratios beyond 1/64x .. 64x are clipped to
    the axis and labelled with their value.
    """
    import matplotlib

    with matplotlib.rc_context(STYLE):
        steps = [v for v in ctx["variants"] if v["improves_on"]]
        fig = _new_figure(7, 3.8 + 0.2 * ((len(steps) + 1) // 2))  # legend rows below
        ax = fig.subplots()
        largest = _largest_profiled(analysis)
        if largest is None or not steps:
            ax.text(0.5, 0.5, "no profiled steps", ha="center", transform=ax.transAxes)
            return fig
        rows, size = largest
        metrics = [m for m in STEP_METRICS if m in rows and rows[m].notna().any()]
        y = np.arange(len(metrics))
        height = 0.8 / len(steps)
        ax.set_xscale("log", base=2)
        for i, step in enumerate(steps):
            before, after = step["improves_on"], step["name"]
            if before not in rows.index or after not in rows.index:
                continue
            ratio = np.array(
                [
                    rows.loc[after, m] / rows.loc[before, m]
                    if rows.loc[before, m]
                    else np.nan
                    for m in metrics
                ],
                dtype=float,
            )
            shown = np.clip(ratio, 1 / STEP_CLIP, STEP_CLIP)
            ax.barh(
                y + i * height, shown - 1, height, left=1, label=f"{before} -> {after}"
            )
            for row, (r, x) in enumerate(zip(ratio, shown, strict=True)):
                if np.isfinite(r) and r != x:  # clipped: say the true ratio
                    ax.text(
                        x,
                        y[row] + i * height,
                        f" {_times(r)} ",
                        va="center",
                        ha="left" if r > 1 else "right",
                        fontsize=7,
                    )
        ax.axvline(1, color="k", lw=0.8)
        ticks = [2.0**k for k in range(-6, 7, 2)]
        ax.set_xticks(ticks, [_times(t) for t in ticks])
        ax.set_xlim(1 / STEP_CLIP / 2, STEP_CLIP * 2)
        ax.set_yticks(
            y + height * (len(steps) - 1) / 2, [STEP_METRICS[m] for m in metrics]
        )
        ax.invert_yaxis()
        ax.set_xlabel(f"after / before, vs the previous step at n = {size} (log scale)")
        fig.legend(fontsize=7, loc="outside lower center", ncols=min(len(steps), 2))
        ax.set_title(f"{ctx['family']['title']}: what each step changed")
    return fig


def write_figures(analysis_dir: Path, out_dir: Path) -> list[Path]:
    """Build every figure of one family and save it as PNG."""
    analysis = pd.read_csv(analysis_dir / "analysis.csv")
    stalls = pd.read_csv(analysis_dir / "stalls.csv")
    ctx = json.loads((analysis_dir / "context.json").read_text())
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = {
        "perf_vs_size": perf_vs_size_figure(analysis, ctx),
        "roofline": roofline_figure(analysis, ctx),
        "stalls": stalls_figure(stalls, ctx),
        "bytes_by_level": bytes_by_level_figure(analysis, ctx),
        "step_changes": step_changes_figure(analysis, ctx),
    }
    paths = []
    for name, fig in figures.items():
        path = out_dir / f"{name}.png"
        fig.savefig(path, dpi=150)
        paths.append(path)
    return paths
