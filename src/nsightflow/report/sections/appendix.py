"""The closing parts of a family report's appendix.

Variants that failed (and profiles that could not be taken), the measurement checks,
the limitations, the provenance of every number, and the metrics behind the body's
footnote marks. Each method returns a part's content without its heading.
"""

import json
from typing import Any

import pandas as pd

from nsightflow.analysis import integrity
from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.diagnosis import core as diagnose
from nsightflow.i18n import T
from nsightflow.i18n.markup import code_span
from nsightflow.report.sections.common import bullets, table
from nsightflow.report.sections.hotspots import HotspotSections
from nsightflow.report.text import plain


class AppendixSections(HotspotSections):
    """Failures, measurement checks, limitations and provenance."""

    def failures(self) -> str:
        """Section 4: variants that failed, and profiles that could not be taken."""
        bad = [v for v in self.variants.values() if v[col.STATUS] != Status.OK]
        unprofiled = [
            v
            for v in self.variants.values()
            if v[col.STATUS] == Status.OK
            and v.get("profile_status") not in (None, Status.OK)
        ]
        unreadable = (
            self.rules[self.rules[col.RULE] == "ReportUnreadable"]
            if not self.rules.empty
            else pd.DataFrame()
        )
        if not bad and not unprofiled and unreadable.empty:
            return ""
        parts = []
        if bad:
            parts += [T("failed_kept"), self._failed_table(bad)]
        if unprofiled:
            parts += [T("unprofiled"), self._unprofiled_table(unprofiled)]
        if not unreadable.empty:
            parts += [
                T("unreadable"),
                "\n".join(bullets(map(plain, unreadable[col.MESSAGE]))),
            ]
        return "\n\n".join(parts)

    @staticmethod
    def _failed_table(bad: list[dict[str, Any]]) -> str:
        rows = [
            {
                T("col_variant"): f"`{v['name']}`",
                T("col_status"): v[col.STATUS],
                T("col_message"): plain(v[col.MESSAGE][:300]),
            }
            for v in bad
        ]
        return table(pd.DataFrame(rows))

    @staticmethod
    def _unprofiled_table(unprofiled: list[dict[str, Any]]) -> str:
        rows = [
            {
                T("col_variant"): f"`{v['name']}`",
                T("col_profile"): v["profile_status"],
                T("col_fix"): plain(v["profile_message"][:400]),
            }
            for v in unprofiled
        ]
        return table(pd.DataFrame(rows))

    def measurement(self) -> str:
        """Timing quality per profiled size, and ncu's time against the events'."""
        rows = self.a[
            (self.a[col.STATUS] == Status.OK) & self.a["profiled"].astype(bool)
        ]
        if rows.empty:
            return ""
        frame = pd.DataFrame(
            {
                T("col_variant"): rows[col.VARIANT].map(lambda v: f"`{v}`"),
                T("col_n"): rows[col.SIZE].astype(int).astype(str),
                T("col_cache"): rows[col.CACHE] if col.CACHE in rows else None,
                T("col_event_median"): rows[col.TIME_MEDIAN_US],
                T("col_iqr"): rows[col.TIME_IQR_US],
                T("col_cv"): 100 * rows[col.CV],
                T("col_reps"): rows[col.REPS].astype(int).astype(str),
                T("col_ncu_time"): rows["ncu_time_us"],
                T("col_ncu_vs_events"): rows["ncu_vs_event_pct"],
            }
        )
        found = diagnose.measurement_findings(self.a[self.a[col.STATUS] == Status.OK])
        found += integrity_lines(self.a)
        checks = "\n".join(bullets(found)) if found else T("no_disagreement")
        if state := integrity.gpu_state(self.a):
            checks += "\n\n" + gpu_state_line(state)
        return (
            T("measurement_intro", pct=diagnose.CROSS_CHECK_PCT)
            + "\n\n"
            + table(frame)
            + "\n\n"
            + checks
        )

    def limitations(self) -> str:
        """What these numbers do not show, stated with the settings that produced them."""
        clock = self.ctx["provenance"].get("profile", {}).get("clock_control", "n/a")
        items = [
            T("lim_cache"),
            T(
                "lim_clock_none" if clock == "none" else "lim_clock_locked",
                clock=code_span(str(clock)),
            ),
            T("lim_one_gpu"),
            T("lim_ideal"),
            self.stall_limitation(),
        ]
        return "\n".join(bullets(items))

    def raw_files(self) -> str:
        """Which raw file and command each variant's numbers come from."""
        rows = []
        for name, v in self.variants.items():
            files = v.get(col.FILES, {})
            rows.append(
                {
                    T("col_variant"): f"`{name}`",
                    T("col_compile"): plain(files.get("resources", "")),
                    T("col_verify"): plain(files.get("verify", "")),
                    T("col_timing"): plain(files.get("timing", "")),
                    T("col_ncu_reports"): plain(
                        ", ".join(files.get("ncu_reports", []))
                    ),
                }
            )
        return table(pd.DataFrame(rows))

    def provenance(self) -> str:
        """Appendix: GPU, versions, settings and commands."""
        frame = pd.DataFrame(
            self._provenance_rows(), columns=[T("col_item"), T("col_value")]
        )
        return (
            self.origin_details()
            + "\n\n"
            + frame.to_markdown(index=False)
            + "\n\n"
            + T("raw_files_intro")
            + "\n\n"
            + self.raw_files()
        )

    def origin_details(self) -> str:
        """Where, when and with which tools; the replay notice; the timing runs."""
        lines = [self.measured_on()]
        replay = self.ctx.get("replay")
        if replay:
            lines += ["", "> " + _replayed(replay)]
        runs = self.ctx["provenance"].get("timing_runs", [])
        if len(runs) > 1:  # re-measured in part: say which run timed which variant
            parts = [
                T(
                    "timing_run",
                    day=plain(run["day"]),
                    gpu=plain(run[col.GPU]) if run[col.GPU] else T("unknown_gpu"),
                    kernels=plain(run["kernels_git"] or "?"),
                    variants=", ".join(f"`{v}`" for v in run["variants"]),
                )
                for run in runs
            ]
            lines += ["", T("timing_runs", n=len(runs), runs="; ".join(parts)) + "."]
        if self.language != "en":
            lines += ["", "> " + T("kept_in_english")]
        return "\n".join(lines)

    def measured_on(self) -> str:
        """Where, when and with which tools the family was measured."""
        prov = self.ctx["provenance"]
        timing = prov.get("timing", {})
        if not timing.get(col.DATE):
            return T("no_timing")
        profile = prov.get("profile", {})
        gpu = timing.get(col.GPU, self.ctx["ceilings"].get(col.GPU))
        return T(
            "measured_on",
            gpu=plain(gpu) if gpu else T("unknown_gpu"),
            driver=plain(timing.get("driver", "?")),
            cuda=plain(timing.get("cuda_driver", "?")),
            date=plain(timing.get(col.DATE, "?")),
            nvcc=plain(prov.get("compile", {}).get("nvcc")),
            ncu=plain(profile.get("ncu", "n/a")),
            clock=code_span(str(profile.get("clock_control", "n/a"))),
        )

    def glossary(self) -> str:
        """The metric of each footnote mark the body set (:meth:`note`), in order."""
        if not self.notes:
            return ""
        defs = [f"[^m{k}]: {code_span(metric)}" for metric, k in self.notes.items()]
        return T("glossary_intro") + "\n\n" + "\n".join(defs)

    def _provenance_rows(self) -> list[tuple[str, Any]]:
        p = self.ctx["provenance"]
        timing, profile, comp = (
            p.get("timing", {}),
            p.get("profile", {}),
            p.get("compile", {}),
        )
        argv = profile.get("argv")
        rows = [
            (T("prov_gpu"), timing.get(col.GPU)),
            (T("prov_driver"), timing.get("driver")),
            (T("prov_cuda"), timing.get("cuda_driver")),
            (T("prov_nvcc"), comp.get("nvcc")),
            (T("prov_ncu"), profile.get("ncu")),
            (T("prov_clock"), profile.get("clock_control")),
            (T("prov_set"), profile.get("set")),
            (T("prov_git"), timing.get("kernels_git") or T("not_recorded")),
            (T("prov_timed"), timing.get(col.DATE)),
            (T("prov_profiled"), profile.get(col.DATE)),
            (T("prov_timing_settings"), json.dumps(p.get("timing_settings", {}))),
            (T("prov_compile_cmd"), " ".join(p.get("compile_argv", []))),
            (
                T("prov_profile_cmd"),
                " ".join(argv[:6]) + " ..." if argv else "n/a",
            ),
            (T("prov_ceilings"), self.ctx["ceilings"].get("method")),
        ]
        # every value is text of a record, shown literally
        return [(k, plain(v) if isinstance(v, str) else v) for k, v in rows]


