"""``context.json`` of the analyze stage: everything the report needs besides the tables.

One entry per variant (idea, status, resources, sanitizer findings, raw files), the
family's manifest fields, the ceilings and the provenance of the measurements, and
where replayed measurements came from. :func:`variant_status` (the first stage that
failed) is shared with the analysis table (:mod:`nsightflow.analysis.analyze`).

All functions are pure apart from :func:`replay_context`, which reads the recording's
``recording.json``.
"""

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from nsightflow.analysis.derived import input_baselines, input_label
from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.errors import ManifestError
from nsightflow.family.registry import Family, Variant
from nsightflow.io import read_recorded, recording_for
from nsightflow.tools import sanitizer as S

__all__ = ["OK", "context", "replay_context", "variant_status"]
OK = Status.OK


def variant_status(
    resources: Mapping[str, Any],
    verify: Mapping[str, Any],
    sanitize: Mapping[str, Any] | None = None,
    timing: Mapping[str, Any] | None = None,
) -> tuple[str, str]:
    """The variant's overall status and message: the first stage that failed.

    A variant that verified but whose memcheck found a device-side error is
    ``memcheck_error``: right by luck is not right. One that verified but whose
    time stage failed as a whole (timeout, crash, not recorded) takes that status:
    shown, never ranked.
    """
    if not resources or not verify:
        return Status.NOT_RECORDED, "no compile or verify record for this variant"
    if resources.get(col.STATUS) != OK:
        return str(resources.get(col.STATUS)), str(resources.get(col.MESSAGE, ""))
    if verify.get(col.STATUS) == OK and (bad := S.memcheck_error(sanitize or {})):
        return "memcheck_error", bad
    timed = timing or {}
    if verify.get(col.STATUS) == OK and timed.get(col.STATUS, OK) != OK:
        return str(timed[col.STATUS]), "time stage: " + str(timed.get(col.MESSAGE, ""))
    return str(verify.get(col.STATUS)), str(verify.get(col.MESSAGE, ""))


def context(
    family: Family,
    per_variant: Mapping[str, Mapping[str, Any]],
    ceilings: Mapping[str, Any],
    frame: pd.DataFrame,
) -> dict[str, Any]:
    """Everything the report needs besides the tables: family, variants, provenance.

    Args:
        family: the family manifest.
        per_variant: variant -> {"resources", "verify", "timing", "sanitize",
            "profile"} stage records (each with ``_file``, the raw file it came from).
        ceilings: measured ceilings and their provenance.
        frame: the analysis table (:func:`nsightflow.analysis.analyze.build_analysis`),
            read for the datasheet peaks and the L2 size.

    Returns:
        The ``context.json`` document, without its ``replay`` and ``launches`` keys.
    """
    bases = input_baselines(family)
    variants = [
        _variant_entry(name, base, per_variant.get(name, {}), bases[name])
        for name, base in family.variants.items()
    ]
    first = next(iter(per_variant.values()), {})
    return {
        col.FAMILY: _family_entry(family),
        "variants": variants,
        "ceilings": _ceilings_entry(ceilings, frame),
        "provenance": {
            **_provenance_entry(first, ceilings),
            "timing_runs": timing_runs(per_variant),
        },
    }


