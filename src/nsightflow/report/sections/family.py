"""The sections of a family report, in the order of the seed Jacobi-2D report.

1 baseline measurement over sizes, 2 theoretical analysis (bound, roofline, the baseline
under Nsight Compute), 3 one section per optimization step (source diff, before -> after
deltas, stall reasons that moved, diagnosis, ncu's rules compared), then failed
variants, limitations and the provenance of every number.

Every sentence, heading and table header comes from the catalogue of
:mod:`nsightflow.i18n`, in the language the builder was given; the sections are split
over this module (header, summary, sections 1 and 2),
:mod:`nsightflow.report.sections.steps` (section 3), :mod:`nsightflow.report.sections.appendix` and
:mod:`nsightflow.report.sections.timeline` (copies against kernel time, when traced) and
:mod:`nsightflow.report.sections.sweep` (parameter sweeps, when swept).
"""

import math
from typing import Any

import pandas as pd

from nsightflow import i18n
from nsightflow.diagnosis.record import render_row
from nsightflow.i18n import T
from nsightflow.report.sections.appendix import AppendixSections
from nsightflow.report.sections.common import bullets, figure, fmt, source, table
from nsightflow.report.sections.energy import EnergySections
from nsightflow.report.sections.sanitize import SanitizeSections
from nsightflow.report.sections.steps import StepSections
from nsightflow.report.sections.sweep import SweepSections
from nsightflow.report.sections.timeline import TimelineSections
from nsightflow.report.text import code_block, inline