def integrity_lines(a: pd.DataFrame) -> list[str]:
    """The integrity checks' findings (:mod:`nsightflow.analysis.integrity`)."""
    lines = []
    for status, key in (
        (integrity.FASTER, "integrity_faster"),
        (integrity.CHANGED, "integrity_changed"),
    ):
        for _, r in a[a[col.STATUS] == status].iterrows():
            where = T("where", variant=r[col.VARIANT], n=int(r[col.SIZE]))
            lines.append(T(key, where=where, message=plain(str(r[col.MESSAGE]))))
    for _, r in integrity.event_ncu(a).iterrows():
        lines.append(
            T(
                "integrity_disagree",
                where=T("where", variant=r[col.VARIANT], n=int(r[col.SIZE])),
                ncu=float(r["ncu_time_us"]),
                event=float(r[col.TIME_MEDIAN_US]),
                diff=float(r["diff_us"]),
                noise=float(r["noise_us"]),
                iqr=float(r[col.TIME_IQR_US]),
            )
        )
    return lines


def gpu_state_line(state: dict[str, Any]) -> str:
    """The GPU's clocks, clock-event reasons and other processes over the runs."""

    def span(mhz: tuple[float, float]) -> str:
        low, high = mhz
        return f"{low:.0f} MHz" if low == high else f"{low:.0f}-{high:.0f} MHz"

    return T(
        "integrity_gpu_state",
        runs=state["runs"],
        sm=span(state["sm_mhz"]),
        mem=span(state["mem_mhz"]),
        drop=state["sm_drop_mhz"],
        reasons=state["reasons"],
        procs=state[col.OTHER_PROCESSES],
    )


def _replayed(replay: dict[str, Any]) -> str:
    """The notice that the numbers were replayed from a recording."""
    return T(
        "test_double_notice" if replay.get("test_double") else "replayed",
        gpu=plain(replay.get(col.GPU, "?")),
        date=plain(replay.get(col.DATE, "?")),
        driver=plain(replay.get("driver", "?")),
        ncu=plain(replay.get("ncu", "?")),
        clock=code_span(str(replay.get("clock_control", "?"))),
        kernels=plain(replay.get("kernels_git", "?")),
        source=code_span(str(replay[col.SOURCE])),
    )
