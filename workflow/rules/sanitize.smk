"""
Sanitize: compute-sanitizer memcheck on every variant, racecheck on those that use
shared memory, one launch at a small size (config `sanitize`). Measure mode runs it
(gpu=1, through GPU_LOCK); replay mode copies the recorded JSON, and a variant the
recording lacks becomes `not_recorded`. Where compute-sanitizer is missing, the stage
records why (the doctor's check) and the report says so; the run goes on.

REQUIRED INPUTS:
    results/build/{family}/{variant}.cubin + .resources.json
OUTPUTS:
    results/sanitize/{family}/{variant}.json
"""

if is_activated("sanitize") and MODE == "measure":
    from nsightflow.machine.doctor import sanitizer_available

    SANITIZER_OK, SANITIZER_FOUND = sanitizer_available()
    if not SANITIZER_OK:
        logger.info(
            f"nsightflow: {SANITIZER_FOUND}: the sanitizer stage records that it "
            "did not run, and the reports say so"
        )

    rule sanitize_variant:
        input:
            cubin=L.cubin,
            resources=L.resources,
            reference=f"{KERNELS}/{{family}}/reference.py",
        output:
            sanitize=L.sanitize,
        log:
            "logs/sanitize/{family}/{variant}.log",
        resources:
            gpu=1,
        params:
            lock=GPU_LOCK,
            kernels=KERNELS,
            s=config["sanitize"],
            seed=config["verify"]["seed"],
        shell:
            r"""
            exec &> >(tee {log:q})
            {params.lock} python -m nsightflow sanitize --kernels-dir {params.kernels:q} \
                --family {wildcards.family:q} --variant {wildcards.variant:q} \
                --cubin {input.cubin:q} --resources {input.resources:q} \
                --out {output.sanitize:q} --size {params.s[size]} \
                --timeout-s {params.s[timeout_s]} --seed {params.seed}
            """
