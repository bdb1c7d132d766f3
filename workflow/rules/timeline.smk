"""
Timeline: every copy and kernel of the sequence a program runs (allocate, copy in,
launch, copy out), per variant, recorded with Nsight Systems where it can write
reports, else with CUPTI (chosen once per run by choose_timeline_backend, which says
why). Replay copies the recorded timelines; a variant the recording lacks becomes a
`not_recorded` record. Switched by config `timeline.enabled`.

REQUIRED INPUTS:
    results/build/{family}/{variant}.cubin, results/verify/{family}/{variant}.json
OUTPUTS:
    results/timeline/backend.json                       (measure mode)
    results/timeline/{family}/{variant}.json + .csv     (record, tidy table)
    results/analysis/{family}/timeline.csv, timeline_summary.csv
    results/report/{family}/figures/timeline.png
"""

TIMELINE = config["timeline"]


if is_activated("timeline") and MODE == "measure":

    rule choose_timeline_backend:
        output:
            choice="results/timeline/backend.json",
        log:
            "logs/timeline/backend.log",
        resources:
            gpu=1,
        params:
            backend=TIMELINE["backend"],
            lock=GPU_LOCK,
        shell:
            r"""
            exec &> >(tee {log:q})
            {params.lock} python -m nsightflow timeline-backend --backend {params.backend:q} \
                --out {output.choice:q}
            """

    rule timeline_variant:
        input:
            cubin="results/build/{family}/{variant}.cubin",
            verify="results/verify/{family}/{variant}.json",
            choice="results/timeline/backend.json",
        output:
            record="results/timeline/{family}/{variant}.json",
            table="results/timeline/{family}/{variant}.csv",
        log:
            "logs/timeline/{family}/{variant}.log",
        resources:
            gpu=1,
        params:
            kernels=KERNELS,
            t=TIMELINE,
            sizes=" ".join(str(n) for n in TIMELINE["sizes"]),
            seed=config["verify"]["seed"],
            lock=GPU_LOCK,
        shell:
            r"""
            exec &> >(tee {log:q})
            {params.lock} python -m nsightflow timeline --kernels-dir {params.kernels:q} \
                --family {wildcards.family:q} --variant {wildcards.variant:q} \
                --cubin {input.cubin:q} --verify {input.verify:q} \
                --backend-choice {input.choice:q} --backend {params.t[backend]} \
                --sizes {params.sizes} --timeout-s {params.t[timeout_s]} \
                --seed {params.seed} --out {output.record:q} --table {output.table:q}
            """


if is_activated("timeline"):

    rule analyze_timeline:
        input:
            records=variant_files("results/timeline/{family}/{variant}.json"),
            tables=variant_files("results/timeline/{family}/{variant}.csv"),
        output:
            table="results/analysis/{family}/timeline.csv",
            summary="results/analysis/{family}/timeline_summary.csv",
        log:
            "logs/analyze/{family}.timeline.log",
        shell:
            r"""
            exec &> >(tee {log:q})
            python -m nsightflow timeline-analyze --records {input.records:q} \
                --tables {input.tables:q} --out-dir results/analysis/{wildcards.family:q}
            """

    rule plot_timeline:
        input:
            table="results/analysis/{family}/timeline.csv",
            summary="results/analysis/{family}/timeline_summary.csv",
        output:
            figure="results/report/{family}/figures/timeline.png",
            svg="results/report/{family}/figures/timeline.svg",
        log:
            "logs/plot/{family}.timeline.log",
        shell:
            r"""
            exec &> >(tee {log:q})
            python -m nsightflow timeline-plot \
                --analysis-dir results/analysis/{wildcards.family:q} \
                --family {wildcards.family:q} --out {output.figure:q}
            """
