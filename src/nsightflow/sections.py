"""The sections of a family report, in the order of the seed Jacobi-2D report.

1 baseline measurement over sizes, 2 theoretical analysis (bound, roofline, the baseline
under Nsight Compute), 3 one section per optimization step (source diff, before -> after
deltas, stall reasons that moved, diagnosis, ncu's rules compared), then failed
variants, limitations and the provenance of every number.
"""

import difflib
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from nsightflow import diagnose


def _fmt(value: Any, digits: int = 2, unit: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float) and abs(value) >= 1000:
        return f"{value:,.0f}{unit}"
    return f"{value:.{digits}f}{unit}" if isinstance(value, float) else f"{value}{unit}"


def _delta(name: str, before: Any, after: Any, unit: str = "", digits: int = 2) -> str:
    change = diagnose.pct_change(before, after)
    tail = "" if math.isnan(change) else f" ({change:+.1f}%)"
    return f"{name} {_fmt(before, digits)}{unit} -> {_fmt(after, digits)}{unit}{tail}"


def _table(frame: pd.DataFrame) -> str:
    clean = frame.astype(object).where(frame.notna(), None)  # NaN -> blank cell
    return clean.to_markdown(index=False, floatfmt=",.2f", missingval="")


class ReportBuilder:
    """Assembles the Markdown of one family from its analysis files."""

    def __init__(
        self,
        analysis: pd.DataFrame,
        stalls: pd.DataFrame,
        rules: pd.DataFrame,
        ctx: dict[str, Any],
    ) -> None:
        self.a = analysis
        self.stalls = stalls
        self.rules = rules
        self.ctx = ctx
        self.fam = ctx["family"]
        self.variants = {v["name"]: v for v in ctx["variants"]}
        profiled = analysis[analysis["profiled"].astype(bool)]["size"]
        self.profile_sizes = (
            sorted(profiled.unique().tolist()) or self.fam["profile_sizes"]
        )
        self.key_size = (
            max(self.profile_sizes) if self.profile_sizes else max(self.fam["sizes"])
        )

    def row(self, variant: str, size: int) -> dict[str, Any]:
        """The analysis row of a variant at a size (empty dict when absent)."""
        rows = self.a[(self.a["variant"] == variant) & (self.a["size"] == size)]
        return {str(k): v for k, v in rows.iloc[0].items()} if not rows.empty else {}

    def build(self) -> str:
        """The whole report."""
        parts = [
            self.header(),
            self.summary(),
            self.baseline(),
            self.theory(),
            self.steps(),
            self.failures(),
            self.measurement(),
            self.limitations(),
            self.provenance(),
        ]
        return "\n\n".join(p for p in parts if p) + "\n"

    def header(self) -> str:
        """Title, description, where and how it was measured, the result."""
        c = self.ctx["ceilings"]
        prov = self.ctx["provenance"]
        timing = prov.get("timing", {})
        profile = prov.get("profile", {})
        ok = self.a[(self.a["status"] == "ok") & (self.a["size"] == self.key_size)]
        lines = [
            f"# {self.fam['title']}: optimization report",
            "",
            self.fam["description"],
            "",
            (
                f"Measured on **{timing.get('gpu', c.get('gpu') or 'unknown GPU')}** "
                f"(driver {timing.get('driver', '?')}, CUDA "
                f"{timing.get('cuda_driver', '?')}) on {timing.get('date', '?')}; nvcc "
                f"{prov.get('compile', {}).get('nvcc')}, ncu {profile.get('ncu', 'n/a')} "
                f"with clock control `{profile.get('clock_control', 'n/a')}`."
                if timing.get("date")
                else "**No timing was recorded for this family**: every variant is "
                "listed with its status below."
            ),
        ]
        replay = self.ctx.get("replay")
        if replay:
            lines += [
                "",
                f"> **Replayed, not measured here.** These numbers were recorded on "
                f"{replay.get('gpu', '?')} on {replay.get('date', '?')} (driver "
                f"{replay.get('driver', '?')}, ncu {replay.get('ncu', '?')}, clock "
                f"control `{replay.get('clock_control', '?')}`, kernels revision "
                f"{replay.get('kernels_git', '?')}) and replayed from "
                f"`{replay['source']}` on a machine without a GPU.",
            ]
        if not ok.empty:
            best = ok.nsmallest(1, "time_median_us").iloc[0]
            lines += [
                "",
                f"**Result at n = {self.key_size}:** the fastest correct variant "
                f"is `{best['variant']}` at {best['time_median_us']:,.2f} us, "
                f"{_fmt(best['speedup_vs_baseline'])}x the baseline "
                f"`{self.fam['baseline']}`, " + self._rate(best) + ".",
            ]
        return "\n".join(lines)

    def compute_bound(self, row: dict[str, Any] | pd.Series) -> bool:
        """Whether the ideal work is past the ridge point of the measured ceilings."""
        c = self.ctx["ceilings"]
        if not c.get("copy_gbps") or not c.get("fp32_gflops"):
            return False
        return bool(row["ai_ideal"] > c["fp32_gflops"] / c["copy_gbps"])

    def _rate(self, row: dict[str, Any] | pd.Series) -> str:
        """The rate that matters for the bound: GFLOP/s or GB/s, vs its ceiling."""
        c = self.ctx["ceilings"]
        if self.compute_bound(row):
            vendor = c.get("vendor_sgemm_gflops")
            tail = (
                f", {100 * row['gflops'] / vendor:.0f}% of cuBLAS SGEMM"
                if vendor and self.fam["name"] == "sgemm"
                else ""
            )
            return (
                f"{row['gflops']:,.0f} GFLOP/s ({row['pct_of_fp32_peak']:.0f}% of the "
                f"measured FP32 peak{tail})"
            )
        return (
            f"{row['gbps']:,.0f} GB/s ({row['pct_of_copy_bw']:.0f}% of the measured "
            "copy bandwidth)"
        )

    def summary(self) -> str:
        """The summary table at the largest profiled size."""
        rows = []
        for name, v in self.variants.items():
            r = self.row(name, self.key_size)
            rows.append(
                {
                    "version": f"`{name}`",
                    "status": v["status"],
                    **{
                        f"time n={n} [us]": self.row(name, n).get("time_median_us")
                        for n in self.profile_sizes
                    },
                    f"speedup vs {self.fam['baseline']}": r.get("speedup_vs_baseline"),
                    "vs previous step": r.get("speedup_vs_previous"),
                    "GB/s": r.get("gbps"),
                    "% of copy BW": r.get("pct_of_copy_bw"),
                    "GFLOP/s": r.get("gflops"),
                    "% of FP32 peak": r.get("pct_of_fp32_peak"),
                    "DRAM GB/s (ncu)": r.get("dram_gbps"),
                    "smem throughput %": r.get("smem_throughput_pct"),
                    "rank": None
                    if pd.isna(r.get("rank", math.nan))
                    else int(r["rank"]),
                    "notes": self._note(name, v, r),
                }
            )
        return (
            f"## Summary (speedups and bandwidth at n = {self.key_size})\n\n"
            + _table(pd.DataFrame(rows))
            + "\n\nVariants that did not compile or "
            "verify have no rank: a fast wrong kernel scores nothing."
        )

    def _note(self, name: str, v: dict[str, Any], r: dict[str, Any]) -> str:
        if v["status"] != "ok":
            return f"{v['status']}: see section 4"
        previous = r.get("speedup_vs_previous", math.nan)
        if v["improves_on"] and not pd.isna(previous) and previous < 1:
            return f"slower than `{v['improves_on']}`: kept, see its section"
        return str(v["idea"])

    def baseline(self) -> str:
        """Section 1: every variant over the size sweep."""
        times = self.a.pivot_table(
            index="size", columns="variant", values="time_median_us"
        ).reset_index()
        times["size"] = times["size"].astype(int).astype(str)
        s = self.ctx["provenance"].get("timing_settings", {})
        return (
            "## 1. Baseline measurement over sizes\n\n"
            "![time and bandwidth over sizes](figures/perf_vs_size.png)\n\n"
            "Median kernel time in us (CUDA events; launches queued back to back "
            f"behind a spin kernel, so the GPU's L2 stays warm; warm-up "
            f"{s.get('warmup', '?')} launches, then batches until the median moves "
            f"less than {100 * float(s.get('settle_rel', 0)):.1f}% or "
            f"{s.get('budget_s', '?')} s pass):\n\n" + _table(times) + self._regimes()
        )

    def _regimes(self) -> str:
        l2 = self.ctx["ceilings"].get("l2_bytes")
        found = []
        ok = self.a[self.a["status"] == "ok"]
        for _, rows in ok.groupby("variant", sort=False):
            found += diagnose.regime_findings(rows, l2)
        return "\n\n" + "\n".join(f"- {f}" for f in found) if found else ""

    def theory(self) -> str:
        """Section 2: ideal work, ceilings, bound, roofline, the baseline under ncu."""
        c = self.ctx["ceilings"]
        base = self.fam["baseline"]
        lines = [
            "## 2. Theoretical analysis",
            "",
            "### 2.1 Bound",
            "",
            f"Ideal work: FLOPs = `{self.fam['flops']}`, bytes = `{self.fam['bytes']}`"
            " (each input read once, each output written once).",
        ]
        copy, fp32 = c.get("copy_gbps"), c.get("fp32_gflops")
        if copy and fp32:
            ridge = fp32 / copy
            lines += [
                "",
                f"Measured ceilings of this GPU: copy bandwidth {copy:,.0f} GB/s, "
                f"FP32 FMA {fp32:,.0f} GFLOP/s (datasheet at the clocks ncu saw: "
                f"{_fmt(c.get('datasheet_dram_gbps'))} GB/s, "
                f"{_fmt(c.get('datasheet_fp32_gflops'))} GFLOP/s). Ridge point: "
                f"{ridge:.1f} FLOP/byte.",
                "",
            ]
            rows = []
            for n in self.profile_sizes:
                r = self.row(base, n)
                t_c = r["ideal_flops"] / fp32 / 1e3
                t_m = r["ideal_bytes"] / copy / 1e3
                rows.append(
                    {
                        "n": n,
                        "FLOPs": f"{r['ideal_flops']:,.0f}",
                        "bytes": f"{r['ideal_bytes']:,.0f}",
                        "AI [FLOP/B]": r["ai_ideal"],
                        "compute time [us]": t_c,
                        "memory time [us]": t_m,
                        "bound": "memory" if t_m > t_c else "compute",
                        f"{base} measured [us]": r.get("time_median_us"),
                        "measured / floor": r.get("time_median_us", math.nan)
                        / max(t_c, t_m),
                    }
                )
            lines.append(_table(pd.DataFrame(rows)))
        lines += [
            "",
            "![roofline](figures/roofline.png)",
            "",
            f"### 2.2 The baseline `{base}` under Nsight Compute",
            "",
        ]
        for n in self.profile_sizes:
            r = self.row(base, n)
            if not r.get("profiled"):
                continue
            lines += [
                f"n = {n}:",
                "",
                f"- RealTime (ncu `gpu__time_duration.sum`) = {_fmt(r['ncu_time_us'])} us;"
                f" event-timed median {_fmt(r['time_median_us'])} us",
                f"- dram__bytes_read.sum = {r['dram_read_bytes']:,.0f} B, "
                f"dram__bytes_write.sum = {r['dram_write_bytes']:,.0f} B",
                f"- DRAM bandwidth (ncu bytes / ncu time) = {_fmt(r['dram_gbps'])} GB/s;"
                f" L2 hit rate {_fmt(r['l2_hit_pct'], 1)}%; global load sectors per "
                f"request {_fmt(r['sectors_per_request'])}",
                f"- achieved occupancy {_fmt(r['achieved_occupancy_pct'], 1)}% "
                f"(theoretical {_fmt(r['theoretical_occupancy_pct'], 0)}%), "
                f"{_fmt(r['registers'], 0)} registers per thread",
                "",
            ]
            lines += [f"- {f}" for f in diagnose.baseline_findings(r, self.stalls)]
            lines += [f"- {f}" for f in diagnose.occupancy_findings(r)]
            lines += [
                f"- {f}"
                for f in diagnose.spill_findings(self.variants[base]["resources"])
            ]
            lines += self._rule_quotes(base, n, "WarpStateStats")
            lines.append("")
        lines += [
            "![stall reasons](figures/stalls.png)",
            "",
            "![bytes per memory level](figures/bytes_by_level.png)",
            "",
            f"The baseline `{base}`:",
            "",
            "```cuda",
            _source(self.variants[base]["source"]),
            "```",
        ]
        return "\n".join(lines)

    def _rule_quotes(
        self, variant: str, size: int, section: str | None = None
    ) -> list[str]:
        if self.rules.empty:
            return []
        r = self.rules[
            (self.rules["variant"] == variant)
            & (self.rules["size"] == size)
            & (self.rules["type"] == "optimization")
        ]
        if section:
            r = r[r["section"] == section]
        out = []
        for rule in r.to_dict("records"):
            pct = float(rule["speedup_pct"])
            speed = (
                "" if math.isnan(pct) else f" (ncu estimates up to {pct:.0f}% speedup)"
            )
            text = diagnose.clean_ncu_text(str(rule["message"]))
            out.append(f"> ncu {rule['rule']}{speed}: {text}")
        return out

    def steps(self) -> str:
        """Section 3: one subsection per optimization step."""
        lines = [
            "## 3. Optimization steps",
            "",
            "![what each step changed](figures/step_changes.png)",
        ]
        k = 0
        for name, v in self.variants.items():
            if not v["improves_on"]:
                continue
            k += 1
            before = v["improves_on"]
            lines += [
                "",
                f"### 3.{k} `{name}`: {v['idea']}",
                "",
                f"Builds on `{before}`. Status: **{v['status']}**. The change, as a "
                f"diff against `{before}`:",
                "",
                "```diff",
                _diff(self.variants[before]["source"], v["source"]),
                "```",
            ]
            if v["status"] != "ok":
                lines += ["", f"Not measured: {v['message'][:800]}"]
                continue
            for n in self.profile_sizes:
                a, b = self.row(before, n), self.row(name, n)
                if not a or not b:
                    continue
                lines += ["", f"**n = {n}**, key metrics `{before}` -> `{name}`:", ""]
                lines += [f"- {d}" for d in self._deltas(a, b)]
                lines += ["", "Diagnosis:", ""]
                found = diagnose.step_findings(a, b, self.stalls)
                found += diagnose.occupancy_findings(b)
                found += diagnose.spill_findings(v["resources"])
                found += diagnose.rule_changes(self.rules, before, name, n)
                lines += [f"- {f}" for f in found]
                lines += self._rule_quotes(name, n, "WarpStateStats")
            verdict = self.row(name, self.key_size).get("speedup_vs_previous")
            if verdict is not None and not math.isnan(verdict):
                word = "pays" if verdict > 1.0 else "does not pay"
                vs_base = self.row(name, self.key_size)["speedup_vs_baseline"]
                tail = (
                    ""
                    if before == self.fam["baseline"]
                    else f", {vs_base:.2f}x vs `{self.fam['baseline']}`"
                )
                lines += [
                    "",
                    f"**Verdict:** at n = {self.key_size} this step {word}: "
                    f"{verdict:.2f}x vs `{before}`{tail}."
                    + (
                        ""
                        if verdict > 1.0
                        else " It stays in the report: a step "
                        "that did not pay is evidence too."
                    ),
                ]
        return "\n".join(lines)

    def _deltas(self, a: dict[str, Any], b: dict[str, Any]) -> list[str]:
        out = [
            _delta(
                "RealTime (event median)",
                a["time_median_us"],
                b["time_median_us"],
                " us",
            ),
            _delta("Achieved bandwidth", a["gbps"], b["gbps"], " GB/s", 0),
            _delta("Achieved GFLOP/s", a["gflops"], b["gflops"], "", 0),
        ]
        if a.get("profiled") and b.get("profiled"):
            out += [
                _delta(
                    "ncu gpu__time_duration.sum",
                    a["ncu_time_us"],
                    b["ncu_time_us"],
                    " us",
                ),
                _delta(
                    "dram__bytes_read.sum",
                    a["dram_read_bytes"],
                    b["dram_read_bytes"],
                    " B",
                    0,
                ),
                _delta(
                    "dram__bytes_write.sum",
                    a["dram_write_bytes"],
                    b["dram_write_bytes"],
                    " B",
                    0,
                ),
                _delta("DRAM bandwidth", a["dram_gbps"], b["dram_gbps"], " GB/s", 0),
                _delta(
                    "shared-memory bank conflicts (ld+st)",
                    diagnose._sum(a, "smem_conflicts_ld", "smem_conflicts_st"),
                    diagnose._sum(b, "smem_conflicts_ld", "smem_conflicts_st"),
                    "",
                    0,
                ),
                _delta(
                    "achieved occupancy",
                    a["achieved_occupancy_pct"],
                    b["achieved_occupancy_pct"],
                    "%",
                    1,
                ),
                _delta("registers per thread", a["registers"], b["registers"], "", 0),
            ]
            top_a = diagnose.top_stalls(self.stalls, a["variant"], a["size"])
            top_b = diagnose.top_stalls(self.stalls, b["variant"], b["size"])
            out.append(
                "top stalls "
                + ", ".join(f"{t.reason} {t.cycles:.1f}" for t in top_a.itertuples())
                + " -> "
                + ", ".join(f"{t.reason} {t.cycles:.1f}" for t in top_b.itertuples())
            )
        return out

    def failures(self) -> str:
        """Section 4: variants that failed, and profiles that could not be taken."""
        bad = [v for v in self.variants.values() if v["status"] != "ok"]
        unprofiled = [
            v
            for v in self.variants.values()
            if v["status"] == "ok" and v.get("profile_status") not in (None, "ok")
        ]
        unreadable = (
            self.rules[self.rules["rule"] == "ReportUnreadable"]
            if not self.rules.empty
            else pd.DataFrame()
        )
        if not bad and not unprofiled and unreadable.empty:
            return ""
        parts = ["## 4. Variants that failed"]
        if bad:
            rows = [
                {
                    "variant": f"`{v['name']}`",
                    "status": v["status"],
                    "message": v["message"].replace("\n", " ")[:300],
                }
                for v in bad
            ]
            parts += [
                "Kept in the report, out of the ranking.",
                _table(pd.DataFrame(rows)),
            ]
        if unprofiled:
            rows = [
                {
                    "variant": f"`{v['name']}`",
                    "profile": v["profile_status"],
                    "why, and the fix": v["profile_message"].replace("\n", " ")[:400],
                }
                for v in unprofiled
            ]
            parts += [
                "Verified and timed, but without Nsight Compute data (their ncu "
                "metrics, stalls and roofline points are missing from this report):",
                _table(pd.DataFrame(rows)),
            ]
        if not unreadable.empty:
            parts += [
                "Nsight Compute reports that could not be read (their numbers are "
                "missing above):",
                "\n".join(f"- {m}" for m in unreadable["message"]),
            ]
        return "\n\n".join(parts)

    def measurement(self) -> str:
        """Timing quality per profiled size, and ncu's time against the events'."""
        rows = self.a[(self.a["status"] == "ok") & self.a["profiled"].astype(bool)]
        if rows.empty:
            return ""
        table = pd.DataFrame(
            {
                "variant": rows["variant"].map(lambda v: f"`{v}`"),
                "n": rows["size"].astype(int).astype(str),
                "cache": rows["cache"] if "cache" in rows else None,
                "event median [us]": rows["time_median_us"],
                "IQR [us]": rows["time_iqr_us"],
                "CV %": 100 * rows["cv"],
                "reps": rows["reps"].astype(int).astype(str),
                "ncu [us]": rows["ncu_time_us"],
                "ncu vs events %": rows["ncu_vs_event_pct"],
            }
        )
        found = diagnose.measurement_findings(self.a[self.a["status"] == "ok"])
        return (
            "## Measurement checks\n\nEvery timing keeps its spread; at profiled sizes "
            "ncu's duration of its single launch is set against the event-timed median "
            f"(disagreement beyond {diagnose.CROSS_CHECK_PCT:.0f}% is listed below, not "
            "averaged away).\n\n"
            + _table(table)
            + (
                "\n\n" + "\n".join(f"- {f}" for f in found)
                if found
                else "\n\nNo disagreement or unstable sample."
            )
        )

    def limitations(self) -> str:
        """What these numbers do not show, stated with the settings that produced them."""
        profile = self.ctx["provenance"].get("profile", {})
        items = [
            "Each timed size says its cache mode: `hot` launches run back to back on the "
            "same buffers (inputs that fit in the L2 stay there), `cold` ones follow an "
            "L2-sized memset; recordings made before the cache setting existed are hot.",
            f"ncu ran with clock control `{profile.get('clock_control', 'n/a')}`"
            + (
                ": the GPU's clocks float with load and temperature, as in real use; "
                "ncu's time and the event-timed median can differ by a few percent."
                if profile.get("clock_control") == "none"
                else ": clocks were locked to base, so ncu times are slower than "
                "event times at boost clocks."
            ),
            "One GPU, one run: variation between GPUs of the same model and between "
            "runs is not measured here beyond each size's interquartile range.",
            "Ideal FLOPs and bytes come from the manifest's formulas; the roofline "
            "uses ncu's counted FLOPs and DRAM bytes of one launch per size.",
            "Stall reasons are averages over all warps of one launch; they show where "
            "warps wait, not which source line made them wait.",
        ]
        return "## Limitations\n\n" + "\n".join(f"- {i}" for i in items)

    def raw_files(self) -> str:
        """Which raw file and command each variant's numbers come from."""
        rows = []
        for name, v in self.variants.items():
            files = v.get("files", {})
            rows.append(
                {
                    "variant": f"`{name}`",
                    "compile": files.get("resources", ""),
                    "verify": files.get("verify", ""),
                    "timing": files.get("timing", ""),
                    "ncu reports": ", ".join(files.get("ncu_reports", [])),
                }
            )
        return _table(pd.DataFrame(rows))

    def provenance(self) -> str:
        """Appendix: GPU, versions, settings and commands."""
        p = self.ctx["provenance"]
        timing, profile, comp = (
            p.get("timing", {}),
            p.get("profile", {}),
            p.get("compile", {}),
        )
        rows = [
            ("GPU", timing.get("gpu")),
            ("driver", timing.get("driver")),
            ("CUDA (driver API)", timing.get("cuda_driver")),
            ("nvcc", comp.get("nvcc")),
            ("ncu", profile.get("ncu")),
            ("ncu clock control", profile.get("clock_control")),
            ("ncu section set", profile.get("set")),
            ("kernels git revision", timing.get("kernels_git") or "not recorded"),
            ("timed on", timing.get("date")),
            ("profiled on", profile.get("date")),
            ("timing settings", json.dumps(p.get("timing_settings", {}))),
            ("compile command", " ".join(p.get("compile_argv", []))),
            (
                "profile command",
                " ".join(profile.get("argv", [])[:6]) + " ..."
                if profile.get("argv")
                else "n/a",
            ),
            ("ceilings", self.ctx["ceilings"].get("method")),
        ]
        frame = pd.DataFrame(rows, columns=["item", "value"])
        return (
            "## Provenance\n\n"
            + frame.to_markdown(index=False)
            + "\n\nRaw files behind every number (stage outputs as JSON, Nsight "
            "Compute reports; each JSON names the command that wrote it):\n\n"
            + self.raw_files()
        )


def _source(path: str) -> str:
    file = Path(path)
    return file.read_text().strip() if file.is_file() else f"// {path} not found"


def _diff(before: str, after: str) -> str:
    """Unified diff of two variant sources, file names as in the kernels folder."""
    a = _source(before).splitlines()
    b = _source(after).splitlines()
    lines = difflib.unified_diff(
        a, b, fromfile=Path(before).name, tofile=Path(after).name, lineterm="", n=2
    )
    return "\n".join(lines)
