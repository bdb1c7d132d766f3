"""The steps of the replayed SGEMM and Jacobi-2D reports, read as their reader reads
them: each number checked against the recording's own records (the sweep, the time
records, the compile records), never against the code's output.

Uses the session's shared replay (tests/conftest.py ``every_family_replay``).
"""

import json
import re
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
RECORDING = ROOT / "examples" / "h200"


@pytest.fixture(scope="module")
def results(every_family_replay: Path) -> Path:
    return every_family_replay / "results"


def _md(results: Path, family: str) -> str:
    return (results / "report" / family / "report.md").read_text()


def _step(md: str, variant: str) -> str:
    """The body section of one step: its heading to the next heading."""
    hit = re.search(rf"^### 2\.\d+ `{variant}`.*?(?=^#)", md, flags=re.M | re.S)
    assert hit, variant
    return hit.group(0)


def _us(text: str) -> float:
    return float(text.replace(",", ""))


def _sweep_time(family: str, variant: str, params: dict, n: int) -> float:
    record = json.loads((RECORDING / "sweep" / family / f"{variant}.json").read_text())
    for c in record["configs"]:
        if all(str(c["params"].get(k)) == str(v) for k, v in params.items()):
            return float(c["times_us"][str(n)])
    raise AssertionError((variant, params))


def _timed(variant: str, n: int = 4096) -> float:
    """The ladder's median time of an SGEMM variant at ``n`` (its time record)."""
    record = json.loads((RECORDING / "time/sgemm" / f"{variant}.json").read_text())
    return next(float(r["time_median_us"]) for r in record["rows"] if r["size"] == n)


def _v7_swept() -> tuple[float, float]:
    """SGEMM v7's sweep times at n = 4096: at v6's configuration and at its own.

    v6's values of the shared parameters, v7's own for the rest (MIN_BLOCKS); WN=16
    where the sweep timed v6's tiles (it has no point at WN=8 there).
    """
    own = json.loads(
        (RECORDING / "build/sgemm/v7_double_buffer.resources.json").read_text()
    )["config"]["params"]
    old = {**own, "BM": 128, "BN": 128, "BK": 16, "TM": 8, "WN": 16}
    return (
        _sweep_time("sgemm", "v7_double_buffer", old, 4096),
        _sweep_time("sgemm", "v7_double_buffer", own, 4096),
    )


def test_sgemm_v7_why_credits_configuration_and_code_their_own_measurements(results):
    """The sweep timed v7 at v6's configuration (BM=128, BN=128, BK=16, TM=8, WN=16):
    the configuration's part is v7's two sweep timings' difference, the code's is v6
    against v7 at v6's configuration; ncu's factors are of both together and are
    not the Why of the code."""
    section = _step(_md(results, "sgemm"), "v7_double_buffer")
    why = section.split("**Why:**", 1)[1].split("**In ncu's counters**", 1)[0]
    t_old, t_own = _v7_swept()
    before, after = re.search(r"\*\*([\d,.]+) -> ([\d,.]+) us\*\*", section).groups()
    de = _us(after) - _us(before)
    config = re.search(r"the configuration \([^)]*\) makes ([\d,.]+) of the", why)
    code = re.search(r"the code, ([\d,.]+) of the", why)
    assert config and code, why
    assert _us(config[1]) == pytest.approx(abs(t_own - t_old), rel=0.01)
    assert _us(code[1]) == pytest.approx(abs(t_old - _us(before)), rel=0.01)
    # the parts, the timing's own included, sum to the change within 5%
    timing = re.search(r"the ladder's timing against the sweep's, ([\d,.]+)", why)
    assert timing
    total = _us(config[1]) + _us(code[1]) + _us(timing[1])
    assert total == pytest.approx(abs(de), rel=0.05)
    # ncu's factors follow as the counters of both changes, not as the code's Why
    assert "**In ncu's counters** (code and configuration together" in section
    assert "the code 98.7" not in section


