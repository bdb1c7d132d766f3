"""
Parse each variant's Nsight Compute reports into the long metrics table.

Measure mode parses each variant as soon as its profile is written (one job per
variant). Replay writes a family's profiles in one job, and the same process parses
them all (`replay_<family>`, replay.smk): Python, pandas and ncu_report's
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
