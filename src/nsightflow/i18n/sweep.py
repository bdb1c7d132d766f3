# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The sweep section's messages, merged into :data:`nsightflow.i18n.CATALOGUE`.

Data only, in the catalogue's form: key -> language -> template (see
:mod:`nsightflow.i18n.catalogue` for the key prefixes).
"""

SWEEP_MESSAGES: dict[str, dict[str, str]] = {
    "h_sweep": {
        "en": "Parameter sweeps: each variant at its best configuration",
        "zh": "参数扫描：每个版本取其最佳配置",
    },
    "sweep_intro": {
        "en": "Variants that declare tunable parameters were compiled at every "
        "configuration of their {space} space (CPU jobs in parallel), verified at a "
        "small size and timed at n = {sizes} in one GPU process per variant "
        "(search: {strategy}), on {gpu} ({date}). A configuration's time is the "
        "median at each size; configurations are ranked by the geometric mean of "
        "those medians over the sizes. **Every other section of this report measures "
        "each swept variant at its best configuration.**",
        "zh": "声明了可调参数的版本，在其 {space} 参数空间的每个配置上编译（CPU 并行），"
        "先在小规模上验证正确性，再在 n = {sizes} 下于每个版本一个 GPU 进程中计时"
        "（搜索方式：{strategy}），平台 {gpu}（{date}）。每个配置的时间取各规模下的中位数；"
        "配置按这些中位数在各规模上的几何平均排序。**本报告其余各节均在每个被扫描版本的"
        "最佳配置下测量。**",
    },
    "sweep_space_quick": {
        "en": "quick (the manifest's `quick` values)",
        "zh": "quick（manifest 中的 `quick` 取值）",
    },
    "sweep_space_full": {"en": "full", "zh": "full（全部取值）"},
    "sweep_strategy_exhaustive": {
        "en": "exhaustive",
        "zh": "穷举",
    },
    "sweep_strategy_kt": {
        "en": "Kernel Tuner's {name} strategy, at most {limit} configurations",
        "zh": "Kernel Tuner 的 {name} 策略，最多 {limit} 个配置",
    },
    "h_sweep_variant": {
        "en": "`{variant}`: {n} configurations",
        "zh": "`{variant}`：{n} 个配置",
    },
    "sweep_spread": {
        "en": "Best `{best}`: {rate} at n = {n}. Time (geometric mean of the "
        "medians over n = {sizes}): best {best_us}, median {median_us}, worst "
        "{worst_us}; the worst configuration takes **{worst_ratio:.2f}x** the best's "
        "time and the default `{default}` **{default_ratio:.2f}x**.",
        "zh": "最佳配置 `{best}`：n = {n} 时 {rate}。时间（各规模 n = {sizes} 中位数的"
        "几何平均）：最佳 {best_us}，中位 {median_us}，最差 {worst_us}；最差配置耗时为最佳"
        "的 **{worst_ratio:.2f} 倍**，默认配置 `{default}` 为 **{default_ratio:.2f} 倍**。",
    },
    "sweep_fastest_at_key": {
        "en": "At n = {n}, the size the other sections compare at, `{config}` is "
        "faster: {us:,.1f} against {best_us:,.1f} us.",
        "zh": "在其他各节比较所用的 n = {n} 下，`{config}` 更快：{us:,.1f} 对 "
        "{best_us:,.1f} us。",
    },
    "sweep_tie_at_key": {
        "en": "At n = {n}, the size the other sections compare at, `{config}` takes "
        "{us:,.1f} against {best_us:,.1f} us: within 2%, the same time.",
        "zh": "在其他各节比较所用的 n = {n} 下，`{config}` 耗时 {us:,.1f} us，最佳配置 "
        "{best_us:,.1f} us：相差在 2% 以内，视为相同。",
    },
    "sweep_default_best": {
        "en": "The hand-picked default is the best configuration, or within 2% of "
        "it (default / best = {ratio:.3f}): tuning these parameters gains nothing "
        "measurable here.",
        "zh": "手工选定的默认配置就是最佳配置，或与之相差在 2% 以内（默认 / 最佳 = "
        "{ratio:.3f}）：在此调这些参数没有可测量的收益。",
    },
    "sweep_default_gain": {
        "en": "Tuning pays: the best configuration is {gain:.1f}% faster than the "
        "hand-picked default (default / best = {ratio:.3f}, above the 2% a timing "
        "can move by noise).",
        "zh": "调参有收益：最佳配置比手工选定的默认配置快 {gain:.1f}%（默认 / 最佳 = "
        "{ratio:.3f}，超过计时噪声可能造成的 2%）。",
    },
    "sweep_no_default": {
        "en": "The default configuration has no time in this sweep, so the gain "
        "over it is unknown.",
        "zh": "默认配置在本次扫描中没有计时结果，因此无法给出相对它的收益。",
    },
    "sweep_rate_compute": {
        "en": "{gflops:,.0f} GFLOP/s ({pct:.1f}% of the measured FP32 peak{vendor})",
        "zh": "{gflops:,.0f} GFLOP/s（实测 FP32 峰值的 {pct:.1f}%{vendor}）",
    },
    "sweep_rate_vendor": {
        "en": ", {pct:.1f}% of cuBLAS",
        "zh": "，cuBLAS 的 {pct:.1f}%",
    },
    "sweep_rate_memory": {
        "en": "{gbps:,.0f} GB/s ({pct:.1f}% of the measured copy bandwidth)",
        "zh": "{gbps:,.0f} GB/s（实测拷贝带宽的 {pct:.1f}%）",
    },
    "sweep_rate_time": {"en": "{us}", "zh": "{us}"},
    "sweep_cost": {
        "en": "Cost: {compile} s compiling on the CPU, {wall} s on the GPU "
        "({per_config} s per configuration run). Results taken from the cache of an "
        "earlier, interrupted sweep: {resumed}; restarts of the GPU process after a "
        "configuration that killed it: {restarts}.",
        "zh": "开销：CPU 上编译 {compile} s，GPU 上 {wall} s（每个运行的配置 {per_config} s）。"
        "取自之前中断的扫描缓存的结果：{resumed} 个；因某个配置导致进程退出而重启 GPU 进程："
        "{restarts} 次。",
    },
    "fig_sweep": {
        "en": "time of `{variant}` over two parameters, the others at the best's values",
        "zh": "`{variant}` 在两个参数上的耗时，其余参数取最佳配置的值",
    },
    "sweep_top": {
        "en": "The fastest configurations:",
        "zh": "最快的几个配置：",
    },
    "sweep_invalid": {
        "en": "{k} of {n} configurations have no time, kept with their reason:",
        "zh": "{n} 个配置中有 {k} 个没有计时结果，保留其原因：",
    },
    "sweep_all_valid": {
        "en": "Every configuration compiled, verified and ran.",
        "zh": "所有配置均编译、验证并运行成功。",
    },
    "sweep_not_recorded": {
        "en": "`{variant}`: no sweep in these measurements; it runs at its default "
        "configuration `{config}`.",
        "zh": "`{variant}`：这些测量中没有它的扫描记录；它以默认配置 `{config}` 运行。",
    },
    "sweep_none_valid": {
        "en": "`{variant}`: no configuration compiled, verified and ran ({message}); "
        "it runs at its default configuration.",
        "zh": "`{variant}`：没有任何配置通过编译、验证并运行（{message}）；它以默认配置运行。",
    },
    "sweep_config_note": {
        "en": "Measured at {how} `{config}`.",
        "zh": "测量配置：{how} `{config}`。",
    },
    "sweep_config_best": {
        "en": "its best configuration from the sweep,",
        "zh": "扫描得到的最佳配置",
    },
    "sweep_config_default": {
        "en": "its default configuration (not swept),",
        "zh": "默认配置（未扫描）",
    },
    "col_configuration": {"en": "configuration", "zh": "配置"},
    "col_time_n_us": {"en": "n={n} [us]", "zh": "n={n} [us]"},
    "col_vs_best": {"en": "time / best", "zh": "耗时 / 最佳"},
    "col_reason": {"en": "reason", "zh": "原因"},
    "col_count": {"en": "count", "zh": "数量"},
    "col_examples": {"en": "configurations", "zh": "配置"},
    "col_rate_at": {"en": "rate at n={n}", "zh": "n={n} 时吞吐"},
    "reason_constraint": {
        "en": "a manifest constraint is false",
        "zh": "不满足 manifest 中的约束",
    },
    "reason_too_many_threads": {
        "en": "more than 1,024 threads per block",
        "zh": "每个 block 超过 1,024 个线程",
    },
    "reason_compile_failed": {"en": "nvcc failed", "zh": "nvcc 编译失败"},
    "reason_too_much_shared_memory": {
        "en": "more than 48 KB of shared memory per block",
        "zh": "每个 block 的共享内存超过 48 KB",
    },
    "reason_too_many_registers": {
        "en": "registers x threads over the 64K register file",
        "zh": "寄存器数 x 线程数超过 64K 寄存器文件",
    },
    "reason_launch_failed": {
        "en": "launch failed, crashed or hung",
        "zh": "launch 失败、进程崩溃或挂起",
    },
    "reason_wrong_result": {
        "en": "wrong result at the verify size",
        "zh": "在验证规模下结果错误",
    },
    "reason_size_not_accepted": {
        "en": "does not accept a sweep size",
        "zh": "不支持某个扫描规模",
    },
    "reason_not_run": {
        "en": "not run (budget spent or not chosen by the search)",
        "zh": "未运行（时间预算用尽或搜索未选中）",
    },
}
