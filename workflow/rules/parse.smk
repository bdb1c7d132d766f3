"""
Parse each variant's Nsight Compute reports into the long metrics table.

REQUIRED INPUTS:
    results/profile/{family}/   (<variant>/profile.json and the reports it names)
OUTPUTS:
    results/metrics/{family}/{variant}.csv        (family, variant, size, launch, ...)
    results/metrics/{family}/{variant}.rules.csv  (ncu rule results, speedups)
    results/metrics/{family}/{variant}.source.csv (warp samples per SASS instruction)
"""


rule parse_reports:
    input:
        profiled="results/profile/{family}",
    output:
        metrics="results/metrics/{family}/{variant}.csv",
        rules="results/metrics/{family}/{variant}.rules.csv",
        source="results/metrics/{family}/{variant}.source.csv",
    log:
        "logs/parse/{family}/{variant}.log",
    benchmark:
        "benchmarks/parse/{family}/{variant}.tsv"
    params:
        folder="results/profile/{family}/{variant}",
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow parse {params.folder:q} -o {output.metrics:q} \
            --rules {output.rules:q} --source {output.source:q} \
            --family {wildcards.family:q} --keep-going
        """
