# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The templates of :mod:`nsightflow.i18n`, one entry per message: key -> language -> template.

Data only. Prefixes group the keys: ``h_`` headings, ``col_`` table headers,
``fig_`` figure captions, ``prov_`` provenance rows, ``limiter_`` what caps
occupancy; the rest are sentences of the report (``report/sections``) and the
metric facts of the diagnosis (``diagnosis``; its causes are in
:mod:`nsightflow.i18n.findings`). Markdown
structure (``#``, ``-``, ``>``) is added by the code; emphasis and code spans
inside a sentence are part of its template.
"""

from nsightflow.i18n.advice import ADVICE_MESSAGES
from nsightflow.i18n.brief import BRIEF_MESSAGES
from nsightflow.i18n.energy import ENERGY_MESSAGES
from nsightflow.i18n.hotspots import HOTSPOT_MESSAGES
from nsightflow.i18n.step_notes import STEP_NOTE_MESSAGES
from nsightflow.i18n.sweep import SWEEP_MESSAGES
from nsightflow.i18n.timeline import TIMELINE_MESSAGES

CATALOGUE: dict[str, dict[str, str]] = {
    **TIMELINE_MESSAGES,  # the timeline section's messages
    **HOTSPOT_MESSAGES,  # the hottest source lines (baseline and steps)
    **SWEEP_MESSAGES,  # the sweep section's messages
    **ENERGY_MESSAGES,  # the energy section's messages
    **BRIEF_MESSAGES,  # the brief, the bound and the steps' short bodies
    **STEP_NOTE_MESSAGES,  # what a step adds after its causes
    **ADVICE_MESSAGES,  # what next: suggestions, their changes, their scores
    # --- header -------------------------------------------------------------------
    "h_report": {
        "en": "{title}: optimization report",
        "zh": "{title}：优化报告",
    },
    "measured_on": {
        "en": "Measured on **{gpu}** (driver {driver}, CUDA {cuda}) on {date}; nvcc "
        "{nvcc}, ncu {ncu} with clock control {clock}.",
        "zh": "测量平台：**{gpu}**（驱动 {driver}，CUDA {cuda}），测量时间 {date}；"
        "nvcc {nvcc}，ncu {ncu}，时钟控制 {clock}。",
    },
    "unknown_gpu": {"en": "unknown GPU", "zh": "未知 GPU"},
    "timing_runs": {
        "en": "The timings come from {n} measuring runs: {runs}",
        "zh": "计时来自 {n} 次测量：{runs}",
    },
    "timing_run": {
        "en": "{day} on {gpu} (kernels revision {kernels}): {variants}",
        "zh": "{day}，{gpu}（kernels 版本 {kernels}）：{variants}",
    },
    "no_timing": {
        "en": "**No timing was recorded for this family**: every variant is listed "
        "with its status below.",
        "zh": "**本 family 没有计时记录**：下面列出每个版本及其状态。",
    },
    "replayed": {
        "en": "**Replayed, not measured here.** These numbers were recorded on {gpu} "
        "on {date} (driver {driver}, ncu {ncu}, clock control {clock}, kernels "
        "revision {kernels}) and replayed from {source} on a machine without a GPU.",
        "zh": "**回放数据，并非在本机测量。** 这些数字于 {date} 在 {gpu} 上记录（驱动 "
        "{driver}，ncu {ncu}，时钟控制 {clock}，kernels 版本 {kernels}），并在一台"
        "没有 GPU 的机器上从 {source} 回放。",
    },
    "test_double_notice": {
        "en": "**Test double, not a measurement.** The GPU workers of this run were "
        "replaced by outputs recorded on {gpu} on {date} (driver {driver}, ncu {ncu}, "
        "clock control {clock}, kernels revision {kernels}), returned from "
        "{source} (NSIGHTFLOW_TEST_GPU_DOUBLE, a test seam).",
        "zh": "**测试替身，并非测量。** 本次运行的 GPU 工作进程被替换为 {date} 在 {gpu} "
        "上记录的输出（驱动 {driver}，ncu {ncu}，时钟控制 {clock}，kernels 版本 "
        "{kernels}），取自 {source}（NSIGHTFLOW_TEST_GPU_DOUBLE，测试接缝）。",
    },
    "no_findings": {
        "en": "**No diagnosis.** The analysis folder holds no `findings.csv`, so this "
        "report names no cause: run `nsightflow analyze` (or the workflow) again to "
        "write it.",
        "zh": "**无诊断。** 分析目录中没有 `findings.csv`，本报告不给出原因分析：请重新"
        "运行 `nsightflow analyze`（或整个工作流）生成它。",
    },
    "kept_in_english": {
        "en": "Kept in English: the figures' text, the rule texts quoted from "
        "Nsight Compute (`> ncu ...`), and the family manifest's title, description "
        "and ideas.",
        "zh": "说明：图中文字、引用自 Nsight Compute 的规则原文（`> ncu ...` 段落）"
        "以及 family 清单中的标题、描述和优化思路保持英文原文。",
    },
    # --- summary ------------------------------------------------------------------
    "h_summary": {
        "en": "A.{k} Summary of every variant at n = {n}",
        "zh": "A.{k} 总览：n = {n} 时的全部版本",
    },
    "col_version": {"en": "version", "zh": "版本"},
    "col_status": {"en": "status", "zh": "状态"},
    "col_time_at": {"en": "time n={n} [us]", "zh": "n={n} 耗时 [us]"},
    "col_vs_previous": {"en": "vs previous step", "zh": "相对上一步"},
    "col_gbps": {"en": "GB/s", "zh": "GB/s"},
    "col_gflops": {"en": "GFLOP/s", "zh": "GFLOP/s"},
    "col_rank": {"en": "rank", "zh": "排名"},
    "col_input": {"en": "input", "zh": "输入"},
    "col_speedup_vs_input": {
        "en": "speedup vs its input's baseline",
        "zh": "相对同输入基线的加速比",
    },
    "col_regime": {"en": "roofline regime", "zh": "roofline 受限类型"},
    "col_pct_ceiling": {"en": "% of ceiling", "zh": "上限占比 %"},
    "col_ceiling": {"en": "ceiling", "zh": "上限"},
    "ceiling_short_copy_bw": {"en": "copy BW", "zh": "拷贝带宽"},
    "ceiling_short_fp32_peak": {"en": "FP32 peak", "zh": "FP32 峰值"},
    "ceiling_short_vendor_sgemm": {"en": "cuBLAS", "zh": "cuBLAS"},
    "ceiling_short_roofline": {"en": "roofline", "zh": "roofline"},
    "summary_lens_note": {
        "en": "Each variant is measured against the ceiling of its regime (memory: "
        "the copy bandwidth; compute: the FP32 peak or the vendor library; latency: "
        "the roofline at its intensity), and variants on another input only against "
        "that input's baseline.",
        "zh": "每个版本都按其受限类型对应的上限衡量（访存受限：拷贝带宽；计算受限："
        "FP32 峰值或厂商库；延迟受限：其计算强度处的 roofline），使用其他输入的版本"
        "只与该输入的基线比较。",
    },
    "col_notes": {"en": "notes", "zh": "备注"},
    "summary_rank_note": {
        "en": "Variants that did not compile or verify have no rank: a fast wrong "
        "kernel scores nothing.",
        "zh": "未能编译或未通过验证的版本没有排名：跑得快但结果错误的 kernel 不得分。",
    },
    "note_failed": {
        "en": "{status}: see the variants that failed",
        "zh": "{status}：见失败的版本",
    },
    "note_source_changed": {
        "en": "source changed since the recording: the measurements are of the "
        "recorded source",
        "zh": "源代码在录制后已修改：测量数据来自录制时的源代码",
    },
    "note_slower": {
        "en": "slower than `{before}`: kept, see its section",
        "zh": "比 `{before}` 慢：仍保留，见其小节",
    },
    # --- 1. baseline over sizes ---------------------------------------------------
    "h_baseline": {
        "en": "A.{k} Every variant over the sizes",
        "zh": "A.{k} 基础测评：不同规模下的性能",
    },
    "fig_perf_vs_size": {
        "en": "time and throughput over sizes",
        "zh": "不同规模下的耗时与吞吐量",
    },
    "timing_method": {
        "en": "Median kernel time in us (CUDA events; launches queued back to back "
        "behind a spin kernel; warm-up {warmup} launches, then batches until the "
        "median moves less than {settle:.1f}% or {budget} s pass). L2 between "
        "launches, per size: {modes}.",
        "zh": "kernel 耗时中位数，单位 us（CUDA events 计时；各次启动排在一个自旋 "
        "kernel 之后背靠背执行；先预热 {warmup} 次，再分批采样，直到中位数的变化小于 "
        "{settle:.1f}% 或用时达到 {budget} s）。各规模两次启动之间 L2 的状态：{modes}。",
    },
    "no_timings": {
        "en": "No variant of this family has timings; the summary and the section on "
        "failed variants give each one's status.",
        "zh": "本族没有任何变体的计时数据；各变体的状态见摘要和失败变体一节。",
    },
    "col_size": {"en": "size", "zh": "规模"},
    # --- 2. theory ------------------------------------------------------------------
    "h_theory": {
        "en": "A.{k} Bound at each profiled size",
        "zh": "A.{k} 理论分析：各采样规模的 bound",
    },
    "ideal_work": {
        "en": "Ideal work: FLOPs = `{flops}`, bytes = `{nbytes}` (each input read "
        "once, each output written once).",
        "zh": "理想工作量：FLOPs = `{flops}`，bytes = `{nbytes}`（每个输入只读一次，"
        "每个输出只写一次）。",
    },
    "ceilings": {
        "en": "Ceilings measured on this GPU with this run (a report of another run "
        "has its own): copy bandwidth {copy:,.0f} GB/s, "
        "FP32 FMA {fp32:,.0f} GFLOP/s (datasheet at the clocks ncu saw: {sheet_gbps} "
        "GB/s, {sheet_gflops} GFLOP/s). Ridge point: {ridge:.1f} FLOP/byte.",
        "zh": "本次运行在本 GPU 上实测的上限（其他运行的报告有各自的实测值）：拷贝带宽 {copy:,.0f} GB/s，FP32 FMA {fp32:,.0f} "
        "GFLOP/s（按 ncu 所见时钟计算的标称值：{sheet_gbps} GB/s，{sheet_gflops} "
        "GFLOP/s）。脊点（ridge point）：{ridge:.1f} FLOP/byte。",
    },
    "col_n": {"en": "n", "zh": "n"},
    "col_flops": {"en": "FLOPs", "zh": "FLOPs"},
    "col_bytes": {"en": "bytes", "zh": "bytes"},
    "col_ai": {"en": "AI [FLOP/B]", "zh": "AI [FLOP/B]"},
    "col_compute_time": {"en": "compute time [us]", "zh": "计算时间 [us]"},
    "col_memory_time": {"en": "memory time [us]", "zh": "访存时间 [us]"},
    "col_bound": {"en": "bound (ideal)", "zh": "瓶颈（理想）"},
    "col_regime_measured": {
        "en": "roofline regime (measured)",
        "zh": "roofline 受限类型（实测）",
    },
    "col_measured": {"en": "{variant} measured [us]", "zh": "{variant} 实测 [us]"},
    "col_vs_floor": {"en": "measured / floor", "zh": "实测 / 下限"},
    "bound_memory": {"en": "memory", "zh": "访存"},
    "bound_compute": {"en": "compute", "zh": "计算"},
    "fig_roofline": {"en": "roofline", "zh": "roofline 图"},
    "h_baseline_ncu": {
        "en": "A.{k} The baseline `{variant}` under Nsight Compute",
        "zh": "A.{k} 基线 `{variant}` 的 Nsight Compute 分析",
    },
    "at_n": {"en": "n = {n}:", "zh": "n = {n}："},
    "ncu_time": {
        "en": "RealTime (ncu `gpu__time_duration.sum`) = {ncu} us; event-timed "
        "median {event} us",
        "zh": "RealTime（ncu `gpu__time_duration.sum`）= {ncu} us；事件计时中位数 "
        "{event} us",
    },
    "ncu_dram_bytes": {
        "en": "dram__bytes_read.sum = {read:,.0f} B, dram__bytes_write.sum = "
        "{write:,.0f} B",
        "zh": "dram__bytes_read.sum = {read:,.0f} B，dram__bytes_write.sum = "
        "{write:,.0f} B",
    },
    "ncu_dram_bandwidth": {
        "en": "DRAM bandwidth (ncu bytes / ncu time) = {gbps} GB/s; L2 hit rate "
        "{l2}%; global load sectors per request {sectors}",
        "zh": "DRAM 带宽（ncu 字节数 / ncu 时间）= {gbps} GB/s；L2 命中率 {l2}%；"
        "每次全局加载请求的 sector 数 {sectors}",
    },
    "ncu_occupancy": {
        "en": "achieved occupancy {achieved}% (theoretical {theoretical}%), "
        "{registers} registers per thread",
        "zh": "实际占用率 {achieved}%（理论值 {theoretical}%），每线程 {registers} 个"
        "寄存器",
    },
    "h_input_baseline": {
        "en": "The baseline `{variant}` ({input})",
        "zh": "基线 `{variant}`（{input}）",
    },
    "h_plan": {"en": "A.{k} Optimization plan", "zh": "A.{k} 优化方案分析"},
    "plan_intro": {
        "en": "The causes of the baseline's time, largest first, each with what "
        "helps and the time without it (never below the roof of its regime):",
        "zh": "基线耗时的各项原因（从大到小），以及各自的改进方向和消除后的耗时（不低于"
        "其受限类型的上限）：",
    },
    "role_primary": {"en": "Primary cause: {text}", "zh": "主要原因：{text}"},
    "role_secondary": {"en": "Also: {text}", "zh": "其次：{text}"},
    "metrics_moved": {"en": "Metrics that moved:", "zh": "变化的指标："},
    "h_conclusion": {"en": "A.{k} Conclusion", "zh": "A.{k} 结论"},
    "fig_stalls": {"en": "stall reasons", "zh": "warp 停顿原因"},
    "fig_bytes_by_level": {"en": "bytes per memory level", "zh": "各级存储的字节数"},
    "baseline_source": {
        "en": "The baseline `{variant}`:",
        "zh": "基线 `{variant}` 的源码：",
    },
    "rule_quote": {
        "en": "ncu {rule}{speedup}: {text}",
        "zh": "ncu {rule}{speedup}：{text}",
    },
    "rule_quote_speedup": {
        "en": " (ncu estimates up to {pct:.0f}% speedup)",
        "zh": "（ncu 估计最多可加速 {pct:.0f}%）",
    },
    # --- 3. steps -------------------------------------------------------------------
    "h_steps": {"en": "2. Optimization steps", "zh": "2. 逐级优化策略及实验结果"},
    "fig_step_changes": {"en": "what each step changed", "zh": "每一步带来的变化"},
    "h_step": {"en": "2.{k} `{variant}`: {idea}", "zh": "2.{k} `{variant}`：{idea}"},
    "step_intro": {
        "en": "Builds on `{before}`. Status: **{status}**. The change, as a diff "
        "against `{before}`:",
        "zh": "基于 `{before}`。状态：**{status}**。相对 `{before}` 的改动（diff）：",
    },
    "not_measured": {"en": "Not measured: {message}", "zh": "未测量：{message}"},
    "key_metrics": {
        "en": "**n = {n}**, key metrics `{before}` -> `{after}`:",
        "zh": "**n = {n}**，相关性能指标 `{before}` -> `{after}`：",
    },
    "diagnosis": {"en": "Diagnosis:", "zh": "原因分析："},
    "verdict_pays": {
        "en": "**Verdict:** at n = {n} this step pays: {speedup:.2f}x vs "
        "`{before}`{vs_baseline}.",
        "zh": "**结论：** n = {n} 时这一步有收益：相对 `{before}` 为 {speedup:.2f}x"
        "{vs_baseline}。",
    },
    "verdict_does_not_pay": {
        "en": "**Verdict:** at n = {n} this step does not pay: {speedup:.2f}x vs "
        "`{before}`{vs_baseline}. It stays in the report: a step that did not pay "
        "is evidence too.",
        "zh": "**结论：** n = {n} 时这一步没有收益：相对 `{before}` 为 {speedup:.2f}x"
        "{vs_baseline}。它仍保留在报告中：没有收益的一步同样是证据。",
    },
    "verdict_no_change": {
        "en": "**Verdict:** at n = {n} this step makes no measurable difference: "
        "{speedup:.2f}x vs `{before}` (within {line:.1f}%){vs_baseline}.",
        "zh": "**结论：** n = {n} 时这一步没有可测量的差别：相对 `{before}` 为 "
        "{speedup:.2f}x（{line:.1f}% 以内）{vs_baseline}。",
    },
    "verdict_vs_baseline": {
        "en": ", {speedup:.2f}x vs `{baseline}`",
        "zh": "，相对 `{baseline}` 为 {speedup:.2f}x",
    },
    "delta_event_time": {
        "en": "RealTime (event median)",
        "zh": "RealTime（事件计时中位数）",
    },
    "delta_bandwidth": {"en": "Achieved bandwidth", "zh": "实际带宽"},
    "delta_gflops": {"en": "Achieved GFLOP/s", "zh": "实际 GFLOP/s"},
    "delta_dram_bandwidth": {"en": "DRAM bandwidth", "zh": "DRAM 带宽"},
    "delta_conflicts": {
        "en": "shared-memory bank conflicts (ld+st)",
        "zh": "共享内存 bank 冲突（ld+st）",
    },
    "delta_occupancy": {"en": "achieved occupancy", "zh": "实际占用率"},
    "delta_registers": {"en": "registers per thread", "zh": "每线程寄存器数"},
    "delta_top_stalls": {"en": "top stalls", "zh": "主要停顿原因"},
    # --- 4. failures ----------------------------------------------------------------
    "h_failures": {"en": "A.{k} Variants that failed", "zh": "A.{k} 失败的版本"},
    "col_variant": {"en": "variant", "zh": "版本"},
    "col_message": {"en": "message", "zh": "信息"},
    "col_profile": {"en": "profile", "zh": "采样状态"},
    "col_fix": {"en": "why, and the fix", "zh": "原因与解决办法"},
    "failed_kept": {
        "en": "Kept in the report, out of the ranking.",
        "zh": "保留在报告中，但不参与排名。",
    },
    "unprofiled": {
        "en": "Verified and timed, but without Nsight Compute data (their ncu "
        "metrics, stalls and roofline points are missing from this report):",
        "zh": "已验证并计时，但没有 Nsight Compute 数据（本报告缺少它们的 ncu 指标、"
        "停顿原因和 roofline 数据点）：",
    },
    "unreadable": {
        "en": "Nsight Compute reports that could not be read (their numbers are "
        "missing above):",
        "zh": "无法读取的 Nsight Compute 报告（上文缺少它们的数据）：",
    },
    # --- sanitizer (sections_sanitize.py) -------------------------------------------
    "h_sanitizer": {
        "en": "A.{k} Memory and race checks (compute-sanitizer)",
        "zh": "A.{k} 内存与竞争检查（compute-sanitizer）",
    },
    "sanitizer_intro": {
        "en": "compute-sanitizer {version}: memcheck on every variant that compiled, "
        "racecheck on the variants that use shared memory; one launch each, at the "
        "size in the table (the tools slow kernels down 10-100x).",
        "zh": "compute-sanitizer {version}：对每个编译成功的版本运行 memcheck，对使用"
        "共享内存的版本再运行 racecheck；每个版本只启动一次，规模见下表（这些工具"
        "会让 kernel 慢 10-100 倍）。",
    },
    "sanitizer_marked": {
        "en": "memcheck found errors in {variants}: marked `memcheck_error` and kept "
        "out of the ranking, however fast and however right their output.",
        "zh": "memcheck 在 {variants} 中发现错误：标记为 `memcheck_error`，无论多快、"
        "输出是否正确，都不参与排名。",
    },
    "sanitizer_all_clean": {
        "en": "No memcheck or racecheck error in any of the {n} variants checked.",
        "zh": "检查的 {n} 个版本均未发现 memcheck 或 racecheck 错误。",
    },
    "sanitizer_some_clean": {
        "en": "Only {k} of the {n} variants were checked ({variants}), with no "
        "memcheck or racecheck error; the others have no sanitizer result (see the "
        "table): nothing is known of their memory errors or races.",
        "zh": "{n} 个版本中只检查了 {k} 个（{variants}），未发现 memcheck 或 racecheck "
        "错误；其余版本没有 sanitizer 结果（见表）：其内存错误或竞争情况未知。",
    },
    "sanitizer_off": {
        "en": "The sanitizer stage did not run: it is switched off "
        "(`sanitize.enabled: false` in config.yaml).",
        "zh": "sanitizer 阶段没有运行：已在 config.yaml 中关闭（`sanitize.enabled: "
        "false`）。",
    },
    "sanitizer_unavailable": {
        "en": "The sanitizer did not run on the machine that measured: {why}.",
        "zh": "测量所用的机器上没有运行 sanitizer：{why}。",
    },
    "sanitizer_not_recorded": {
        "en": "The recording holds no sanitizer results for this family: measure on "
        "a GPU (config mode: measure) and record again.",
        "zh": "录制数据中没有本 family 的 sanitizer 结果：请在 GPU 上测量（config "
        "mode: measure）后重新录制。",
    },
    "sanitizer_first": {
        "en": "First findings of `{variant}` ({tool}):",
        "zh": "`{variant}` 的首批发现（{tool}）：",
    },
    "col_memcheck": {"en": "memcheck", "zh": "memcheck"},
    "col_racecheck": {"en": "racecheck", "zh": "racecheck"},
    "col_findings": {"en": "findings", "zh": "发现的问题"},
    "san_clean": {"en": "clean", "zh": "无错误"},
    "san_errors": {"en": "{n} errors", "zh": "{n} 个错误"},
    "san_timeout": {"en": "timed out", "zh": "超时"},
    "san_failed": {"en": "could not run", "zh": "无法运行"},
    "san_no_smem": {
        "en": "not run (no shared memory)",
        "zh": "未运行（未使用共享内存）",
    },
    "san_skipped": {"en": "not run ({status})", "zh": "未运行（{status}）"},
    # --- measurement checks ---------------------------------------------------------
    "h_measurement": {"en": "A.{k} Measurement checks", "zh": "A.{k} 测量检查"},
    "measurement_intro": {
        "en": "Every timing keeps its spread; at profiled sizes ncu's duration of "
        "its single launch is set against the event-timed median (disagreement "
        "beyond {pct:.0f}% is listed below, not averaged away).",
        "zh": "每项计时都保留其离散程度；在采样的规模上，把 ncu 对单次启动测得的时长"
        "与事件计时中位数相互对照（相差超过 {pct:.0f}% 的列在下面，不做平均抹平）。",
    },
    "col_cache": {"en": "cache", "zh": "缓存"},
    "col_event_median": {"en": "event median [us]", "zh": "事件计时中位数 [us]"},
    "col_iqr": {"en": "IQR [us]", "zh": "IQR [us]"},
    "col_cv": {"en": "CV %", "zh": "CV %"},
    "col_reps": {"en": "reps", "zh": "次数"},
    "col_ncu_time": {"en": "ncu [us]", "zh": "ncu [us]"},
    "col_ncu_vs_events": {"en": "ncu vs events %", "zh": "ncu 与事件计时之差 %"},
    "no_disagreement": {
        "en": "No disagreement or unstable sample.",
        "zh": "没有不一致或不稳定的样本。",
    },
    "where": {"en": "`{variant}` at n = {n}", "zh": "`{variant}`（n = {n}）"},
    "ncu_disagrees": {
        "en": "{where}: ncu's `gpu__time_duration.sum` ({ncu:,.2f} us) differs from "
        "the event-timed median ({event:,.2f} us, {cache} cache) by {diff:+.0f}%: "
        "ncu times one launch with its own cache and clock state; compare the two "
        "with care.",
        "zh": "{where}：ncu 的 `gpu__time_duration.sum`（{ncu:,.2f} us）与事件计时"
        "中位数（{event:,.2f} us，{cache} 缓存）相差 {diff:+.0f}%：ncu 只对一次启动"
        "计时，缓存与时钟状态都由它自己决定；比较两者时需谨慎。",
    },
    "unstable": {
        "en": "{where}: unstable samples (CV {cv:.1f}%, {settled} after {reps} "
        "launches).",
        "zh": "{where}：样本不稳定（CV {cv:.1f}%，{reps} 次启动后{settled}）。",
    },
    "settled": {"en": "settled", "zh": "中位数已收敛"},
    "not_settled": {"en": "median did not settle", "zh": "中位数仍未收敛"},
    "throttled": {
        "en": "{where}: NVML reported a power or thermal slowdown.",
        "zh": "{where}：NVML 报告了功耗或温度导致的降频。",
    },
    "shared_gpu": {
        "en": "{where}: measured on a shared GPU (NVML listed other processes before "
        "or after sampling); two kernels at once give wrong numbers.",
        "zh": "{where}：在共享的 GPU 上测量（NVML 在采样前后列出了其他进程）；同时运行"
        "两个 kernel 会得到错误的数字。",
    },
    # --- limitations ----------------------------------------------------------------
    "h_limitations": {"en": "A.{k} Limitations", "zh": "A.{k} 局限性"},
    "lim_cache": {
        "en": "Each timed size says its cache mode: `hot` launches run back to back on "
        "the same buffers (inputs that fit in the L2 stay there), `cold` ones follow "
        "an L2-sized memset; recordings made before the cache setting existed are hot.",
        "zh": "每个计时规模都注明了缓存模式：`hot` 表示在相同的缓冲区上背靠背启动（放得"
        "进 L2 的输入一直留在 L2 中），`cold` 表示每次启动前先做一次 L2 大小的 "
        "memset；缓存设置出现之前的记录都是 hot。",
    },
    "lim_clock_none": {
        "en": "ncu ran with clock control {clock}: the GPU's clocks float with load "
        "and temperature, as in real use; ncu's time and the event-timed median can "
        "differ by a few percent.",
        "zh": "ncu 运行时的时钟控制为 {clock}：GPU 时钟随负载和温度浮动，与实际使用"
        "一致；ncu 的时间与事件计时中位数可能相差几个百分点。",
    },
    "lim_clock_locked": {
        "en": "ncu ran with clock control {clock}: clocks were locked to base, so "
        "ncu times are slower than event times at boost clocks.",
        "zh": "ncu 运行时的时钟控制为 {clock}：时钟被锁定在基础频率，因此 ncu 的时间"
        "比加速频率下的事件计时慢。",
    },
    "lim_one_gpu": {
        "en": "One GPU, one run: variation between GPUs of the same model and between "
        "runs is not measured here beyond each size's interquartile range.",
        "zh": "一块 GPU，一次运行：除每个规模的四分位距外，本报告没有测量同型号 GPU "
        "之间以及多次运行之间的差异。",
    },
    "lim_ideal": {
        "en": "Ideal FLOPs and bytes come from the manifest's formulas; the roofline "
        "puts the ideal FLOPs over the bytes and time ncu measured in one run per "
        "size, so work a variant adds beyond the algorithm's earns it nothing.",
        "zh": "理想 FLOPs 和字节数来自清单中的公式；roofline 用理想 FLOPs 除以 ncu 在每个"
        "规模上一次运行测得的字节数与时间，因此版本在算法之外多做的运算不计入。",
    },
    "lim_stalls": {
        "en": "Stall reasons are averages over all warps of one launch; they show "
        "where warps wait, not which source line made them wait.",
        "zh": "停顿原因是一次启动中所有 warp 的平均值；它们说明 warp 在哪里等待，而"
        "不说明是哪一行源码导致了等待。",
    },
    # --- provenance -----------------------------------------------------------------
    "h_provenance": {"en": "A.{k} Provenance", "zh": "A.{k} 数据来源"},
    "col_item": {"en": "item", "zh": "项目"},
    "col_value": {"en": "value", "zh": "值"},
    "prov_gpu": {"en": "GPU", "zh": "GPU"},
    "prov_driver": {"en": "driver", "zh": "驱动"},
    "prov_cuda": {"en": "CUDA (driver API)", "zh": "CUDA（驱动 API）"},
    "prov_nvcc": {"en": "nvcc", "zh": "nvcc"},
    "prov_ncu": {"en": "ncu", "zh": "ncu"},
    "prov_clock": {"en": "ncu clock control", "zh": "ncu 时钟控制"},
    "prov_set": {"en": "ncu section set", "zh": "ncu section 集合"},
    "prov_git": {"en": "kernels git revision", "zh": "kernels 的 git 版本"},
    "prov_timed": {"en": "timed on", "zh": "计时时间"},
    "prov_profiled": {"en": "profiled on", "zh": "采样时间"},
    "prov_timing_settings": {"en": "timing settings", "zh": "计时设置"},
    "prov_compile_cmd": {"en": "compile command", "zh": "编译命令"},
    "prov_profile_cmd": {"en": "profile command", "zh": "采样命令"},
    "prov_ceilings": {"en": "ceilings", "zh": "性能上限"},
    "not_recorded": {"en": "not recorded", "zh": "未记录"},
    "raw_files_intro": {
        "en": "Raw files behind every number (stage outputs as JSON, Nsight Compute "
        "reports; each JSON names the command that wrote it):",
        "zh": "每个数字背后的原始文件（各阶段输出的 JSON 与 Nsight Compute 报告；每个 "
        "JSON 都记录了生成它的命令）：",
    },
    "col_compile": {"en": "compile", "zh": "编译"},
    "col_verify": {"en": "verify", "zh": "验证"},
    "col_timing": {"en": "timing", "zh": "计时"},
    "col_ncu_reports": {"en": "ncu reports", "zh": "ncu 报告"},
    # --- metric facts of the diagnosis (diagnosis) -----------------------------
    # the brief's note under its table: the roofline regime's rule
    "ladder_regime_note": {
        "en": "The roofline regime places a variant by DRAM, L2 and its FP32 rate "
        "(memory- or compute-bound at 60% of a peak or more, or at 40% or more on the "
        "side of the ridge its ideal intensity is at least 2x away on; latency-bound "
        "otherwise). {variants} are *under the roofs*: below those three lines, while "
        "another unit runs at 60% of its peak or more (the ceiling *limits it now* "
        "names; for atomics on one L2 slice, its time at the slice rate), so "
        "they are bound by that unit's throughput, not by latency; the roofline "
        "alone, in the appendix's *roofline regime* and the figures, calls them "
        "latency-bound.",
        "zh": "roofline 受限类型按 DRAM、L2 与 FP32 速率判断（达到峰值 60% 及以上，或理想"
        "计算强度离 ridge 至少 2 倍、且该侧达到 40% 及以上，为访存或计算受限；否则为延迟受限）。"
        "{variants} 为“低于各 roof”：低于这三条线，但另一个单元达到其峰值的 60% 或以上（对单个 L2 slice 上的原子操作，为按 slice 速率所需的时间）"
        "（即“当前限制因素”所列的上限），因此受该单元的吞吐限制，而非受延迟限制；"
        "仅看 roofline（附录的 *roofline 受限类型* 与各图）则称其为延迟受限。",
    },
    "dram_traffic": {
        "en": "DRAM traffic is {ratio:.2f}x the ideal ({moved:,.1f} MB moved vs "
        "{ideal:,.1f} MB of ideal traffic, the bytes the manifest counts; "
        "`dram__bytes_read.sum` + `dram__bytes_write.sum`): {verdict}.",
        "zh": "DRAM 流量是理想值的 {ratio:.2f}x（实际搬运 {moved:,.1f} MB，manifest "
        "计入的理想流量为 {ideal:,.1f} MB；`dram__bytes_read.sum` + "
        "`dram__bytes_write.sum`）：{verdict}。",
    },
    "dram_absorbed": {
        "en": "the caches absorb the re-reads",
        "zh": "缓存吸收了重复读取",
    },
    "dram_below_ideal": {
        "en": "less than the ideal bytes: part of the data "
        "stays in the L2 (inputs already there, writes not yet written back)",
        "zh": "少于理想流量：部分数据留在 L2 中（输入已在 L2，写入尚未写回）",
    },
    "dram_reread": {
        "en": "data crosses DRAM more than once ({reads:,.1f} MB read, {writes:,.1f} MB "
        "written): re-reads, or write-backs of data written more than once (local "
        "memory, partly written sectors)",
        "zh": "数据不止一次经过 DRAM（读 {reads:,.1f} MB，写 {writes:,.1f} MB）：重复读取，"
        "或多次写入的数据被写回（local memory、部分写入的扇区）",
    },
    "stall_rose": {
        "en": "Stall **{reason}** rose from {x:.2f} to {y:.2f} cycles per issued "
        "instruction (`{metric}`).",
        "zh": "停顿 **{reason}** 从每条发射指令 {x:.2f} 个周期升至 {y:.2f} 个周期"
        "（`{metric}`）。",
    },
    "stall_fell": {
        "en": "Stall **{reason}** fell from {x:.2f} to {y:.2f} cycles per issued "
        "instruction (`{metric}`).",
        "zh": "停顿 **{reason}** 从每条发射指令 {x:.2f} 个周期降至 {y:.2f} 个周期"
        "（`{metric}`）。",
    },
    "conflicts_rose": {
        "en": "Shared-memory bank conflicts {before:,.0f} -> {after:,.0f} ({metric}): "
        "{share:.0f}% of shared-memory wavefronts are conflict replays, {severity}.",
        "zh": "共享内存 bank 冲突 {before:,.0f} -> {after:,.0f}（{metric}）：共享内存"
        "的 wavefront 中有 {share:.0f}% 是冲突重放，{severity}。",
    },
    "conflicts_costly": {
        "en": "threads of a warp hit the same bank and the access is replayed: pad or "
        "swizzle the shared layout",
        "zh": "同一 warp 的线程访问了同一个 bank，访问被重放：应对共享内存布局做 "
        "padding 或 swizzle",
    },
    "conflicts_minor": {
        "en": "a small share, not the main cost here",
        "zh": "占比很小，不是这里的主要开销",
    },
    "conflicts_fell": {
        "en": "Shared-memory bank conflicts {verb}: {before:,.0f} -> {after:,.0f} "
        "({metric}); conflict replays fall from {share_before:.0f}% to "
        "{share_after:.0f}% of shared-memory wavefronts.",
        "zh": "共享内存 bank 冲突{verb}：{before:,.0f} -> {after:,.0f}（{metric}）；"
        "冲突重放在共享内存 wavefront 中的占比从 {share_before:.0f}% 降到 "
        "{share_after:.0f}%。",
    },
    "conflicts_removed": {"en": "removed", "zh": "已消除"},
    "conflicts_reduced": {"en": "reduced", "zh": "已减少"},
    "sectors_moved": {
        "en": "Global load sectors per request {before:.2f} -> {after:.2f} "
        "(`l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum` / requests): {reading}",
        "zh": "每次全局加载请求的 sector 数 {before:.2f} -> {after:.2f}"
        "（`l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum` / 请求数）：{reading}",
    },
    "sectors_scattered": {
        "en": "more than the 16 sectors even a whole warp's 16-byte loads touch: the "
        "warp's addresses are spread out, so each request fetches sectors it uses only "
        "in part (L1 may serve the rest to a later request).",
        "zh": "超过整个 warp 做 16 字节加载时所需的 16 个 sector：warp 的地址分散，"
        "每次请求取回的 sector 只用到一部分（其余部分或许由 L1 供给后续请求）。",
    },
    "sectors_sparse": {
        "en": "fewer than the 4 sectors of a warp's 32 coalesced 4-byte loads: lanes "
        "sit idle or share addresses.",
        "zh": "少于一个 warp 32 个合并 4 字节加载所需的 4 个 sector：有 lane 空闲或"
        "共享地址。",
    },
    "sectors_dense": {
        "en": "between the 4 sectors of a warp's coalesced 4-byte loads and the 16 of "
        "its 16-byte loads: wider loads, or 4-byte loads spread over more sectors.",
        "zh": "介于一个 warp 合并 4 字节加载的 4 个 sector 与 16 字节加载的 16 个之间："
        "加载更宽，或 4 字节加载分布在更多 sector 上。",
    },
    "dram_moved": {
        "en": "DRAM bytes {before:,.1f} MB -> {after:,.1f} MB.",
        "zh": "DRAM 字节数 {before:,.1f} MB -> {after:,.1f} MB。",
    },
    "occupancy_moved_main": {
        "en": "Achieved occupancy of the main kernel (`{k0}` -> `{k1}`) {before:.0f}% "
        "-> {after:.0f}% (`sm__warps_active.avg.pct_of_peak_sustained_active`).",
        "zh": "主 kernel（`{k0}` -> `{k1}`）的实际占用率 {before:.0f}% -> {after:.0f}%"
        "（`sm__warps_active.avg.pct_of_peak_sustained_active`）。",
    },
    "delta_occupancy_main": {
        "en": "achieved occupancy of the main kernel (`{k0}` -> `{k1}`)",
        "zh": "主 kernel（`{k0}` -> `{k1}`）的实际占用率",
    },
    "occupancy_moved": {
        "en": "Achieved occupancy {before:.0f}% -> {after:.0f}% "
        "(`sm__warps_active.avg.pct_of_peak_sustained_active`).",
        "zh": "实际占用率 {before:.0f}% -> {after:.0f}%"
        "（`sm__warps_active.avg.pct_of_peak_sustained_active`）。",
    },
    "registers_moved": {
        "en": "Registers per thread {before:.0f} -> {after:.0f}.",
        "zh": "每线程寄存器数 {before:.0f} -> {after:.0f}。",
    },
    "occupancy_capped": {
        "en": "Theoretical occupancy {theoretical:.0f}% is capped by {limiter} "
        "({blocks:.0f} blocks per SM, `{metric}`).",
        "zh": "理论占用率 {theoretical:.0f}% 受限于{limiter}（每个 SM {blocks:.0f} 个 "
        "block，`{metric}`）。",
    },
    "limiter_registers": {"en": "registers per thread", "zh": "每线程寄存器数"},
    "limiter_shared_mem": {
        "en": "shared memory per block",
        "zh": "每个 block 的共享内存",
    },
    "limiter_warps": {
        "en": "block size (warps per SM)",
        "zh": "线程块大小（每个 SM 的 warp 数）",
    },
    "limiter_blocks": {"en": "blocks per SM", "zh": "每个 SM 的 block 数"},
    "spills": {
        "en": "Register spills: {stores} bytes stored and {loads} bytes loaded per "
        "thread (ptxas), {registers} registers: spilled values go through local "
        "memory; reduce live values or relax __launch_bounds__.",
        "zh": "寄存器溢出：每线程写出 {stores} 字节、读回 {loads} 字节（ptxas），"
        "{registers} 个寄存器：溢出的值经 local memory 存取；应减少同时存活的值或放宽 "
        "__launch_bounds__。",
    },
    "spills_free": {
        "en": "Register spills: {stores} bytes stored and {loads} bytes loaded per "
        "thread (ptxas), {registers} registers, under the {cap} {allowed}: no register "
        "cap forces them, so relaxing one cannot remove them; reduce the values live "
        "at once, or index local arrays only with constants.",
        "zh": "寄存器溢出：每线程写出 {stores} 字节、读回 {loads} 字节（ptxas），"
        "{registers} 个寄存器，低于{allowed}的 {cap} 个：没有寄存器上限迫使溢出，"
        "放宽上限也无法消除；应减少同时存活的值，或只用常量下标访问局部数组。",
    },
    "spill_cap_bounds": {
        "en": "its `{bounds}` allows at {threads:,} threads per block",
        "zh": "其 `{bounds}` 在每 block {threads:,} 个线程时所允许",
    },
    "spill_cap_none": {
        "en": "a thread may have (it sets no `__launch_bounds__`)",
        "zh": "每线程最多可用（未设 `__launch_bounds__`）",
    },
    "rule_new": {
        "en": "New ncu finding **{rule}** (estimated speedup {pct}).",
        "zh": "新的 ncu 发现 **{rule}**（估计加速：{pct}）。",
    },
    "rule_gone": {
        "en": "ncu finding **{rule}** of `{before}` is gone (it estimated {pct}).",
        "zh": "`{before}` 的 ncu 发现 **{rule}** 已消失（它曾估计加速：{pct}）。",
    },
    "rule_moved": {
        "en": "ncu **{rule}** estimated speedup {before:.0f}% -> {after:.0f}%.",
        "zh": "ncu **{rule}** 估计加速 {before:.0f}% -> {after:.0f}%。",
    },
    "up_to_pct": {"en": "up to {pct:.0f}%", "zh": "最多 {pct:.0f}%"},
    # --- PDF --------------------------------------------------------------------------
    # page N only: "of M" (<pdf:pagecount />) makes xhtml2pdf lay the document out
    # twice, a third of the PDF stage's time
    "pdf_page": {"en": "page {page}", "zh": "第 {page} 页"},
}
