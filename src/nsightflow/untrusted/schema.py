"""The shape of every file a recording or run folder holds, as JSON Schema.

One schema per record kind (:data:`KINDS`), written for what the readers of the
record rely on: types, times that are finite and non-negative, sizes that are
positive integers, statuses that nsightflow writes, one row per size. Fields a
reader does not use may hold anything. Three keywords are added to draft 2020-12:
``finite`` (no NaN or infinity), ``uniqueKeys`` (no two items of an array share
these fields) and ``ordered`` (these fields, where present, do not decrease:
quartiles around a median).
"""

import itertools
import math
from collections.abc import Iterator
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

from nsightflow.contracts import columns as col
from nsightflow.records import Status

# No launch the time stage records lasts a day: it kills a variant after its
# timeout (300 s by default). A median beyond it is not a measurement.
MAX_TIME_US = 86_400e6
# Sizes are element counts; above 2**53 a float64 (pandas, JSON readers) no longer
# holds every integer, and no GPU holds that many elements.
MAX_SIZE = 2**53

TEXT = {"type": "string"}
NAME = {"type": "string", "minLength": 1, "maxLength": 255}
SIZE = {"type": "integer", "minimum": 1, "maximum": MAX_SIZE}
COUNT = {"type": "integer", "minimum": 0, "maximum": MAX_SIZE}
AMOUNT = {"type": "number", "finite": True, "minimum": 0}
TIME_US = {**AMOUNT, "maximum": MAX_TIME_US}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema``, or null (number bounds do not apply to null)."""
    types = [schema["type"], "null"]  # contracts: literal (JSON Schema's type)
    return {**schema, "type": types}  # contracts: literal


OPTIONAL_AMOUNT = nullable(AMOUNT)
STATUS = {"enum": [str(s) for s in Status]}
OBJECT = {"type": "object"}
TEXTS = {"type": "array", "items": TEXT}


def _record(required: tuple[str, ...], **fields: Any) -> dict[str, Any]:
    """A stage record: ``family``, ``variant`` and ``status`` plus ``fields``."""
    return {
        "type": "object",
        "required": [col.FAMILY, col.VARIANT, *required],
        "properties": {
            col.FAMILY: NAME,
            col.VARIANT: NAME,
            col.STATUS: STATUS,
            col.MESSAGE: TEXT,
            "provenance": OBJECT,
            col.REPLAYED_FROM: TEXT,
            **fields,
        },
    }


_GPU_STATE = {
    "type": ["object", "null"],
    "properties": {
        col.SM_CLOCK_MHZ: OPTIONAL_AMOUNT,
        col.MEM_CLOCK_MHZ: OPTIONAL_AMOUNT,
        col.OTHER_PROCESSES: {"type": ["array", "null"]},
    },
}
_TIME_ROW = {
    "type": "object",
    "required": [col.SIZE],
    "properties": {
        col.SIZE: SIZE,
        col.STATUS: STATUS,
        col.CACHE: {"enum": ["hot", "cold", None]},
        **{
            f"time_{k}_us": TIME_US
            for k in ("median", "q1", "q3", "iqr", "min", "max", "mean")
        },
        col.REPS: {**COUNT, "minimum": 1},
        col.SETTLED: {"type": ["boolean", "null"]},
        col.THROTTLED: {"type": ["boolean", "null"]},
        "gpu_before": _GPU_STATE,
        "gpu_after": _GPU_STATE,
        "verified_after": {  # the outputs after the timed repetitions
            "type": ["object", "null"],
            "properties": {col.STATUS: STATUS, col.REL_L2_ERROR: OPTIONAL_AMOUNT},
        },
        col.GENERATED: {"type": ["object", "null"], "additionalProperties": COUNT},
        # whole nanoseconds separated by spaces (gpu.timing.encode_samples); no
        # launch takes 0 ns (CUDA events tick in 32 ns on the H200), none a day
        "samples_ns": {
            "type": ["string", "null"],
            "pattern": r"^([1-9][0-9]{0,13}( |$))*$",
        },
    },
    "ordered": [f"time_{k}_us" for k in ("min", "q1", "median", "q3", "max")],
    # a row timed ok carries its quartiles, and a median that is a duration
    "if": {"properties": {col.STATUS: {"const": Status.OK}}},
    "then": {
        "required": [col.TIME_MEDIAN_US, col.TIME_Q1_US, col.TIME_Q3_US],
        "properties": {col.TIME_MEDIAN_US: {"exclusiveMinimum": 0}},
    },
}
_REPORT_ENTRY = {
    "type": "object",
    "properties": {
        col.SIZE: nullable(SIZE),
        col.FILE: TEXT,
        "result": COUNT,
        "first_action": COUNT,
        "actions": nullable({**COUNT, "minimum": 1}),
        col.STATUS: STATUS,
        "argv": TEXTS,
    },
}
_RESOURCES = {
    "type": "object",
    "properties": {
        k: nullable(COUNT)
        for k in (
            col.REGISTERS,
            col.SHARED_BYTES,
            "barriers",
            "stack_frame_bytes",
            "spill_store_bytes",
            "spill_load_bytes",
        )
    },
}
# GB/s or GFLOP/s: a measured rate, above 0 (a ceiling of 0 divides every share)
_CEILING = nullable({**AMOUNT, "exclusiveMinimum": 0, "maximum": 1e9})

# Record kinds by where they sit in the folder (nsightflow.untrusted.records.identify).
KINDS: dict[str, dict[str, Any]] = {
    "time": _record(
        (col.STATUS,),
        rows={"type": "array", "items": _TIME_ROW, "uniqueKeys": [col.SIZE]},
        settings=OBJECT,
        source={"type": "object", "properties": {col.FILES: OBJECT}},
    ),
    "profile": _record(
        (col.STATUS,),
        reports={"type": "array", "items": _REPORT_ENTRY},
        settings=OBJECT,
    ),
    "resources": _record(
        (col.STATUS,),
        kernel=TEXT,
        source_sha256=TEXT,
        resources=_RESOURCES,
        kernels={"type": "object", "additionalProperties": _RESOURCES},
        inlined=OBJECT,
    ),
    "verify": _record((col.STATUS,), sizes={"type": "array", "items": OBJECT}),
    "sanitize": _record((col.STATUS,), tools={"type": "array", "items": OBJECT}),
    "timeline": _record((col.STATUS,), sizes={"type": "array", "items": OBJECT}),
    "sweep": _record(
        (col.STATUS,),
        sizes={"type": "array", "items": SIZE},
        configs={"type": "array", "items": OBJECT},
        best={
            "type": ["object", "null"],
            "properties": {
                col.PARAMS: {
                    "type": "object",
                    "additionalProperties": {"type": "integer"},
                }
            },
        },
    ),
    "ceilings": {
        "type": "object",
        "properties": {
            col.GPU: {"type": ["string", "null"]},
            col.COPY_GBPS: _CEILING,
            col.FP32_GFLOPS: _CEILING,
            col.VENDOR_SGEMM_GFLOPS: _CEILING,
            "l2_gbps": _CEILING,
            "l1_gbps": _CEILING,
            "shared_gbps": _CEILING,
        },
    },
    "recording": {
        "type": "object",
        "properties": {
            "families": TEXTS,
            "timeline": OBJECT,
            "additions": {
                "type": "array",
                "items": {"type": "object", "properties": {"folders": TEXTS}},
            },
            **{
                k: {"type": ["string", "null"]}
                for k in (col.GPU, "driver", "cuda_driver", "nvcc", "ncu", col.DATE)
            },
        },
    },
}


def _finite(
    validator: Any, value: bool, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if value and isinstance(instance, float) and not math.isfinite(instance):
        yield ValidationError(f"{instance} is not a finite number")


def _unique_keys(
    validator: Any, keys: list[str], instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if not isinstance(instance, list):
        return
    seen: dict[str, int] = {}
    for i, item in enumerate(instance):
        if not isinstance(item, dict) or not all(k in item for k in keys):
            continue
        key = repr([item[k] for k in keys])
        if key in seen:
            names = ", ".join(keys)
            yield ValidationError(
                f"{names} {key[1:-1]} repeats item {seen[key]}: one item per {names}",
                path=[i, keys[0]],
            )
        seen.setdefault(key, i)


def _ordered(
    validator: Any, keys: list[str], instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    if not isinstance(instance, dict):
        return
    present = [
        (k, instance[k])
        for k in keys
        if isinstance(instance.get(k), int | float) and math.isfinite(instance[k])
    ]
    for (low, a), (high, b) in itertools.pairwise(present):
        if a > b:
            yield ValidationError(
                f"{a} is above {high} = {b}; the statistics are out of order",
                path=[low],
            )


Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    {"finite": _finite, "uniqueKeys": _unique_keys, "ordered": _ordered},
)
_RELATIONS = ("ordered", "uniqueKeys")
VALIDATORS = {kind: Validator(schema) for kind, schema in KINDS.items()}


def errors(kind: str, data: Any) -> list[tuple[str, str]]:
    """Every way ``data`` breaks the schema of ``kind``: (field, problem), in order.

    The field is a dotted path (``rows.3.time_median_us``); the problem is cut to one
    short line (an instance can be a long string). A value's own fault comes before
    how it relates to others (order, repeats).
    """
    found = sorted(
        VALIDATORS[kind].iter_errors(data),
        key=lambda e: (e.validator in _RELATIONS, [str(p) for p in e.absolute_path]),
    )
    out = []
    for err in found:
        problem = " ".join(err.message.split())
        if len(problem) > 160:
            problem = problem[:157] + "..."
        out.append((".".join(str(p) for p in err.absolute_path), problem))
    return out


def first_error(kind: str, data: Any) -> tuple[str, str] | None:
    """The first of :func:`errors`, or None where ``data`` meets the schema."""
    found = errors(kind, data)
    return found[0] if found else None
