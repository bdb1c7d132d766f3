"""One results layout: the Snakemake rules and the Python API name the same files."""

import re
from pathlib import Path

from nsightflow.api.stages import Layout as ApiLayout
from nsightflow.api.stages import Selection, analysis_inputs
from nsightflow.contracts.layout import PATTERNS, RULES, Layout, fill
from nsightflow.family.registry import load_family
from nsightflow.machine.replay import ReplayStages, variant_outputs

ROOT = Path(__file__).resolve().parents[3]
SMK = sorted((ROOT / "workflow" / "rules").glob("*.smk"))


def test_no_rule_spells_a_results_path_itself():
    # a path under results/ in quotes: a rule's own copy of the layout
    spelled = [
        f"{path.name}:{i}: {line.strip()}"
        for path in SMK
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"""["']results/""", line)
    ]
    assert not spelled, "use L.<name> (nsightflow.contracts.layout):\n" + "\n".join(
        spelled
    )


def test_every_pattern_a_rule_names_is_declared():
    named = {m for p in SMK for m in re.findall(r"\bL\.(\w+)", p.read_text())}
    assert named and named <= set(PATTERNS), sorted(named - set(PATTERNS))


def test_the_rules_and_the_api_give_one_path():
    at = Layout(Path("results"))
    for name, rule in vars(RULES).items():
        wildcards = {"family": "vecadd", "variant": "v1", "report": "report"}
        wildcards |= {"index": "index", "name": "roofline.png"}
        expected = rule.format(**wildcards)
        assert at.path(name, **wildcards).as_posix() == expected, name


def test_fill_fixes_some_wildcards_and_keeps_the_others():
    assert fill(RULES.profiles, family="sgemm") == "results/profile/sgemm"
    kept = fill(RULES.figure_file, name="steps")
    assert kept == "results/report/{family}/figures/steps"


def test_the_api_and_replay_write_where_the_rules_read(tmp_path):
    family = load_family(ROOT / "kernels" / "vecadd")
    layout = ApiLayout(tmp_path, ROOT / "kernels")
    inputs = analysis_inputs(layout, Selection(family), sanitize=True)
    first = next(iter(family.variants))
    timing = RULES.time.removeprefix("results/").format(family="vecadd", variant=first)
    assert inputs.timing[0] == tmp_path / timing
    stages = ReplayStages(sanitize=True, timeline=True, sweep=frozenset())
    outputs = variant_outputs(tmp_path, "vecadd", first, stages)
    assert Layout(tmp_path).path("timeline_table", "vecadd", first) in outputs
