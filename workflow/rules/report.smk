"""
Analyze, plot and report each family; tabulate the GPU's measured ceilings.

REQUIRED INPUTS:
    results/build, verify, time, metrics of every variant of {family}; results/ceilings.json
OUTPUTS:
    results/analysis/{family}/  (analysis.csv, stalls.csv, rules.csv, hotspots.csv,
                                 context.json, findings.csv)
    results/report/{family}/    (report.md, report.html, report.json, report.pdf,
                                 summary.csv, figures/*.png + .svg,
                                 figures/steps/step_<variant>.png + .svg;
                                 report.zh.* for the Chinese report)
    results/report/ceilings.csv, results/report/index.html (index.zh.html)

Each language has its own files ({report} is `report` or `report.zh`, {index} likewise),
so the reports in both languages coexist and building one never re-runs the other.
"""


rule analyze_family:
    input:
        manifest=f"{KERNELS}/{{family}}/family.yaml",
        resources=variant_files("results/build/{family}/{variant}.resources.json"),
        verify=variant_files("results/verify/{family}/{variant}.json"),
        timing=variant_files("results/time/{family}/{variant}.json"),
        metrics=metrics_inputs("metrics"),
        rules=metrics_inputs("rules"),
        source=metrics_inputs("source"),
        profiles=metrics_inputs("profiles"),
        sanitize=sanitize_inputs,
        ceilings="results/ceilings.json",
    output:
        analysis="results/analysis/{family}/analysis.csv",
        stalls="results/analysis/{family}/stalls.csv",
        rules="results/analysis/{family}/rules.csv",
        hotspots="results/analysis/{family}/hotspots.csv",
        context="results/analysis/{family}/context.json",
        findings="results/analysis/{family}/findings.csv",
    log:
        "logs/analyze/{family}.log",
    benchmark:
        "benchmarks/analyze/{family}.tsv"
    params:
        kernels=KERNELS,
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow analyze --kernels-dir {params.kernels:q} \
            --family {wildcards.family:q} --resources {input.resources:q} \
            --verify {input.verify:q} --timing {input.timing:q} \
            --metrics {input.metrics:q} --rules {input.rules:q} \
            --profiles {input.profiles:q} --sanitize {input.sanitize:q} \
            --source {input.source:q} \
            --ceilings {input.ceilings:q} --out-dir results/analysis/{wildcards.family:q}
        """


rule plot_family:
    input:
        analysis="results/analysis/{family}/analysis.csv",
        stalls="results/analysis/{family}/stalls.csv",
        context="results/analysis/{family}/context.json",
    output:
        figures=expand("results/report/{{family}}/figures/{name}", name=FIGURE_FILES),
        steps=directory(f"results/report/{{family}}/figures/{STEP_DIR}"),
    log:
        "logs/plot/{family}.log",
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow plot --analysis-dir results/analysis/{wildcards.family:q} \
            --out-dir results/report/{wildcards.family:q}/figures
        """


rule summarize_family:
    input:
        analysis="results/analysis/{family}/analysis.csv",
    output:
        summary="results/report/{family}/summary.csv",
    log:
        "logs/report/{family}/summary.log",
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow report --analysis-dir results/analysis/{wildcards.family:q} \
            --figures-dir results/report/{wildcards.family:q}/figures \
            --out-dir results/report/{wildcards.family:q} --only summary
        """


rule report_family:
    input:
        analysis="results/analysis/{family}/analysis.csv",
        stalls="results/analysis/{family}/stalls.csv",
        rules="results/analysis/{family}/rules.csv",
        hotspots="results/analysis/{family}/hotspots.csv",
        context="results/analysis/{family}/context.json",
        findings="results/analysis/{family}/findings.csv",
        figures=rules.plot_family.output.figures,
        steps=rules.plot_family.output.steps,
        timeline=timeline_inputs("summary"),
        timeline_figure=timeline_inputs("figure"),
        sweep=sweep_inputs("summary"),
        sweep_figures=sweep_inputs("figures"),
    output:
        md="results/report/{family}/{report}.md",
        html="results/report/{family}/{report}.html",
        facts="results/report/{family}/{report}.json",
    log:
        "logs/report/{family}/{report}.log",
    wildcard_constraints:
        report=REPORT_STEMS,
    params:
        language=report_language,
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow report --analysis-dir results/analysis/{wildcards.family:q} \
            --figures-dir results/report/{wildcards.family:q}/figures \
            --out-dir results/report/{wildcards.family:q} --language {params.language:q} \
            --timeline {input.timeline:q} --sweep {input.sweep:q} --only report
        """


rule render_pdf:
    input:
        html="results/report/{family}/{report}.html",
    output:
        pdf="results/report/{family}/{report}.pdf",
    log:
        "logs/report/{family}/{report}.pdf.log",
    wildcard_constraints:
        report=REPORT_STEMS,
    params:
        language=report_language,
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow pdf {input.html:q} -o {output.pdf:q} \
            --language {params.language:q}
        """


rule tabulate_ceilings:
    input:
        ceilings="results/ceilings.json",
    output:
        csv="results/report/ceilings.csv",
    log:
        "logs/report/ceilings.log",
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow ceilings-table {input.ceilings:q} -o {output.csv:q}
        """


rule report_index:
    input:
        summaries=expand("results/report/{family}/summary.csv", family=FAMILIES),
        facts=index_facts,
        findings=expand("results/analysis/{family}/findings.csv", family=FAMILIES),
        contexts=expand("results/analysis/{family}/context.json", family=FAMILIES),
    output:
        md="results/report/{index}.md",
        html="results/report/{index}.html",
    log:
        "logs/report/{index}.log",
    wildcard_constraints:
        index=INDEX_STEMS,
    params:
        families=list(FAMILIES),
        language=report_language,
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow index --report-dir results/report \
            --families {params.families:q} --language {params.language:q}
        """