def test_a_lumped_part_is_smaller_than_every_part_listed_before_it(results):
    """The lump "smaller counted factors" is said only where it is smaller than each part the
    step names (SGEMM v5 at n = 4096: 2,361 us lumped after 2,229 us listed)."""
    for family in ("sgemm", "jacobi2d"):
        md = _md(results, family)
        for section in re.findall(r"^### 2\.\d+ .*?(?=^#)", md, flags=re.M | re.S):
            lump = re.search(r"smaller counted factors ([\d,.]+) us", section)
            if not lump:
                continue
            body = section.split("**The rest:**", 1)[0]
            parts = [
                _us(x)
                for x in re.findall(
                    r"\(([\d,.]+)(?: of the [\d,.]+ us| us (?:saved|added))", body
                )
            ]
            assert parts, section[:80]
            assert _us(lump[1]) < min(parts), (family, section[:80], lump[1], parts)


def test_no_step_cites_line_0_or_an_empty_line(results):
    """A library variant (v8_torch_matmul, cuBLAS) has no source line to cite."""
    for family in ("sgemm", "jacobi2d"):
        md = _md(results, family)
        assert not re.search(r"\bline 0 of\b", md), family
        assert "(``," not in md, family


def test_jacobi_headings_name_the_rows_that_ran(results):
    md = _md(results, "jacobi2d")
    for variant in ("v3_colstrip", "v5_strip_vec4"):
        ran = json.loads(
            (RECORDING / f"build/jacobi2d/{variant}.resources.json").read_text()
        )["config"]["params"]["ROWS"]
        heading = re.search(rf"^### 2\.\d+ `{variant}`: (.*)$", md, flags=re.M)[1]
        rows = re.findall(r"\b(\d+)[- ]rows?\b", heading)
        assert rows == [str(ran)], (variant, heading)


def test_sgemm_v7_advice_is_bounded_by_cublas_where_it_was_timed(results):
    """At n = 512 cuBLAS (v8_torch_matmul) was timed, 17.46 us: the grid advice's
    "up to" is v7's time over that, not over the FP32 peak's model floor."""
    md = _md(results, "sgemm")
    times = pd.read_csv(results / "analysis" / "sgemm" / "analysis.csv")
    t = times.set_index(["variant", "size"])["time_median_us"]
    for n in (512, 1024):
        line = next(
            x
            for x in md.splitlines()
            if x.startswith("- **Grid smaller than the GPU** in `v7_double_buffer`")
            and f"at n = {n}:" in x
        )
        gain = float(re.search(r"up to ([\d.]+)x", line)[1])
        cap = t["v7_double_buffer", n] / t["v8_torch_matmul", n]
        assert gain == pytest.approx(cap, abs=0.01), (n, line)


def test_sgemm_v7_advice_asks_nothing_its_source_and_sass_already_do(results):
    md = _md(results, "sgemm")
    # its advice follows its limiter, the issue slots (82% at n = 4096)
    item = next(
        x
        for x in md.splitlines()
        if x.startswith("2. **Instruction issue (issue slots busy)** in `v7")
    )
    assert "what limits it is issue slots" in item
    source = (ROOT / "kernels" / "sgemm" / "v7_double_buffer.cu").read_text()
    assert "warp = tid / 32" in source  # its threads are laid out in warp tiles
    assert "a warp tile between" not in item
    regs = json.loads(
        (RECORDING / "build/sgemm/v7_double_buffer.resources.json").read_text()
    )
    assert "(a larger thread tile)" not in item, regs.get("registers")


def test_v7_is_no_hit_of_v6_s_occupancy_advice(results):
    """v6's advice at n = 4096 follows its limiter, the issue slots at 73%; v7 halved
    its warps (24% -> 12%) and its latency fell by double buffering, not by that
    advice."""
    found = pd.read_csv(results / "analysis" / "sgemm" / "findings.csv")
    a = pd.read_csv(results / "analysis" / "sgemm" / "analysis.csv").set_index(
        ["variant", "size"]
    )
    occ = a["achieved_occupancy_pct"]
    assert occ["v7_double_buffer", 4096] < occ["v6_vectorized", 4096]
    score = found[
        (found["rule"] == "advice_score")
        & (found["variant"] == "v7_double_buffer")
        & (found["size"] == 4096)
    ]
    (params,) = [json.loads(p) for p in score["params"]]
    assert "issue_bound" in params["suggested"]
    assert params["hit"] is False


