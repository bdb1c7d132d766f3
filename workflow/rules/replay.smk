"""
Replay: the GPU stages' outputs copied from a recording (config `source`), for
machines without a GPU. Each output is stamped with `replayed_from`; compile runs for
real where nvcc exists, else its resources come from the recording too.

REQUIRED INPUTS:
    {source}/verify|time/{family}/{variant}.json, {source}/profile/{family}/{variant}/,
    {source}/ceilings.json, {source}/build/{family}/{variant}.resources.json (no nvcc)
OUTPUTS:
    the same paths under results/
"""


if MODE == "replay":

    rule replay_verify:
        input:
            recorded=f"{SOURCE}/verify/{{family}}/{{variant}}.json",
        output:
            verify="results/verify/{family}/{variant}.json",
        log:
            "logs/replay/verify/{family}/{variant}.log",
        shell:
            "python -m nsightflow replay {input.recorded:q} {output.verify:q} &> {log:q}"

    rule replay_time:
        input:
            recorded=f"{SOURCE}/time/{{family}}/{{variant}}.json",
        output:
            timing="results/time/{family}/{variant}.json",
        log:
            "logs/replay/time/{family}/{variant}.log",
        shell:
            "python -m nsightflow replay {input.recorded:q} {output.timing:q} &> {log:q}"

    rule replay_profile:
        input:
            recorded=f"{SOURCE}/profile/{{family}}/{{variant}}",
        output:
            reports=directory("results/profile/{family}/{variant}"),
        log:
            "logs/replay/profile/{family}/{variant}.log",
        shell:
            "python -m nsightflow replay {input.recorded:q} {output.reports:q} &> {log:q}"

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
            recorded=f"{SOURCE}/build/{{family}}/{{variant}}.resources.json",
        output:
            resources="results/build/{family}/{variant}.resources.json",
        log:
            "logs/replay/build/{family}/{variant}.log",
        shell:
            "python -m nsightflow replay {input.recorded:q} {output.resources:q} &> {log:q}"