class ReportBuilder(
    StepSections,
    AppendixSections,
    TimelineSections,
    SanitizeSections,
    SweepSections,
    EnergySections,
):
    """Assembles the Markdown of one family from its analysis files.

    Args:
        analysis: ``analysis.csv``: one row per variant and size.
        stalls: ``stalls.csv``: stall reasons per variant and profiled size.
        rules: ``rules.csv``: Nsight Compute's rule results (may be empty).
        ctx: ``context.json``: family manifest, variants, ceilings, provenance.
        language: Language of the report's text, ``en`` (default) or ``zh``.

    :meth:`build` writes every section in that language; a section method called on
    its own writes in the language in force (see :func:`nsightflow.i18n.language`).
    """

    def build(self) -> str:
        """The whole report, in the builder's language."""
        with i18n.language(self.language):
            parts = [
                self.header(),
                self.summary(),
                self.baseline(),
                self.theory(),
                self.sweeps(),
                self.steps(),
                self.failures(),
                self.timeline(),
                self.sanitizer(),
                self.conclusion(),
                self.measurement(),
                self.energy(),
                self.limitations(),
                self.provenance(),
            ]
        return "\n\n".join(p for p in parts if p) + "\n"

    def header(self) -> str:
        """Title, description, where and how it was measured, the result per input."""
        lines = [
            "# " + T("h_report", title=inline(self.fam["title"])),
            "",
            inline(self.fam["description"], paragraphs=True),
            "",
            self._measured_on(),
        ]
        replay = self.ctx.get("replay")
        if replay:
            lines += ["", "> " + _replayed(replay)]
        if not self.diagnosed:
            lines += ["", "> " + T("no_findings")]
        runs = self.ctx["provenance"].get("timing_runs", [])
        if len(runs) > 1:  # re-measured in part: say which run timed which variant
            parts = [
                T(
                    "timing_run",
                    day=run["day"],
                    gpu=run["gpu"] or T("unknown_gpu"),
                    kernels=run["kernels_git"] or "?",
                    variants=", ".join(f"`{v}`" for v in run["variants"]),
                )
                for run in runs
            ]
            lines += ["", T("timing_runs", n=len(runs), runs="; ".join(parts)) + "."]
        for text in self.said(self.found("headline")):
            lines += ["", text]
        if self.language != "en":
            lines += ["", "> " + T("kept_in_english")]
        return "\n".join(lines)

    def _measured_on(self) -> str:
        """Where, when and with which tools the family was measured."""
        prov = self.ctx["provenance"]
        timing = prov.get("timing", {})
        if not timing.get("date"):
            return T("no_timing")
        profile = prov.get("profile", {})
        return T(
            "measured_on",
            gpu=timing.get("gpu", self.ctx["ceilings"].get("gpu") or T("unknown_gpu")),
            driver=timing.get("driver", "?"),
            cuda=timing.get("cuda_driver", "?"),
            date=timing.get("date", "?"),
            nvcc=prov.get("compile", {}).get("nvcc"),
            ncu=profile.get("ncu", "n/a"),
            clock=profile.get("clock_control", "n/a"),
        )

    def summary(self) -> str:
        """The summary table at the largest profiled size, in the family's lens."""
        rows = [self._summary_row(name, v) for name, v in self.variants.items()]
        return (
            f"## {T('h_summary', n=self.key_size)}\n\n"
            + table(pd.DataFrame(rows))
            + "\n\n"
            + T("summary_rank_note")
            + " "
            + T("summary_lens_note")
        )

    def _summary_row(self, name: str, v: dict[str, Any]) -> dict[str, Any]:
        """One variant's row of the summary table."""
        r = self.row(name, self.key_size)
        rate = "gflops" if self.lens() == "compute" else "gbps"
        several = len(self.inputs()) > 1
        return {
            T("col_version"): f"`{name}`",
            T("col_status"): v["status"],
            **(
                {T("col_input"): v.get("input") or T("input_default")}
                if several
                else {}
            ),
            **{
                T("col_time_at", n=n): self.row(name, n).get("time_median_us")
                for n in self.profile_sizes
            },
            T("col_speedup_vs_input"): r.get("speedup_vs_baseline"),
            T("col_vs_previous"): r.get("speedup_vs_previous"),
            T("col_regime"): _regime_word(r.get("regime")),
            T(f"col_{rate}"): r.get(rate),
            T("col_pct_ceiling"): r.get("regime_ceiling_pct"),
            T("col_ceiling"): _ceiling_word(r.get("regime_ceiling")),
            T("col_rank"): None if pd.isna(r.get("rank", math.nan)) else int(r["rank"]),
            T("col_notes"): self._note(name, v, r),
        }

    def _note(self, name: str, v: dict[str, Any], r: dict[str, Any]) -> str:
        if v.get("source_changed"):
            return T("note_source_changed")
        if v["status"] != "ok":
            return T("note_failed", status=v["status"])
        previous = r.get("speedup_vs_previous", math.nan)
        if v["improves_on"] and not pd.isna(previous) and previous < 1:
            return T("note_slower", before=v["improves_on"])
        return inline(v["idea"])

    def baseline(self) -> str:
        """Section 1: every variant over the size sweep."""
        timed = self.a.dropna(subset=["time_median_us"])
        if timed.empty:
            return f"## {T('h_baseline')}\n\n{T('no_timings')}"
        times = self._times(timed)
        times["size"] = times["size"].astype(int).astype(str)
        times = times.rename(columns={"size": T("col_size")})
        s = self.ctx["provenance"].get("timing_settings", {})
        modes: dict[Any, Any] = (
            timed.groupby("size")["cache"].first().dropna().to_dict()
            if "cache" in timed
            else {}
        )
        method = T(
            "timing_method",
            warmup=s.get("warmup", "n/a"),
            settle=100 * float(s.get("settle_rel", 0)),
            budget=s.get("budget_s", "n/a"),
            modes=", ".join(f"{int(n)} {mode}" for n, mode in modes.items()) or "n/a",
        )
        return (
            f"## {T('h_baseline')}\n\n"
            + figure("fig_perf_vs_size", "perf_vs_size")
            + "\n\n"
            + method
            + "\n\n"
            + table(times)
            + self._regimes()
        )

    def _times(self, timed: pd.DataFrame) -> pd.DataFrame:
        """Median times, size by variant; a size the recording lacks says so."""
        absent = self.a[self.a["status"] == "not_recorded"]
        if absent.empty:
            return timed.pivot_table(
                index="size", columns="variant", values="time_median_us"
            ).reset_index()
        cells = pd.concat(
            [
                timed.assign(cell=timed["time_median_us"].map("{:,.2f}".format)),
                absent.assign(cell=T("not_recorded")),
            ]
        )
        return cells.pivot_table(
            index="size", columns="variant", values="cell", aggfunc="first"
        ).reset_index()

    def _regimes(self) -> str:
        """Regime changes and throughput drops over each variant's sizes."""
        found = self.said(self.found("sweep"))
        return "\n\n" + "\n".join(bullets(found)) if found else ""

    def theory(self) -> str:
        """Section 2: ideal work, ceilings, bound, roofline, the baseline under ncu."""
        base = self.fam["baseline"]
        lines = [
            f"## {T('h_theory')}",
            "",
            f"### {T('h_bound')}",
            "",
            T("ideal_work", flops=self.fam["flops"], nbytes=self.fam["bytes"]),
            *self._bound(),
            "",
            figure("fig_roofline", "roofline"),
            "",
            "### " + T("h_baseline_ncu", variant=base),
            "",
        ]
        for base_of_input in self._input_baselines():
            if base_of_input != base:
                lines += ["#### " + self._input_heading(base_of_input), ""]
            for n in self.profile_sizes:
                lines += self._baseline_at(base_of_input, n)
        lines += self.hotspot_baseline()
        lines += self._plan()
        return "\n".join(
            [
                *lines,
                figure("fig_stalls", "stalls"),
                "",
                figure("fig_bytes_by_level", "bytes_by_level"),
                "",
                T("baseline_source", variant=base),
                "",
                code_block(source(self.variants[base]["source"]), "cuda"),
            ]
        )

    def _bound(self) -> list[str]:
        """The measured ceilings and the baseline's floor times (none without ceilings)."""
        c = self.ctx["ceilings"]
        copy, fp32 = c.get("copy_gbps"), c.get("fp32_gflops")
        if not copy or not fp32:
            return []
        ceilings = T(
            "ceilings",
            copy=copy,
            fp32=fp32,
            sheet_gbps=fmt(c.get("datasheet_dram_gbps")),
            sheet_gflops=fmt(c.get("datasheet_fp32_gflops")),
            ridge=fp32 / copy,
        )
        rows = [self._bound_row(n, copy, fp32) for n in self.profile_sizes]
        return ["", ceilings, "", table(pd.DataFrame(rows))]

    def _bound_row(self, n: int, copy: float, fp32: float) -> dict[str, Any]:
        """Ideal work, floor times and the bound of the baseline at one size."""
        base = self.fam["baseline"]
        r = self.row(base, n)
        t_c = r["ideal_flops"] / fp32 / 1e3
        t_m = r["ideal_bytes"] / copy / 1e3
        return {
            T("col_n"): n,
            T("col_flops"): f"{r['ideal_flops']:,.0f}",
            T("col_bytes"): f"{r['ideal_bytes']:,.0f}",
            T("col_ai"): r["ai_ideal"],
            T("col_compute_time"): t_c,
            T("col_memory_time"): t_m,
            T("col_bound"): T("bound_memory" if t_m > t_c else "bound_compute"),
            T("col_regime_measured"): _regime_word(r.get("regime")),
            T("col_measured", variant=base): r.get("time_median_us"),
            T("col_vs_floor"): r.get("time_median_us", math.nan) / max(t_c, t_m),
        }

    def _input_baselines(self) -> list[str]:
        """The baseline of each input, the family's first."""
        out = []
        for names in self.inputs().values():
            first = self.variants[names[0]].get("input_baseline") or names[0]
            if first not in out:
                out.append(first)
        return out

    def _input_heading(self, variant: str) -> str:
        label = self.variants[variant].get("input") or ""
        text = T("input_named", label=label) if label else T("input_default")
        return T("h_input_baseline", variant=variant, input=text)

    def _baseline_at(self, base: str, n: int) -> list[str]:
        """A baseline under Nsight Compute at one profiled size, and what limits it."""
        r = self.row(base, n)
        if not r.get("profiled"):
            return []
        facts = [
            T("ncu_time", ncu=fmt(r["ncu_time_us"]), event=fmt(r["time_median_us"])),
            T(
                "ncu_dram_bytes",
                read=r["dram_read_bytes"],
                write=r["dram_write_bytes"],
            ),
            T(
                "ncu_dram_bandwidth",
                gbps=fmt(r["dram_gbps"]),
                l2=fmt(r["l2_hit_pct"], 1),
                sectors=fmt(r["sectors_per_request"]),
            ),
            T(
                "ncu_occupancy",
                achieved=fmt(r["achieved_occupancy_pct"], 1),
                theoretical=fmt(r["theoretical_occupancy_pct"], 0),
                registers=fmt(r["registers"], 0),
            ),
        ]
        stand = self.said(self.found("stand", base, n))
        return [
            T("at_n", n=n),
            "",
            *bullets(facts),
            "",
            *bullets(stand + self.said(self.found("baseline", base, n))),
            *self.rule_quotes(base, n, "WarpStateStats"),
            "",
        ]

    def _plan(self) -> list[str]:
        """2.3: the remedies each baseline's diagnosis implies, largest cause first."""
        lines = ["### " + T("h_plan"), "", T("plan_intro"), ""]
        for base in self._input_baselines():
            items = self.found("plan", base)
            if not items:
                continue
            if len(self._input_baselines()) > 1:
                lines += [self._input_heading(base) + ":", ""]
            texts = [render_row(r) for r in items]
            lines += [f"{i}. {t}" for i, t in enumerate(texts, start=1)] + [""]
        return lines


def _regime_word(regime: Any) -> str:
    """The regime's name for a table cell ('' when not classified)."""
    if not isinstance(regime, str) or not regime:
        return ""
    return T(f"regime_{regime}")


def _ceiling_word(ceiling: Any) -> str:
    if not isinstance(ceiling, str) or not ceiling:
        return ""
    return T(f"ceiling_short_{ceiling}")


def _replayed(replay: dict[str, Any]) -> str:
    """The notice that the numbers were replayed from a recording."""
    return T(
        "replayed",
        gpu=replay.get("gpu", "?"),
        date=replay.get("date", "?"),
        driver=replay.get("driver", "?"),
        ncu=replay.get("ncu", "?"),
        clock=replay.get("clock_control", "?"),
        kernels=replay.get("kernels_git", "?"),
        source=replay["source"],
    )
