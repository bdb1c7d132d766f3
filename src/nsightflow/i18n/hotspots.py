# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The hotspot tables' messages, merged into :data:`nsightflow.i18n.CATALOGUE`.

Data only, in the catalogue's form: key -> language -> template (see
:mod:`nsightflow.i18n.catalogue` for the key prefixes).
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
        "en": "Launch {launch}: {kernel} ({samples} samples)",
        "zh": "第 {launch} 次启动：{kernel}（{samples} 个采样）",
    },
    "hot_launch_pair": {
        "en": "Launch {launch}: {kernel_before} ({samples_before} samples) -> "
        "{kernel_after} ({samples_after} samples)",
        "zh": "第 {launch} 次启动：{kernel_before}（{samples_before} 个采样）-> "
        "{kernel_after}（{samples_after} 个采样）",
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
    "hot_drain_note": {
        "en": "In `{variant}`, {pct:.1f}% of the launch's samples are `drain` after the "
        "kernel's `EXIT` (line {exit_line}): warps that have exited wait there for "
        "their global stores to complete. The table counts them to the lines of the "
        "stores the warps executed on their way to that `EXIT` (line {lines}; split "
        "by each line's number of global store instructions).",
        "zh": "`{variant}` 中，该次启动 {pct:.1f}% 的采样是 kernel 执行 `EXIT`（第 "
        "{exit_line} 行）之后的 `drain`：已退出的 warp 在那里等待其全局存储完成。下表把"
        "这些采样计入这些 warp 在到达该 `EXIT` 之前执行的存储所在的行（第 {lines} 行；"
        "按每行的全局存储指令数分摊）。",
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
    # the line a primary finding cites (diagnosis.lines)
    "with_line": {"en": "{finding} {line}", "zh": "{finding} {line}"},
    # the cited line; "line_cite" ends it, "line_cite_drain" adds the exit's drain
    "line_where": {
        "en": "**Where:** line {line} of `{variant}`{in_file} ({code}), its {access}, "
        "holds {share:.0f}% of the launch's warp-state samples, {reason_share:.0f}% of "
        "them `{reason}` and {cause_share:.0f}% in this cause's stalls ({stalls}) "
        "(named: >= {majority:.0f}% of the samples, the cause's access, >= "
        "{cause_part:.0f}% in its stalls)",
        "zh": "**位置：**`{variant}` 的第 {line} 行{in_file}（{code}），即其{access}，占该次"
        "启动 warp 状态采样的 {share:.0f}%，其中 {reason_share:.0f}% 为 `{reason}`，"
        "{cause_share:.0f}% 属于该原因的停顿（{stalls}）（指明条件：占采样 >= "
        "{majority:.0f}%、有该原因所指的访存、且 >= {cause_part:.0f}% 的采样属于其停顿）",
    },
    "line_cite": {"en": "{where}.", "zh": "{where}。"},
    "line_cite_drain": {
        "en": "{where}; {pct:.0f}% of the launch's samples are `drain` after the "
        "kernel's `EXIT` (line {exit_line}), counted to this line: the exited warps "
        "wait for its global writes to complete.",
        "zh": "{where}；占该次启动采样 {pct:.0f}% 的 `drain` 发生在 kernel 的 `EXIT`（第 "
        "{exit_line} 行）之后，已计入本行：已退出的 warp 在等待本行的全局写入完成。",
    },
    "line_no_code": {"en": "code not recorded", "zh": "代码未记录"},
    # a cited line outside the variant's own .cu (a header it includes, a shared source)
    "line_in_file": {"en": " (in {file})", "zh": "（位于 {file}）"},
    "access_and": {"en": "{first} and {second}", "zh": "{first}和{second}"},
    "access_global_load": {"en": "global load", "zh": "全局加载"},
    "access_global_store": {"en": "global store", "zh": "全局存储"},
    "access_global_atomic": {"en": "global atomic", "zh": "全局原子操作"},
    "access_shared_load": {"en": "shared-memory read", "zh": "共享内存读取"},
    "access_shared_store": {"en": "shared-memory write", "zh": "共享内存写入"},
    "access_shared_atomic": {"en": "shared-memory atomic", "zh": "共享内存原子操作"},
    "access_local": {"en": "local-memory access", "zh": "局部内存访问"},
    "access_barrier": {"en": "barrier", "zh": "屏障"},
}
