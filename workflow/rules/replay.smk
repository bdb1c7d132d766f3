"""
Replay: the GPU stages' outputs copied from a recording (config `source`), for
machines without a GPU: one job per family. Each output is stamped with
`replayed_from`; a variant the recording lacks becomes a `not_recorded` record. A
variant whose source (with its headers) hashes to the recorded one keeps the recorded
compile resources; an edited one is compiled again where nvcc exists and flagged
`source_changed` in its report.

REQUIRED INPUTS:
    {source}/recording.json, {source}/ceilings.json, and per variant
    {source}/build|verify|time|sanitize|timeline|sweep/{family}/{variant}.*,
    {source}/profile/{family}/{variant}/
OUTPUTS:
    the same paths under results/, and the family's parsed tables
    results/metrics/{family}/{variant}.csv, .rules.csv, .source.csv

The same process then parses the family's profiles (`--then parse`, parse.smk
describes the tables): a separate job per family paid Python's, pandas' and the
report reader's start-up and Snakemake's job bookkeeping again, ~0.5 s of CPU per
family.
"""

if MODE == "replay":
    for _family in FAMILIES.values():

        rule:
            name:
                f"replay_{_family.name}"
            input:
                recording=f"{SOURCE}/recording.json",
                manifest=f"{KERNELS}/{_family.name}/family.yaml",
                sources=family_sources(_family),
                recorded=recorded_files(_family),
            output:
                replay_outputs(_family),
                metrics=family_files(_family, L.metrics),
                rules=family_files(_family, L.rules),
                source=family_files(_family, L.source),
            log:
                f"logs/replay/{_family.name}.log",
            priority: family_weight(_family)
            params:
                source=SOURCE,
                kernels=KERNELS,
                family=_family.name,
                arch=config["arch"],
                skip=replay_skip_flags(),
                swept=" ".join(swept(_family.name)),
                folders=family_files(_family, L.profile),
                resources=family_files(_family, L.resources),
            shell:
                "python -m nsightflow replay-family --source {params.source:q} "
                "--kernels-dir {params.kernels:q} --family {params.family:q} "
                "--arch {params.arch:q} {params.skip} --sweep {params.swept} "
                "--then parse {params.folders:q} -o {output.metrics:q} "
                "--rules {output.rules:q} --source {output.source:q} "
                "--resources {params.resources:q} --family {params.family:q} "
                "--keep-going &> {log:q}"

    rule replay_ceilings:
        input:
            recorded=f"{SOURCE}/ceilings.json",
        output:
            ceilings=L.ceilings,
        log:
            "logs/replay/ceilings.log",
        # every analysis waits for it: before any family's chain
        priority: 1000
        shell:
            "python -m nsightflow replay {input.recorded:q} {output.ceilings:q} &> {log:q}"
