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
The analyze job also writes summary.csv (the same in every language; a column subset
of analysis.csv). Stages that read or write a folder of fixed-named files (the analysis
tables, the figures, whose step figures are named from the manifest) get that folder
from the rule's declared inputs or outputs (input_folder, output_folder).
"""


# One job, one process per family: the analysis tables and summary.csv, then the
# figures (cli: --then), which read only those tables; with the timeline switched on,
# its tables and figure too. A variant's edit changes the family's tables, so every
# figure is redone either way; one process pays Python's, pandas' and matplotlib's
# start-up once.
rule analyze_family:
    input:
        **TIMELINE_INPUTS,
        manifest=f"{KERNELS}/{{family}}/family.yaml",
        resources=variant_files(L.resources),
        verify=variant_files(L.verify),
        timing=variant_files(L.time),
        metrics=metrics_inputs("metrics"),
        rules=metrics_inputs("rules"),
        source=metrics_inputs("source"),
        profiles=metrics_inputs("profiles"),
        sanitize=sanitize_inputs,
        ceilings=L.ceilings,
        # the step figures tell a step's configuration from its code by the sweep
        sweep=sweep_inputs("table"),
    output:
        **TIMELINE_OUTPUTS,
        analysis=L.analysis,
        stalls=L.stalls,
        rules=L.family_rules,
        hotspots=L.hotspots,
        context=L.context,
        findings=L.findings,
        summary=L.summary,
        figures=[fill(L.figure_file, name=name) for name in FIGURE_FILES],
        # the figures of the family's steps are named from its manifest
        steps=directory(fill(L.figure_file, name=STEP_DIR)),
    log:
        "logs/analyze/{family}.log",
    benchmark:
        "benchmarks/analyze/{family}.tsv"
    priority: family_priority
    params:
        kernels=KERNELS,
        analysis_dir=output_folder("analysis"),
        figures_dir=output_folder("figures"),
        timeline=timeline_stages,
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow analyze --kernels-dir {params.kernels:q} \
            --family {wildcards.family:q} --resources {input.resources:q} \
            --verify {input.verify:q} --timing {input.timing:q} \
            --metrics {input.metrics:q} --rules {input.rules:q} \
            --profiles {input.profiles:q} --sanitize {input.sanitize:q} \
            --source {input.source:q} \
            --ceilings {input.ceilings:q} --out-dir {params.analysis_dir:q} \
            --summary {output.summary:q} \
            --then plot --analysis-dir {params.analysis_dir:q} \
            --out-dir {params.figures_dir:q} {params.timeline}
        """


rule report_family:
    input:
        analysis=L.analysis,
        stalls=L.stalls,
        rules=L.family_rules,
        hotspots=L.hotspots,
        context=L.context,
        findings=L.findings,
        figures=rules.analyze_family.output.figures,
        steps=rules.analyze_family.output.steps,
        timeline=timeline_inputs("summary"),
        timeline_figure=timeline_inputs("figure"),
        sweep=sweep_inputs("summary"),
        sweep_figures=sweep_inputs("figures"),
    output:
        md=L.report_md,
        html=L.report_html,
        facts=L.report_json,
    log:
        "logs/report/{family}/{report}.log",
    wildcard_constraints:
        report=REPORT_STEMS,
    priority: family_priority
    params:
        language=report_language,
        analysis_dir=input_folder("analysis"),
        figures_dir=input_folder("figures"),
        out_dir=output_folder("md"),
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow report --analysis-dir {params.analysis_dir:q} \
            --figures-dir {params.figures_dir:q} --out-dir {params.out_dir:q} \
            --language {params.language:q} --timeline {input.timeline:q} \
            --sweep {input.sweep:q} --only report
        """


rule render_pdf:
    input:
        html=L.report_html,
    output:
        pdf=L.report_pdf,
    log:
        "logs/report/{family}/{report}.pdf.log",
    wildcard_constraints:
        report=REPORT_STEMS,
    priority: family_priority
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
        ceilings=L.ceilings,
    output:
        csv=L.ceilings_csv,
    log:
        "logs/report/ceilings.log",
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow ceilings-table {input.ceilings:q} -o {output.csv:q}
        """


rule report_index:
    input:
        summaries=expand(L.summary, family=FAMILIES),
        facts=index_facts,
        findings=expand(L.findings, family=FAMILIES),
        contexts=expand(L.context, family=FAMILIES),
    output:
        md=L.index_md,
        html=L.index_html,
    log:
        "logs/report/{index}.log",
    wildcard_constraints:
        index=INDEX_STEMS,
    params:
        families=list(FAMILIES),
        language=report_language,
        report_dir=output_folder("html"),
    shell:
        r"""
        exec &> >(tee {log:q})
        python -m nsightflow index --report-dir {params.report_dir:q} \
            --families {params.families:q} --language {params.language:q}
        """
