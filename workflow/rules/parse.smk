"""
Parse each variant's Nsight Compute reports into the long metrics table.

Measure mode parses each variant as soon as its profile is written (one job per
variant). Replay writes a family's profiles in one job, so one job per family parses
them all in one process (`parse_<family>`): Python, pandas and ncu_report's
disassembler start once per family instead of once per variant.

REQUIRED INPUTS:
    results/profile/{family}/   (<variant>/profile.json and the reports it names)
    results/build/{family}/{variant}.resources.json (inlined call sites: a hot line of
        a CUDA header such as atomicAdd's is named by the kernel line that called it)
OUTPUTS:
    results/metrics/{family}/{variant}.csv        (family, variant, size, launch, ...)
    results/metrics/{family}/{variant}.rules.csv  (ncu rule results, speedups)
    results/metrics/{family}/{variant}.source.csv (warp samples per SASS instruction)
"""

PARSED = {
    "metrics": L.metrics,
    "rules": L.rules,
    "source": L.source,
}


if MODE == "measure":

    rule parse_reports:
        input:
            profiled=L.profiles,
            resources=L.resources,
        output:
            **PARSED,
        log:
            "logs/parse/{family}/{variant}.log",
        benchmark:
            "benchmarks/parse/{family}/{variant}.tsv"
        params:
            folder=L.profile,
        shell:
            r"""
            exec &> >(tee {log:q})
            python -m nsightflow parse {params.folder:q} -o {output.metrics:q} \
                --rules {output.rules:q} --source {output.source:q} \
                --resources {input.resources:q} --family {wildcards.family:q} \
                --keep-going
            """


if MODE == "replay":
    for _family in FAMILIES.values():

        rule:
            name:
                f"parse_{_family.name}"
            input:
                profiled=fill(L.profiles, family=_family.name),
                resources=family_files(_family, L.resources),
            output:
                **{kind: family_files(_family, path) for kind, path in PARSED.items()},
            log:
                f"logs/parse/{_family.name}.log",
            benchmark:
                f"benchmarks/parse/{_family.name}.tsv"
            priority: family_weight(_family)
            params:
                family=_family.name,
                folders=family_files(_family, L.profile),
            shell:
                r"""
                exec &> >(tee {log:q})
                python -m nsightflow parse {params.folders:q} -o {output.metrics:q} \
                    --rules {output.rules:q} --source {output.source:q} \
                    --resources {input.resources:q} --family {params.family:q} \
                    --keep-going
                """
