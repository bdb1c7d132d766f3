"""nsightflow: compile, verify, time and profile CUDA kernel variants, then report.

Run `snakemake --cores all`; reports land in results/report/<family>/.
"""

import os

from snakemake.utils import min_version

min_version("9.0")


# beside this file, so that `--directory OTHER` reads it too (common.smk resolves its
# relative paths the same way)
configfile: os.path.join(workflow.basedir, "config.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/sweep.smk"
include: "workflow/rules/compile.smk"
include: "workflow/rules/gpu.smk"
include: "workflow/rules/sanitize.smk"
include: "workflow/rules/replay.smk"
include: "workflow/rules/parse.smk"
include: "workflow/rules/timeline.smk"
include: "workflow/rules/report.smk"


onstart:
    check_writable()
    archive_measurements()
    drop_local_job_rate_limit()


rule all:
    input:
        report_targets(),
