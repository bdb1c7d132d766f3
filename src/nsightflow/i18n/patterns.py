# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""Templates for the ECE408 pattern metrics, merged into the catalogue.

Findings and key-metric lines about warp divergence (lane efficiency, branch
uniformity), issued instructions, global atomics in L2, shared-memory atomics, and
the launches of a multi-kernel variant. Same format as
:mod:`nsightflow.i18n.catalogue`.
"""

PATTERN_MESSAGES: dict[str, dict[str, str]] = {
    "lanes_low": {
        "en": "Warp divergence: only {threads:.1f} of 32 lanes do work in each issued "
        "instruction on average ({pct:.0f}% lane efficiency, "
        "`smsp__thread_inst_executed_pred_on_per_inst_executed.ratio`): the other "
        "threads of the warp are inactive or predicated off (divergent branches, "
        "partly used warps).",
        "zh": "warp 分化：每条发射指令平均只有 32 个 lane 中的 {threads:.1f} 个在工作"
        "（lane 效率 {pct:.0f}%，`smsp__thread_inst_executed_pred_on_per_inst_executed.ratio`）："
        "同一 warp 的其余线程处于非活跃或被谓词关闭状态（分支分化、warp 未用满）。",
    },
    "lanes_rose": {
        "en": "Lane efficiency {before:.0f}% -> {after:.0f}% ({t0:.1f} -> {t1:.1f} "
        "working threads per warp instruction, "
        "`smsp__thread_inst_executed_pred_on_per_inst_executed.ratio`): less warp divergence, "
        "fewer idle lanes.",
        "zh": "lane 效率 {before:.0f}% -> {after:.0f}%（每条 warp 指令的活跃线程 "
        "{t0:.1f} -> {t1:.1f}，`smsp__thread_inst_executed_pred_on_per_inst_executed.ratio`）："
        "warp 分化减少，空闲 lane 减少。",
    },
    "lanes_fell": {
        "en": "Lane efficiency {before:.0f}% -> {after:.0f}% ({t0:.1f} -> {t1:.1f} "
        "working threads per warp instruction, "
        "`smsp__thread_inst_executed_pred_on_per_inst_executed.ratio`): more lanes idle "
        "(divergent branches or partly used warps).",
        "zh": "lane 效率 {before:.0f}% -> {after:.0f}%（每条 warp 指令的活跃线程 "
        "{t0:.1f} -> {t1:.1f}，`smsp__thread_inst_executed_pred_on_per_inst_executed.ratio`）："
        "更多 lane 空闲（分支分化或 warp 未用满）。",
    },
    "branches_moved": {
        "en": "Branch uniformity {before:.0f}% -> {after:.0f}% of branches taken the "
        "same way by all active threads "
        "(`smsp__sass_average_branch_targets_threads_uniform.pct`).",
        "zh": "分支一致率 {before:.0f}% -> {after:.0f}%（所有活跃线程走同一方向的分支"
        "占比，`smsp__sass_average_branch_targets_threads_uniform.pct`）。",
    },
    "instructions_moved": {
        "en": "Issued warp instructions {before:,.2f} M -> {after:,.2f} M "
        "({pct:+.0f}%, `smsp__inst_executed.sum`).",
        "zh": "发射的 warp 指令 {before:,.2f} M -> {after:,.2f} M（{pct:+.0f}%，"
        "`smsp__inst_executed.sum`）。",
    },
    "l2_atomics": {
        "en": "Global atomics: {sectors:,.0f} L2 atomic sectors "
        "(`lts__t_sectors_op_red.sum` + `lts__t_sectors_op_atom.sum`), "
        "{rate:,.0f} per microsecond of the run.",
        "zh": "全局原子操作：{sectors:,.0f} 个 L2 原子 sector（`lts__t_sectors_op_red.sum`"
        " + `lts__t_sectors_op_atom.sum`），每微秒 {rate:,.0f} 个。",
    },
    "l2_atomics_moved": {
        "en": "Global atomics in L2 {before:,.0f} -> {after:,.0f} sectors "
        "(`lts__t_sectors_op_red.sum` + `lts__t_sectors_op_atom.sum`); atomic "
        "throughput {rate0:,.0f} -> {rate1:,.0f} sectors per microsecond of the run.",
        "zh": "L2 中的全局原子操作 {before:,.0f} -> {after:,.0f} 个 sector"
        "（`lts__t_sectors_op_red.sum` + `lts__t_sectors_op_atom.sum`）；原子吞吐 "
        "{rate0:,.0f} -> {rate1:,.0f} 个 sector/微秒。",
    },
    "shared_atomics_moved": {
        "en": "Shared-memory atomic instructions {before:,.0f} -> {after:,.0f} "
        "(`smsp__sass_inst_executed_op_shared_atom.sum`).",
        "zh": "共享内存原子指令 {before:,.0f} -> {after:,.0f}"
        "（`smsp__sass_inst_executed_op_shared_atom.sum`）。",
    },
    "atomic_conflicts_moved": {
        "en": "Shared-memory atomic conflicts {before:,.0f} -> {after:,.0f} "
        "(`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum`; "
        "{per0} -> {per1} per atomic instruction): the replays of a warp's shared "
        "atomics whose lanes update different addresses in one bank.",
        "zh": "共享内存原子冲突 {before:,.0f} -> {after:,.0f}"
        "（`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum`；每条原子指令 "
        "{per0} -> {per1} 次）：同一 warp 的共享内存原子操作中，lane 更新同一 bank 内不同地址而引起的重放。",
    },
    "launch_split": {
        "en": "`{variant}` runs {count:.0f} launches at n = {n}: {parts} "
        "(ncu's durations; the metrics above add their counts and weight their "
        "ratios by instructions or time).",
        "zh": "`{variant}` 在 n = {n} 时有 {count:.0f} 次 kernel 启动：{parts}"
        "（ncu 时长；上面的指标对计数求和，对比率按指令数或时间加权）。",
    },
    "delta_lane_efficiency": {"en": "lane efficiency", "zh": "lane 效率"},
    "delta_instructions": {"en": "issued warp instructions", "zh": "发射的 warp 指令"},
    "delta_l2_atomics": {"en": "L2 atomic sectors", "zh": "L2 原子 sector"},
    "delta_shared_atomics": {
        "en": "shared atomic instructions",
        "zh": "共享内存原子指令",
    },
}
