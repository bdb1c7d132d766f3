"""
GPU stages: verify, time and trace each variant (one job, one worker process: see
nsightflow.gpu.measure), profile each family (its variants in one ncu process), and
measure the GPU's ceilings. The family's inputs and float64 references are made once,
on the CPU, by reference_family, while the GPU works on other jobs.
Every GPU rule holds `gpu=1` (the default profile allows one such job at a time; with
`--resources gpu=<count>` as many) and runs through GPU_LOCK, which gives each job a
device of its own (CUDA_VISIBLE_DEVICES).

REQUIRED INPUTS:
    results/build/{family}/{variant}.cubin (+ .resources.json)
OUTPUTS:
    results/reference/{family}/index.json (+ one folder per input and size beside it)
    results/verify/{family}/{variant}.json
    results/time/{family}/{variant}.json
    results/timeline/{family}/{variant}.json + .csv    (timeline.enabled)
    results/profile/{family}/             ({family}.<hash>.ncu-rep shared by the variants,
                                          <variant>/profile.json naming its results)
    results/ceilings.json
"""

if MODE == "measure":

    rule reference_family:
        input:
            manifest=f"{KERNELS}/{{family}}/family.yaml",
            reference=f"{KERNELS}/{{family}}/reference.py",
        output:
            index=L.references,
        log:
            "logs/reference/{family}.log",
        benchmark:
            "benchmarks/reference/{family}.tsv"
        threads: config["verify"]["threads"]
        params:
            kernels=KERNELS,
            seed=config["verify"]["seed"],
            timeout_s=config["verify"]["timeout_s"],
        shell:
            r"""
            exec &> >(tee {log:q})
            python -m nsightflow reference --kernels-dir {params.kernels:q} \
                --family {wildcards.family:q} --seed {params.seed} \
                --threads {threads} --timeout-s {params.timeout_s} \
                --out {output.index:q}
            """

    rule measure_variant:
        input:
            **MEASURE_TIMELINE["inputs"],
            cubin=L.cubin,
            resources=L.resources,
            reference=f"{KERNELS}/{{family}}/reference.py",
            references=L.references,
        output:
            **MEASURE_TIMELINE["outputs"],
            verify=L.verify,
            timing=L.time,
        log:
            "logs/measure/{family}/{variant}.log",
        threads: config["verify"]["threads"]
        resources:
            gpu=1,
        params:
            lock=GPU_LOCK,
            kernels=KERNELS,
            v=config["verify"],
            t=config["timing"],
            cache=input_folder("references"),
            timeline=measure_timeline_args,
        shell:
            r"""
            exec &> >(tee {log:q})
            {params.lock} python -m nsightflow measure --kernels-dir {params.kernels:q} \
                --family {wildcards.family:q} --variant {wildcards.variant:q} \
                --cubin {input.cubin:q} --resources {input.resources:q} \
                --verify-out {output.verify:q} --time-out {output.timing:q} \
                --seed {params.v[seed]} --verify-timeout-s {params.v[timeout_s]} \
                --threads {threads} --reference-cache {params.cache:q} \
                --warmup {params.t[warmup]} --min-reps {params.t[min_reps]} \
                --max-reps {params.t[max_reps]} --budget-s {params.t[budget_s]} \
                --settle-rel {params.t[settle_rel]} --time-timeout-s {params.t[timeout_s]} \
                --cache {params.t[cache]} --guard {params.t[guard]} {params.timeline}
            """

    rule profile_family:
        input:
            cubins=variant_files(L.cubin),
            verify=variant_files(L.verify),
        output:
            reports=directory(L.profiles),
        log:
            "logs/profile/{family}.log",
        resources:
            gpu=1,
        params:
            lock=GPU_LOCK,
            kernels=KERNELS,
            p=config["profile"],
            seed=config["verify"]["seed"],
            variants=variant_names,
        shell:
            r"""
            exec &> >(tee {log:q})
            {params.lock} python -m nsightflow profile --kernels-dir {params.kernels:q} \
                --family {wildcards.family:q} --variant {params.variants} \
                --cubin {input.cubins:q} --verify {input.verify:q} \
                --out-dir {output.reports:q} --clock-control {params.p[clock_control]} \
                --set {params.p[set]} --timeout-s {params.p[timeout_s]} --seed {params.seed}
            """

    rule measure_ceilings:
        output:
            ceilings=L.ceilings,
        log:
            "logs/ceilings.log",
        resources:
            gpu=1,
        params:
            lock=GPU_LOCK,
        shell:
            r"""
            exec &> >(tee {log:q})
            {params.lock} python -m nsightflow ceilings --out {output.ceilings:q}
            """
