"""
Replay: the GPU stages' outputs copied from a recording (config `source`), for
machines without a GPU. Each output is stamped with `replayed_from`; a variant the
recording lacks becomes a `not_recorded` record. Compile runs for real where nvcc
exists, else its resources come from the recording too.

REQUIRED INPUTS:
    {source}/verify|time/{family}/{variant}.json, {source}/profile/{family}/{variant}/,
    {source}/ceilings.json, {source}/build/{family}/{variant}.resources.json (no nvcc)
OUTPUTS:
    the same paths under results/
"""


if MODE == "replay":

    rule replay_verify:
        input:
            recorded=recorded("verify/{family}/{variant}.json"),
        output:
            verify="results/verify/{family}/{variant}.json",
        log:
            "logs/replay/verify/{family}/{variant}.log",
        params:
            recorded=f"{SOURCE}/verify/{{family}}/{{variant}}.json",
        shell:
            "python -m nsightflow replay {params.recorded:q} {output.verify:q} "
            "--family {wildcards.family:q} --variant {wildcards.variant:q} &> {log:q}"

    rule replay_time:
        input:
            recorded=recorded("time/{family}/{variant}.json"),
        output:
            timing="results/time/{family}/{variant}.json",
        log:
            "logs/replay/time/{family}/{variant}.log",
        params:
            recorded=f"{SOURCE}/time/{{family}}/{{variant}}.json",
        shell:
            "python -m nsightflow replay {params.recorded:q} {output.timing:q} "
            "--family {wildcards.family:q} --variant {wildcards.variant:q} &> {log:q}"

    rule replay_profile:
        input:
            recorded=recorded("profile/{family}/{variant}"),
        output:
            reports=directory("results/profile/{family}/{variant}"),
        log:
            "logs/replay/profile/{family}/{variant}.log",
        params:
            recorded=f"{SOURCE}/profile/{{family}}/{{variant}}",
        shell:
            "python -m nsightflow replay {params.recorded:q} {output.reports:q} "
            "--family {wildcards.family:q} --variant {wildcards.variant:q} &> {log:q}"

    rule replay_ceilings:
        input:
            recorded=f"{SOURCE}/ceilings.json",
        output:
            ceilings="results/ceilings.json",
        log:
            "logs/replay/ceilings.log",
        shell:
            "python -m nsightflow replay {input.recorded:q} {output.ceilings:q} &> {log:q}"


if MODE == "replay" and not HAVE_NVCC:

    rule replay_compile:
        input:
            recorded=recorded("build/{family}/{variant}.resources.json"),
        output:
            resources="results/build/{family}/{variant}.resources.json",
        log:
            "logs/replay/build/{family}/{variant}.log",
        params:
            recorded=f"{SOURCE}/build/{{family}}/{{variant}}.resources.json",
        shell:
            "python -m nsightflow replay {params.recorded:q} {output.resources:q} "
            "--family {wildcards.family:q} --variant {wildcards.variant:q} &> {log:q}"