def test_the_roofline_draws_cublas_at_each_panel_s_size(results):
    from nsightflow.plot import data as plot_data

    ctx = json.loads((results / "analysis" / "sgemm" / "context.json").read_text())
    ctx["ceilings"] = json.loads((results / "ceilings.json").read_text())
    analysis = pd.read_csv(results / "analysis" / "sgemm" / "analysis.csv")
    rate = analysis.set_index(["variant", "size"])["gflops"]
    for n in (1024, 4096):
        got = plot_data.vendor_at(analysis, ctx, n)
        assert got is not None and got.size == n
        assert got.gflops == pytest.approx(rate["v8_torch_matmul", n])


def test_the_brief_credits_a_step_s_configuration_where_the_sweep_says_it_led(results):
    """SGEMM v7: the sweep timed v7's code at v6's configuration and at its own; the
    configuration made more of the change than the code (254 against 92.1 of the 353
    us saved), and the brief's "this step changed" says so first."""
    t_old, t_own = _v7_swept()
    md = _md(results, "sgemm")
    before = re.search(
        r"\*\*([\d,.]+) -> [\d,.]+ us\*\*", _step(md, "v7_double_buffer")
    )
    assert abs(t_own - t_old) > abs(t_old - _us(before[1]))
    row = next(r for r in md.splitlines() if r.startswith("| `v7_double_buffer`"))
    cell = row.rstrip(" |").rsplit("|", 1)[1].strip()
    assert cell == "mostly its configuration; then global-memory latency", row
    # and a step whose code led keeps its cause alone (v6: no configuration change)
    row6 = next(r for r in md.splitlines() if r.startswith("| `v6_vectorized`"))
    assert "configuration" not in row6


def test_a_step_its_configuration_carries_names_it_in_its_figure_and_conclusion(
    results,
):
    """SGEMM v7: the sweep's two timings of v7 (at v6's configuration and at its own)
    make 254 of the 353 us saved; the double buffering 92.1. The step's figure and
    the conclusion's line name the configuration as the primary part, not the
    counters' global-memory latency (code and configuration together)."""
    t_old, t_own = _v7_swept()
    config = f"{abs(t_own - t_old):,.0f}"
    saved = f"{abs(_timed('v7_double_buffer') - _timed('v6_vectorized')):,.0f}"
    md = _md(results, "sgemm")
    before = re.search(
        r"\*\*([\d,.]+) -> [\d,.]+ us\*\*", _step(md, "v7_double_buffer")
    )
    assert abs(t_own - t_old) > abs(t_old - _us(before[1]))  # it carries the step
    conclusion = md.split("### A.17")[1].split("### A.18")[0]
    (line,) = [x for x in conclusion.splitlines() if x.startswith("- `v7_double")]
    assert (
        f"primary cause: the configuration ({config} of the {saved} us saved)" in line
    )
    assert "Global-memory latency" not in line
    svg = results / "report/sgemm/figures/steps/step_v7_double_buffer.svg"
    title = re.search(r"primary (cause|part) at n = 4096: [^<]*", svg.read_text())
    assert title and title[0].startswith("primary part at n = 4096: the config")
    assert f"the configuration, {config} of" in title[0]
    # a step without a configuration change keeps its cause (v6)
    other = results / "report/sgemm/figures/steps/step_v6_vectorized.svg"
    assert "primary cause at n = 4096" in other.read_text()


def test_an_expectation_met_in_counters_of_code_and_configuration_says_so(results):
    # SGEMM v7: the sweep gives its 64x256 tiles 254 of the 353 us saved and double
    # buffering 92.1; "As expected: global-memory latency, barrier waits cost less"
    # read as the buffering's
    md = _md(results, "sgemm")
    v7 = next(s for s in md.split("### ") if s.startswith("2.7 "))
    assert "So the configuration" in v7 and "the code, " in v7  # the sweep's split
    expected = v7[v7.index("**Expected**") :]
    assert "Those counters are of code and configuration together" in expected
