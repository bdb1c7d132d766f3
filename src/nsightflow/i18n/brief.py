# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The words of a report's first pages: the brief, the bound and a step's short body.

Data only, in the catalogue's form (key -> language -> template), merged into
:data:`nsightflow.i18n.catalogue.CATALOGUE`. A step's body uses one template per
sentence (outcome, why, also, smaller, expected), so no sentence shape repeats
within a step; the numbers they carry are formatted by
:mod:`nsightflow.report.sections.quantities` before they are filled in.
"""

BRIEF_MESSAGES: dict[str, dict[str, str]] = {
    # --- the lines under the title ------------------------------------------------
    "origin_replayed": {
        "en": "Replayed from {source}: measured on {gpu} on {date}, not on this "
        "machine. Versions and settings are in the appendix.",
        "zh": "回放自 {source}：{date} 在 {gpu} 上测量，并非在本机测量。版本与设置"
        "见附录。",
    },
    "origin_test_double": {
        "en": "Test double, not a measurement: the GPU workers were replaced by "
        "outputs recorded on {gpu} on {date}, returned from {source} "
        "(NSIGHTFLOW_TEST_GPU_DOUBLE). Versions and settings are in the appendix.",
        "zh": "测试替身，并非测量：GPU 工作进程被替换为 {date} 在 {gpu} 上记录的输出，"
        "取自 {source}（NSIGHTFLOW_TEST_GPU_DOUBLE）。版本与设置见附录。",
    },
    "origin_measured": {
        "en": "Measured on {gpu} on {date}. Versions and settings are in the appendix.",
        "zh": "{date} 在 {gpu} 上测量。版本与设置见附录。",
    },
    # --- brief ----------------------------------------------------------------------
    "h_brief": {"en": "Brief", "zh": "摘要"},
    "brief_result": {
        "en": "**Result at n = {n}{input}:** `{variant}` is the fastest correct "
        "variant{tie}, {time} us, {speedup:.2f}x the baseline `{baseline}`; {regime} at "
        "{pct} of {ceiling} ({rate}){vendor}{limit}.",
        "zh": "**n = {n}{input}的结果：**最快的正确版本是 `{variant}`{tie}，{time} us，"
        "为基线 `{baseline}` 的 {speedup:.2f}x；{regime}，达到{ceiling}的 {pct}"
        "（{rate}）{vendor}{limit}。",
    },
    "brief_vendor_peak": {
        "en": "; {library} itself runs at {pct:.0f}% of the measured FP32 peak",
        "zh": "；{library}本身为实测 FP32 峰值的 {pct:.0f}%",
    },
    "brief_result_limit": {"en": "; what limits it: {limit}", "zh": "；瓶颈：{limit}"},
    "brief_none": {
        "en": "**No variant is correct at n = {n}:** nothing is ranked; the appendix "
        "lists each variant's status.",
        "zh": "**n = {n} 时没有正确的版本：**不做排名；各版本的状态见附录。",
    },
    "col_speedup": {"en": "speedup", "zh": "加速比"},
    "input_default_short": {"en": "default", "zh": "默认"},
    "col_limits_now": {"en": "limits it now", "zh": "当前瓶颈"},
    "col_step_changed": {"en": "this step changed", "zh": "这一步改变了"},
    "ladder_share": {
        "en": "{cause} ({pct:.0f}% of the change)",
        "zh": "{cause}（占变化的 {pct:.0f}%）",
    },
    "ladder_config": {
        "en": "mostly its configuration; then {cause}",
        "zh": "主要是其配置；其次{cause}",
    },
    "col_time_us": {"en": "time n={n} [us]", "zh": "n={n} 耗时 [us]"},
    "regime_short_memory": {"en": "memory", "zh": "访存"},
    "regime_short_compute": {"en": "compute", "zh": "计算"},
    "regime_short_latency": {"en": "latency", "zh": "延迟"},
    "regime_short_unit": {"en": "under the roofs", "zh": "低于各 roof"},
    "regime_unit": {
        # the result's limit clause names the unit ("what limits it: ...")
        "en": "under the roofline's DRAM, L2 and FP32 lines",
        "zh": "低于 roofline 的 DRAM、L2 与 FP32 线",
    },
    "ladder_baseline": {"en": "{cause} (baseline)", "zh": "{cause}（基线）"},
    "next_title": {
        "en": "**What next**, largest expected gain first:",
        "zh": "**下一步**（按预期收益从大到小）：",
    },
    "next_none": {
        "en": "**What next:** no correct variant to build on.",
        "zh": "**下一步：**没有可继续优化的正确版本。",
    },
    "next_at_roof": {
        "en": "`{variant}` is {where} at n = {n} ({pct} of {ceiling}): {fix} "
        "Expected gain: at most {gain:.2f}x from this kernel alone.",
        "zh": "`{variant}` 在 n = {n} 时{where}（{ceiling}的 {pct}）：{fix}"
        "预期收益：仅靠本 kernel 至多 {gain:.2f}x。",
    },
    "next_roof_memory": {
        "en": "only fewer bytes help (fuse with the kernel that produces or consumes "
        "the data, narrower types).",
        "zh": "只有减少字节数才有帮助（与产生或使用这些数据的 kernel 融合，或使用更窄"
        "的类型）。",
    },
    "next_roof_compute": {
        "en": "tensor cores (TF32, BF16) where the precision allows, or fewer FLOPs.",
        "zh": "在精度允许时使用 tensor core（TF32、BF16），或减少 FLOPs。",
    },
    "next_limited": {
        "en": "Attack {cause} in `{variant}`: it takes {share} of the launch at "
        "n = {n}, where the kernel reaches {pct} of {ceiling}. {fix}Expected "
        "gain: up to {gain:.2f}x ({floor} us at the ceiling).",
        "zh": "解决 `{variant}` 的{cause}：n = {n} 时它占启动时间的 {share}，此时 "
        "kernel 达到{ceiling}的 {pct}。{fix}预期收益：至多 {gain:.2f}x（达到上限时 "
        "{floor} us）。",
    },
    "next_fix": {"en": "What helps: {fix}. ", "zh": "改进方向：{fix}。"},
    "next_small": {
        "en": "Look at the smaller size n = {n}: `{variant}` reaches only {pct} of "
        "{ceiling} there{cause}. Expected gain at that size: up to {gain:.2f}x.",
        "zh": "关注较小的规模 n = {n}：`{variant}` 在这里只达到{ceiling}的 {pct}"
        "{cause}。该规模下的预期收益：至多 {gain:.2f}x。",
    },
    "next_small_cause": {
        "en": ", limited by {cause} ({share} of its launch)",
        "zh": "，受限于{cause}（占其启动的 {share}）",
    },
    # --- 1. the bound in a few lines ------------------------------------------------
    "h_bound": {"en": "1. Bound", "zh": "1. bound 定位"},
    "bound_work": {
        "en": "At n = {n} the ideal work is {flops} ({flops_expr}) and {nbytes} "
        "({bytes_expr}): {ai} FLOP/B against a ridge of {ridge:.1f} FLOP/B "
        "({fp32:,.0f} GFLOP/s / {copy:,.0f} GB/s), so on paper the kernel is "
        "{bound}-bound.",
        "zh": "n = {n} 时理想工作量为 {flops}（{flops_expr}）和 {nbytes}"
        "（{bytes_expr}）：计算强度 {ai} FLOP/B，脊点为 {ridge:.1f} FLOP/B"
        "（{fp32:,.0f} GFLOP/s / {copy:,.0f} GB/s），因此理论上是{bound}受限。",
    },
    "bound_floors": {
        "en": "Floors on this GPU: memory {nbytes} / {copy:,.0f} GB/s = {t_mem} us; "
        "compute {flops} / {fp32:,.0f} GFLOP/s = {t_comp} us.",
        "zh": "本 GPU 上的下限：访存 {nbytes} / {copy:,.0f} GB/s = {t_mem} us；"
        "计算 {flops} / {fp32:,.0f} GFLOP/s = {t_comp} us。",
    },
    "bound_baseline": {
        "en": "The baseline `{variant}`{input} takes {time} us, {ratio:.2f}x the "
        "floor{cause}.",
        "zh": "基线 `{variant}`{input}耗时 {time} us，是下限的 {ratio:.2f}x{cause}。",
    },
    "bound_cause": {
        "en": "; {cause} takes {share} of its launch{line}",
        "zh": "；{cause}占其启动时间的 {share}{line}",
    },
    "bound_cause_launch": {
        "en": "; {cause}, `{kernel}`, takes {share} of its run{line}",
        "zh": "；{cause} `{kernel}` 占其运行时间的 {share}{line}",
    },
    "launch_line_clause": {
        "en": ", at line {line} of `{file}` ({code}, {share} of its samples)",
        "zh": "，位于 `{file}` 第 {line} 行（{code}，占其采样的 {share}）",
    },
    "bound_input": {"en": " ({input})", "zh": "（{input}）"},
    "bound_no_ceilings": {
        "en": "No measured ceilings for this GPU: the bound cannot be placed.",
        "zh": "没有本 GPU 的实测上限：无法确定 bound。",
    },
    "bound_no_time": {
        "en": "The baseline `{variant}` has no time at n = {n}.",
        "zh": "基线 `{variant}` 在 n = {n} 时没有计时。",
    },
    # --- 2. a step's body -----------------------------------------------------------
    "step_outcome": {
        "en": "**{before} -> {after} us** at n = {n} against `{prev}`: {change}.",
        "zh": "**{before} -> {after} us**（n = {n}，对比 `{prev}`）：{change}。",
    },
    "change_faster": {"en": "{x:.2f}x faster", "zh": "快 {x:.2f}x"},
    "change_slower": {"en": "{pct:.0f}% slower", "zh": "慢 {pct:.0f}%"},
    "change_times_slower": {"en": "{x:.2f}x slower", "zh": "慢 {x:.2f}x"},
    "change_none": {
        "en": "no measurable change ({pct:+.1f}%, within {line:.1f}%)",
        "zh": "没有可测量的变化（{pct:+.1f}%，在 {line:.1f}% 以内）",
    },
    "step_why": {
        "en": "**Why:** {cause}{what}{alone}{line}.",
        "zh": "**原因：**{cause}{what}{alone}{line}。",
    },
    "step_also": {
        "en": "**Also:** {cause}{what}{alone}.",
        "zh": "**其次：**{cause}{what}{alone}。",
    },
    "step_smaller": {
        "en": "**Smaller still:** {cause}{what}{alone}.",
        "zh": "**再次：**{cause}{what}{alone}。",
    },
    "step_item": {"en": "{cause}{what}{alone}", "zh": "{cause}{what}{alone}"},
    "step_smaller_list": {
        "en": "**Then:** {items}.",
        "zh": "**然后：**{items}。",
    },
    "step_counters_why": {
        "en": "**In ncu's counters** (code and configuration together): "
        "{cause}{what}{alone}{line}.",
        "zh": "**ncu 计数器所见**（代码与配置合计）：{cause}{what}{alone}{line}。",
    },
    "step_counters_code": {
        "en": "**In ncu's counters:** {cause}{what}{alone}{line}.",
        "zh": "**ncu 计数器所见：**{cause}{what}{alone}{line}。",
    },
    "what_bare": {
        "en": "{name} {before} -> {after}",
        "zh": "{name} {before} -> {after}",
    },
    "what_clause": {
        "en": ": {name} {before} -> {after}",
        "zh": "：{name} {before} -> {after}",
    },
    "cause_conflict_share": {
        "en": " (conflict replays {before:.0f}% -> {after:.0f}% of shared wavefronts)",
        "zh": "（冲突重放占 wavefront {before:.0f}% -> {after:.0f}%）",
    },
    "part_clause": {"en": " ({part})", "zh": "（{part}）"},
    "step_rest": {
        "en": "**The rest:** {items}; the parts add up to the {total} us {dir}.",
        "zh": "**其余：**{items}；各部分合计{dir} {total} us。",
    },
    "rest_item": {"en": "{name} {us} us {dir}", "zh": "{name}{dir}了 {us} us"},
    "rest_counted": {"en": "smaller counted factors", "zh": "较小的计数因素"},
    "rest_counted_other": {"en": "the other counted factors", "zh": "其余计数因素"},
    "line_clause": {
        "en": ", at line {line} of `{variant}` ({code}, {share} of the samples)",
        "zh": "，位于 `{variant}` 第 {line} 行（{code}，占采样的 {share}）",
    },
    "hot_clause": {
        "en": "; its hottest line is {line} of `{variant}` ({code}, {share} of the "
        "samples, mostly {reason})",
        "zh": "；最热行是 `{variant}` 第 {line} 行（{code}，占采样的 {share}，"
        "主要为 {reason}）",
    },
    "wait_clause": {
        "en": "; it waits most at line {line} of `{variant}` ({code}, {share} of the "
        "samples, mostly {reason})",
        "zh": "；其等待最多的是 `{variant}` 第 {line} 行（{code}，占采样的 {share}，"
        "主要为 {reason}）",
    },
    "step_expected": {
        "en": "**Expected** to shrink: {expected}. **Observed:** {observed}. {verdict}",
        "zh": "**预期**减少：{expected}；**实际**：{observed}。{verdict}",
    },
    "step_meant": {
        "en": "**Meant to show** a cost through: {expected}. **Observed:** {observed}. "
        "{verdict}",
        "zh": "**设计上**要展示以下代价：{expected}。**实际**：{observed}。{verdict}",
    },
    "expected_met": {"en": "As intended", "zh": "符合预期"},
    "expect_met_same": {"en": "As expected.", "zh": "符合预期。"},
    "expect_met_rest": {"en": "As expected{rest}.", "zh": "符合预期{rest}。"},
    "expected_missed": {"en": "Not what the idea aimed at", "zh": "与预期不符"},
    "expected_or": {"en": ", ", "zh": "、"},
    "step_more": {
        "en": "Diff, every metric at n = {sizes}, ncu's rule texts and hot lines: "
        "[{label}](#{anchor}).",
        "zh": "diff、n = {sizes} 的全部指标、ncu 规则原文与热点行：[{label}](#{anchor})。",
    },
    "appendix_ref": {"en": "Appendix A.{k}", "zh": "附录 A.{k}"},
    "step_failed": {
        "en": "`{variant}` did not run correctly ({status}), so it has no time: "
        "{message}",
        "zh": "`{variant}` 没有正确运行（{status}），因此没有计时：{message}",
    },
    "step_unprofiled": {
        "en": "Nsight Compute has no common size for the two variants: only the "
        "times compare.",
        "zh": "两个版本没有在同一规模上用 Nsight Compute 采样：只能比较耗时。",
    },
    "step_no_time": {
        "en": "No time at n = {n} for both `{prev}` and `{variant}`.",
        "zh": "n = {n} 时 `{prev}` 与 `{variant}` 没有都计时。",
    },
    # --- quantities a cause moved ---------------------------------------------------
    "qty_stall_per_inst": {
        "en": "{reasons} stall cycles per instruction",
        "zh": "每条指令的 {reasons} 停顿周期",
    },
    "qty_stall_per_request": {
        "en": "{reasons} stall cycles per global request",
        "zh": "每次全局请求的 {reasons} 停顿周期",
    },
    "qty_instructions": {"en": "issued warp instructions", "zh": "发射的 warp 指令数"},
    "qty_occupancy": {"en": "achieved occupancy", "zh": "实际占用率"},
    "qty_requests": {"en": "global load requests", "zh": "全局加载请求数"},
    "qty_ldst_requests": {
        "en": "global load and store requests",
        "zh": "全局加载与存储请求数",
    },
    "qty_ld_sectors": {"en": "global load sectors", "zh": "全局加载 sector 数"},
    "qty_stall_per_sector": {
        "en": "{reasons} stall cycles per global load sector",
        "zh": "每个全局加载 sector 的 {reasons} 停顿周期",
    },
    "qty_each_wait": {
        "en": ": {moved}, {before} -> {after} cycles",
        "zh": "：{moved}，{before} -> {after} 个周期",
    },
    "qty_each_wider": {
        "en": " (global load requests {before} -> {after} for the same sectors)",
        "zh": "（全局加载请求 {before} -> {after}，sector 数不变）",
    },
    "qty_each_count": {
        "en": " (their count {before} -> {after}: {moved})",
        "zh": "（数量 {before} -> {after}：{moved}）",
    },
    "qty_launches": {"en": "kernel launches", "zh": "kernel 启动次数"},
    "step_by_size": {"en": "By size: {spans}.", "zh": "各规模：{spans}。"},
    "by_size_span": {
        "en": "{verdict} at n = {first}..{last}",
        "zh": "n = {first}..{last} 时{verdict}",
    },
    "by_size_one": {"en": "{verdict} at n = {first}", "zh": "n = {first} 时{verdict}"},
    "by_size_paid": {"en": "faster", "zh": "更快"},
    "by_size_not_paid": {"en": "slower", "zh": "更慢"},
    "by_size_no_gain": {"en": "no change", "zh": "无变化"},
    "brief_best_holds": {
        "en": "It is the fastest (or tied) at n = {held} only: {others}.",
        "zh": "它仅在 n = {held} 时最快（或持平）：{others}。",
    },
    "brief_best_other": {
        "en": "at n = {n} `{other}` is faster",
        "zh": "n = {n} 时 `{other}` 更快",
    },
    "config_own_params": {
        "en": "and {params} for the parameters `{prev}` lacks",
        "zh": "`{prev}` 没有的参数取 {params}",
    },
    "step_config_why": {
        "en": "**Why:** the sweep timed `{variant}` at `{prev}`'s "
        "configuration{own}, {t_old} us, and at its own, {t_own} us. So the "
        "configuration ({changes}) makes {config}; the code, {code}; the ladder's "
        "timing against the sweep's, {timing}.",
        "zh": "**原因：**参数扫描测得 `{variant}` 在 `{prev}` 的配置{own}下 "
        "{t_old} us，自身配置下 {t_own} us：配置（{changes}）带来{config}，代码带来"
        "{code}，阶梯与扫描计时之差为{timing}。",
    },
    "step_config_none": {
        "en": "**Why:** the code, not the configuration ({changes}): the sweep timed "
        "`{variant}` at `{prev}`'s configuration{own} in {t_old} us, at its own in "
        "{t_own} us.",
        "zh": "**原因：**是代码而非配置（{changes}）：扫描中 `{variant}` 在 `{prev}` "
        "的配置{own}下 {t_old} us，自身配置下 {t_own} us。",
    },
    "step_config_unsplit": {
        "en": "The sweep did not time `{variant}` at `{prev}`'s configuration at "
        "n = {n}, which would tell the two apart.",
        "zh": "扫描未在 n = {n} 以 `{prev}` 的配置测量 `{variant}`，二者无法拆分。",
    },
    "qty_launch_time": {
        "en": "ncu time of the later launch",
        "zh": "后续启动的 ncu 时间",
    },
    "qty_launch_time_of": {
        "en": "ncu time of the later launch `{kernel}`",
        "zh": "后续启动 `{kernel}` 的 ncu 时间",
    },
    "qty_st_sectors": {"en": "global store sectors", "zh": "全局存储 sector 数"},
    "qty_event_time": {
        "en": "median time (CUDA events)",
        "zh": "中位时间（CUDA 事件）",
    },
    "qty_dram_bytes": {"en": "DRAM bytes", "zh": "DRAM 字节数"},
    "qty_idle_share": {"en": "idle SM time", "zh": "SM 空闲时间"},
    "qty_ncu_time": {"en": "ncu time", "zh": "ncu 时间"},
    "qty_generic": {"en": "its metric", "zh": "其指标"},
    # --- appendix -------------------------------------------------------------------
    "h_appendix": {
        "en": "Appendix: every measurement and finding",
        "zh": "附录（Appendix）：全部测量与发现",
    },
    "appendix_intro": {
        "en": "What the body rests on, in full. The same numbers as data: "
        "[summary.csv](summary.csv) beside this report, and analysis.csv, "
        "findings.csv, stalls.csv and hotspots.csv in `results/analysis/{family}/`.",
        "zh": "正文所依据的全部内容。相同的数字也以数据文件给出：本报告旁的 "
        "[summary.csv](summary.csv)，以及 `results/analysis/{family}/` 中的 "
        "analysis.csv、findings.csv、stalls.csv 和 hotspots.csv。",
    },
    "h_detail_step": {
        "en": "A.{k} Step {s}: `{variant}` in full",
        "zh": "A.{k} 第 {s} 步：`{variant}` 的完整数据",
    },
    "h_app_sweep": {"en": "A.{k} Parameter sweeps", "zh": "A.{k} 参数扫描"},
    "h_app_timeline": {
        "en": "A.{k} Timeline: copies and kernel",
        "zh": "A.{k} 时间线：数据拷贝与 kernel",
    },
    "h_glossary": {
        "en": "A.{k} Metrics named in the body",
        "zh": "A.{k} 正文中提到的指标",
    },
    "glossary_intro": {
        "en": "The Nsight Compute metric behind each number of the body, numbered "
        "as its mark there:",
        "zh": "正文中每个数字背后的 Nsight Compute 指标，编号与正文中的标记一致：",
    },
}