def timing_runs(per_variant: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The measuring runs the variants' timings come from, oldest first.

    A run is a (GPU, day, kernels revision) of the timing records' provenance; a
    family re-measured in part (a recording with additions) has several.
    """
    runs: dict[tuple[str, str, str], list[str]] = {}
    for name, rec in per_variant.items():
        prov = rec.get("timing", {}).get("provenance", {})
        if not prov.get(col.DATE):
            continue
        key = (
            str(prov.get(col.GPU, "")),
            str(prov[col.DATE])[:10],
            str(prov.get("kernels_git", "")),
        )
        runs.setdefault(key, []).append(name)
    return [
        {col.GPU: gpu, "day": day, "kernels_git": rev, "variants": names}
        for (gpu, day, rev), names in sorted(runs.items(), key=lambda kv: kv[0][1])
    ]


def _variant_entry(
    name: str, base: Variant, rec: Mapping[str, Any], input_baseline: str
) -> dict[str, Any]:
    """One variant's entry: manifest fields at its compiled parameters, status, files.

    Args:
        name: the variant's name.
        base: the variant as the manifest declares it.
        rec: its stage records (may be empty: nothing recorded).
        input_baseline: the variant its input is compared against
            (:func:`nsightflow.analysis.derived.input_baselines`).
    """
    resources = rec.get("resources", {})
    var = _as_compiled(base, resources)
    status, message = variant_status(
        resources, rec.get("verify", {}), rec.get("sanitize"), rec.get("timing")
    )
    verify_sizes = rec.get("verify", {}).get(col.SIZES, [])
    return {
        col.NAME: name,
        col.KERNEL: var.kernel,
        col.IDEA: idea_at(base.idea, base.config, var.config),
        col.IMPROVES_ON: var.improves_on,
        "library": var.is_library,
        col.INPUT: input_label(var.generator_args),
        "input_baseline": input_baseline,
        col.SOURCE: str(var.source),
        "init": dict(base.init),  # its own initial fills (S: zero), not the args'
        "block": list(var.block),
        "grid": list(var.grid),
        col.PARAMS: dict(var.config),
        col.STATUS: status,
        col.MESSAGE: message,
        "resources": resources.get("resources", {}),
        "source_changed": resources.get("source_changed_note", ""),
        "profile_status": rec.get("profile", {}).get(col.STATUS),
        "profile_message": rec.get("profile", {}).get(col.MESSAGE, ""),
        "sanitize": S.summary(rec["sanitize"]) if "sanitize" in rec else None,
        col.FILES: _raw_files(rec),
        "verify_sizes": [s.get("n") for s in verify_sizes],
        "max_rel_error": max(
            (s.get(col.REL_L2_ERROR, 0.0) for s in verify_sizes), default=None
        ),
    }


def _raw_files(rec: Mapping[str, Any]) -> dict[str, Any]:
    """The raw files a variant's numbers come from, per stage, and its ncu reports."""
    return {
        kind: rec[kind]["_file"]
        for kind in ("resources", "verify", "timing", "sanitize")
        if "_file" in rec.get(kind, {})
    } | {"ncu_reports": rec.get("profile", {}).get("reports", [])}


def _family_entry(family: Family) -> dict[str, Any]:
    """The manifest fields of the family the report shows."""
    return {
        col.NAME: family.name,
        "title": family.title,
        "description": family.description,
        "flops": family.flops,
        col.BYTES: family.bytes,
        "tolerance": family.tolerance,
        "baseline": family.baseline,
        "vendor": family.vendor,
        col.SIZES: list(family.sizes),
        "profile_sizes": list(family.profile_sizes),
        "verify_sizes": list(family.verify_sizes),
    }


def _ceilings_entry(ceilings: Mapping[str, Any], frame: pd.DataFrame) -> dict[str, Any]:
    """Measured ceilings, and the datasheet peaks and L2 size ncu reported."""
    peaks = frame[
        ["peak_fp32_gflops_datasheet", "peak_dram_gbps_datasheet", "l2_bytes"]
    ].max()
    return {
        col.GPU: ceilings.get(col.GPU),
        col.COPY_GBPS: ceilings.get(col.COPY_GBPS),
        col.FP32_GFLOPS: ceilings.get(col.FP32_GFLOPS),
        col.VENDOR_SGEMM_GFLOPS: ceilings.get(col.VENDOR_SGEMM_GFLOPS),
        "vendor_sgemm_note": ceilings.get("vendor_sgemm_note"),
        "method": ceilings.get("method"),
        **{
            key: ceilings.get(key)
            for key in ("l2_gbps", "l1_gbps", "shared_gbps", "hierarchy_method")
        },
        "datasheet_fp32_gflops": _num(peaks["peak_fp32_gflops_datasheet"]),
        "datasheet_dram_gbps": _num(peaks["peak_dram_gbps_datasheet"]),
        "l2_bytes": _num(peaks["l2_bytes"]),
    }


def _provenance_entry(
    first: Mapping[str, Any], ceilings: Mapping[str, Any]
) -> dict[str, Any]:
    """How the measurements were made, read from the first variant's records."""
    return {
        "timing": first.get("timing", {}).get("provenance", {}),
        "timing_settings": first.get("timing", {}).get("settings", {}),
        "profile": first.get("profile", {}),
        "compile": first.get("resources", {}).get("provenance", {}),
        "compile_argv": first.get("resources", {}).get("argv", []),
        "ceilings": ceilings.get("provenance", {}),
    }


PARAM = re.compile(r"\b([A-Z][A-Z_]*)\s*=\s*(\d+)")  # BK=8
TILE = re.compile(r"\b(\d+)\s*x\s*(\d+)(?= block tile)")  # 64x64 block tile
ROWS = re.compile(r"\b(\d+)(?=[- ]rows?\b)")  # "sweeps 8 rows", "v3's 8-row strip"


def idea_at(idea: str, defaults: Mapping[str, Any], ran: Mapping[str, Any]) -> str:
    """The idea's text at the parameters that ran.

    The manifest writes it for its defaults; a sweep's tuned point may run others.
    ``BK=8``, ``64x64 block tile`` (``BM`` x ``BN``) and ``8 rows`` or ``8-row``
    (``ROWS``: Jacobi-2D ``v3_colstrip`` ran 4) take the values that ran; a
    bare number takes a changed parameter's value where it is the default of that
    parameter alone among those the text does not name (SGEMM ``v4_regblock1d`` at
    TM=4: "each thread computes 4 outputs of a column"); an ambiguous number stays.
    """
    changed = {
        k: v for k, v in ran.items() if k in defaults and str(defaults[k]) != str(v)
    }
    if not changed:
        return idea
    named = {key for key, _ in PARAM.findall(idea)}
    text = PARAM.sub(lambda m: f"{m[1]}={changed.get(m[1], m[2])}", idea)
    if TILE.search(text) and {"BM", "BN"} <= set(ran):
        text = TILE.sub(f"{ran['BM']}x{ran['BN']}", text, count=1)
        named |= {"BM", "BN"}
    if "ROWS" in ran and ROWS.search(text):  # a strip's rows are ROWS, by name
        text = ROWS.sub(str(ran["ROWS"]), text)
        named.add("ROWS")
    for key, value in changed.items():
        default = str(defaults[key])
        rivals = [
            k
            for k in defaults
            if k != key and k not in named and str(defaults[k]) == default
        ]
        if key in named or rivals:
            continue
        text = re.sub(rf"(?<![\w.=x+]){default}(?![\w.=x+])", str(value), text)
    return text


def _as_compiled(variant: Variant, resources: Mapping[str, Any]) -> Variant:
    """The variant at the parameters it was compiled (and so measured) at.

    A recording made before the manifest changed its axes keeps the defaults.
    """
    try:
        return variant.with_params(resources.get(col.PARAMS, {}))
    except ManifestError:
        return variant


def _num(value: Any) -> float | None:
    """A float, or None for a missing value (NaN)."""
    return None if pd.isna(value) else float(value)


def replay_context(
    per_variant: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any] | None:
    """Where replayed measurements came from (``recording.json``), or None if measured."""
    for record in per_variant.values():
        source = record.get("timing", {}).get(col.REPLAYED_FROM)
        if source:
            # nsightflow.machine.double: a test's stand-in for the GPU workers
            double = (
                {"test_double": True} if record["timing"].get("test_double") else {}
            )
            for folder in Path(source).parents:
                if (folder / "recording.json").is_file():
                    info = read_recorded(folder / "recording.json")
                    family = record["timing"].get(col.FAMILY)
                    found = recording_for(info, family)
                    return {col.SOURCE: str(folder), **found, **double}
            return {col.SOURCE: source, **double}
    return None
