"""
Compile each kernel variant with nvcc and parse ptxas resources.

REQUIRED INPUTS:
    kernels/{family}/{variant}.cu, the headers it includes, kernels/{family}/family.yaml
    results/sweep/{family}/{variant}.json   (swept variants: the best configuration)
OUTPUTS:
    results/build/{family}/{variant}.cubin
    results/build/{family}/{variant}.resources.json   (status, registers, smem, spills)
"""

if MODE == "measure":

    rule compile_variant:
        input:
            source=variant_source,
            headers=variant_headers,
            manifest=f"{KERNELS}/{{family}}/family.yaml",
            tuned=tuned_file,
            sweep=sweep_record,
        output:
            cubin=L.cubin,
            resources=L.resources,
        log:
            "logs/compile/{family}/{variant}.log",
        benchmark:
            "benchmarks/compile/{family}/{variant}.tsv"
        params:
            kernels=KERNELS,
            arch=config["arch"],
        shell:
            r"""
            exec &> >(tee {log:q})
            python -m nsightflow compile --kernels-dir {params.kernels:q} \
                --family {wildcards.family:q} --variant {wildcards.variant:q} \
                --arch {params.arch:q} --cubin {output.cubin:q} \
                --resources {output.resources:q} --sweep {input.sweep:q}
            """
