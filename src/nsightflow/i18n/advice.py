# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The words of "what next": suggestions, their changes in the kernel's terms, scores.

Data only, in the catalogue's form (key -> language -> template), merged into
:data:`nsightflow.i18n.catalogue.CATALOGUE`. The fields are filled by
:mod:`nsightflow.diagnosis.suggest` and :mod:`nsightflow.diagnosis.advice_rows`
(findings.csv section ``advice``) and by the brief.
"""

ADVICE_MESSAGES: dict[str, dict[str, str]] = {
    # --- one suggestion -------------------------------------------------------------
    "gain_up_to": {"en": "up to {gain:.2f}x", "zh": "至多 {gain:.2f}x"},
    "gain_about": {
        "en": "about {gain:.2f}x, the launch without this cause's share (not a bound: "
        "the floor allows up to {cap:.2f}x)",
        "zh": "约 {gain:.2f}x，即去掉该原因所占的份额（并非上限：下限允许至多 "
        "{cap:.2f}x）",
    },
    "gain_idle": {
        "en": "at most {gain:.2f}x, its issue slots busy every cycle (the floor "
        "allows up to {cap:.2f}x)",
        "zh": "至多 {gain:.2f}x，即发射槽每个周期都忙（下限允许至多 {cap:.2f}x）",
    },
    "advice_item": {
        "en": "**{cause}** in `{variant}` at n = {n}: {fix}. Expected gain: "
        "{gain_text} ({time:,.1f} us now; floor {floor:,.1f} us: the ideal time at "
        "the ceiling plus {fixed:,.1f} us of size-independent overhead, {basis}).",
        "zh": "`{variant}` 在 n = {n} 时的**{cause}**：{fix}。预期收益："
        "{gain_text}（当前 {time:,.1f} us；下限 {floor:,.1f} us：达到上限时的理想"
        "时间加 {fixed:,.1f} us 与规模无关的开销，{basis}）。",
    },
    "advice_item_model": {
        "en": "**{cause}** in `{variant}` at n = {n}: {fix}. Expected gain: "
        "{gain_text} ({time:,.1f} us now; floor {floor:,.1f} us: {basis}).",
        "zh": "`{variant}` 在 n = {n} 时的**{cause}**：{fix}。预期收益："
        "{gain_text}（当前 {time:,.1f} us；下限 {floor:,.1f} us：{basis}）。",
    },
    "advice_item_measured_model": {
        "en": "**{cause}** in `{variant}` at n = {n}: {fix}. Expected gain: "
        "{gain_text} ({time:,.1f} us now; floor {floor:,.1f} us: `{by}`'s measured "
        "time at this size, below the {model:,.1f} us of {basis}).",
        "zh": "`{variant}` 在 n = {n} 时的**{cause}**：{fix}。预期收益："
        "{gain_text}（当前 {time:,.1f} us；下限 {floor:,.1f} us：`{by}` 在此规模下的"
        "实测时间，低于{basis}的 {model:,.1f} us）。",
    },
    "advice_item_measured": {
        "en": "**{cause}** in `{variant}` at n = {n}: {fix}. Expected gain: "
        "{gain_text} ({time:,.1f} us now; floor {floor:,.1f} us: `{by}`'s measured "
        "time at this size, below the {model:,.1f} us of the ideal time at the "
        "ceiling plus {fixed:,.1f} us of size-independent overhead, {basis}).",
        "zh": "`{variant}` 在 n = {n} 时的**{cause}**：{fix}。预期收益："
        "{gain_text}（当前 {time:,.1f} us；下限 {floor:,.1f} us：`{by}` 在此规模下的"
        "实测时间，低于达到上限时的理想时间加 {fixed:,.1f} us 与规模无关的开销（{basis}）"
        "的 {model:,.1f} us）。",
    },
    "advice_item_launch": {
        "en": "**{cause}** in `{variant}` at n = {n}: {fix}. Expected gain: "
        "{gain_text} ({time:,.1f} us now; floor {floor:,.1f} us: `{by}`'s measured "
        "time at n = {floor_n}, the least any variant took at the smallest size, which "
        "a launch with more work does not get under; the ideal time at the ceiling "
        "plus {fixed:,.1f} us of size-independent overhead, {basis}, is {model:,.1f} "
        "us).",
        "zh": "`{variant}` 在 n = {n} 时的**{cause}**：{fix}。预期收益："
        "{gain_text}（当前 {time:,.1f} us；下限 {floor:,.1f} us：`{by}` 在 n = "
        "{floor_n} 时的实测时间，即最小规模下各版本的最短时间，工作量更大的启动不会更快；"
        "达到上限时的理想时间加 {fixed:,.1f} us 与规模无关的开销（{basis}）为 "
        "{model:,.1f} us）。",
    },
    "advice_item_library": {
        "en": "**{cause}** in `{variant}` at n = {n}: {fix}. Expected gain: "
        "{gain_text} ({time:,.1f} us now; floor {floor:,.1f} us: `{by}`'s measured "
        "time at this size, the ceiling here).",
        "zh": "`{variant}` 在 n = {n} 时的**{cause}**：{fix}。预期收益："
        "{gain_text}（当前 {time:,.1f} us；下限 {floor:,.1f} us：`{by}` 在此规模下的"
        "实测时间，即此处的上限）。",
    },
    "advice_item_sweeps": {
        "en": "**{cause}** in `{variant}` at n = {n}: {fix}. Expected gain per sweep: "
        "{gain_text} ({time:,.1f} us now; floor {floor:,.1f} us: half the "
        "transfer at the measured copy bandwidth, or the FP32 time if longer, plus "
        "{fixed:,.1f} us of size-independent overhead, {basis}).",
        "zh": "`{variant}` 在 n = {n} 时的**{cause}**：{fix}。每次迭代的预期收益："
        "{gain_text}（当前 {time:,.1f} us；下限 {floor:,.1f} us：按实测拷贝带宽的一半"
        "传输时间，或更长的 FP32 时间，加 {fixed:,.1f} us 与规模无关的开销，{basis}）。",
    },
    "advice_fix_sweeps": {
        "en": "the {mb:,.0f} MB a sweep reads and writes do not fit in the "
        "{l2_mb:,.0f} MB L2, so every sweep streams them through DRAM, here at "
        "{pct:.0f}% of the copy bandwidth; where "
        "the sweep is repeated on its own output, fuse {sweeps} sweeps per pass "
        "(temporal blocking: each block computes {sweeps} time steps on its tile with "
        "a {sweeps}-point halo kept on chip), which moves 1/{sweeps} of the DRAM bytes "
        "per sweep",
        "zh": "每次迭代读写的 {mb:,.0f} MB 放不进 {l2_mb:,.0f} MB 的 L2，每次迭代都要经 "
        "DRAM 读写，此处已达拷贝带宽的 {pct:.0f}%；若该迭代在自身输出上重复进行，"
        "可每遍融合 {sweeps} 次迭代（时间分块：每个 block 在其 tile 上计算 {sweeps} "
        "个时间步，{sweeps} 点宽的 halo 留在片上），每次迭代的 DRAM 字节数降为 "
        "1/{sweeps}",
    },
    "mech_temporal_blocking": {
        "en": "One sweep per pass through DRAM",
        "zh": "每遍只做一次迭代、经由 DRAM",
    },
    "advice_plain": {"en": "{text}", "zh": "{text}"},
    "advice_also": {
        "en": " The same change helps at n = {sizes}.",
        "zh": "同样的改动在 n = {sizes} 时也有帮助。",
    },
    "advice_size": {
        "en": "{n} (up to {gain:.2f}x)",
        "zh": "{n}（至多 {gain:.2f}x）",
    },
    "advice_tile": {
        "en": "smaller tiles at this size (BM x BN = {bm} x {bn} now)",
        "zh": "在此规模下使用更小的 tile（当前 BM x BN = {bm} x {bn}）",
    },
    "advice_tile_none": {
        "en": "smaller blocks or less work per block at this size",
        "zh": "在此规模下使用更小的 block 或减少每个 block 的工作",
    },
    "advice_fix_grid": {
        "en": "the grid has {blocks} blocks for {sms} SMs ({idle}% of the SMs get "
        "none): {tile}, so that every SM has a block",
        "zh": "grid 只有 {blocks} 个 block，而 GPU 有 {sms} 个 SM（{idle}% 的 SM 没有 "
        "block）：{tile}，让每个 SM 都有 block",
    },
    "advice_fix_grid_k": {
        "en": "the grid has {blocks} blocks for {sms} SMs ({idle}% of the SMs get "
        "none): {tile}, or split the k loop across blocks (split-K: each block sums "
        "a slice of k, then one atomicAdd per output or a second pass adds the "
        "slices)",
        "zh": "grid 只有 {blocks} 个 block，而 GPU 有 {sms} 个 SM（{idle}% 的 SM 没有 "
        "block）：{tile}，或把 k 循环拆到多个 block（split-K：每个 block 累加 k 的一段，"
        "再对每个输出做一次 atomicAdd 或用第二遍相加）",
    },
    "advice_fix_local_array": {
        "en": "its local memory is an array indexed at run time (a {frame}-byte "
        "stack frame and no spill bytes: a local array, not a register spill): index "
        "it with compile-time constants (fully unrolled loops) or keep it in shared "
        "memory",
        "zh": "它的本地内存是一个运行时下标访问的数组（{frame} 字节栈帧、没有溢出字节："
        "是本地数组，不是寄存器溢出）：用编译期常量下标（完全展开的循环）访问，或放到"
        "共享内存",
    },
    "advice_fix_atomics": {
        "en": "fewer atomics on the hot address: aggregate per warp (a shuffle "
        "reduction) or per block (shared memory) and issue one atomic per block, or "
        "privatize the target and merge the copies once",
        "zh": "减少热点地址上的原子操作：按 warp（shuffle 归约）或按 block（共享内存）"
        "先聚合，每个 block 只发一次原子操作，或把目标私有化后一次合并",
    },
    "atomic_unit_warp": {"en": "warp", "zh": "warp"},
    "atomic_unit_block": {"en": "block", "zh": "block"},
    "advice_fix_atomics_per_block": {
        "en": "it already adds once per block ({per:.1f} L2 atomic sectors per "
        "block: ncu counts an atomic on one address as 1.5 sectors, one on its "
        "slice), so fewer blocks each summing more elements (a grid-stride loop over "
        "one wave of blocks), or per-block partials summed by a second pass instead "
        "of the atomic",
        "zh": "它已是每个 block 一次原子操作（每 block {per:.1f} 个 L2 原子操作 "
        "sector：ncu 把同一地址上的一次原子操作计为 1.5 个 sector，其中 1 个在其 slice），因此应减少 block 数、让每个 block 求和更多元素（一波 block 的 "
        "grid-stride 循环），或改为各 block 写部分和、由第二个 kernel 求和",
    },
    "advice_fix_atomics_aggregated": {
        "en": "fewer atomics on the hot address, per block or by privatizing the "
        "target: nvcc already sums each warp before its atomic ({how}, then one "
        "`RED` per warp in the SASS), so a warp shuffle changes nothing",
        "zh": "按 block 或通过私有化减少热点地址上的原子操作：nvcc 已在每次原子操作前"
        "对每个 warp 求和（SASS 中先{how}，再每 warp 一条 `RED`），所以 warp "
        "shuffle 不会带来变化",
    },
    "advice_fix_registers": {
        "en": "{registers} registers per thread allow {warps} resident warps per SM: "
        "cap them (`__launch_bounds__`, `-maxrregcount`) or give each thread less "
        "state",
        "zh": "每线程 {registers} 个寄存器只允许每个 SM 驻留 {warps} 个 warp：限制寄存器"
        "（`__launch_bounds__`、`-maxrregcount`）或减少每线程的状态",
    },
    "advice_fix_registers_capped": {
        "en": "{registers} registers per thread allow {warps} resident warps per SM, "
        "under the cap its `{bounds}` already asks of ptxas: what is left is less "
        "state per thread (fewer outputs per thread) or fewer threads per block",
        "zh": "每线程 {registers} 个寄存器只允许每个 SM 驻留 {warps} 个 warp，而其 "
        "`{bounds}` 已向 ptxas 限制了寄存器：剩下的办法是减少每线程的状态（每线程更少的"
        "输出）或减少每个 block 的线程数",
    },
    "advice_fix_registers_no_minimum": {
        "en": "{registers} registers per thread allow {warps} resident warps per SM; "
        "its `{bounds}` sets no minimum of blocks per SM, so it caps nothing: a "
        "second argument (or `-maxrregcount`) caps them, at the risk of spills, or "
        "give each thread less state",
        "zh": "每线程 {registers} 个寄存器只允许每个 SM 驻留 {warps} 个 warp；其 "
        "`{bounds}` 没有规定每个 SM 的最少 block 数，因此并不限制寄存器：加第二个参数"
        "（或 `-maxrregcount`）可以限制，但可能溢出，或减少每线程的状态",
    },
    "advice_fix_hot_line": {
        "en": "line {line} is an atomic and holds most of the launch's samples: many "
        "atomics on few addresses queue in one L2 slice each; {fix}{model}",
        "zh": "第 {line} 行是原子操作，占了该次启动的大部分采样：大量原子操作集中在少数"
        "地址上，各自在一个 L2 slice 中排队；{fix}{model}",
    },
    "advice_fewer_atomics": {
        "en": "; at {rate}, the {hot:,.0f} atomic sectors of its busiest slice need "
        "{need:,.1f} us, and one atomic per warp leaves {k:.0f}x fewer, removing "
        "{pct:.0f}% of the launch",
        "zh": "；按{rate}计，其最忙 slice 上的 {hot:,.0f} 个原子 sector 需要 "
        "{need:,.1f} us，每 warp 一次原子操作使其减少到 1/{k:.0f}，省去该次启动的 "
        "{pct:.0f}%",
    },
    "advice_fewer_per_block": {
        "en": "; one atomic per block leaves {k:.0f}x fewer on the slice, removing "
        "{pct:.0f}% of the launch",
        "zh": "；每 block 一次原子操作使该 slice 上的原子操作减少到 1/{k:.0f}，省去该次"
        "启动的 {pct:.0f}%",
    },
    "advice_fix_serial_atomics": {
        "en": "each {unit} issues one atomic on one address: {hot:,.0f} of its "
        "{count:,.0f} L2 atomic sectors go to one L2 slice "
        "(`lts__t_sectors_op_atom.max` + `lts__t_sectors_op_red.max`, the most any "
        "slice holds), which executes them one after another; {model}, they need "
        "{least:,.1f} us, {pct:.0f}% of the launch; {fix}{fewer}",
        "zh": "每个 {unit} 在同一地址上发出一次原子操作：{count:,.0f} 个 L2 原子操作 "
        "sector 中有 {hot:,.0f} 个落在同一个 L2 slice（`lts__t_sectors_op_atom.max` + "
        "`lts__t_sectors_op_red.max`，各 slice 中最多），由它逐个执行；{model}，它们需要 {least:,.1f} us，"
        "占该次启动的 {pct:.0f}%；{fix}{fewer}",
    },
    "serial_model_rate": {
        "en": "assuming the slice serves them no faster than {rate}",
        "zh": "假设该 slice 处理它们不快于{rate}",
    },
    "serial_model_clock": {
        "en": "assuming at most one per clock ({ghz:.2f} GHz; no launch of the family "
        "keeps its slice busy enough to measure the rate), so at least",
        "zh": "假设每时钟至多一个（{ghz:.2f} GHz；本族没有使 slice 足够繁忙、可测出速率的"
        "启动），因此至少",
    },
    "mech_hot_atomics": {
        "en": "Atomics that serialize on few addresses",
        "zh": "集中在少数地址上而串行化的原子操作",
    },
    "advice_fix_limit": {
        "en": "what limits it is {cell} of its peak (`{metric}`): {fix}",
        "zh": "限制它的是{cell}（相对峰值，`{metric}`）：{fix}",
    },
    "advice_fix_limit_launch": {
        "en": "what limits it is {cell} of its peak in its longest launch `{kernel}` "
        "(`{metric}`): {fix}",
        "zh": "限制它的是其最长的启动 `{kernel}` 中的{cell}（相对峰值，`{metric}`）：{fix}",
    },
    "advice_fix_vendor_rate": {
        "en": "{fix}; at the vendor library's rate what is left is what the library "
        "does beyond it: a warp tile between the block's and the thread's (each warp "
        "reads its own A and B fragments, CUTLASS's layout), the next k slice's "
        "fragments read from shared memory during the FMAs, or 3xTF32 tensor cores "
        "where the precision allows",
        "zh": "{fix}；已达到厂商库的速率，剩下的是库在此之外所做的：在 block 与线程之间"
        "再加一层 warp tile（每个 warp 读取自己的 A、B 片段，即 CUTLASS 的布局）、在 FMA "
        "期间从共享内存读取下一段 k 的片段，或在精度允许时使用 3xTF32 tensor core",
    },
    "advice_fix_vendor_rate_fp32": {
        "en": "{fix}; near the vendor library's rate what is left is what the "
        "library does beyond it in FP32: a warp tile between the block's and the "
        "thread's (each warp reads its own A and B fragments, CUTLASS's layout), and "
        "the next k slice's fragments read from shared memory during the FMAs",
        "zh": "{fix}；已接近厂商库的速率，剩下的是库在 FP32 下另外所做的：在 block 与线程"
        "之间再加一层 warp tile（每个 warp 读取自己的 A、B 片段，即 CUTLASS 的布局），以及"
        "在 FMA 期间从共享内存读取下一段 k 的片段",
    },
    "advice_fix_vendor_rate_warps_fp32": {
        "en": "{fix}; near the vendor library's rate what is left is what the "
        "library does beyond it in FP32 (its threads are already laid out in warp "
        "tiles): the next k slice's fragments read from shared memory during the FMAs",
        "zh": "{fix}；已接近厂商库的速率（其线程已按 warp tile 排布），剩下的是库在 FP32 下"
        "另外所做的：在 FMA 期间从共享内存读取下一段 k 的片段",
    },
    "advice_fix_vendor_rate_done": {
        "en": "{fix}; near the vendor library's rate, with its threads laid out in "
        "warp tiles and {waits:.2f} cycles per instruction of shared-memory waits "
        "(`short_scoreboard` + `mio_throttle`: no fragment reads left to hide behind "
        "the FMAs), this report names no FP32 change the library makes beyond it",
        "zh": "{fix}；已接近厂商库的速率，其线程已按 warp tile 排布，共享内存等待为每条指令 "
        "{waits:.2f} 个周期（`short_scoreboard` + `mio_throttle`：没有可藏在 FMA 后面的片段"
        "读取），本报告没有可指出的、库在 FP32 下另外所做的改动",
    },
    "advice_fix_one_launch": {
        "en": "one launch instead of {launches}: {kernels}, with fewer blocks than "
        "SMs, only finishes what the main kernel computed, and takes {us:.1f} of the "
        "run's {total:.1f} us under Nsight Compute: {fix}",
        "zh": "用一次启动代替 {launches} 次：{kernels} 的 block 数少于 SM 数，只是收尾主 "
        "kernel 的结果，却占了该次运行 {total:.1f} us 中的 {us:.1f} us（Nsight Compute）："
        "{fix}",
    },
    "advice_fix_shared_tree": {
        "en": "fewer shared-memory steps in its tree, each a barrier and a "
        "shared-memory load and store: sum within each warp with warp shuffles "
        "(`__shfl_down_sync`), then one shared word per warp",
        "zh": "减少其归约树在共享内存中的步数（每步一次屏障和一次共享内存读写）："
        "先用 warp shuffle（`__shfl_down_sync`）在 warp 内求和，再每个 warp 写一个共享内存字",
    },
    "advice_fix_generic": {
        "en": "see this cause's ncu rule in the appendix",
        "zh": "参见附录中该原因对应的 ncu 规则",
    },
    # --- a step scored against the advice before it ---------------------------------
    "advice_score_hit": {
        "en": "`{variant}` (from `{before}`, n = {n}): its primary change, {cause}, "
        "was suggestion {rank} for `{before}`, predicted {predicted:.2f}x; "
        "achieved {achieved:.2f}x.",
        "zh": "`{variant}`（从 `{before}`，n = {n}）：其主要变化{cause}是对 `{before}` "
        "的第 {rank} 条建议，预测 {predicted:.2f}x；实际 {achieved:.2f}x。",
    },
    "advice_score_via": {
        "en": "`{variant}` (from `{before}`, n = {n}): its primary change, {cause}, "
        "carries out suggestion {rank} for `{before}`, {suggestion}, whose remedy "
        "names it; predicted {predicted:.2f}x, achieved {achieved:.2f}x.",
        "zh": "`{variant}`（从 `{before}`，n = {n}）：其主要变化{cause}落实了对 `{before}` "
        "的第 {rank} 条建议{suggestion}（其改进方向即此）；预测 {predicted:.2f}x，"
        "实际 {achieved:.2f}x。",
    },
    "advice_score_miss": {
        "en": "`{variant}` (from `{before}`, n = {n}): its primary change, {cause}, "
        "was not among the suggestions for `{before}`; achieved {achieved:.2f}x.",
        "zh": "`{variant}`（从 `{before}`，n = {n}）：其主要变化{cause}不在对 "
        "`{before}` 的建议中；实际 {achieved:.2f}x。",
    },
    "advice_score_tried": {
        "en": "`{variant}` (from `{before}`, n = {n}) carried out suggestion {rank} "
        "for `{before}`, {suggestion} ({did}); predicted {predicted:.2f}x, "
        "achieved {achieved:.2f}x.",
        "zh": "`{variant}`（从 `{before}`，n = {n}）落实了对 `{before}` 的第 {rank} 条"
        "建议{suggestion}（{did}）；预测 {predicted:.2f}x，实际 {achieved:.2f}x。",
    },
    "advice_score_tried_failed": {
        "en": "`{variant}` (from `{before}`, n = {n}) carried out suggestion {rank} "
        "for `{before}`, {suggestion} ({did}), and did not pay: predicted "
        "{predicted:.2f}x, achieved {achieved:.2f}x. The change happened and the "
        "time did not improve{now}.",
        "zh": "`{variant}`（从 `{before}`，n = {n}）落实了对 `{before}` 的第 {rank} 条"
        "建议{suggestion}（{did}），但没有收益：预测 {predicted:.2f}x，实际 "
        "{achieved:.2f}x。改动发生了，时间却没有改善{now}。",
    },
    "advice_score_now": {
        "en": ": what limits `{variant}` is {cell}, which the change did not relieve",
        "zh": "：限制 `{variant}` 的是 {cell}，这一改动并未缓解它",
    },
    "advice_score_failed": {
        "en": " Of the steps that did not pay, {failed} carried out a suggestion.",
        "zh": "在没有收益的步骤中，有 {failed} 步落实了建议。",
    },
    "tried_ldg_bits": {
        "en": "its global loads {a:.0f} -> {b:.0f} bits wide in its SASS",
        "zh": "其 SASS 中全局加载宽度 {a:.0f} -> {b:.0f} 位",
    },
    "tried_sectors": {
        "en": "load sectors per request {a:.1f} -> {b:.1f}",
        "zh": "每次加载请求的 sector 数 {a:.1f} -> {b:.1f}",
    },
    "tried_loads": {
        "en": "global loads in its SASS {a:.0f} -> {b:.0f}",
        "zh": "SASS 中的全局加载 {a:.0f} -> {b:.0f} 条",
    },
    "tried_occupancy": {
        "en": "achieved occupancy {a:.0f}% -> {b:.0f}%",
        "zh": "实际占用率 {a:.0f}% -> {b:.0f}%",
    },
    "tried_launches": {
        "en": "kernel launches {a} -> {b}",
        "zh": "kernel 启动 {a} -> {b} 次",
    },
    "tried_shared": {
        "en": "shared-memory loads and stores {a:,.0f} -> {b:,.0f}",
        "zh": "共享内存加载和存储 {a:,.0f} -> {b:,.0f}",
    },
    "tried_atomics": {
        "en": "L2 atomic sectors {a:,.0f} -> {b:,.0f}",
        "zh": "L2 原子 sector {a:,.0f} -> {b:,.0f}",
    },
    "tried_blocks": {
        "en": "blocks {a:,.0f} -> {b:,.0f}",
        "zh": "block 数 {a:,.0f} -> {b:,.0f}",
    },
    "tried_dram": {
        "en": "DRAM bytes {a:.1f} -> {b:.1f} MB",
        "zh": "DRAM 字节 {a:.1f} -> {b:.1f} MB",
    },
    "tried_local": {
        "en": "local-memory sectors {a:,.0f} -> {b:,.0f}",
        "zh": "局部内存 sector {a:,.0f} -> {b:,.0f}",
    },
    "tried_inst": {
        "en": "issued warp instructions {a:,.0f} -> {b:,.0f}",
        "zh": "发射的 warp 指令 {a:,.0f} -> {b:,.0f}",
    },
    "advice_compiler_did": {
        "en": "No change from `{before}` to `{variant}` ({speedup:.2f}x): nvcc had "
        "already summed each warp before its atomic ({how}, then one `RED` per "
        "warp in `{before}`'s SASS), so the {added} `{variant}` adds repeats what "
        "the compiler did.",
        "zh": "从 `{before}` 到 `{variant}` 没有变化（{speedup:.2f}x）：nvcc 已在原子"
        "操作前对每个 warp 求和（`{before}` 的 SASS 中先{how}，再每 warp 一条 "
        "`RED`），所以 `{variant}` 新加的{added}只是重复了编译器所做的事。",
    },
    "compiled_local_array": {
        "en": "`{variant}`'s local memory is an array indexed at run time, not a "
        "register spill: ptxas gives it a {frame}-byte stack frame and {spill} spill "
        "bytes{at}.",
        "zh": "`{variant}` 的 local memory 是运行时下标访问的数组，而不是寄存器溢出："
        "ptxas 为它分配 {frame} 字节栈帧、{spill} 字节溢出{at}。",
    },
    "compiled_spill": {
        "en": "`{variant}`'s local memory is register spills: ptxas reports {spill} "
        "spill bytes and a {frame}-byte stack frame{at}.",
        "zh": "`{variant}` 的 local memory 来自寄存器溢出：ptxas 报告 {spill} 字节溢出、"
        "{frame} 字节栈帧{at}。",
    },
    "compiled_at_line": {
        "en": "; its local loads and stores are at line {line}",
        "zh": "；其 local 加载与存储位于第 {line} 行",
    },
    "compiler_how_redux": {
        "en": "`REDUX.SUM` of the warp's values",
        "zh": "用 `REDUX.SUM` 对 warp 的值求和",
    },
    "compiler_how_popc": {
        "en": "an elected lane adds the `POPC` of the warp's active lanes",
        "zh": "由选出的一个 lane 加上 warp 活动 lane 数的 `POPC`",
    },
    "compiler_added_shuffle": {"en": "warp shuffle", "zh": "warp shuffle"},
    "compiler_added_ballot": {
        "en": "ballot and population count",
        "zh": "ballot 与 popc",
    },
    # --- the brief ------------------------------------------------------------------
    "brief_target": {
        "en": "The library variant `{library}` is the line to reach, not a kernel to "
        "tune: {time} us at n = {n}, {relation}.",
        "zh": "库版本 `{library}` 是要达到的参考线，而不是要调优的 kernel：n = {n} 时 "
        "{time} us，{relation}。",
    },
    "brief_target_beaten": {
        "en": "The library variant `{library}` is a reference line, already beaten: "
        "{time} us at n = {n}, slower than {faster} (`{variant}` by {ratio:.2f}x)"
        "{spread}{gap}.",
        "zh": "库版本 `{library}` 是参考线，且已被超过：n = {n} 时 {time} us，比 "
        "{faster} 慢（`{variant}` 快 {ratio:.2f}x）{spread}{gap}。",
    },
    "brief_target_tied": {
        "en": "The library variant `{library}` is a reference line: {time} us at "
        "n = {n}, slower than {faster} (`{variant}` by {ratio:.2f}x) and within the "
        "timing noise of {tied}{spread}{gap}.",
        "zh": "库版本 `{library}` 是参考线：n = {n} 时 {time} us，比 {faster} 慢"
        "（`{variant}` 快 {ratio:.2f}x），与 {tied} 相差在计时噪声之内{spread}{gap}。",
    },
    "target_main_pass": {
        "en": " Its main pass `{kernel}` ({lib_us:,.1f} us under Nsight Compute) is "
        "as fast as `{variant}`'s `{ours}` ({our_us:,.1f} us): it loses in its "
        "{later} (the launches a kernel of its own would not need)",
        "zh": " 它的主 kernel `{kernel}`（Nsight Compute 下 {lib_us:,.1f} us）与 "
        "`{variant}` 的 `{ours}`（{our_us:,.1f} us）一样快：它输在之后的启动 {later}",
    },
    "target_memset": {
        "en": "; `{variant}`'s time leaves out the memset of {names} it needs per "
        "call ({us:,.2f} us in its traced sequence): {time} us, {total} us with its "
        "memset, {relation}",
        "zh": "；`{variant}` 的耗时未含其每次调用所需的 {names} memset（所追踪序列中 "
        "{us:,.2f} us）：{time} us，含 memset 为 {total} us，{relation}",
    },
    "target_later": {
        "en": "`{kernel}` ({us:,.1f} us)",
        "zh": "`{kernel}`（{us:,.1f} us）",
    },
    "target_spread": {
        "en": "; its own timing varies, a CV of {cv:.0f}% at this size",
        "zh": "；它自身的计时波动较大，此规模下变异系数为 {cv:.0f}%",
    },
    "names_and": {"en": "{head} and {last}", "zh": "{head} 和 {last}"},
    "target_faster": {
        "en": "{ratio:.2f}x faster than `{variant}`",
        "zh": "比 `{variant}` 快 {ratio:.2f}x",
    },
    "target_slower": {
        "en": "`{variant}` is {ratio:.2f}x faster",
        "zh": "`{variant}` 比它快 {ratio:.2f}x",
    },
    "target_gap": {
        "en": "; at n = {n} it is {ratio:.2f}x faster",
        "zh": "；n = {n} 时它快 {ratio:.2f}x",
    },
    "next_at_floor": {
        "en": "Nothing left to gain inside `{variant}` at n = {n}: {time} us against "
        "{roof} us of transfer at {ceiling} plus up to {fixed} us of size-independent "
        "overhead (launch, ramp-up, tail and work of a fixed size), {basis}; at n = "
        "{big} it reaches {pct} of {ceiling}. No suggestion clears "
        "the timing noise at any measured size: its loads are already what the "
        "remedies ask for; only where the kernel has neighbours in your program would "
        "fusing it with them (fewer launches, fewer bytes) help.",
        "zh": "`{variant}` 在 n = {n} 时 kernel 内部已无可再得：{time} us，而{ceiling}"
        "下的传输时间为 {roof} us，另有至多 {fixed} us 与规模无关的开销（{basis}："
        "启动、爬升、尾部及固定规模的工作）；n = {big} 时它达到"
        "{ceiling}的 {pct}。在任何测量规模下都没有超过计时噪声的建议；只有当该 kernel "
        "在你的程序中有相邻 kernel 时，与其融合（更少的启动、更少的字节）才有帮助。",
    },
    "next_single_pass": {
        "en": "`{variant}` is still {gap:.2f}x above its floor at n = {n}: it makes "
        "{passes} passes over the data ({kernels}) and moves {moved:,.0f} MB from "
        "DRAM where reading the input and writing the output once is {ideal:,.0f} MB. "
        "The next step is a single pass (for a scan, decoupled look-back: each block "
        "takes its prefix from the aggregates its predecessors publish): {ideal:,.0f} "
        "MB at the measured copy bandwidth ({copy:,.0f} GB/s) is {one:,.1f} us, up to "
        "{gain:.2f}x with the {fixed:,.1f} us of size-independent overhead, {basis}.",
        "zh": "`{variant}` 在 n = {n} 时仍比其下限慢 {gap:.2f}x：它对数据做 {passes} 遍"
        "（{kernels}），从 DRAM 搬运 {moved:,.0f} MB，而读一次输入、写一次输出只需 "
        "{ideal:,.0f} MB。下一步是单遍算法（对 scan 而言即 decoupled look-back：每个 "
        "block 从前驱发布的聚合值取得前缀）：按实测拷贝带宽（{copy:,.0f} GB/s）"
        "{ideal:,.0f} MB 需 {one:,.1f} us，加上 {fixed:,.1f} us 与规模无关的开销（{basis}），至多 "
        "{gain:.2f}x。",
    },
    "next_done_gap": {
        "en": "`{variant}` is still {gap:.2f}x above its floor at n = {n}, but what "
        "its remedies for {cause} ask for is already in the kernel: {bits}-bit "
        "global loads, {loads} of them in the sampled SASS, {occupancy} of the warps "
        "resident. The counters name no further change; the gap is in what the "
        "algorithm reads and waits for, not in how it loads.",
        "zh": "`{variant}` 在 n = {n} 时仍比其下限慢 {gap:.2f}x，但针对{cause}的改进已"
        "在 kernel 中：{bits} 位全局加载、采样到的 SASS 中有 {loads} 条、{occupancy} "
        "的 warp 驻留。计数器没有指出更多改动；差距在于算法读取和等待的内容，而不在"
        "加载方式。",
    },
    "advice_fix_vendor_rate_warps": {
        "en": "{fix}; at the vendor library's rate what is left is what the library "
        "does beyond it (its threads are already laid out in warp tiles): the next k "
        "slice's fragments read from shared memory during the FMAs, or 3xTF32 tensor "
        "cores where the precision allows",
        "zh": "{fix}；已达到厂商库的速率（其线程已按 warp tile 排布），剩下的是库在此之外"
        "所做的：在 FMA 期间从共享内存读取下一段 k 的片段，或在精度允许时使用 3xTF32 "
        "tensor core",
    },
    "advice_fix_dispatch_full": {
        "en": "its loads are already 16 bytes wide (`LDG.E.128`, `LDS.128`), its "
        "outputs are already an outer product from registers, and at {registers} "
        "registers per thread a larger thread tile does not fit; ncu names no single "
        "cause for dispatch stalls (pipe conflicts or register-file events)",
        "zh": "其加载已是 16 字节宽（`LDG.E.128`、`LDS.128`），输出已由寄存器中的外积"
        "计算，且每线程 {registers} 个寄存器已放不下更大的线程 tile；ncu 对分派停顿没有"
        "给出单一原因（流水线冲突或寄存器文件事件）",
    },
    "advice_fix_dispatch_wide": {
        "en": "its loads are already 16 bytes wide (`LDG.E.128`, `LDS.128`), and ncu "
        "names no single cause for dispatch stalls (pipe conflicts or register-file "
        "events): fewer instructions per output (a larger thread tile), or operands "
        "reused from registers",
        "zh": "其加载已是 16 字节宽（`LDG.E.128`、`LDS.128`），而 ncu 对分派停顿没有给出"
        "单一原因（流水线冲突或寄存器文件事件）：每个输出更少的指令（更大的线程 tile），"
        "或从寄存器复用操作数",
    },
    "advice_fix_ideal_gap": {
        "en": "{fix}. Of its {gap:,.1f} us above the ideal time at the copy "
        "bandwidth, at most {fixed:,.1f} us is the family's fixed cost per launch; "
        "the other {rest:,.1f} us is its DRAM stream running below the copy "
        "bandwidth{best}",
        "zh": "{fix}。其超出拷贝带宽下理想时间的 {gap:,.1f} us 中，本 family 每次启动的"
        "固定开销至多 {fixed:,.1f} us；其余 {rest:,.1f} us 是其 DRAM 数据流低于拷贝带宽"
        "的部分{best}",
    },
    "advice_fix_ideal_gap_none": {
        "en": "{fix}. Its {gap:,.1f} us above the ideal time at the copy bandwidth "
        "are its DRAM stream running below the copy bandwidth (the family measured "
        "no fixed cost per launch){best}",
        "zh": "{fix}。其超出拷贝带宽下理想时间的 {gap:,.1f} us 是其 DRAM 数据流低于拷贝带宽"
        "的部分（本 family 未测到每次启动的固定开销）{best}",
    },
    "advice_fix_per_launch": {
        "en": "its DRAM traffic is already the ideal bytes of one launch, and its "
        "stream does not run below the copy bandwidth: from n = {lo} to n = {hi} it "
        "moves {mb:,.1f} MB more in {us:,.2f} us more, {gbps:,.0f} GB/s, {pct:.0f}% of "
        "the {copy:,.0f} GB/s copy bandwidth, which counts what a device-to-device "
        "copy reads and writes, as many bytes of each, and is below what this "
        "stream{reads} reaches. So its {gap:,.1f} us above the ideal time at the "
        "copy bandwidth are not its stream running slow: at {gbps:,.0f} GB/s its "
        "{ideal:,.1f} MB take {stream:,.1f} us, and the other {launch:,.1f} us of its "
        "{time:,.1f} us are paid once per launch (the launch, ramp-up and tail). "
        "One launch of a given n cannot shed them; only where the kernel has "
        "neighbours in your program would fusing it with the kernel that writes its "
        "input or reads its result pay them once for both",
        "zh": "其 DRAM 流量已等于单次启动的理想字节数，且其数据流并不低于拷贝带宽：从 "
        "n = {lo} 到 n = {hi}，多搬运 {mb:,.1f} MB 只多用 {us:,.2f} us，即 {gbps:,.0f} "
        "GB/s，为 {copy:,.0f} GB/s 拷贝带宽的 {pct:.0f}%；拷贝带宽按设备内拷贝读写的字节"
        "计算（读写各半），低于此数据流{reads}所能达到的速率。因此其超出拷贝带宽下理想"
        "时间的 {gap:,.1f} us 并非数据流慢：按 {gbps:,.0f} GB/s，其 {ideal:,.1f} MB 需 "
        "{stream:,.1f} us，其 {time:,.1f} us 中其余 {launch:,.1f} us 为每次启动付出一次的"
        "开销（启动、爬升与尾部）。给定 n 的单次启动无法省去它；只有当该 kernel 在你的程序中"
        "有相邻 kernel 时，与写入其输入或读取其结果的 kernel 融合才能让两者只付一次",
    },
    "stream_reads": {
        "en": " ({pct:.0f}% of its DRAM bytes reads under Nsight Compute)",
        "zh": "（Nsight Compute 下其 DRAM 字节 {pct:.0f}% 为读）",
    },
    "stream_read_only": {
        "en": " (a read-only stream: {pct:.0f}% of its DRAM bytes reads under Nsight "
        "Compute)",
        "zh": "（只读数据流：Nsight Compute 下其 DRAM 字节 {pct:.0f}% 为读）",
    },
    "advice_item_per_launch": {
        "en": "**{cause}** in `{variant}` at n = {n}: {fix}. Expected gain: "
        "{gain_text} ({time:,.1f} us now; floor {floor:,.1f} us: its ideal bytes at "
        "the rate its stream reaches between the two sizes, the per-launch cost "
        "amortized away).",
        "zh": "`{variant}` 在 n = {n} 时的**{cause}**：{fix}。预期收益："
        "{gain_text}（当前 {time:,.1f} us；下限 {floor:,.1f} us：其理想字节按两个规模"
        "之间数据流达到的速率所需的时间，即每次启动的开销被完全摊薄）。",
    },
    "advice_ideal_best": {
        "en": " (at n = {n} it runs at {pct:.0f}% of it, so the ceiling is reachable "
        "and this size leaves bandwidth unused; the copy bandwidth counts the bytes a "
        "device-to-device copy reads and writes, as the ideal bytes do)",
        "zh": "（在 n = {n} 时它达到拷贝带宽的 {pct:.0f}%，说明该上限可达，此规模仍有带宽"
        "未用；拷贝带宽与理想字节一样，按设备内拷贝读写的字节计算）",
    },
    "fixed_basis": {
        "en": "the least any variant of the family took above its ideal time at any "
        "measured size (`{variant}` at n = {n}{atomics})",
        "zh": "即本 family 各版本在所有测量规模下超出理想时间的最小值（`{variant}`，n = {n}{atomics}）",
    },
    "fixed_basis_why": {
        "en": "the least any variant of the family took above its ideal time at any "
        "measured size (`{variant}` at n = {n}{atomics}): an upper estimate of what does not "
        "change with n, launch, ramp-up and tail with any work of a fixed size such as "
        "a final merge, not a launch latency",
        "zh": "即本 family 各版本在所有测量规模下超出理想时间的最小值（`{variant}`，n = {n}{atomics}）："
        "不随 n 变化部分的上界估计，即启动、爬升、尾部及最终合并等固定规模的工作，并非启动延迟",
    },
    "fixed_basis_input": {
        "en": "the least any variant on the same input took above its ideal time at "
        "any measured size (`{variant}` at n = {n}{atomics})",
        "zh": "即同一输入上各版本在所有测量规模下超出理想时间的最小值（`{variant}`，n = {n}{atomics}）",
    },
    "fixed_basis_why_input": {
        "en": "the least any variant on the same input took above its ideal time at "
        "any measured size (`{variant}` at n = {n}{atomics}): an upper estimate of what does "
        "not change with n, launch, ramp-up and tail with any work of a fixed size "
        "such as a final merge, not a launch latency",
        "zh": "即同一输入上各版本在所有测量规模下超出理想时间的最小值（`{variant}`，"
        "n = {n}{atomics}）：不随 n 变化部分的上界估计，即启动、爬升、尾部及最终合并等固定规模的"
        "工作，并非启动延迟",
    },
    "fixed_basis_atomics": {
        "en": ", counted above the {us:,.1f} us its busiest L2 slice's atomics need at "
        "{rate:,.0f} sectors per us, which grow with n, instead of its ideal time",
        "zh": "，以其最繁忙 L2 slice 的原子操作按每 us {rate:,.0f} 个 sector 所需的 "
        "{us:,.1f} us（随 n 增长）代替理想时间计算超出部分",
    },
    "fixed_basis_clipped": {
        "en": "none: `{variant}` at n = {n} ran {under:,.1f} us under its ideal time, "
        "faster than its ceiling's measured rate",
        "zh": "为零：`{variant}` 在 n = {n} 时比其理想时间快 {under:,.1f} us，快于其上限的"
        "实测速率",
    },
    "fixed_basis_model": {
        "en": "its ideal bytes at {gbps:,.0f} GB/s plus {launch:,.1f} us paid once "
        "per launch, the family's one per-launch model (`{variant}`'s stream runs at "
        "that rate from n = {lo} to n = {hi}, {pct:.0f}% of the copy bandwidth)",
        "zh": "其理想字节按 {gbps:,.0f} GB/s 计，另加每次启动一次的 {launch:,.1f} us，"
        "即本 family 唯一的每次启动模型（`{variant}` 的数据流从 n = {lo} 到 n = {hi} "
        "以此速率运行，为拷贝带宽的 {pct:.0f}%）",
    },
    "fixed_basis_model_launch": {
        "en": "the per-launch cost of the family's one per-launch model (`{variant}`'s "
        "stream runs at {gbps:,.0f} GB/s from n = {lo} to n = {hi}, {pct:.0f}% of the "
        "copy bandwidth, and pays {launch:,.1f} us once per launch)",
        "zh": "即本 family 唯一的每次启动模型中的每次启动开销（`{variant}` 的数据流从 "
        "n = {lo} 到 n = {hi} 以 {gbps:,.0f} GB/s 运行，为拷贝带宽的 {pct:.0f}%，每次"
        "启动付出 {launch:,.1f} us）",
    },
    "next_at_floor_model": {
        "en": "No gain left inside `{variant}` at n = {n} that the family's model "
        "can show: its {mb:,.1f} MB take {stream:,.1f} us at {gbps:,.0f} GB/s, the "
        "rate `{by}`'s stream reaches from n = {lo} to n = {hi} ({pct:.0f}% of the "
        "copy bandwidth), and the other {beyond:,.1f} us of its {time} us are paid "
        "once per launch ({launch:,.1f} us on that line: its intercept, which holds "
        "the launch, ramp-up and tail and any work of a fixed size per launch, such "
        "as a fixed grid's last atomics, and does not take them apart). No "
        "suggestion clears the timing noise at any measured size. "
        "Only where the kernel has neighbours in your program would fusing it with "
        "the kernel that writes its input or reads its result pay that cost once for "
        "both.",
        "zh": "在本 family 的模型能显示的范围内，`{variant}` 在 n = {n} 时 kernel 内部已无"
        "可再得：其 {mb:,.1f} MB 按 {gbps:,.0f} GB/s（`{by}` 的数据流从 n = {lo} 到 "
        "n = {hi} 达到的速率，拷贝带宽的 {pct:.0f}%）需 {stream:,.1f} us，其 {time} us 中"
        "其余 {beyond:,.1f} us 为每次启动付出一次的开销（该直线上为 {launch:,.1f} us：即其"
        "截距，包含启动、爬升、尾部以及每次启动中规模固定的工作，例如固定 grid 最后的原子"
        "操作，模型不再细分）。在任何测量规模下都没有超过计时噪声的建议。只有当该 kernel 在你的"
        "程序中有相邻 kernel 时，与写入其输入或读取其结果的 kernel 融合才能让两者只付一次"
        "这部分开销。",
    },
    "fixed_basis_none": {
        "en": "no variant measured against a ceiling of its own",
        "zh": "没有版本在独立的上限下测量",
    },
    "next_already_done": {
        "en": "Next: `{variant}`'s largest cost is {label}, but its remedies are already "
        "in the kernel (16-byte loads, several in flight, most warps resident): what "
        "is left is its small-size overhead (launch, ramp-up, tail), so fuse it with "
        "its neighbours or move "
        "fewer bytes.",
        "zh": "下一步：`{variant}` 的最大开销是{label}，但相应的改进已在 kernel 中（16 字节"
        "加载、多个加载同时在途、大部分 warp 驻留）：剩下的是其小规模开销（启动、爬升、尾部），因此应与"
        "相邻 kernel 融合或减少字节数。",
    },
    "advice_size_blocks": {
        "en": "{n} ({blocks} blocks, up to {gain:.2f}x)",
        "zh": "{n}（{blocks} 个 block，至多 {gain:.2f}x）",
    },
    "confidence": {
        "en": " Confidence: {hits} of {scored} such suggestions in the bundled "
        "ladders were what the next step did (achieved / predicted, median "
        "{ratio:.2f}).",
        "zh": "置信度：在自带的各版本阶梯中，{scored} 条此类建议里有 {hits} 条与下一步"
        "的主要变化一致（实际 / 预测的中位数 {ratio:.2f}）。",
    },
    "confidence_missed": {
        "en": " Confidence: low: none of the {scored} such suggestions in the "
        "bundled ladders was what the next step did.",
        "zh": "置信度：低：自带阶梯中 {scored} 条此类建议没有一条是下一步实际所做的。",
    },
    "confidence_none": {
        "en": " Confidence: not yet scored (no step of the bundled ladders made this "
        "change after such a suggestion).",
        "zh": "置信度：尚未评分（自带阶梯中没有一步在此类建议之后做了这一改动）。",
    },
    # --- the appendix's list of every suggestion --------------------------------------
    "h_advice_all": {
        "en": "A.{k} Suggestions for every variant",
        "zh": "A.{k} 每个版本的建议",
    },
    "advice_all_none": {
        "en": "No variant has a suggestion above the noise.",
        "zh": "没有版本的建议超出噪声。",
    },
    # --- the appendix's score table ------------------------------------------------
    "h_advice_score": {
        "en": "A.{k} Advice scored against the next step",
        "zh": "A.{k} 建议与下一步的对照",
    },
    "advice_score_intro": {
        "en": "Each step's primary change against the suggestions made for the "
        "variant it starts from, at each profiled size where it had suggestions: "
        "hits {hits} of the {steps} such steps that paid.",
        "zh": "每一步的主要变化与对其起点版本所做建议的对照（起点版本有建议的每个采样"
        "规模）：在 {steps} 个这样的有收益步骤中命中 {hits} 个。",
    },
    "advice_score_none": {
        "en": "No step was profiled at a size where its previous variant had a "
        "suggestion.",
        "zh": "没有一步在其前一版本有建议的规模上被采样。",
    },
    "col_predicted": {"en": "predicted", "zh": "预测"},
    "col_from": {"en": "from", "zh": "起点"},
    "col_achieved": {"en": "achieved", "zh": "实际"},
    "col_step_change": {"en": "step's primary change", "zh": "该步的主要变化"},
    "col_hit": {"en": "suggested", "zh": "是否建议过"},
}
