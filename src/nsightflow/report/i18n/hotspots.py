# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The hotspot tables' messages, merged into :data:`nsightflow.report.i18n.CATALOGUE`.

Data only, in the catalogue's form: key -> language -> template (see
:mod:`nsightflow.report.i18n.catalogue` for the key prefixes).
"""

HOTSPOT_MESSAGES: dict[str, dict[str, str]] = {
    "hot_intro": {
        "en": "**Hottest source lines** of `{variant}` at n = {n}: each CUDA line's "
        "share of the launch's {samples} warp-state samples (Nsight Compute samples "
        "every warp's state at a fixed cycle interval, "
        "`smsp__pcsamp_warps_issue_stalled_<reason>` per instruction, mapped to "
        "lines through `-lineinfo`), and the state most of the line's samples were "
        "in (`selected`: the warp issued).",
        "zh": "`{variant}` 在 n = {n} 时的**最热源码行**：每行 CUDA 源码在该次启动的 "
        "{samples} 个 warp 状态采样中所占的份额（Nsight Compute 以固定周期间隔对每个 "
        "warp 的状态采样，即按指令统计的 `smsp__pcsamp_warps_issue_stalled_<reason>`，"
        "经 `-lineinfo` 映射到源码行），以及该行大多数采样所处的状态（`selected`：该 "
        "warp 正在发射指令）。",
    },
    "hot_step_intro": {
        "en": "**Hottest source lines, before and after** at n = {n} "
        "(`{before}` -> `{after}`): each line's share of its launch's warp-state "
        "samples and the state most of them were in.",
        "zh": "n = {n} 时**优化前后的最热源码行**（`{before}` -> `{after}`）：每行在其"
        "启动的 warp 状态采样中所占的份额，以及其中多数采样所处的状态。",
    },
    "hot_launch": {
        "en": "Launch {launch}: `{kernel}` ({samples} samples)",
        "zh": "第 {launch} 次启动：`{kernel}`（{samples} 个采样）",
    },
    "hot_launch_pair": {
        "en": "Launch {launch}: `{kernel_before}` ({samples_before} samples) -> "
        "`{kernel_after}` ({samples_after} samples)",
        "zh": "第 {launch} 次启动：`{kernel_before}`（{samples_before} 个采样）-> "
        "`{kernel_after}`（{samples_after} 个采样）",
    },
    "hot_none": {
        "en": "Hottest source lines of `{variant}` at n = {n}: not measured, the "
        "Nsight Compute report holds no per-instruction warp samples (it was "
        "profiled without warp sampling; the profile stage of this version collects "
        "them).",
        "zh": "`{variant}` 在 n = {n} 时的最热源码行：未测量，其 Nsight Compute 报告中"
        "没有按指令的 warp 采样（profile 时未开启 warp 采样；本版本的 profile 阶段会"
        "采集）。",
    },
    "hot_no_line": {
        "en": "(no line information)",
        "zh": "（无行号信息）",
    },
    "hot_not_sampled": {
        "en": "not sampled",
        "zh": "未采样",
    },
    "col_hot_rank": {"en": "#", "zh": "#"},
    "col_hot_line": {"en": "line", "zh": "行"},
    "col_hot_code": {"en": "code", "zh": "代码"},
    "col_hot_share": {"en": "share of samples", "zh": "采样占比"},
    "col_hot_reason": {"en": "dominant state", "zh": "主要状态"},
    "col_hot_line_of": {"en": "line ({variant})", "zh": "行（{variant}）"},
    "col_hot_code_of": {"en": "code ({variant})", "zh": "代码（{variant}）"},
    "col_hot_share_of": {"en": "share ({variant})", "zh": "占比（{variant}）"},
    "col_hot_reason_of": {"en": "state ({variant})", "zh": "状态（{variant}）"},
    "lim_stalls_sampled": {
        "en": "The hottest source lines come from warp-state samples of one launch "
        "(one sample per SM sub-partition every fixed number of cycles): a line with "
        "few samples can trade places with its neighbour from run to run, and a "
        "stall is charged to the instruction that waits, often the one that uses a "
        "load's result rather than the load itself.",
        "zh": "最热源码行来自一次启动的 warp 状态采样（每个 SM 子分区每隔固定周期采样"
        "一次）：采样很少的行在不同运行之间可能互换位置；停顿记在等待的那条指令上，"
        "往往是使用加载结果的指令，而不是加载指令本身。",
    },
}
