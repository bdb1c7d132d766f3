"""
Timeline: every copy and kernel of the sequence a program runs (allocate, copy in,
launch, copy out), per variant, recorded with Nsight Systems where it can write
reports, else with CUPTI (chosen once per run by choose_timeline_backend, which says
why). Each variant's trace is taken by its measure job (gpu.smk: measure_variant,
in the worker that verified and timed it, or in a process of its own under nsys). Replay copies the recorded timelines; a variant the recording lacks becomes a
`not_recorded` record. Switched by config `timeline.enabled`. The family's timeline
tables and figure are written by its analyze job (report.smk: timeline-analyze and
timeline-plot chained after analyze and plot, in one process).

REQUIRED INPUTS:
    results/build/{family}/{variant}.cubin, results/verify/{family}/{variant}.json
OUTPUTS:
    results/timeline/backend.json                       (measure mode)
    results/timeline/{family}/{variant}.json + .csv     (record, tidy table)
    results/analysis/{family}/timeline.csv, timeline_summary.csv   (analyze_family)
    results/report/{family}/figures/timeline.png + .svg             (analyze_family)
"""

TIMELINE = config["timeline"]


if is_activated("timeline") and MODE == "measure":

    rule choose_timeline_backend:
        output:
            choice=L.timeline_backend,
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
