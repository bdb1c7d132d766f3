"""
Parameter sweeps: every configuration of a variant's declared params (config `sweep`)
is compiled (CPU, in parallel), verified at a small size and timed at the family's
sweep sizes in one GPU process; compile_variant then builds the best configuration,
so every later stage measures the variant at its best. Replay copies the recorded
sweep records in the family's replay job (replay.smk). The cache of results
(cache.jsonl) is not a declared output: it survives an interrupted job, and the next
run resumes from it.

REQUIRED INPUTS:
    kernels/{family}/{variant}.cu (+ headers), kernels/{family}/family.yaml
OUTPUTS:
    results/sweep/{family}/{variant}/compile.json + build/   (measure mode)
    results/sweep/{family}/{variant}.json                     (the sweep record)
    results/analysis/{family}/sweep.csv, sweep_summary.csv
    results/report/{family}/figures/sweep/{variant}.png
"""

SWEEP = config["sweep"]


if is_activated("sweep") and MODE == "measure":

    rule compile_sweep:
        input:
            source=variant_source,
            headers=variant_headers,
            manifest=f"{KERNELS}/{{family}}/family.yaml",
            tuned=tuned_file,
        output:
            compiled=L.sweep_compile,
            build=directory(L.sweep_build),
        log:
            "logs/sweep/{family}/{variant}.compile.log",
        benchmark:
            "benchmarks/sweep/{family}/{variant}.compile.tsv"
        threads: workflow.cores
        params:
            kernels=KERNELS,
            arch=config["arch"],
            space=SWEEP["space"],
            jobs=SWEEP["jobs"],
        shell:
            r"""
            exec &> >(tee {log:q})
            jobs={params.jobs}
            [ "$jobs" -gt 0 ] || jobs={threads}
            python -m nsightflow sweep-compile --kernels-dir {params.kernels:q} \
                --family {wildcards.family:q} --variant {wildcards.variant:q} \
                --space {params.space} --arch {params.arch:q} --jobs "$jobs" \
                --build-dir {output.build:q} --out {output.compiled:q}
            """

    rule sweep_variant:
        input:
            compiled=L.sweep_compile,
            build=L.sweep_build,
        output:
            record=L.sweep_record,
        log:
            "logs/sweep/{family}/{variant}.log",
        benchmark:
            "benchmarks/sweep/{family}/{variant}.tsv"
        resources:
            gpu=1,
        params:
            lock=GPU_LOCK,
            kernels=KERNELS,
            s=SWEEP,
            cache_mode=config["timing"]["cache"],
            cache=L.sweep_cache,
            seed=config["verify"]["seed"],
        shell:
            r"""
            exec &> >(tee {log:q})
            {params.lock} python -m nsightflow sweep --kernels-dir {params.kernels:q} \
                --family {wildcards.family:q} --variant {wildcards.variant:q} \
                --compiled {input.compiled:q} --build-dir {input.build:q} \
                --cache {params.cache:q} --out {output.record:q} \
                --strategy {params.s[strategy]} --max-configs {params.s[max_configs]} \
                --budget-s {params.s[budget_s]} \
                --config-timeout-s {params.s[config_timeout_s]} \
                --warmup {params.s[warmup]} --min-reps {params.s[min_reps]} \
                --max-reps {params.s[max_reps]} --rep-budget-s {params.s[rep_budget_s]} \
                --cache-mode {params.cache_mode} --seed {params.seed}
            """


if is_activated("sweep"):

    # One job, one process: the heatmaps read only the tables (cli: --then).
    rule sweep_family:
        input:
            manifest=f"{KERNELS}/{{family}}/family.yaml",
            records=swept_files(L.sweep_record),
        output:
            table=L.sweep,
            summary=L.sweep_summary,
            figures=directory(L.sweep_figures),
        log:
            "logs/sweep/{family}.log",
        # the family's analysis reads its table: on the chain of the heaviest family
        priority: family_priority
        params:
            kernels=KERNELS,
            analysis_dir=output_folder("table"),
            variants=swept_names,
        shell:
            r"""
            exec &> >(tee {log:q})
            python -m nsightflow sweep-analyze --kernels-dir {params.kernels:q} \
                --family {wildcards.family:q} --records {input.records:q} \
                --out-dir {params.analysis_dir:q} \
                --then sweep-plot --analysis-dir {params.analysis_dir:q} \
                --out-dir {output.figures:q} --variants {params.variants}
            """
