"""
GPU stages: verify and time each variant, profile each family (its variants in one
ncu process), and measure the GPU's ceilings.
Every rule holds `gpu=1` (the default profile allows one such job at a time; with
`--resources gpu=<count>` as many) and runs through GPU_LOCK, which gives each job a
device of its own (CUDA_VISIBLE_DEVICES).

REQUIRED INPUTS:
    results/build/{family}/{variant}.cubin (+ .resources.json)
OUTPUTS:
    results/verify/{family}/{variant}.json
    results/time/{family}/{variant}.json
    results/profile/{family}/             ({family}.<hash>.ncu-rep shared by the variants,
                                          <variant>/profile.json naming its results)
    results/ceilings.json
"""

if MODE == "measure":

    rule verify_variant:
        input:
            cubin="results/build/{family}/{variant}.cubin",
            resources="results/build/{family}/{variant}.resources.json",
            reference=f"{KERNELS}/{{family}}/reference.py",
        output:
            verify="results/verify/{family}/{variant}.json",
        log:
            "logs/verify/{family}/{variant}.log",
        threads: config["verify"]["threads"]
        resources:
            gpu=1,
        params:
            lock=GPU_LOCK,
            kernels=KERNELS,
            timeout=config["verify"]["timeout_s"],
            seed=config["verify"]["seed"],
        shell:
            r"""
            exec &> >(tee {log:q})
            {params.lock} python -m nsightflow verify --kernels-dir {params.kernels:q} \
                --family {wildcards.family:q} --variant {wildcards.variant:q} \
                --cubin {input.cubin:q} --resources {input.resources:q} \
                --out {output.verify:q} --timeout-s {params.timeout} --seed {params.seed}
            """

    rule time_variant:
        input:
            cubin="results/build/{family}/{variant}.cubin",
            verify="results/verify/{family}/{variant}.json",
        output:
            timing="results/time/{family}/{variant}.json",
        log:
            "logs/time/{family}/{variant}.log",
        resources:
            gpu=1,
        params:
            lock=GPU_LOCK,
            kernels=KERNELS,
            t=config["timing"],
            seed=config["verify"]["seed"],
        shell:
            r"""
            exec &> >(tee {log:q})
            {params.lock} python -m nsightflow time --kernels-dir {params.kernels:q} \
                --family {wildcards.family:q} --variant {wildcards.variant:q} \
                --cubin {input.cubin:q} --verify {input.verify:q} --out {output.timing:q} \
                --warmup {params.t[warmup]} --min-reps {params.t[min_reps]} \
                --max-reps {params.t[max_reps]} --budget-s {params.t[budget_s]} \
                --settle-rel {params.t[settle_rel]} --timeout-s {params.t[timeout_s]} \
                --cache {params.t[cache]} --guard {params.t[guard]} \
                --seed {params.seed}
            """

    rule profile_family:
        input:
            cubins=variant_files("results/build/{family}/{variant}.cubin"),
            verify=variant_files("results/verify/{family}/{variant}.json"),
        output:
            reports=directory("results/profile/{family}"),
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
            ceilings="results/ceilings.json",
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
