# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The messages of ``compare.md`` (``nsightflow compare``), merged into the catalogue.

Data only, in the catalogue's form: key -> language -> template (see
:mod:`nsightflow.i18n.catalogue`). Verdict words (SAME, FASTER, SLOWER,
UNCERTAIN, INVALID) stay in English in both languages: they are the values of compare.csv.
"""

_FIELDS: dict[str, tuple[str, str]] = {
    "gpu": ("GPU", "GPU"),
    "driver": ("driver", "驱动"),
    "cuda_driver": ("CUDA (driver)", "CUDA（驱动）"),
    "nvcc": ("nvcc", "nvcc"),
    "ncu": ("ncu", "ncu"),
    "clock_control": ("ncu clock control", "ncu 时钟控制"),
    "ncu_set": ("ncu set", "ncu 指标集"),
    "ncu_sections": ("ncu sections", "ncu sections"),
    "sm_clock_mhz": ("SM clock before timing [MHz]", "计时前 SM 时钟 [MHz]"),
    "mem_clock_mhz": ("memory clock before timing [MHz]", "计时前显存时钟 [MHz]"),
    "kernels_git": ("kernels revision", "kernels 版本"),
    "timing_settings": ("timing settings", "计时设置"),
    "replayed": ("replayed from a recording", "从记录回放"),
    "date": ("date", "日期"),
    "host": ("host", "主机"),
}

COMPARE_MESSAGES: dict[str, dict[str, str]] = {
    **{f"cmp_field_{k}": {"en": en, "zh": zh} for k, (en, zh) in _FIELDS.items()},
    "h_cmp": {
        "en": "Comparison of two runs: B against A",
        "zh": "两次运行对比：B 相对于 A",
    },
    "cmp_run": {
        "en": "{path}: {kind}, {gpu}, {date}, families: {families}",
        "zh": "{path}：{kind}，{gpu}，{date}，family 数：{families}",
    },
    "cmp_kind_recording": {"en": "a recording", "zh": "记录"},
    "cmp_kind_history": {"en": "a kept earlier run", "zh": "保存的历史运行"},
    "cmp_kind_results": {"en": "a results folder", "zh": "results 目录"},
    "cmp_no_pairs": {
        "en": "**No variant was timed at the same size in both runs**: nothing to compare.",
        "zh": "**没有任何版本在两次运行中以相同规模计时**：无可对比。",
    },
    "cmp_summary": {
        "en": "**{n} pairs** (variant x size, timed in both): **{same} SAME, {faster} "
        "FASTER, {slower} SLOWER, {uncertain} UNCERTAIN** (B against A).",
        "zh": "**{n} 组**（版本 x 规模，两次均计时）：**{same} SAME，{faster} FASTER，"
        "{slower} SLOWER，{uncertain} UNCERTAIN**（B 相对于 A）。",
    },
    "cmp_summary_20": {
        "en": "Of the {n} pairs above {us:.0f} us in both runs, {same} are SAME ({pct:.0f}%).",
        "zh": "两次运行中均超过 {us:.0f} us 的 {n} 组里，{same} 组为 SAME（{pct:.0f}%）。",
    },
    "cmp_threshold": {
        "en": "Threshold per pair: the larger of {floor:.1f}% and the pair's own noise "
        "(the larger relative IQR of its two runs); intervals at {conf:.0f}%.",
        "zh": "每组的阈值：{floor:.1f}% 与该组自身噪声（两次运行中较大的相对 IQR）"
        "二者取大；置信区间为 {conf:.0f}%。",
    },
    "cmp_basis_quartiles": {
        "en": "**{k} of {n} pairs fell back on quartiles**: at least one of their runs "
        "was recorded before the time stage kept its samples, so their intervals come "
        "from the stored quartiles and sample counts (an approximation), not from the "
        "samples.",
        "zh": "**{n} 组中有 {k} 组退回使用四分位数**：其中至少一次运行记录于计时阶段保存"
        "样本之前，因此其置信区间由保存的四分位数和样本数近似得到，而非来自样本本身。",
    },
    "cmp_basis_samples": {
        "en": "Every interval comes from the samples ({resamples:.0f} bootstrap resamples "
        "of each run's median).",
        "zh": "所有置信区间都来自样本（对每次运行的中位数做 {resamples:.0f} 次 bootstrap "
        "重采样）。",
    },
    "cmp_fig": {
        "en": "time in B / time in A per variant and size, with its interval",
        "zh": "各版本各规模的 B 耗时 / A 耗时及其置信区间",
    },
    "h_cmp_changed": {
        "en": "Variants that changed",
        "zh": "发生变化的版本",
    },
    "cmp_all_same": {
        "en": "Every pair is SAME and no variant's code changed.",
        "zh": "所有组均为 SAME，且没有版本的代码发生变化。",
    },
    "cmp_code_unknown_count": {
        "en": "For {k} variants neither run recorded the code nor names a git revision "
        "this checkout has: whether their code changed is not known.",
        "zh": "有 {k} 个版本的两次运行都没有记录代码，也没有本仓库可读取的 git 版本："
        "无法判断其代码是否变化。",
    },
    "cmp_col_a": {"en": "A [us]", "zh": "A [us]"},
    "cmp_col_b": {"en": "B [us]", "zh": "B [us]"},
    "cmp_col_change": {"en": "change", "zh": "变化"},
    "cmp_col_interval": {"en": "95% interval", "zh": "95% 区间"},
    "cmp_col_threshold": {"en": "threshold", "zh": "阈值"},
    "cmp_col_verdict": {"en": "verdict", "zh": "结论"},
    "cmp_col_caveats": {"en": "caveats", "zh": "注意"},
    "cmp_col_counter": {"en": "counter", "zh": "计数器"},
    "cmp_col_family": {"en": "family", "zh": "family"},
    "cmp_col_variant": {"en": "variant", "zh": "版本"},
    "cmp_col_field": {"en": "measured with", "zh": "测量条件"},
    "cmp_col_changed": {"en": "changed", "zh": "有变化"},
    "cmp_col_ceiling": {"en": "ceiling", "zh": "上限"},
    "cmp_col_pct_a": {"en": "% of A's ceiling", "zh": "占 A 上限的百分比"},
    "cmp_col_pct_b": {"en": "% of B's ceiling", "zh": "占 B 上限的百分比"},
    "cmp_yes": {"en": "yes", "zh": "是"},
    "cmp_caveat_cache": {
        "en": "L2 flushed in one run only",
        "zh": "仅一次运行在两次 launch 之间清空了 L2",
    },
    "cmp_caveat_shared_gpu_a": {
        "en": "other processes on A's GPU",
        "zh": "A 的 GPU 上有其他进程",
    },
    "cmp_caveat_shared_gpu_b": {
        "en": "other processes on B's GPU",
        "zh": "B 的 GPU 上有其他进程",
    },
    "cmp_caveat_throttled_a": {
        "en": "A's GPU slowed itself down",
        "zh": "A 的 GPU 发生了降频",
    },
    "cmp_caveat_throttled_b": {
        "en": "B's GPU slowed itself down",
        "zh": "B 的 GPU 发生了降频",
    },
    "cmp_caveat_edited_a": {
        "en": "A's samples and stored median disagree (the samples count)",
        "zh": "A 的样本与保存的中位数不一致（以样本为准）",
    },
    "cmp_caveat_edited_b": {
        "en": "B's samples and stored median disagree (the samples count)",
        "zh": "B 的样本与保存的中位数不一致（以样本为准）",
    },
    "cmp_caveat_clock": {
        "en": "SM clocks differ by over 5%",
        "zh": "SM 时钟相差超过 5%",
    },
    "cmp_caveat_config": {
        "en": "another configuration ran on each side",
        "zh": "两次运行的配置不同",
    },
    "cmp_configs": {
        "en": "**Different configurations** ran in {k} variant(s); their verdicts compare "
        "two programs, not one program on two runs: {which}.",
        "zh": "{k} 个变体在两次运行中使用了**不同的配置**，其结论比较的是两个程序，"
        "而不是同一程序的两次运行：{which}。",
    },
    "cmp_config_pair": {
        "en": "{variant}: A ran {a}, B ran {b}",
        "zh": "{variant}：A 运行 {a}，B 运行 {b}",
    },
    "cmp_brief_config": {
        "en": "another configuration ran (A ran {a}, B ran {b})",
        "zh": "运行的配置不同（A 运行 {a}，B 运行 {b}）",
    },
    "cmp_config_unknown": {
        "en": "The configuration of {k} variant(s) is not recorded on one side.",
        "zh": "{k} 个变体有一侧没有记录配置。",
    },
    "cmp_code_changed": {
        "en": "**Code changed** between the runs ({files}):",
        "zh": "两次运行之间**代码有变化**（{files}）：",
    },
    "cmp_code_same": {
        "en": "Code: the same in both runs (kernels revisions {a} and {b}).",
        "zh": "代码：两次运行相同（kernels 版本 {a} 与 {b}）。",
    },
    "cmp_code_unknown": {
        "en": "Code: not known whether it changed (not recorded with the timings, and "
        "no common revision this checkout can read).",
        "zh": "代码：无法判断是否变化（计时结果未记录代码，本仓库也读取不到共同的版本）。",
    },
    "cmp_counters_not_profiled": {
        "en": "Counters: not profiled at any size in both runs.",
        "zh": "计数器：两次运行没有在相同规模下 profile。",
    },
    "cmp_counters_none": {
        "en": "Counters at n = {n}: none moved by {rel:.0f}% or {pp:.0f} points.",
        "zh": "n = {n} 的计数器：没有变化达到 {rel:.0f}% 或 {pp:.0f} 个百分点的。",
    },
    "cmp_counters_at": {
        "en": "Counters that moved at n = {n} (ncu, one launch each), most first:",
        "zh": "n = {n} 时变化的计数器（ncu，各一次 launch），按变化大小排序：",
    },
    "cmp_rule_appeared": {
        "en": "ncu rule {rule} appeared for {kernel} at n = {n}{speedup}",
        "zh": "n = {n} 时 {kernel} 新出现 ncu 规则 {rule}{speedup}",
    },
    "cmp_rule_gone": {
        "en": "ncu rule {rule} went away for {kernel} at n = {n}{speedup}",
        "zh": "n = {n} 时 {kernel} 的 ncu 规则 {rule} 消失{speedup}",
    },
    "cmp_rule_speedup": {
        "en": " (estimated speedup {pct:.0f}%)",
        "zh": "（估计加速 {pct:.0f}%）",
    },
    "h_cmp_status": {"en": "Status changes", "zh": "状态变化"},
    "cmp_status_intro": {
        "en": "Variants whose time-stage status differs between the runs, or that one "
        "run did not time (`absent`):",
        "zh": "两次运行中计时阶段状态不同的版本，或只有一次运行计时的版本（`absent`）：",
    },
    "cmp_unpaired": {
        "en": "Sizes timed in one run only (not compared): {items}.",
        "zh": "只在一次运行中计时的规模（未参与对比）：{items}。",
    },
    "h_cmp_provenance": {
        "en": "What each run was measured with",
        "zh": "两次运行的测量条件",
    },
    "cmp_provenance_by_family": {
        "en": "Differing between families (A -> B where the run changed it):",
        "zh": "各 family 之间不同的条件（有变化的写作 A -> B）：",
    },
    "cmp_caveats_summary": {
        "en": "**{k} pairs were not timed alike** in both runs, so their verdicts "
        "reflect the setting as well as the code: {which}. Each is marked in its table.",
        "zh": "**有 {k} 组在两次运行中的计时条件不同**，其结论同时反映了条件与代码的变化："
        "{which}。各组在表中已标出。",
    },
    "h_cmp_gpus": {"en": "Across GPUs", "zh": "跨 GPU 对比"},
    "cmp_gpus_intro": {
        "en": "The runs used different GPUs. At each family's largest size, beside the "
        "ratio of times, each variant's share of its own GPU's measured ceiling (the one "
        "it comes closest to in A): equal shares mean the ladder has the same shape on "
        "both GPUs. compare.csv has them at every size.",
        "zh": "两次运行使用了不同的 GPU。下表在每个 family 的最大规模下，除耗时之比外，给出"
        "每个版本占其所在 GPU 实测上限的比例（取其在 A 中最接近的那个上限）：比例相同说明"
        "优化阶梯在两块 GPU 上形状一致。compare.csv 含所有规模的数据。",
    },
    "cmp_ceiling_copy": {"en": "copy bandwidth", "zh": "拷贝带宽"},
    "cmp_ceiling_fp32": {"en": "FP32 rate", "zh": "FP32 算力"},
    "h_cmp_all": {"en": "All pairs", "zh": "全部对比"},
    "cmp_all_intro": {
        "en": "Change of the median time from A to B at each size; `=` marks SAME.",
        "zh": "各规模下中位耗时从 A 到 B 的变化；`=` 表示 SAME。",
    },
    "h_cmp_method": {"en": "Method", "zh": "方法"},
    "cmp_invalid_count": {
        "en": "**{k} pairs INVALID**: a timing of A or B was refused as it was read "
        "(listed under *{section}*); they are not compared.",
        "zh": "**{k} 组 INVALID**：A 或 B 的计时在读取时被拒绝（见“{section}”），"
        "不参与对比。",
    },
    "h_cmp_invalid": {"en": "Pairs that cannot be compared", "zh": "无法对比的组"},
    "cmp_invalid_intro": {
        "en": "Each timing below breaks the shape its file must have (a time that is "
        "not a finite, positive duration, a size that is not a size or is repeated, a "
        "row without a size) or sits under another variant's name; the message names "
        "the file and the field.",
        "zh": "以下计时不符合其文件应有的格式（耗时不是有限的正时长、规模不是合法规模或重复、"
        "行缺少规模），或放在了另一个版本的名下；消息指出文件与字段。",
    },
    "cmp_col_run": {"en": "run", "zh": "运行"},
    "cmp_col_problem": {"en": "why", "zh": "原因"},
    "cmp_every_size": {"en": "?", "zh": "?"},
    "cmp_method_ratio": {
        "en": "Each pair compares the median time in B with that in A (ratio B / A, "
        "above 1: slower). Its interval comes from a percentile bootstrap of the two "
        "medians where both runs kept their samples, else from the quartiles "
        "(standard error of the median 0.93 IQR / sqrt(n), on the log scale).",
        "zh": "每组比较 B 与 A 的中位耗时（比值 B / A，大于 1 表示变慢）。两次运行都保存了"
        "样本时，置信区间来自两个中位数的百分位 bootstrap；否则来自四分位数（中位数标准误 "
        "0.93 IQR / sqrt(n)，在对数尺度上）。",
    },
    "cmp_method_verdict": {
        "en": "Verdict against the threshold t (the larger of {floor:.1f}% and the "
        "pair's relative IQR): SAME when the whole interval lies within 1/(1+t) .. "
        "1+t, SLOWER when it lies above 1+t, FASTER below 1/(1+t), UNCERTAIN when it "
        "crosses either bound. {floor:.1f}% sits above the largest drift seen between "
        "two recorded H200 runs of unchanged kernels (2.6%); `--min` sets it.",
        "zh": "按阈值 t（{floor:.1f}% 与该组相对 IQR 二者取大）下结论：整个区间落在 "
        "1/(1+t) .. 1+t 之内为 SAME，高于 1+t 为 SLOWER，低于 1/(1+t) 为 FASTER，跨越任一"
        "边界为 UNCERTAIN。{floor:.1f}% 高于两次记录的 H200 运行中未改动 kernel 的最大漂移"
        "（2.6%）；可用 `--min` 设置。",
    },
    "cmp_method_counters": {
        "en": "Counters are listed where both runs profiled the variant at that size "
        "and the counter moved by at least {rel:.0f}% (counts) or {pp:.0f} points "
        "(shares: stall reasons as a share of all stall cycles, occupancy, hit rate).",
        "zh": "只列出两次运行都在该规模下 profile 过、且变化至少 {rel:.0f}%（计数）或 "
        "{pp:.0f} 个百分点（占比：各 stall 原因占全部 stall 周期的比例、occupancy、"
        "命中率）的计数器。",
    },
}

# The first screen (:mod:`nsightflow.report.compare_brief`): what changed, and why.
COMPARE_MESSAGES.update(
    {
        "h_cmp_brief": {"en": "What changed, and why", "zh": "有何变化及原因"},
        "cmp_brief_intro": {
            "en": "**{k} variants changed**; {same} of {n} pairs (variant x size) are "
            "SAME. Largest change first; the tables per pair follow below.",
            "zh": "**{k} 个版本有变化**；{n} 组（版本 x 规模）中 {same} 组为 SAME。"
            "按变化从大到小列出；各组的表格见下文。",
        },
        "cmp_brief_nothing": {
            "en": "**Nothing changed**: all {n} pairs (variant x size) are SAME, no "
            "variant's code or status changed.",
            "zh": "**没有变化**：全部 {n} 组（版本 x 规模）均为 SAME，没有版本的代码或状态"
            "发生变化。",
        },
        "cmp_brief_more": {
            "en": "and {k} more, each in its section below",
            "zh": "另有 {k} 个，见下文各自的小节",
        },
        "cmp_brief_change": {
            "en": "{change} at n = {n} ({verdict} at {k} of {sizes} sizes)",
            "zh": "n = {n} 时：{change}（{sizes} 个规模中 {k} 个为 {verdict}）",
        },
        "cmp_brief_x_slower": {"en": "{x:.1f}x slower", "zh": "慢 {x:.1f} 倍"},
        "cmp_brief_x_faster": {"en": "{x:.1f}x faster", "zh": "快 {x:.1f} 倍"},
        "cmp_brief_status": {"en": "status {a} -> {b}", "zh": "状态 {a} -> {b}"},
        "cmp_brief_not_paired": {
            "en": "not timed at a common size",
            "zh": "没有在相同规模下计时",
        },
        "cmp_brief_line": {
            "en": "**{name}**: {what}. Why: {why}.",
            "zh": "**{name}**：{what}。原因：{why}。",
        },
        "cmp_brief_and": {"en": "; ", "zh": "；"},
        "cmp_brief_list": {"en": ", ", "zh": "、"},
        "cmp_brief_code": {
            "en": "the code changed ({files})",
            "zh": "代码有变化（{files}）",
        },
        "cmp_brief_counters": {
            "en": "at n = {n} {moves}",
            "zh": "n = {n} 时：{moves}",
        },
        "cmp_brief_rules_new": {
            "en": "ncu rules appeared: {rules}",
            "zh": "新出现的 ncu 规则：{rules}",
        },
        "cmp_brief_rules_gone": {
            "en": "ncu rules went away: {rules}",
            "zh": "消失的 ncu 规则：{rules}",
        },
        "cmp_brief_unlike": {
            "en": "the runs were not timed alike ({which})",
            "zh": "两次运行的计时条件不同（{which}）",
        },
        "cmp_brief_unexplained": {
            "en": "nothing the runs recorded explains it (same code, no counter moved, "
            "timed alike): see what each run was measured with",
            "zh": "两次运行的记录都无法解释（代码相同、计数器无变化、计时条件相同）："
            "请查看两次运行的测量条件",
        },
    }
)
