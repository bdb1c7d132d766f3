"""A step's expected-against-observed line (pure).

The diagnosis records what the idea and the previous step's diagnosis led one to
expect, what was observed (the step's primary cause) and its verdict; this module
says it in one line, the mechanisms the verdict credits first, so that none it names
is missing from the list.
"""

from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.expected import SAME_AS
from nsightflow.diagnosis.record import render
from nsightflow.i18n import T
from nsightflow.i18n.short_causes import short_cause
from nsightflow.report.sections.quantities import params_of

MAX_EXPECTED = 3  # causes named in the expected-vs-observed line


def expected_line(record: dict[str, Any]) -> str:
    """Expected against observed, in one line, from the finding's columns.

    The expected mechanisms that the verdict credits come first, so that none it
    names is missing from the list.
    """
    metric = str(record.get(col.METRIC, ""))
    evidence = str(record.get(col.EVIDENCE, ""))
    expected = [x.strip() for x in metric.partition(":")[2].split(",") if x.strip()]
    observed = evidence.partition(":")[2].strip()
    params = params_of(record)
    if params.get("library"):  # nothing expected of code the tool cannot see
        return T("step_expected_library", observed=short_cause(observed or "?"))
    credited = _credited(params)
    credited += [m for c in credited for m in SAME_AS.get(c, ())]
    ordered = [m for m in expected if m in credited]
    ordered += [m for m in expected if m not in credited]
    shown = max(MAX_EXPECTED, len([m for m in expected if m in credited]))
    names = [short_cause(x) for x in ordered[:shown]]
    if not names:  # the idea names nothing these rules read: no "Expected: ?"
        return T(
            "step_observed_only",
            observed=short_cause(observed) if observed else "?",
            verdict=_verdict(record, observed, expected, names),
        )
    return T(
        "step_meant" if params.get("regression") else "step_expected",
        expected=T("expected_or").join(names) if names else "?",
        observed=short_cause(observed) if observed else "?",
        verdict=_verdict(record, observed, expected, names),
    )


def _shown_rest(rest: dict[str, Any], shown: list[str]) -> dict[str, Any] | str:
    """The clause of unseen mechanisms, of those the line names (short names)."""
    items = [u for u in rest.get("unseen", []) if u.get("mechanism") in shown]
    return {**rest, "unseen": items} if items else ""


def _credited(params: dict[str, Any]) -> list[str]:
    """The mechanisms an expected-vs-observed verdict credits (``helped``)."""
    verdict = params.get(col.VERDICT)
    helped = verdict.get("helped", []) if isinstance(verdict, dict) else []
    keys = [h.get("@", "") for h in helped if isinstance(h, dict)]
    return [k.removeprefix("mech_") for k in keys]


def _verdict(
    record: dict[str, Any], observed: str, expected: list[str], shown: list[str]
) -> str:
    """The diagnosis's own verdict on expected vs observed, else whether it was named.

    A verdict that credits only the observed cause, with no expected mechanism left
    that no part is, says so in two words: the line has just named it ("Observed:
    wider loads. As expected.").
    """
    params = params_of(record)
    verdict = params.get(col.VERDICT)
    against = params.get("against")
    but = render("", against) if isinstance(against, dict) and "@" in against else ""
    if isinstance(verdict, dict) and "@" in verdict:
        fields = {k: _short(v) for k, v in verdict.items() if k != "@"}
        if isinstance(fields.get("rest"), dict):  # of the mechanisms the line names
            fields["rest"] = _shown_rest(fields["rest"], shown)
        if verdict["@"] == "expect_met" and _credited(params) == [observed]:
            # the line has just named it: "Observed: wider loads. As expected[; ...]."
            if not fields.get("rest"):
                return T("expect_met_same") + but
            return render("expect_met_rest", {"rest": fields["rest"]}) + but
        return render(str(verdict["@"]), fields) + but
    return T("expected_met" if observed in expected else "expected_missed") + "."


def _short(value: Any) -> Any:
    """A verdict's mechanisms by their short names, as the line before names them.

    The diagnosis stores them as their headings ("Too few bytes in flight for the DRAM
    bandwidth", "Barriers (__syncthreads)"), which read as a new sentence mid-line.
    """
    if isinstance(value, list):
        return [_short(v) for v in value]
    if isinstance(value, dict) and str(value.get("@", "")).startswith("mech_"):
        return short_cause(str(value["@"]).removeprefix("mech_"))
    if isinstance(value, dict) and "@" in value:  # a clause naming mechanisms
        return {k: v if k == "@" else _short(v) for k, v in value.items()}
    return value
