# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""Templates of the diagnosis: causes, their evidence and fixes, merged into the catalogue.

Keys: ``mech_<m>`` the name of a mechanism, ``ev_<...>`` the metrics that show it,
``fix_<m>`` what helps, ``cause_state`` / ``cause_change`` the sentences that rank a
cause of a launch's time or of a step's change. Mechanisms are those of
:mod:`nsightflow.diagnosis.causes` plus the step factors ``instruction_count``,
``occupancy``, ``clock``. Same format as :mod:`nsightflow.i18n.catalogue`.
"""

# at the DRAM floor only fewer bytes help; fusion only where the kernel has neighbours
AT_DRAM_FLOOR = {
    "en": "Next: `{variant}` is at the DRAM floor; only fewer bytes help: narrower "
    "types, or, only where the kernel has neighbours in your program, fusing it "
    "with the kernel that produces or consumes the data.",
    "zh": "下一步：`{variant}` 已到达 DRAM 下限；只有减少字节数才有帮助：更窄的数据"
    "类型，或仅当该 kernel 在你的程序中有相邻 kernel 时，与生产或消费这些数据的 "
    "kernel 融合。",
}

MECHANISMS: dict[str, dict[str, str]] = {
    "mech_global_atomics": {"en": "Global atomics in L2", "zh": "L2 中的全局原子操作"},
    "mech_uncoalesced_loads": {
        "en": "Uncoalesced global loads",
        "zh": "未合并的全局加载",
    },
    "mech_uncoalesced_stores": {
        "en": "Uncoalesced global stores",
        "zh": "未合并的全局存储",
    },
    "mech_local_memory": {
        "en": "Local memory (spills or local arrays)",
        "zh": "local memory（寄存器溢出或局部数组）",
    },
    "mech_dram_excess": {"en": "Excess DRAM traffic", "zh": "多余的 DRAM 流量"},
    "mech_bytes_in_flight": {
        "en": "Too few bytes in flight for the DRAM bandwidth",
        "zh": "在途字节不足以用满 DRAM 带宽",
    },
    "mech_dram_bandwidth": {
        "en": "DRAM bandwidth (80% of the copy bandwidth or more)",
        "zh": "DRAM 带宽（达到拷贝带宽的 80% 或以上）",
    },
    "mech_memory_latency": {"en": "Global-memory latency", "zh": "全局内存延迟"},
    "mech_low_occupancy": {
        "en": "Low occupancy: too few warps to hide the memory latency",
        "zh": "占用率低：驻留 warp 太少，掩盖不了访存延迟",
    },
    "mech_dram_bytes": {"en": "DRAM bytes", "zh": "DRAM 字节数"},
    "mech_dram_rate": {"en": "Achieved DRAM rate", "zh": "DRAM 实际速率"},
    "mech_other_factors": {"en": "Other factors", "zh": "其他因素"},
    "mech_other_stalls": {"en": "Other stall reasons", "zh": "其他停顿原因"},
    "mech_timing_residual": {"en": "Timing against profile", "zh": "计时与采样之差"},
    "mech_lsu_queue": {"en": "Load/store queue full", "zh": "load/store 队列已满"},
    "mech_store_drain": {"en": "Store drain", "zh": "存储排空"},
    "mech_bank_conflicts": {
        "en": "Shared-memory bank conflicts",
        "zh": "共享内存 bank 冲突",
    },
    "mech_shared_atomics": {"en": "Shared-memory atomics", "zh": "共享内存原子操作"},
    "mech_shared_pipe": {
        "en": "Shared-memory pipe (MIO)",
        "zh": "共享内存流水线（MIO）",
    },
    "mech_barrier": {"en": "Barriers (__syncthreads)", "zh": "屏障（__syncthreads）"},
    "mech_fp32_pipe": {"en": "FP32 pipe busy", "zh": "FP32 流水线繁忙"},
    "mech_math_pipe_other": {
        "en": "A math pipe other than FP32 FMA",
        "zh": "FP32 FMA 之外的运算流水线",
    },
    "mech_issue_bound": {
        "en": "Instruction issue (issue slots busy)",
        "zh": "指令发射（发射槽繁忙）",
    },
    "mech_issue": {
        "en": "Instruction issue (issue cycles and ready warps not selected)",
        "zh": "指令发射（发射周期与未被选中的就绪 warp）",
    },
    "mech_instruction_count": {
        "en": "Instruction count",
        "zh": "指令数",
    },
    "mech_global_loads": {
        "en": "Global load count",
        "zh": "全局加载数",
    },
    "mech_idle_lanes": {
        "en": "Idle lanes (warp divergence)",
        "zh": "空闲 lane（warp 分支发散）",
    },
    "mech_instruction_overhead": {
        "en": "Instruction overhead (instructions that are not floating-point "
        "arithmetic)",
        "zh": "指令开销（非浮点运算的指令）",
    },
    "mech_mio_shuffle": {
        "en": "Warp shuffles (MIO queue)",
        "zh": "warp shuffle（MIO 队列）",
    },
    "mech_mio_special": {
        "en": "Special functions: MUFU (MIO queue)",
        "zh": "特殊函数 MUFU（MIO 队列）",
    },
    "mech_mio_other": {
        "en": "MIO queue (few shared-memory instructions, no shuffles or special "
        "functions)",
        "zh": "MIO 队列（共享内存指令很少，无 shuffle 或特殊函数指令）",
    },
    "mech_fp64_pipe": {
        "en": "FP64 pipe busy (double precision)",
        "zh": "FP64 流水线繁忙（双精度）",
    },
    "mech_xu_pipe": {
        "en": "XU pipe busy (special functions and conversions)",
        "zh": "XU 流水线繁忙（特殊函数与类型转换）",
    },
    "mech_alu_pipe": {
        "en": "ALU pipe busy (integer and logic instructions)",
        "zh": "ALU 流水线繁忙（整数与逻辑指令）",
    },
    "mech_tensor_pipe": {"en": "Tensor pipe busy", "zh": "tensor 流水线繁忙"},
    "mech_uncoalesced_access": {
        "en": "Uncoalesced global loads and stores",
        "zh": "未合并的全局加载和存储",
    },
    "mech_later_launch": {
        "en": "A later launch of the run",
        "zh": "运行中的后续启动",
    },
    "mech_launch_changed": {
        "en": "A later launch of the run",
        "zh": "运行中的后续启动",
    },
    "mech_launch_removed": {
        "en": "A kernel launch removed",
        "zh": "去掉了一次 kernel 启动",
    },
    "mech_launch_added": {"en": "A kernel launch added", "zh": "多了一次 kernel 启动"},
    "mech_fp64_work": {
        "en": "Work moved to the FP64 pipe (double precision)",
        "zh": "计算转到了 FP64 流水线（双精度）",
    },
    "mech_special_work": {
        "en": "Work moved to special functions (XU pipe: MUFU)",
        "zh": "计算转到了特殊函数（XU 流水线：MUFU）",
    },
    "mech_step_not_in_counters": {
        "en": "a timing change that ncu's single launch does not show",
        "zh": "计时可见、但 ncu 单次启动未体现的变化",
    },
    "mech_wider_accesses": {
        "en": "Fewer, wider load requests",
        "zh": "更少、更宽的加载请求",
    },
    "mech_dependency": {"en": "Instruction dependencies", "zh": "指令依赖"},
    "mech_membar": {"en": "Memory fences", "zh": "内存栅栏"},
    "mech_frontend": {"en": "Instruction fetch and branches", "zh": "取指与分支"},
    "mech_dispatch": {
        "en": "Dispatch stalls",
        "zh": "分派停顿（dispatch stall）",
    },
    "mech_other": {"en": "Other stalls", "zh": "其他停顿"},
    "mech_grid_too_small": {
        "en": "Grid smaller than the GPU",
        "zh": "grid 小于 GPU 的容量",
    },
    "mech_tail_effect": {
        "en": "Tail effect (a small last wave)",
        "zh": "尾部效应（最后一波很小）",
    },
    "mech_idle_sms": {"en": "Idle SM time", "zh": "SM 空闲时间"},
    "mech_occupancy": {
        "en": "Occupancy (resident warps)",
        "zh": "占用率（驻留 warp 数）",
    },
    "mech_clock": {"en": "SM clock", "zh": "SM 时钟"},
    "mech_unknown": {"en": "not determined", "zh": "未确定"},
    "mech_step_unchanged": {
        "en": "no change of ncu's launch time (its factors offset each other)",
        "zh": "ncu 测得的启动时间没有变化（各因素相互抵消）",
    },
    "mech_step_time_only": {
        "en": "not profiled at a common size",
        "zh": "没有在同一规模上采样",
    },
}

FIXES: dict[str, dict[str, str]] = {
    "fix_idle_lanes": {
        "en": "make the branch uniform per warp: let all 32 lanes of a warp take the "
        "same path (branch on the warp index, `threadIdx.x / 32`, not on the lane; "
        "sort or bin the work so that neighbouring lanes agree)",
        "zh": "让分支在 warp 内一致：同一 warp 的 32 个 lane 走同一路径（按 warp 序号 "
        "`threadIdx.x / 32` 而不是按 lane 分支；对工作排序或分桶，使相邻 lane 一致）",
    },
    "fix_instruction_overhead": {
        "en": "more arithmetic per address, index, load and loop instruction: "
        "register tiles (several outputs per thread), unrolled loops, wider loads",
        "zh": "让每条地址、下标、加载和循环指令对应更多运算：寄存器分块（每线程"
        "多个输出）、循环展开、更宽的加载",
    },
    "fix_mio_shuffle": {
        "en": "fewer shuffles per result: reduce in registers first (several elements "
        "per thread), then shuffle once per warp",
        "zh": "减少每个结果的 shuffle 次数：先在寄存器中归约（每线程多个元素），再每个 "
        "warp 做一次 shuffle",
    },
    "fix_mio_special": {
        "en": "fewer special-function calls: hoist them out of loops, use algebra "
        "(one `rsqrtf` instead of `1/sqrtf`), or intrinsics where the accuracy allows",
        "zh": "减少特殊函数调用：移出循环、做代数化简（用一个 `rsqrtf` 代替 `1/sqrtf`），"
        "或在精度允许时使用 intrinsic",
    },
    "fix_mio_other": {
        "en": "look at the MIO-issued instructions of the hot lines (dynamic branches, "
        "`S2R`, other MIO operations) and issue fewer of them",
        "zh": "查看热点行中经 MIO 发射的指令（动态分支、`S2R` 等），减少这类指令",
    },
    "fix_fp64_pipe": {
        "en": "keep the arithmetic in float where the result allows: `f`-suffixed "
        "literals, `expf`/`sqrtf` instead of `exp`/`sqrt` on doubles",
        "zh": "在结果允许时保持单精度运算：字面量加 `f` 后缀，用 `expf`/`sqrtf` 代替作用"
        "于 double 的 `exp`/`sqrt`",
    },
    "fix_xu_pipe": {
        "en": "fewer special functions and conversions per result (hoist them, or "
        "replace them by FMA-pipe arithmetic)",
        "zh": "减少每个结果的特殊函数与类型转换（外提，或换成 FMA 流水线上的运算）",
    },
    "fix_alu_pipe": {
        "en": "fewer integer and logic instructions per result (simpler index "
        "arithmetic, fewer comparisons)",
        "zh": "减少每个结果的整数与逻辑指令（更简单的下标计算、更少的比较）",
    },
    "fix_tensor_pipe": {
        "en": "the tensor pipe is the roof: fewer FLOPs or a lower precision",
        "zh": "tensor 流水线已是上限：减少 FLOPs 或使用更低精度",
    },
    "fix_uncoalesced_access": {
        "en": "make a warp's lanes read and write consecutive addresses: map "
        "consecutive lanes to consecutive elements (a warp per row, or a "
        "column-major layout), or stage the tile through shared memory",
        "zh": "让一个 warp 的各 lane 读写连续地址：相邻 lane 对应相邻元素（每个 warp "
        "一行，或列主序布局），或经共享内存中转",
    },
    "fix_bytes_in_flight_wide": {
        "en": "keep more bytes in flight: several independent 16-byte loads per thread "
        "(the loads are already 16 bytes wide) or more resident warps",
        "zh": "让更多字节在途：每线程多个相互独立的 16 字节加载（加载已是 16 字节宽），"
        "或更多驻留 warp",
    },
    "fix_bytes_in_flight_wide_resident": {
        "en": "keep more bytes in flight: several independent 16-byte loads per thread "
        "(the loads are already 16 bytes wide, and with most warps resident more "
        "warps could not give this gain)",
        "zh": "让更多字节在途：每线程多个相互独立的 16 字节加载（加载已是 16 字节宽；"
        "多数 warp 已驻留，更多 warp 给不出这一收益）",
    },
    "fix_bytes_in_flight_resident": {
        "en": "keep more bytes in flight per thread: 16-byte (float4) accesses or "
        "several independent loads per thread (with most warps resident, more warps "
        "could not give this gain)",
        "zh": "让每个线程有更多在途字节：16 字节（float4）访问或每线程多个独立加载"
        "（多数 warp 已驻留，更多 warp 给不出这一收益）",
    },
    "fix_bytes_in_flight_loads": {
        "en": "keep more bytes in flight per thread: 16-byte (float4) accesses (its "
        "SASS already has {loads} 4-byte global loads, several independent ones per "
        "thread) or more resident warps",
        "zh": "让每个线程有更多在途字节：16 字节（float4）访问（其 SASS 已有 {loads} 条 4 字节"
        "全局加载，每线程多个相互独立），或更多驻留 warp",
    },
    "fix_bytes_in_flight_loads_resident": {
        "en": "keep more bytes in flight per thread: 16-byte (float4) accesses (its "
        "SASS already has {loads} 4-byte global loads, several independent ones per "
        "thread, and with most warps resident more warps could not give this gain)",
        "zh": "让每个线程有更多在途字节：16 字节（float4）访问（其 SASS 已有 {loads} 条 4 字节"
        "全局加载，每线程多个相互独立；多数 warp 已驻留，更多 warp 给不出这一收益）",
    },
    "fix_memory_latency_resident": {
        "en": "hide the latency with more bytes in flight per thread (wider loads, "
        "several independent ones per thread), or reuse loaded values from registers "
        "or shared memory (with most warps resident, more warps could not give this "
        "gain)",
        "zh": "用每线程更多的在途字节隐藏延迟（更宽的加载、每线程多个独立加载），或用"
        "寄存器、共享内存复用已加载的值（多数 warp 已驻留，更多 warp 给不出这一收益）",
    },
    "fix_lsu_queue_wide": {
        "en": "more work per memory instruction (the loads are already 16 bytes wide): "
        "reuse each loaded value for more results",
        "zh": "每条访存指令做更多工作（加载已是 16 字节宽）：让每个加载的值用于更多结果",
    },
    "fix_issue_bound_work": {
        "en": "the issued instructions are mostly the arithmetic itself: fewer "
        "FLOPs per result, or tensor cores (TF32, BF16) where the precision allows",
        "zh": "发射的指令大多就是运算本身：减少每个结果的 FLOPs，或在精度允许时"
        "使用 tensor core（TF32、BF16）",
    },
    "fix_issue_bound_work_fp32": {
        "en": "the issued instructions are mostly the FP32 arithmetic itself, which "
        "FFMA cannot shed: with FFMA only the cycles its issue slots sit idle are "
        "left to gain (the expected gain below is that). One-pass TF32 keeps 10 of FP32's 23 mantissa bits, beyond this "
        "family's tolerance; 3xTF32 on tensor cores (each operand split into a large "
        "and a small TF32 part, three products, as CUTLASS's 3xTF32 GEMMs do) keeps "
        "about FP32 accuracy at a higher peak than FFMA, a gain the FP32 floor below "
        "does not bound and this report does not estimate",
        "zh": "发射的指令大多就是 FP32 运算本身，FFMA 省不掉它：用 FFMA 能省的只有发射槽"
        "空闲的周期（下面的预期收益即指此）。单次 TF32 只保留 FP32 23 位尾数中的 10 位，超出本 family 的容差；"
        "tensor core 上的 3xTF32（每个操作数拆成大、小两个 TF32 部分，做三次乘积，如 "
        "CUTLASS 的 3xTF32 GEMM）精度约等于 FP32，峰值高于 FFMA，其收益不受下面的 FP32 "
        "下限约束，本报告也不估计",
    },
    "fix_global_atomics": {
        "en": "privatize: count into shared memory or registers per block and add to "
        "the global result once per block",
        "zh": "私有化：每个 block 先在共享内存或寄存器中计数，再每个 block 向全局结果"
        "累加一次",
    },
    "fix_uncoalesced_loads": {
        "en": "make a warp's lanes read consecutive addresses (change the layout, "
        "stage through shared memory, or map consecutive lanes to consecutive "
        "elements)",
        "zh": "让一个 warp 的各 lane 读取连续地址（改变数据布局、经共享内存中转，或让"
        "相邻 lane 对应相邻元素）",
    },
    "fix_uncoalesced_stores": {
        "en": "make a warp's lanes write consecutive addresses: stage the tile in "
        "shared memory and write it out row by row",
        "zh": "让一个 warp 的各 lane 写连续地址：先把 tile 暂存在共享内存中，再按行"
        "写出",
    },
    "fix_local_memory": {
        "en": "keep the values in registers: fewer live values, no dynamically "
        "indexed local arrays, looser __launch_bounds__",
        "zh": "让数据留在寄存器中：减少同时存活的值、避免动态索引的局部数组、放宽 "
        "__launch_bounds__",
    },
    "fix_dram_excess": {
        "en": "read each byte from DRAM once: reuse through shared memory or "
        "registers, or a layout without padding",
        "zh": "每个字节只从 DRAM 读一次：通过共享内存或寄存器复用，或采用不带填充的"
        "布局",
    },
    "fix_dram_bandwidth": {
        "en": "move fewer bytes: fuse the kernel with its neighbours, narrower types, "
        "or reuse across the passes (at 80% of the copy bandwidth or more, more "
        "bytes in flight gain at most 1.25x)",
        "zh": "减少搬运的字节：与相邻 kernel 融合、更窄的数据类型，或跨遍复用（已达拷贝"
        "带宽的 80% 或以上，更多在途字节最多提速 1.25 倍）",
    },
    "fix_dram_bandwidth_ideal": {
        "en": "its DRAM traffic is already the ideal bytes of one launch, so fewer "
        "bytes per launch cannot save any; only where the kernel has neighbours in "
        "your program would fusing it with the kernel that writes its input or reads "
        "its result let the data cross DRAM once for both",
        "zh": "其 DRAM 流量已等于单次启动的理想字节数，每次启动再减少字节已无可能；只有当该 "
        "kernel 在你的程序中有相邻 kernel 时，与写入其输入或读取其结果的 kernel 融合才能"
        "使数据只经过一次 DRAM",
    },
    "fix_dram_bandwidth_ideal_stencil": {
        "en": "its DRAM traffic is already the ideal bytes of one sweep, so only "
        "fewer passes over the grid save any: several sweeps per launch (temporal "
        "blocking) or fusing it with the kernels around it",
        "zh": "其 DRAM 流量已等于单次迭代的理想字节数，只有减少遍历网格的次数才能再省："
        "一次启动多次迭代（时间分块），或与前后 kernel 融合",
    },
    "fix_bytes_in_flight": {
        "en": "keep more bytes in flight per thread: 16-byte (float4) accesses, several "
        "independent loads per thread, or more resident warps",
        "zh": "让每个线程有更多在途字节：16 字节（float4）访问、每线程多个独立加载，"
        "或更多驻留 warp",
    },
    "fix_low_occupancy": {
        "en": "raise the resident warps: use less of the resource that caps the blocks "
        "per SM (shared memory or registers per block, `__launch_bounds__`), or give "
        "each thread several independent loads",
        "zh": "提高驻留 warp 数：减少限制每个 SM block 数的资源（每个 block 的共享内存"
        "或寄存器，`__launch_bounds__`），或让每个线程有多个独立加载",
    },
    "fix_memory_latency": {
        "en": "hide the latency with more independent loads per thread or more "
        "resident warps, or reuse loaded values from registers or shared memory",
        "zh": "用每线程更多的独立加载或更多驻留 warp 隐藏延迟，或用寄存器、共享内存"
        "复用已加载的值",
    },
    "fix_lsu_queue": {
        "en": "issue fewer, wider memory instructions (16-byte vectors) with more work "
        "per access",
        "zh": "发出更少但更宽的访存指令（16 字节向量），每次访问做更多工作",
    },
    "fix_store_drain": {
        "en": "fewer, wider stores; little to gain while stores are coalesced",
        "zh": "更少但更宽的存储；存储已合并时收益有限",
    },
    "fix_bank_conflicts": {
        "en": "pad or swizzle the shared-memory layout so that a warp's lanes hit "
        "different banks",
        "zh": "对共享内存布局做 padding 或 swizzle，让一个 warp 的各 lane 落在不同 bank",
    },
    "fix_shared_atomics": {
        "en": "spread the updates over more addresses (a sub-histogram per lane "
        "group) or combine them in registers first",
        "zh": "把更新分散到更多地址（每组 lane 一个子直方图），或先在寄存器中合并",
    },
    "fix_shared_pipe": {
        "en": "fewer shared-memory instructions per unit of work: reuse values from "
        "registers (more outputs per thread), 16-byte shared accesses",
        "zh": "减少每单位工作的共享内存指令：从寄存器复用数据（每线程计算更多输出），"
        "使用 16 字节的共享内存访问",
    },
    "fix_barrier": {
        "en": "fewer barriers with more work between them; double-buffer shared tiles "
        "so that loads overlap compute",
        "zh": "减少屏障并在屏障之间做更多工作；对共享内存 tile 做双缓冲，让加载与计算"
        "重叠",
    },
    "fix_fp32_pipe": {
        "en": "fewer FLOPs, or tensor cores (TF32, BF16) where the precision allows",
        "zh": "减少 FLOPs，或在精度允许时使用 tensor core（TF32、BF16）",
    },
    "fix_math_pipe_other": {
        "en": "find the busy pipe (integer, conversion or special-function "
        "instructions; the lean set does not measure which) and use cheaper "
        "instructions",
        "zh": "找出繁忙的流水线（整数、类型转换或特殊函数指令；精简指标集不区分是哪"
        "一条）并换用更便宜的指令",
    },
    "fix_issue_bound": {
        "en": "fewer instructions per unit of work: fewer address and index "
        "instructions, wider accesses, more FMAs per load",
        "zh": "减少单位工作量的指令数：更少的地址和下标计算、更宽的访问、每次加载更多 "
        "FMA",
    },
    "fix_issue": {
        "en": "fewer instructions per unit of work",
        "zh": "减少单位工作量的指令数",
    },
    "fix_dependency": {
        "en": "more independent instructions per thread (unrolling, several "
        "accumulators)",
        "zh": "让每个线程有更多相互独立的指令（循环展开、多个累加器）",
    },
    "fix_membar": {
        "en": "fewer or narrower memory fences",
        "zh": "使用更少或范围更窄的内存栅栏",
    },
    "fix_dispatch": {
        "en": "fewer, wider instructions; ncu names no single cause for dispatch stalls "
        "(pipe conflicts or register-file events)",
        "zh": "更少、更宽的指令；ncu 对分派停顿没有给出单一原因（流水线冲突或寄存器文件"
        "事件）",
    },
    "fix_frontend": {
        "en": "smaller hot loops and fewer divergent branches",
        "zh": "缩小热点循环，减少分化的分支",
    },
    "fix_other": {
        "en": "see Nsight Compute's stall descriptions",
        "zh": "参见 Nsight Compute 对各停顿原因的说明",
    },
    "fix_grid_too_small": {
        "en": "launch more blocks (smaller tiles, split the reduction dimension) so "
        "that every SM has work",
        "zh": "启动更多 block（更小的 tile、拆分归约维度），让每个 SM 都有工作",
    },
    "fix_tail_effect": {
        "en": "size the grid to whole waves, or give the last wave's blocks less work "
        "(smaller blocks, grid-stride loops)",
        "zh": "让 grid 正好是整数波，或让最后一波的 block 工作更少（更小的 block、"
        "grid-stride 循环）",
    },
    "fix_later_launch": {
        "en": "fold the later launch into the main kernel (a last-block finish, one "
        "atomic per block, or, where the passes carry a running total from block to "
        "block as a scan's do, one pass with decoupled look-back), or give it fewer "
        "items to sum and more blocks",
        "zh": "把后续启动并入主 kernel（由最后一个 block 收尾、每个 block 一次原子操作，"
        "或在各遍之间按 block 传递累计值时（如 scan）改为带 decoupled look-back 的单遍），"
        "或让它处理更少的元素、使用更多 block",
    },
    "fix_idle_sms": {
        "en": "longer-lived blocks (grid-stride loops) and balanced work per block",
        "zh": "更长寿的 block（grid-stride 循环）以及均衡的每 block 工作量",
    },
    "fix_idle_sms_one_wave": {
        "en": "balanced work per block (its blocks already run as one wave, each "
        "resident for the whole launch: longer-lived blocks add nothing)",
        "zh": "均衡的每 block 工作量（其 block 已是一波、各自驻留整个启动期间："
        "更长寿的 block 无从再加）",
    },
}

EVIDENCE: dict[str, dict[str, str]] = {
    "ev_idle_lanes": {
        "en": "{active:.1f} of 32 lanes active per issued instruction "
        "(`smsp__thread_inst_executed_per_inst_executed.ratio`), {lanes:.1f} not "
        "predicated off (`smsp__thread_inst_executed_pred_on_per_inst_executed.ratio`, "
        "< 24): {how}. The issue slots or a pipe are {busy:.0f}% busy (>= 60%): the "
        "same work in full warps needs {needed:.0f}% of the warp instructions.",
        "zh": "每条发射指令平均 {active:.1f}/32 个 lane 活跃"
        "（`smsp__thread_inst_executed_per_inst_executed.ratio`），{lanes:.1f} 个未被谓词"
        "关闭（`smsp__thread_inst_executed_pred_on_per_inst_executed.ratio`，< 24）："
        "{how}。发射槽或某条流水线 {busy:.0f}% 繁忙（>= 60%）：同样的工作用满 warp "
        "只需 {needed:.0f}% 的 warp 指令。",
    },
    "lanes_predicated": {
        "en": "the compiler turned the branch into predicated instructions, whose "
        "lanes are switched off",
        "zh": "编译器把分支变成了谓词指令，部分 lane 被关闭",
    },
    "lanes_inactive": {
        "en": "the lanes of a warp take different branches and run one after another",
        "zh": "同一 warp 的 lane 走了不同分支，依次执行",
    },
    "ev_instruction_overhead": {
        "en": "{work:.0f}% of the thread instructions are floating-point arithmetic "
        "(`smsp__sass_thread_inst_executed_op_{{ffma,fadd,fmul,dfma,dadd,dmul}}_pred_on"
        ".sum` over the thread instructions): {per:.1f} other instructions (addresses, "
        "indices, loads, loop control) per arithmetic one, with the issue slots or a "
        "pipe {busy:.0f}% busy (>= 60%).",
        "zh": "线程指令中 {work:.0f}% 是浮点运算"
        "（`smsp__sass_thread_inst_executed_op_{{ffma,fadd,fmul,dfma,dadd,dmul}}_pred_on"
        ".sum` 占线程指令的比例）：每条运算指令伴随 {per:.1f} 条其他指令（地址、下标、"
        "加载、循环控制），发射槽或某条流水线 {busy:.0f}% 繁忙（>= 60%）。",
    },
    "ev_issue": {
        "en": "Issue slots {issue:.0f}% busy (`sm__inst_issued.avg.pct_of_peak_sustained_"
        "active`); {pipe}; {work}.",
        "zh": "发射槽 {issue:.0f}% 繁忙（`sm__inst_issued.avg.pct_of_peak_sustained_"
        "active`）；{pipe}；{work}。",
    },
    "work_share": {
        "en": "{pct:.0f}% of the thread instructions are floating-point arithmetic",
        "zh": "线程指令中 {pct:.0f}% 是浮点运算",
    },
    "work_unmeasured": {
        "en": "the arithmetic share of the instructions is not measured",
        "zh": "未测量运算指令的占比",
    },
    "pipe_unmeasured": {
        "en": "the pipes' utilization was not recorded",
        "zh": "未记录各流水线的利用率",
    },
    "pipe_busiest": {
        "en": "the busiest pipe is {pipe} at {pct:.0f}% "
        "(`sm__inst_executed_pipe_*.avg.pct_of_peak_sustained_active`)",
        "zh": "最繁忙的流水线是 {pipe}，{pct:.0f}%"
        "（`sm__inst_executed_pipe_*.avg.pct_of_peak_sustained_active`）",
    },
    "pipe_pct": {"en": "{pipe} {pct:.0f}%", "zh": "{pipe} {pct:.0f}%"},
    "pipe_fma": {"en": "FMA (FP32)", "zh": "FMA（FP32）"},
    "pipe_alu": {"en": "ALU (integer, logic)", "zh": "ALU（整数、逻辑）"},
    "pipe_fp64": {"en": "FP64 (double precision)", "zh": "FP64（双精度）"},
    "pipe_xu": {
        "en": "XU (special functions, conversions)",
        "zh": "XU（特殊函数、类型转换）",
    },
    "pipe_lsu": {"en": "LSU (memory instructions)", "zh": "LSU（访存指令）"},
    "pipe_tensor": {"en": "tensor", "zh": "tensor"},
    "ev_math_pipes": {
        "en": "Pipe utilization, busiest first: {pipes} "
        "(`sm__inst_executed_pipe_*.avg.pct_of_peak_sustained_active`; a pipe binds "
        "at >= 60%).",
        "zh": "各流水线利用率（从高到低）：{pipes}"
        "（`sm__inst_executed_pipe_*.avg.pct_of_peak_sustained_active`；>= 60% 即受限）。",
    },
    "ev_mio_source": {
        "en": "The MIO-issued instructions are {parts} (shared-memory instructions, "
        "shuffles from `smsp__sass_thread_inst_executed_op_inter_thread_communication_"
        "pred_on.sum`, special functions from the XU pipe's count, or the sampled "
        "SASS): the queue's waits come from the largest.",
        "zh": "经 MIO 发射的指令中 {parts}（共享内存指令；shuffle 来自 "
        "`smsp__sass_thread_inst_executed_op_inter_thread_communication_pred_on.sum`；"
        "特殊函数来自 XU 流水线计数；或来自采样的 SASS）：队列的等待来自占比最大者。",
    },
    "mio_part": {"en": "{what} {pct:.0f}%", "zh": "{what}占 {pct:.0f}%"},
    "mio_shared": {"en": "shared memory", "zh": "共享内存"},
    "mio_shuffle": {"en": "shuffles", "zh": "shuffle 指令"},
    "mio_mufu": {"en": "special functions", "zh": "特殊函数"},
    "ev_loads_and_stores": {
        "en": "Loads: {loads} Stores: {stores}",
        "zh": "加载：{loads}存储：{stores}",
    },
    "reasons_issue_part": {
        "en": "its part of the issue time, {reasons}",
        "zh": "发射时间中的相应部分，{reasons}",
    },
    "ev_loads_bytes": {
        "en": "A warp's load uses {used:.1f} of the 32 bytes of each sector it fetches "
        "(`smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio` < 16).",
        "zh": "一个 warp 的加载只用到每个取回 sector 32 字节中的 {used:.1f} 字节"
        "（`smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio` < 16）。",
    },
    "ev_loads_sectors": {
        "en": "{spr:.1f} sectors per global load request "
        "(`l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum` / requests), more than the "
        "{need:.0f} that even a warp's 16-byte loads need: the lanes' addresses are "
        "scattered.",
        "zh": "每次全局加载请求 {spr:.1f} 个 sector"
        "（`l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum` / 请求数），超过即使一个 "
        "warp 做 16 字节加载也只需的 {need:.0f} 个：各 lane 的地址是分散的。",
    },
    "ev_stores_bytes": {
        "en": "A warp's store uses {used:.1f} of the 32 bytes of each sector it writes "
        "(`smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio` < 16).",
        "zh": "一个 warp 的存储只用到所写每个 sector 32 字节中的 {used:.1f} 字节"
        "（`smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio` < 16）。",
    },
    "ev_stores_sectors": {
        "en": "{spr:.1f} sectors per global store request "
        "(`l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum` / "
        "`l1tex__t_requests_pipe_lsu_mem_global_op_st.sum`), more than the {need:.0f} "
        "that even a warp's 16-byte stores need.",
        "zh": "每次全局存储请求 {spr:.1f} 个 sector"
        "（`l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum` / "
        "`l1tex__t_requests_pipe_lsu_mem_global_op_st.sum`），超过即使一个 warp 做 16 "
        "字节存储也只需的 {need:.0f} 个。",
    },
    "ev_stores_resent": {
        "en": "Global stores send {ratio:.1f}x the sectors that the output puts in "
        "DRAM (`l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum` x 32 B / "
        "`dram__bytes_write.sum` >= 2): each sector is written piecemeal by several "
        "requests.",
        "zh": "全局存储发送的 sector 数是输出写入 DRAM 的 {ratio:.1f} 倍"
        "（`l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum` x 32 B / "
        "`dram__bytes_write.sum` >= 2）：每个 sector 被多个请求零碎地写入。",
    },
    "ev_global_atomics": {
        "en": "{sectors:,.0f} atomic sectors in the L2 (`lts__t_sectors_op_atom.sum` + "
        "`lts__t_sectors_op_red.sum`{loads}), {rate:,.0f} per us; atomics on one "
        "address execute one after another.",
        "zh": "L2 中有 {sectors:,.0f} 个原子操作 sector（`lts__t_sectors_op_atom.sum` "
        "+ `lts__t_sectors_op_red.sum`{loads}），每 us {rate:,.0f} 个；同一地址上的"
        "原子操作只能依次执行。",
    },
    "atomics_per_load": {
        "en": ", {ratio:.1f}x the global load sectors",
        "zh": "，为全局加载 sector 的 {ratio:.1f} 倍",
    },
    "ev_serial_atomics": {
        "en": "{hot:,.0f} of its {total:,.0f} L2 atomic sectors go to one L2 slice "
        "(`lts__t_sectors_op_red.max` + `lts__t_sectors_op_atom.max`); at {rate}, "
        "they need {need:,.1f} us, {pct:.0f}% of the launch: its loads wait behind "
        "atomics that execute one after another there.",
        "zh": "{total:,.0f} 个 L2 原子 sector 中有 {hot:,.0f} 个落在同一个 L2 slice"
        "（`lts__t_sectors_op_red.max` + `lts__t_sectors_op_atom.max`）；按{rate}计，"
        "它们需要 {need:,.1f} us，占该次启动的 {pct:.0f}%：其加载排在那里逐个执行的"
        "原子操作之后等待。",
    },
    "ev_local_sectors": {
        "en": "{sectors:,.0f} local-memory sectors "
        "(`l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum` + `..._st.sum`).",
        "zh": "local memory 访问 {sectors:,.0f} 个 sector"
        "（`l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum` + `..._st.sum`）。",
    },
    "ev_local_spills": {
        "en": "ptxas reports {nbytes:,.0f} bytes of register spills per thread, which "
        "go through local memory.",
        "zh": "ptxas 报告每线程 {nbytes:,.0f} 字节的寄存器溢出，它们经 local memory "
        "存取。",
    },
    "ev_dram_excess": {
        "en": "DRAM moves {ratio:.1f}x the ideal bytes ({moved:,.1f} MB against "
        "{ideal:,.1f} MB; `dram__bytes_read.sum` + `dram__bytes_write.sum`, >= 1.5x).",
        "zh": "DRAM 搬运的字节是理想值的 {ratio:.1f} 倍（{moved:,.1f} MB 对比 "
        "{ideal:,.1f} MB；`dram__bytes_read.sum` + `dram__bytes_write.sum`，>= 1.5 "
        "倍）。",
    },
    "ev_lsu_queue": {
        "en": "{requests:,.0f} global load requests "
        "(`l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`) pass through the "
        "load/store queue.",
        "zh": "{requests:,.0f} 个全局加载请求"
        "（`l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`）经过 load/store 队列。",
    },
    "ev_store_drain": {
        "en": "Warps wait at exit for their stores to leave; the store metrics do not "
        "show uncoalesced stores.",
        "zh": "warp 在退出时等待其存储写出；存储指标没有显示未合并的存储。",
    },
    "ev_dram_bandwidth": {
        "en": "Memory-bound at {pct:.0f}% of the measured copy bandwidth (>= "
        "{threshold:.0f}%): the loads wait for the DRAM bandwidth itself, not for too "
        "few bytes in flight; only fewer bytes help.",
        "zh": "访存受限，达到实测拷贝带宽的 {pct:.0f}%（>= {threshold:.0f}%）：加载等待的"
        "是 DRAM 带宽本身，而非在途字节不足；只有减少字节数才有帮助。",
    },
    "ev_later_launch": {
        "en": "`{kernel}`, launch {n} of the run, {blocks:,.0f} blocks for {sms:.0f} "
        "SMs (`gpu__time_duration.sum` of that launch); the main kernel's causes are "
        "counted from its own counters.",
        "zh": "`{kernel}`，运行中的第 {n} 次启动，{blocks:,.0f} 个 block 对 {sms:.0f} "
        "个 SM（该次启动的 `gpu__time_duration.sum`）；主 kernel 的原因按其自身的计数器"
        "统计。",
    },
    "ev_in_main": {
        "en": "In the main kernel `{kernel}`: {evidence}",
        "zh": "主 kernel `{kernel}`：{evidence}",
    },
    "ev_bytes_in_flight": {
        "en": "Its loads wait on DRAM, which runs at {pct:.0f}% of the measured copy "
        "bandwidth, with {spr:.1f} sectors per load request (4 for a warp's 4-byte "
        "loads, 16 for 16-byte ones): each warp has too few bytes in flight to cover "
        "the DRAM latency.",
        "zh": "其加载在等待 DRAM，DRAM 仅达到实测拷贝带宽的 {pct:.0f}%，每次加载请求 {spr:.1f} 个 "
        "sector（warp 做 4 字节加载为 4 个，16 字节为 16 个）：每个 warp 的在途字节"
        "太少，掩盖不了 DRAM 延迟。",
    },
    "ev_bytes_in_flight_nospr": {
        "en": "Its loads wait on DRAM, which runs at {pct:.0f}% of the measured copy "
        "bandwidth: the warps have too few bytes in flight to cover the DRAM latency.",
        "zh": "其加载在等待 DRAM，DRAM 仅达到实测拷贝带宽的 {pct:.0f}%：warp 的在途字节太少，"
        "掩盖不了 DRAM 延迟。",
    },
    "ev_local_queue": {
        "en": "{share:.0f}% of the load/store queue's sectors are local memory (>= 50%; "
        "{sectors:,.0f} sectors, `l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum` + "
        "`_st.sum`, against the global ones): the local loads and stores fill it.",
        "zh": "load/store 队列的扇区中 {share:.0f}% 是 local memory（>= 50%；{sectors:,.0f} "
        "个扇区，`l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum` + `_st.sum`，相对全局"
        "扇区）：是 local 加载和存储把队列填满。",
    },
    "ev_low_occupancy": {
        "en": "Warps wait on global memory with only {warps:.0f} of the SM's {slots:.0f} "
        "warp slots resident: theoretical occupancy {theoretical:.1f}% (<= "
        "{threshold:.0f}%; achieved {achieved:.1f}%, "
        "`sm__warps_active.avg.pct_of_peak_sustained_active`), capped by {limiter} "
        "(`{metric}` = {blocks:.0f} blocks per SM).",
        "zh": "warp 在等待全局内存，而 SM 的 {slots:.0f} 个 warp 槽位只驻留了 {warps:.0f} "
        "个：理论占用率 {theoretical:.1f}%（<= {threshold:.0f}%；实际 {achieved:.1f}%，"
        "`sm__warps_active.avg.pct_of_peak_sustained_active`），受{limiter}限制"
        "（`{metric}` = 每个 SM {blocks:.0f} 个 block）。",
    },
    "ev_memory_latency": {
        "en": "Warps wait on global loads while DRAM runs at {dram:.0f}% of the copy "
        "bandwidth and the L2 hits {l2:.0f}% of sectors (`lts__t_sector_hit_rate.pct`): "
        "latency, not bandwidth.",
        "zh": "warp 在等待全局加载，而 DRAM 只达到拷贝带宽的 {dram:.0f}%，L2 命中率 "
        "{l2:.0f}%（`lts__t_sector_hit_rate.pct`）：受延迟而非带宽限制。",
    },
    "ev_bank_conflicts": {
        "en": "{share:.0f}% of shared-memory wavefronts are conflict replays (>= 20%; "
        "{ld:,.0f} on loads, {st:,.0f} on stores, "
        "`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` / `_st.sum`).",
        "zh": "共享内存 wavefront 中有 {share:.0f}% 是冲突重放（>= 20%；加载 "
        "{ld:,.0f} 次，存储 {st:,.0f} 次，"
        "`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` / `_st.sum`）。",
    },
    "ev_shared_atomics": {
        "en": "{atoms:,.0f} shared-memory atomic instructions "
        "(`smsp__sass_inst_executed_op_shared_atom.sum`) with {conflicts:,.0f} bank "
        "conflicts.",
        "zh": "{atoms:,.0f} 条共享内存原子指令"
        "（`smsp__sass_inst_executed_op_shared_atom.sum`），bank 冲突 {conflicts:,.0f} "
        "次。",
    },
    "ev_shared_pipe": {
        "en": "{per:.2f} shared-memory loads and stores per issued instruction "
        "(`smsp__sass_inst_executed_op_shared_ld.sum` + `_st.sum` / "
        "`smsp__inst_executed.sum`), with conflict replays under 20% of wavefronts.",
        "zh": "每条发射指令对应 {per:.2f} 条共享内存加载和存储"
        "（`smsp__sass_inst_executed_op_shared_ld.sum` + `_st.sum` / "
        "`smsp__inst_executed.sum`），冲突重放低于 wavefront 的 20%。",
    },
    "ev_mio_other": {
        "en": "Few shared-memory instructions ({per:.2f} per issued instruction): the "
        "MIO queue holds warp shuffles, special-function or other MIO instructions "
        "(this recording does not count which).",
        "zh": "共享内存指令很少（每条发射指令 {per:.2f} 条）：MIO 队列中是 warp shuffle、"
        "特殊函数或其他 MIO 指令（本次记录没有区分）。",
    },
    "ev_mio_none": {
        "en": "No shared-memory instructions to speak of ({per:.2f} per issued "
        "instruction) and no shuffles or special functions counted: other MIO-issued "
        "instructions (special-register reads `S2R`, constant loads, dynamic branches) "
        "fill the queue.",
        "zh": "几乎没有共享内存指令（每条发射指令 {per:.2f} 条），也没有计到 shuffle 或"
        "特殊函数：是其他经 MIO 发射的指令（读特殊寄存器 `S2R`、常量加载、动态分支）"
        "填满了队列。",
    },
    "ev_one_wave": {
        "en": "The SMs sat idle for this part of ncu's duration: the grid's {blocks:,.0f} "
        "blocks are {waves:.2f} waves per SM (`launch__waves_per_multiprocessor`), all "
        "resident at once, and the SMs idle as their blocks finish at different times.",
        "zh": "在 ncu 时长的这一部分中 SM 处于空闲：grid 的 {blocks:,.0f} 个 block 为每个 "
        "SM {waves:.2f} 波（`launch__waves_per_multiprocessor`），同时驻留，各 SM 在其 "
        "block 先后结束时空闲。",
    },
    "ev_pipes": {
        "en": "FP32 pipe {fma:.0f}% busy, issue slots {issue:.0f}% busy "
        "(`sm__inst_executed_pipe_fma`, `sm__inst_issued`, or derived from "
        "`smsp__sass_thread_inst_executed_op_ffma_pred_on.sum` and "
        "`smsp__inst_executed.sum`).",
        "zh": "FP32 流水线 {fma:.0f}% 繁忙，发射槽 {issue:.0f}% 繁忙"
        "（`sm__inst_executed_pipe_fma`、`sm__inst_issued`，或由 "
        "`smsp__sass_thread_inst_executed_op_ffma_pred_on.sum` 与 "
        "`smsp__inst_executed.sum` 推算）。",
    },
    "ev_idle": {
        "en": "The SMs sat idle for this part of ncu's duration (beyond what the "
        "issued instructions and stalls account for), with {waves:,.1f} waves of "
        "blocks per SM (`launch__waves_per_multiprocessor`): the launch ramping up "
        "and blocks finishing unevenly, not a tail.",
        "zh": "在 ncu 时长的这一部分中 SM 处于空闲（超出发射指令与停顿所能解释的部分），"
        "每个 SM {waves:,.1f} 波 block（`launch__waves_per_multiprocessor`）：是启动"
        "爬坡和 block 结束时间不均所致，而非尾部效应。",
    },
    "ev_idle_unknown": {
        "en": "The SMs sat idle for this part of ncu's duration (beyond what the "
        "issued instructions and stalls account for); the waves per SM were not "
        "recorded.",
        "zh": "在 ncu 时长的这一部分中 SM 处于空闲（超出发射指令与停顿所能解释的部分）；"
        "没有记录每个 SM 的波数。",
    },
    "ev_grid_too_small": {
        "en": "The grid has {blocks:,.0f} blocks, {waves:.2f} waves per SM "
        "(`launch__waves_per_multiprocessor` < 1): some SMs get no block at all.",
        "zh": "grid 只有 {blocks:,.0f} 个 block，每个 SM {waves:.2f} 波"
        "（`launch__waves_per_multiprocessor` < 1）：有些 SM 一个 block 也分不到。",
    },
    "ev_tail": {
        "en": "{waves:.2f} waves of blocks per SM (`launch__waves_per_multiprocessor` "
        "<= 4): the last wave is only {last:.0f}% full, so most SMs idle while it "
        "runs.",
        "zh": "每个 SM {waves:.2f} 波 block（`launch__waves_per_multiprocessor` <= 4）："
        "最后一波只有 {last:.0f}% 满，它运行时大多数 SM 空闲。",
    },
    "ev_barrier": {
        "en": "Warps wait at __syncthreads() for the slowest warp of their block.",
        "zh": "warp 在 __syncthreads() 处等待本 block 中最慢的 warp。",
    },
    "ev_dependency": {
        "en": "Each warp waits on fixed-latency results of its previous instructions "
        "(little instruction-level parallelism).",
        "zh": "每个 warp 都在等待前面指令的固定延迟结果（指令级并行不足）。",
    },
    "ev_membar": {"en": "Warps wait on memory fences.", "zh": "warp 在等待内存栅栏。"},
    "ev_frontend": {
        "en": "Instruction fetch and branch resolution hold the warps.",
        "zh": "取指与分支解析使 warp 停顿。",
    },
    "ev_dispatch": {
        "en": "A warp was selected but the dispatcher held its instruction back (pipe "
        "conflicts or other events).",
        "zh": "warp 已被选中，但分派器因流水线冲突或其他事件扣住了它的指令。",
    },
    "ev_other": {
        "en": "Texture, sleep and miscellaneous stalls.",
        "zh": "纹理、睡眠及其他杂项停顿。",
    },
    "ev_instructions": {
        "en": "By kind, in millions of warp instructions: global load requests "
        "{ld0:,.2f} -> {ld1:,.2f}, shared-memory loads and stores {sh0:,.2f} -> "
        "{sh1:,.2f}, FFMA {f0:,.2f} -> {f1:,.2f}.",
        "zh": "按种类（百万条 warp 指令）：全局加载请求 {ld0:,.2f} -> {ld1:,.2f}，共享"
        "内存加载与存储 {sh0:,.2f} -> {sh1:,.2f}，FFMA {f0:,.2f} -> {f1:,.2f}。",
    },
    "ev_occupancy": {
        "en": "Registers per thread {r0:.0f} -> {r1:.0f}, theoretical occupancy "
        "{t0:.0f}% -> {t1:.0f}%.",
        "zh": "每线程寄存器 {r0:.0f} -> {r1:.0f}，理论占用率 {t0:.0f}% -> {t1:.0f}%。",
    },
    "ev_clock": {
        "en": "ncu ran with clock control none: the SM clock follows load and "
        "temperature.",
        "zh": "ncu 的时钟控制为 none：SM 时钟随负载和温度变化。",
    },
    "reasons_stalls": {"en": "stalls {reasons}", "zh": "停顿 {reasons}"},
    "reasons_idle": {"en": "SMs idle", "zh": "SM 空闲"},
    "reasons_launch": {"en": "its own launch", "zh": "其单独的启动"},
}

SENTENCES: dict[str, dict[str, str]] = {
    "cause_launch_changed": {
        "en": "**{label}**: `{kernel}` (launch {n} of each run) {t0:,.2f} -> "
        "{t1:,.2f} us (`gpu__time_duration.sum` of that launch; {blocks0:,.0f} -> "
        "{blocks1:,.0f} blocks, {inst0:,.0f} -> {inst1:,.0f} warp instructions): {part}.",
        "zh": "**{label}**：`{kernel}`（每次运行的第 {n} 次启动）{t0:,.2f} -> {t1:,.2f} us"
        "（该次启动的 `gpu__time_duration.sum`；block 数 {blocks0:,.0f} -> "
        "{blocks1:,.0f}，warp 指令 {inst0:,.0f} -> {inst1:,.0f}）：{part}。",
    },
    "label_in_kernel": {
        "en": "{label} in the main kernel `{kernel}`",
        "zh": "主 kernel `{kernel}` 的{label}",
    },
    "launch_verb_gone": {"en": "no longer runs", "zh": "不再运行"},
    "launch_verb_new": {"en": "runs in addition", "zh": "为新增的启动"},
    "cause_launch": {
        "en": "**{label}**: {names} ({us:,.2f} us of ncu's time) {verb}: "
        "{n0:.0f} -> {n1:.0f} launches, {t0:,.2f} -> {t1:,.2f} us in all "
        "(`gpu__time_duration.sum` per launch): {part}. ncu's other factors compare "
        "runs of different launches and are not ranked beside it.",
        "zh": "**{label}**：{names}（ncu 时长 {us:,.2f} us）{verb}：启动次数 "
        "{n0:.0f} -> {n1:.0f}，总时长 {t0:,.2f} -> {t1:,.2f} us（按启动计的 "
        "`gpu__time_duration.sum`）：{part}。ncu 的其他"
        "因素比较的是启动组成不同的两次运行，不与之并列排序。",
    },
    "cause_pipe_work": {
        "en": "**{label}**: {pipe} warp instructions {x:,.1f} M -> {y:,.1f} M "
        "({pct:.0f}% of the issued ones where they run), registers per thread {r0:.0f} -> "
        "{r1:.0f}; it drives {factors}, together {part}.",
        "zh": "**{label}**：{pipe}的 warp 指令 {x:,.1f} M -> {y:,.1f} M（在其所在一侧占发射指令的 "
        "{pct:.0f}%），每线程寄存器 {r0:.0f} -> {r1:.0f}；它带动了{factors}，合计"
        "{part}。",
    },
    "changed_conflicts": {
        "en": "bank-conflict replays {x:.0f}% -> {y:.0f}% of shared-memory wavefronts",
        "zh": "bank 冲突重放占共享内存 wavefront 的 {x:.0f}% -> {y:.0f}%",
    },
    "step_not_in_counters": {
        "en": "**Not ranked**: the timing moved {pct:+.1f}% but ncu's single profiled "
        "launch moved {ncu_pct:+.1f}%, not the same way by 2% or more; the counters "
        "cannot say why.",
        "zh": "**无法排序**：计时变化 {pct:+.1f}%，而 ncu 单次采样的启动变化 "
        "{ncu_pct:+.1f}%，方向或幅度（2% 以上）不一致；计数器无法说明原因。",
    },
    "line_class": {
        "en": "{what}: line {line} {code}.",
        "zh": "{what}：第 {line} 行 {code}。",
    },
    "line_what_idle_lanes": {
        "en": "The branch that splits the warps",
        "zh": "让 warp 分化的分支",
    },
    "line_what_mio_shuffle": {"en": "The shuffles", "zh": "shuffle 所在"},
    "line_what_mio_special": {"en": "The special functions", "zh": "特殊函数所在"},
    "line_what_fp64_pipe": {"en": "The FP64 instructions", "zh": "FP64 指令所在"},
    "line_what_fp64_work": {"en": "The FP64 instructions", "zh": "FP64 指令所在"},
    "pipe_moved": {
        "en": "{pipe} warp instructions {x:,.1f} M -> {y:,.1f} M ({s0:.0f}% -> "
        "{s1:.0f}% of the issued ones){where}.",
        "zh": "{pipe} 的 warp 指令 {x:,.1f} M -> {y:,.1f} M（占发射指令的 {s0:.0f}% -> "
        "{s1:.0f}%）{where}。",
    },
    "pipe_line": {"en": ": line {line} {code}", "zh": "：第 {line} 行 {code}"},
    "step_params_text": {
        "en": "**What ran:** {ran}, where the idea's text says {said}.",
        "zh": "**实际运行：**{ran}，而优化思路的文字写的是 {said}。",
    },
    "step_params_changed": {
        "en": "**What ran:** the step also changes the configuration both variants share "
        "({changes}), so its time change is not its idea's alone.",
        "zh": "**实际运行：**这一步也改了两版共有的配置（{changes}），时间变化不全归于思路。",
    },
    "tie_with": {
        "en": " (tied with {names}: within the timing noise)",
        "zh": "（与 {names} 持平：差异在计时噪声以内）",
    },
    "limiter_now": {
        "en": "{unit}; its largest cost: {cause}",
        "zh": "{unit}；最大开销：{cause}",
    },
    "limiter_now_slice": {
        "en": "{unit} (its atomics' time at the family's slice rate over the launch); "
        "its largest cost by the warps' stall cycles: {cause}",
        "zh": "{unit}（其原子操作按本 family 的 slice 速率所需时间占启动的比例）；按 warp "
        "停顿周期计的最大开销：{cause}",
    },
    "at_vendor_rate": {
        "en": "`{variant}` runs close to {ceiling}: {rate}, {pct:.0f}% of it "
        "(>= 90%), {fp32:.0f}% of the measured FP32 peak, so the FP32 roof is still "
        "above; {pipe}. What limits it now: {now}.",
        "zh": "`{variant}` 已达到{ceiling}的速度：{rate}，为其 {pct:.0f}%（>= 90%），为"
        "实测 FP32 峰值的 {fp32:.0f}%，FP32 上限仍在其上；{pipe}。当前限制因素："
        "{now}。",
    },
    "next_at_vendor_rate": {
        "en": "Next: `{variant}` runs at {pct:.0f}% of {ceiling} ({fp32:.0f}% of the "
        "FP32 peak); what is left is what the library does beyond what the kernel's "
        "source already does (the brief's What next names it){tensor}.",
        "zh": "下一步：`{variant}` 达到{ceiling}的 {pct:.0f}%（FP32 峰值的 {fp32:.0f}%）；"
        "剩下的是厂商库在该 kernel 源码已做之外的做法（见摘要的下一步）{tensor}。",
    },
    "next_at_vendor_rate_tie": {
        "en": "Next: `{variant}` matches {ceiling} (at {pct:.0f}% of it, within its "
        "{noise:.1f}% timing noise; {fp32:.0f}% of the FP32 peak); what is left is what "
        "the library does beyond what the kernel's source already does (the brief's "
        "What next names it){tensor}.",
        "zh": "下一步：`{variant}` 与{ceiling}持平（为其 {pct:.0f}%，在 {noise:.1f}% 的计时"
        "噪声内；FP32 峰值的 {fp32:.0f}%）；剩下的是厂商库在该 kernel 源码已做之外的做法"
        "（见摘要的下一步）{tensor}。",
    },
    "next_tensor": {
        "en": ", or tensor cores where the precision allows",
        "zh": "，或在精度允许时使用 tensor core",
    },
    "dram_at_ideal": {
        "en": "each byte crosses DRAM about once, as the ideal counts ({l1:,.1f} MB "
        "requested from L1: no re-reads for the caches to absorb)",
        "zh": "每个字节大约只经过 DRAM 一次，与理想值一致（L1 请求 {l1:,.1f} MB："
        "没有需要缓存吸收的重复读取）",
    },
    "dram_absorbed_by": {
        "en": "the caches absorb the re-reads: L1 is asked for {l1:,.1f} MB "
        "({ratio:.1f}x the DRAM bytes, >= 1.5x), DRAM moves the ideal bytes",
        "zh": "缓存吸收了重复读取：L1 收到 {l1:,.1f} MB 的请求（是 DRAM 字节的 "
        "{ratio:.1f} 倍，>= 1.5 倍），DRAM 只搬运理想字节数",
    },
    "sectors_four_byte": {
        "en": "about the 4 sectors of a warp's coalesced 4-byte loads.",
        "zh": "约等于一个 warp 合并 4 字节加载所需的 4 个 sector。",
    },
    "sectors_sixteen_byte": {
        "en": "about the 16 sectors of a warp's coalesced 16-byte (float4) loads.",
        "zh": "约等于一个 warp 合并 16 字节（float4）加载所需的 16 个 sector。",
    },
    "cause_state": {
        "en": "**{label}** takes {share:.0f}% of the launch ({us:,.1f} of {total:,.1f} "
        "us; {reasons}). {evidence} What helps: {fix}.",
        "zh": "**{label}** 占本次启动的 {share:.0f}%（{total:,.1f} us 中的 {us:,.1f} "
        "us；{reasons}）。{evidence}改进方向：{fix}。",
    },
    "cause_state_run": {
        "en": "**{label}** takes {share:.0f}% of the run ({us:,.1f} of {total:,.1f} "
        "us; {reasons}). {evidence} What helps: {fix}.",
        "zh": "**{label}** 占整个运行的 {share:.0f}%（{total:,.1f} us 中的 {us:,.1f} "
        "us；{reasons}）。{evidence}改进方向：{fix}。",
    },
    "cause_change": {
        "en": "**{label}**: {detail}; {part}. {evidence}",
        "zh": "**{label}**：{detail}；其中{part}。{evidence}",
    },
    "detail_dram_bytes": {
        "en": "DRAM bytes {x:,.1f} MB -> {y:,.1f} MB (`dram__bytes_read.sum` + "
        "`dram__bytes_write.sum`; local-memory sectors {lx:,.1f} -> {ly:,.1f} MB of "
        "them)",
        "zh": "DRAM 字节数 {x:,.1f} MB -> {y:,.1f} MB（`dram__bytes_read.sum` + "
        "`dram__bytes_write.sum`；其中局部内存 sector {lx:,.1f} -> {ly:,.1f} MB）",
    },
    "detail_dram_rate": {
        "en": "achieved DRAM rate {x:,.0f} -> {y:,.0f} GB/s (DRAM bytes over ncu's time)",
        "zh": "DRAM 实际速率 {x:,.0f} -> {y:,.0f} GB/s（DRAM 字节数除以 ncu 时长）",
    },
    "part_with": {
        "en": "{us} of the {total} us {dir}",
        "zh": "{dir} {total} us 中 {us} us",
    },
    "part_over": {
        "en": "{us} us {dir}",
        "zh": "{dir}了 {us} us",
    },
    "part_against": {
        "en": "{us} us {own}",
        "zh": "反而{own}了 {us} us",
    },
    "cause_other_stalls": {
        "en": "**Other stall reasons** ({groups}): no named cause; together {part}.",
        "zh": "**其他停顿原因**（{groups}）：不列为原因；合计{part}。",
    },
    "pooled_no_counter": {
        "en": "{names}: no counter of its own",
        "zh": "{names}：无自身计数器",
    },
    "pooled_no_work": {
        "en": "{names}: too little MIO work of its own to be a cause",
        "zh": "{names}：自身的 MIO 指令太少，不足以成为原因",
    },
    "pooled_within_print": {
        "en": "{names}: each moved 0.1 cycle or less, or under 10%",
        "zh": "{names}：各自变化不超过 0.1 周期或 10%",
    },
    "pooled_counter_still": {
        "en": "{names}: its own counter did not move its way",
        "zh": "{names}：其自身计数器未朝该方向变化",
    },
    "pooled_and": {"en": "{head}; {tail}", "zh": "{head}；{tail}"},
    "step_expected_library": {
        "en": "**Expected:** nothing: the tool cannot see the library's code; the "
        "counters above say what differs.",
        "zh": "**预期：**无：工具看不到库的代码；上面的计数器说明了差别所在。",
    },
    "step_observed_only": {
        "en": "**Observed:** {observed}. {verdict}",
        "zh": "**实际：**{observed}。{verdict}",
    },
    "why_config": {
        "en": "the configuration ({part})",
        "zh": "配置（{part}）",
    },
    "other_stalls_body": {
        "en": "other stall reasons ({groups})",
        "zh": "其他停顿（{groups}）",
    },
    "pooled_more": {"en": "{k} more", "zh": "另 {k} 项"},
    "qty_local_sectors": {
        "en": "local load and store sectors",
        "zh": "局部内存加载与存储 sector 数",
    },
    "other_factors": {
        "en": "**Other factors**: the factors too small to list, together {part}.",
        "zh": "**其他因素**：太小而未列出的因素，合计{part}。",
    },
    "timing_residual": {
        "en": "**Timing against profile**: the event timing moved {de:+,.2f} us, ncu's "
        "two launches {dn:+,.2f} us; the difference, {part}, is what the counters do "
        "not cover.",
        "zh": "**计时与采样之差**：事件计时变化 {de:+,.2f} us，ncu 的两次启动变化 "
        "{dn:+,.2f} us；两者之差（{part}）不在计数器的解释范围内。",
    },
    "by_timing": {"en": "the timing", "zh": "计时"},
    "by_ncu": {"en": "ncu's time", "zh": "ncu 的时间"},
    "dir_saved": {"en": "saved", "zh": "节省"},
    "dir_added": {"en": "added", "zh": "增加"},
    "ev_dram_bytes": {
        "en": "DRAM runs at {pct:.0f}% of the copy bandwidth (>= 60%) on one side: its "
        "time follows its bytes.",
        "zh": "一侧的 DRAM 达到拷贝带宽的 {pct:.0f}%（>= 60%）：其耗时取决于字节数。",
    },
    "ev_in": {
        "en": "In `{variant}`: {evidence}",
        "zh": "在 `{variant}` 中：{evidence}",
    },
    "detail_occupancy": {
        "en": "achieved occupancy {x:.0f}% -> {y:.0f}% "
        "(`sm__warps_active.avg.pct_of_peak_sustained_active`)",
        "zh": "实际占用率 {x:.0f}% -> {y:.0f}%"
        "（`sm__warps_active.avg.pct_of_peak_sustained_active`）",
    },
    "detail_clock": {
        "en": "SM clock {x:.2f} -> {y:.2f} GHz (`sm__cycles_elapsed.avg.per_second`)",
        "zh": "SM 时钟 {x:.2f} -> {y:.2f} GHz（`sm__cycles_elapsed.avg.per_second`）",
    },
    "detail_grid": {
        "en": "idle SM time {x:.0f}% -> {y:.0f}% of the launch, achieved occupancy "
        "{o0:.0f}% -> {o1:.0f}% on the SMs that have a block "
        "(`sm__warps_active.avg.pct_of_peak_sustained_active`): with fewer blocks than "
        "a wave, an SM holds one block or none, whatever its registers allow",
        "zh": "SM 空闲时间占启动时长的 {x:.0f}% -> {y:.0f}%，有 block 的 SM 上实际占用率 "
        "{o0:.0f}% -> {o1:.0f}%（`sm__warps_active.avg.pct_of_peak_sustained_active`）："
        "block 数不足一波时，每个 SM 只有一个 block 或没有，与寄存器允许多少无关",
    },
    "detail_idle": {
        "en": "idle SM time {x:.0f}% -> {y:.0f}% of the launch",
        "zh": "SM 空闲时间占启动时长的 {x:.0f}% -> {y:.0f}%",
    },
    "detail_stalls_per_inst": {
        "en": "{reasons} {cx:.2f} -> {cy:.2f} warp-cycles per issued instruction "
        "({x:,.1f} M -> {y:,.1f} M in all)",
        "zh": "{reasons} 每条发射指令 {cx:.2f} -> {cy:.2f} 个 warp 周期（总计 {x:,.1f} M "
        "-> {y:,.1f} M）",
    },
    "detail_stalls_per_request": {
        "en": "{reasons} {cx:,.1f} -> {cy:,.1f} warp-cycles per {unit} "
        "({ix:,.2f} M -> {iy:,.2f} M of them: {which})",
        "zh": "{reasons} 每个{unit} {cx:,.1f} -> {cy:,.1f} 个 warp 周期（数量 "
        "{ix:,.2f} M -> {iy:,.2f} M：{which}）",
    },
    "unit_ld_request": {"en": "global load request", "zh": "全局加载请求"},
    "unit_ldst_request": {
        "en": "global load or store request",
        "zh": "全局加载或存储请求",
    },
    "unit_ld_sector": {"en": "global load sector", "zh": "全局加载 sector"},
    "unit_ld_request_pl": {"en": "global load requests", "zh": "全局加载请求"},
    "unit_ldst_request_pl": {
        "en": "global load and store requests",
        "zh": "全局加载与存储请求",
    },
    "unit_ld_sector_pl": {"en": "global load sectors", "zh": "全局加载 sector"},
    "moved_same_longer": {
        "en": "the same count, each waited longer",
        "zh": "不变，每个等待更长",
    },
    "moved_same_shorter": {
        "en": "the same count, each waited less",
        "zh": "不变，每个等待更短",
    },
    "moved_fewer_and_shorter": {
        "en": "fewer, and each waited less",
        "zh": "更少，且每个等待更短",
    },
    "moved_fewer_but_longer": {
        "en": "fewer, but each waited longer",
        "zh": "更少，但每个等待更长",
    },
    "moved_more_and_longer": {
        "en": "more, and each waited longer",
        "zh": "更多，且每个等待更长",
    },
    "moved_more_but_shorter": {
        "en": "more, but each waited less",
        "zh": "更多，但每个等待更短",
    },
    "detail_global_loads": {
        "en": "{unit} {x:,.2f} M -> {y:,.2f} M (x{ratio:,.2f}, `{metric}`), the count "
        "the waits on global memory ({reasons}) are counted per, at their mean wait "
        "per {unit_one}",
        "zh": "{unit} {x:,.2f} M -> {y:,.2f} M（x{ratio:,.2f}，`{metric}`），即全局内存"
        "等待（{reasons}）所按的计数，以每个{unit_one}的平均等待计",
    },
    "detail_lanes": {
        "en": "active lanes per warp instruction {l0:.1f} -> {l1:.1f} of 32 "
        "(`smsp__thread_inst_executed_per_inst_executed.ratio`, a quarter more or "
        "above) for the same thread instructions ({t0:,.1f} M -> {t1:,.1f} M, within "
        "20%): the same work in {x:,.2f} M -> {y:,.2f} M warp instructions "
        "(`smsp__inst_executed.sum`)",
        "zh": "每条 warp 指令的活跃 lane {l0:.1f} -> {l1:.1f}（共 32，"
        "`smsp__thread_inst_executed_per_inst_executed.ratio`，至少多四分之一），线程"
        "指令数不变（{t0:,.1f} M -> {t1:,.1f} M，20% 以内）：同样的工作用 {x:,.2f} M -> "
        "{y:,.2f} M 条 warp 指令完成（`smsp__inst_executed.sum`）",
    },
    "detail_wider": {
        "en": "global load requests {r0:,.2f} M -> {r1:,.2f} M for the same sectors "
        "({p0:.1f} -> {p1:.1f} sectors per request, "
        "`l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`; requests at most half, "
        "sectors within 20%): more bytes per request in flight, fewer instructions to "
        "issue; {count}",
        "zh": "全局加载请求 {r0:,.2f} M -> {r1:,.2f} M，扇区数不变（每请求 {p0:.1f} -> "
        "{p1:.1f} 个扇区，`l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`；请求数至多"
        "减半、扇区数变化在 20% 以内）：每个请求在途字节更多，要发射的指令更少；{count}",
    },
    "detail_instruction_count": {
        "en": "issued warp instructions {x:,.2f} M -> {y:,.2f} M (x{ratio:,.2f}, "
        "`smsp__inst_executed.sum`), {lanes}",
        "zh": "发射的 warp 指令 {x:,.2f} M -> {y:,.2f} M（x{ratio:,.2f}，"
        "`smsp__inst_executed.sum`），{lanes}",
    },
    "lanes_per_inst": {
        "en": "active lanes per warp instruction {x:.1f} -> {y:.1f} of 32 "
        "(`smsp__thread_inst_executed_per_inst_executed.ratio`)",
        "zh": "每条 warp 指令的活跃 lane {x:.1f} -> {y:.1f}（共 32 个，"
        "`smsp__thread_inst_executed_per_inst_executed.ratio`）",
    },
    "lanes_not_measured": {
        "en": "active lanes per instruction not measured "
        "(`smsp__thread_inst_executed_per_inst_executed.ratio` not recorded)",
        "zh": "每条指令的活跃 lane 未测量（未记录 "
        "`smsp__thread_inst_executed_per_inst_executed.ratio`）",
    },
    "step_unchanged": {
        "en": "**No change**: {by} moved {pct:+.1f}%, within the {line:.1f}% a change "
        "must exceed; ncu's launch moved {ncu_pct:+.1f}%.",
        "zh": "**没有变化**：{by}变化 {pct:+.1f}%，未超过判定变化所需的 {line:.1f}%；ncu "
        "的启动变化 {ncu_pct:+.1f}%。",
    },
    "step_time_only": {
        "en": "Not profiled at a common size: the time changed {pct:+.1f}% "
        "({t0:,.2f} -> {t1:,.2f} us); no counters rank why.",
        "zh": "两者没有在同一规模上采样：时间变化 {pct:+.1f}%（{t0:,.2f} -> {t1:,.2f} "
        "us）；没有计数器可以排序原因。",
    },
    "input_changed": {
        "en": "`{variant}` runs on another input ({input}) than `{before}` "
        "({input_before}): it starts that input's ladder, and its times are compared "
        "only with variants on the same input.{same_code}",
        "zh": "`{variant}` 使用的输入（{input}）与 `{before}`（{input_before}）不同："
        "它是该输入下优化阶梯的起点，其耗时只与同一输入的版本比较。{same_code}",
    },
    "qty_each_kinds": {"en": " (of them, {kinds})", "zh": "（其中 {kinds}）"},
    "qty_kind_shared": {
        "en": "shared-memory loads and stores {before} -> {after}",
        "zh": "共享内存加载与存储 {before} -> {after}",
    },
    "qty_kind_ffma": {
        "en": "FFMA {before} -> {after}",
        "zh": "FFMA {before} -> {after}",
    },
    "step_init_untimed": {
        "en": "**Not timed:** zeroing {names} before the launch; the timing loop zeroes "
        "it once, and its times are of the kernels alone, where a program pays a "
        "memset per call{traced}.",
        "zh": "**未计时：** 启动前将 {names} 清零；计时循环只清零一次，其耗时只含 kernel，"
        "而程序每次调用都要付出一次 memset{traced}。",
    },
    "step_init_traced": {
        "en": ": {us:,.2f} us in its traced sequence at n = {n}",
        "zh": "：n = {n} 时所追踪的序列中为 {us:,.2f} us",
    },
    "same_code": {
        "en": " The same code on the two inputs: {t0:,.4g} -> {t1:,.4g} us "
        "({pct:+.1f}%){atomics}.{slice}",
        "zh": " 同一代码在两种输入上：{t0:,.4g} -> {t1:,.4g} us（{pct:+.1f}%）{atomics}。"
        "{slice}",
    },
    "same_code_slice": {
        "en": " Under either input one of the {slices:.0f} L2 slices takes "
        "{h0:.0f}% and {h1:.0f}% of the atomic sectors ({even:.1f}% each, were they "
        "spread over every slice), "
        "the slice {p0:.0f}% and {p1:.0f}% busy: the atomics' target lives in a few "
        "L2 lines under both inputs, not only under the second.",
        "zh": " 两种输入下，{slices:.0f} 个 L2 slice 中都有一个承担了原子 sector 的 "
        "{h0:.0f}% 和 {h1:.0f}%（若分布到所有 slice，每个 {even:.1f}%），该 slice 的繁忙度为 {p0:.0f}% 和 "
        "{p1:.0f}%；原子操作的目标在两种输入下都只落在少数几条 L2 line 上，并非只在第二种输入下。",
    },
    "same_code_atomics": {
        "en": "; the L2 received fewer atomic sectors, {s0:,.1f} M -> {s1:,.1f} M, "
        "each slower: {r0:,.0f} -> {r1:,.0f} per us",
        "zh": "；L2 收到的原子 sector 更少（{s0:,.1f} M -> {s1:,.1f} M），"
        "但每个更慢：每微秒 {r0:,.0f} -> {r1:,.0f} 个",
    },
    "expected_observed": {
        "en": "*Expected* to fall (from the idea; the previous diagnosis's largest "
        "cause was {previous}): {expected}. *Observed* (primary cause): "
        "{observed}. {verdict}{against}",
        "zh": "*预期*会下降的（来自优化思路；上一步诊断的最大原因是 {previous}）："
        "{expected}。*实际*（主要原因）：{observed}。{verdict}{against}",
    },
    "expected_library": {
        "en": "*Expected*: nothing; a library's code is not visible to the tool (the "
        "previous diagnosis's largest cause was {previous}). *Its counters differ "
        "most in*: {observed}.",
        "zh": "*预期*：无；工具看不到库的代码（上一步诊断的最大原因是 {previous}）。"
        "*其计数器差别最大的是*：{observed}。",
    },
    "part_idle": {
        "en": "Parts above their cause's own time in its launch ({items}): a launch's "
        "causes (the baseline's in A.4) are its stall cycles' share of its busy time, "
        "with idle SMs a line of their own, while the step's split takes idle SMs as a "
        "share of the busy time, so a cause's part also carries the idle time that "
        "waited on it.",
        "zh": "高于其原因在所属启动中自身时间的部分（{items}）：启动的各原因（基线的见 "
        "A.4）是其停顿周期在忙碌时间中的份额，空闲 SM 单列一行；而步骤的拆分把空闲 SM "
        "视为忙碌时间的一个比例，所以一个原因的部分也带上了等待它的空闲时间。",
    },
    "part_idle_and": {"en": "{head}; {tail}", "zh": "{head}；{tail}"},
    "part_idle_item": {
        "en": "{label} {us} us {dir} against its {own} us in `{variant}`, {idle} us "
        "more with its share of that launch's idle SM time",
        "zh": "{label}{dir} {us} us，而它在 `{variant}` 中为 {own} us，加上其在该启动"
        "空闲 SM 时间中的份额再多 {idle} us",
    },
    "against_some": {"en": " But {items}.", "zh": "但{items}。"},
    "against_lanes": {
        "en": "fewer idle lanes were expected, and the lanes not predicated off per "
        "warp instruction went {before:.1f} -> {after:.1f} of 32",
        "zh": "预期空闲 lane 更少，而每条 warp 指令中未被谓词关闭的 lane 从 {before:.1f} "
        "变为 {after:.1f}（共 32）",
    },
    "against_conflicts": {
        "en": "fewer bank conflicts were expected, and conflict replays went "
        "{before:.0f}% -> {after:.0f}% of shared wavefronts",
        "zh": "预期 bank 冲突更少，而冲突重放占共享内存 wavefront 的比例从 "
        "{before:.0f}% 变为 {after:.0f}%",
    },
    "against_local": {
        "en": "less local-memory traffic was expected, and local sectors went "
        "{before:,.0f} -> {after:,.0f}",
        "zh": "预期 local memory 流量更少，而 local sector 从 {before:,.0f} 变为 "
        "{after:,.0f}",
    },
    "against_occupancy": {
        "en": "more resident warps were expected, and the achieved occupancy went "
        "{before:.0f}% -> {after:.0f}%",
        "zh": "预期驻留 warp 更多，占用率却从 {before:.0f}% 变为 {after:.0f}%",
    },
    "against_atomics": {
        "en": "fewer global atomics were expected, and L2 atomic sectors went "
        "{before:,.0f} -> {after:,.0f}",
        "zh": "预期全局原子操作更少，而 L2 原子操作 sector 从 {before:,.0f} 变为 "
        "{after:,.0f}",
    },
    "against_instructions": {
        "en": "fewer instructions were expected, and issued warp instructions went "
        "{before:,.0f} -> {after:,.0f}",
        "zh": "预期指令更少，而发射的 warp 指令从 {before:,.0f} 变为 {after:,.0f}",
    },
    "meant_observed": {
        "en": "*Meant to show* (a deliberate regression) a cost through: {expected}. "
        "*Observed* (primary cause): {observed}. {verdict}",
        "zh": "*设计上*（有意的退步）要展示以下代价：{expected}。*实际*（主要原因）："
        "{observed}。{verdict}",
    },
    "expect_met": {
        "en": "As expected: {helped} cost less{rest}.",
        "zh": "符合预期：{helped}减少了{rest}。",
    },
    "expect_met_against": {
        "en": "Partly as expected: {helped} cost less.",
        "zh": "部分符合预期：{helped}减少。",
    },
    "expect_rest": {
        "en": "; {unseen}: not among the step's parts",
        "zh": "；{unseen}不在各部分中",
    },
    "expect_unseen": {"en": "{mechanism}{done}", "zh": "{mechanism}{done}"},
    "expect_rest_done": {
        "en": " (which the step did: {done})",
        "zh": "（已做到：{done}）",
    },
    "expect_offset": {
        "en": "Partly as expected: {helped} cost less, but {observed} cost more.",
        "zh": "部分符合预期：{helped}减少了，但{observed}的代价更大。",
    },
    "expect_other": {
        "en": "Faster, but not through what was expected.",
        "zh": "变快了，但不是通过预期的途径。",
    },
    "claim_no_conflicts": {
        "en": "The idea names bank conflicts, but `{variant}`'s conflict replays are "
        "{pct:.0f}% of its shared-memory wavefronts (a cause from 20%): there were "
        "none to remove.",
        "zh": "优化思路提到 bank 冲突，但 `{variant}` 的冲突重放只占其共享内存 wavefront 的 "
        "{pct:.0f}%（20% 起才算原因）：并没有可消除的冲突。",
    },
    "claim_more_conflicts": {
        "en": "The idea meant fewer lanes on a shared address, but the shared "
        "atomics' bank conflicts rose, from `{variant}`'s {per0:.2f} to {per1:.2f} "
        "per atomic instruction.",
        "zh": "优化思路本意是让更少的 lane 争用同一共享地址，但共享内存原子操作的 bank 冲突"
        "反而增加：从 `{variant}` 的每条原子指令 {per0:.2f} 次增至 {per1:.2f} 次。",
    },
    "expect_shown": {
        "en": "As meant: {helped} grew.",
        "zh": "符合设计：{helped}增加了。",
    },
    "expect_not_shown": {
        "en": "Not as meant: none of it made the launch slower.",
        "zh": "与设计不符：这些都没有让启动变慢。",
    },
    "expect_not_met": {
        "en": "Not as expected: none of it made the launch faster.",
        "zh": "与预期不符：这些都没有让启动变快。",
    },
    "expect_unchanged": {
        "en": "The time did not change measurably: no mechanism to credit.",
        "zh": "时间没有可测量的变化：无从归因。",
    },
    "expect_unchanged_done": {
        "en": "The step did what it meant ({done}), and the time did not change "
        "measurably: what it changed did not bound the launch.",
        "zh": "这一步做到了其本意（{done}），但时间没有可测量的变化：它改变的并不是限制"
        "该次启动的因素。",
    },
    "expect_not_in_counters": {
        "en": "The timing moved but ncu's launches did not the same way: the counters "
        "cannot say whether the idea worked.",
        "zh": "计时有变化，而 ncu 的启动没有同向变化：计数器无法判断这一想法是否奏效。",
    },
    "expect_unknown": {
        "en": "The idea names no mechanism these rules know.",
        "zh": "优化思路中没有这些规则认识的机制。",
    },
    "regime_memory": {"en": "memory-bound", "zh": "访存受限（memory-bound）"},
    "regime_compute": {"en": "compute-bound", "zh": "计算受限（compute-bound）"},
    "regime_latency": {"en": "latency-bound", "zh": "延迟受限（latency-bound）"},
    "regime_unknown": {"en": "not classified", "zh": "未分类"},
    "rate_gbps": {"en": "{gbps:,.0f} GB/s", "zh": "{gbps:,.0f} GB/s"},
    "rate_gflops": {"en": "{gflops:,.0f} GFLOP/s", "zh": "{gflops:,.0f} GFLOP/s"},
    "limiter": {
        "en": "{label} ({share:.0f}% of its launch)",
        "zh": "{label}（占其启动的 {share:.0f}%）",
    },
    "limiter_run": {
        "en": "{label} ({share:.0f}% of its run)",
        "zh": "{label}（占其整个运行的 {share:.0f}%）",
    },
    "limiter_unprofiled": {
        "en": "not profiled at this size (no counters to rank its causes)",
        "zh": "该规模未采样（没有计数器可以排序原因）",
    },
    "ceiling_copy_bw": {"en": "the measured copy bandwidth", "zh": "实测拷贝带宽"},
    "ceiling_fp32_peak": {"en": "the measured FP32 peak", "zh": "实测 FP32 峰值"},
    "ceiling_vendor_sgemm": {"en": "cuBLAS SGEMM", "zh": "cuBLAS SGEMM"},
    "ceiling_roofline": {
        "en": "the roofline at its ideal intensity",
        "zh": "其理想计算强度处的 roofline",
    },
    "ceiling_unknown": {"en": "no measured ceiling", "zh": "没有实测上限"},
    "stand_memory": {
        "en": "`{variant}` is {regime} (`{basis}`): {rate}, {pct:.0f}% of {ceiling}, "
        "where it would take {roof:,.2f} us. What limits it now: {now}.",
        "zh": "`{variant}` {regime}（`{basis}`）：{rate}，为{ceiling}的 {pct:.0f}%，"
        "达到上限时耗时 {roof:,.2f} us。当前限制因素：{now}。",
    },
    "stand_compute": {
        "en": "`{variant}` is {regime} (`{basis}`): {rate}, {pct:.0f}% of {ceiling}, "
        "where it would take {roof:,.2f} us; {pipe}. What limits it now: {now}.",
        "zh": "`{variant}` {regime}（`{basis}`）：{rate}，为{ceiling}的 {pct:.0f}%，"
        "达到上限时耗时 {roof:,.2f} us；{pipe}。当前限制因素：{now}。",
    },
    "stand_latency_unit": {
        "en": "`{variant}` is under every roof of the roofline, which alone would "
        "call it {regime}: DRAM, L2 and the FP32 rate are below their lines "
        "(`{basis}`); {rate}, {pct:.0f}% of {ceiling} ({roof:,.2f} us there). A unit "
        "off the roofline runs at 60% of its peak or more, so its throughput, not "
        "latency, bounds it. What limits it now: {now}.",
        "zh": "`{variant}` 低于 roofline 的每条 roof，单看 roofline 会判为{regime}：DRAM、"
        "L2 与 FP32 速率都低于各自的线（`{basis}`）；{rate}，为{ceiling}的 {pct:.0f}%"
        "（该处耗时 {roof:,.2f} us）。roofline 之外有一个单元达到其峰值的 60% 或以上，限制它的是该单元的"
        "吞吐而非延迟。当前限制因素：{now}。",
    },
    "stand_latency": {
        "en": "`{variant}` is {regime}: DRAM, L2 and the FP32 rate are below 60% of "
        "their peaks (`{basis}`); {rate}, {pct:.0f}% of {ceiling} ({roof:,.2f} us "
        "there). What limits it now: {now}.",
        "zh": "`{variant}` {regime}：DRAM、L2 与 FP32 速率都低于各自峰值的 60%（`{basis}`）；{rate}，"
        "为{ceiling}的 {pct:.0f}%（该处耗时 {roof:,.2f} us）。当前限制因素：{now}。",
    },
    "at_dram_floor": {
        "en": "`{variant}` sits at the DRAM floor: {rate}, {pct:.0f}% of {ceiling} "
        "(>= 90%), moving {ratio:.2f}x the ideal bytes. From here only fewer bytes "
        "help (fusing kernels, narrower types, compression).",
        "zh": "`{variant}` 已到达 DRAM 下限：{rate}，为{ceiling}的 {pct:.0f}%（>= 90%），"
        "搬运的字节是理想值的 {ratio:.2f} 倍。此后只有减少字节数才有帮助（kernel "
        "融合、更窄的数据类型、压缩）。",
    },
    "at_dram_floor_timing": {
        "en": "`{variant}` sits at the DRAM floor by its timing: {rate}, {pct:.0f}% of "
        "{ceiling} (>= 90%). From here only fewer bytes help (fusing kernels, "
        "narrower types, compression).",
        "zh": "按计时结果，`{variant}` 已到达 DRAM 下限：{rate}，为{ceiling}的 "
        "{pct:.0f}%（>= 90%）。此后只有减少字节数才有帮助（kernel 融合、更窄的数据"
        "类型、压缩）。",
    },
    "dram_saturated_excess": {
        "en": "`{variant}`: DRAM runs at its ceiling but moves {ratio:.1f}x the ideal "
        "bytes ({rate} of ideal bytes, {pct:.0f}% of {ceiling}): only fewer bytes help.",
        "zh": "`{variant}`：DRAM 已满负荷运行，但搬运的字节是理想值的 {ratio:.1f} 倍"
        "（按理想字节计 {rate}，为{ceiling}的 {pct:.0f}%）：只有减少字节数才有帮助。",
    },
    "at_compute_roof": {
        "en": "`{variant}` is at the compute roof: {rate}, {pct:.0f}% of {ceiling} "
        "(>= 90%). What could still help: tensor cores (TF32, BF16) where the "
        "precision allows, or fewer FLOPs.",
        "zh": "`{variant}` 已到达计算上限：{rate}，为{ceiling}的 {pct:.0f}%（>= 90%）。"
        "仍可能有帮助的：在精度允许时使用 tensor core（TF32、BF16），或减少 FLOPs。",
    },
    "plan_item": {
        "en": "**{label}** ({share:.0f}% of the launch, {us:,.1f} us): {fix}. Without "
        "it: about {without:,.1f} us instead of {t:,.1f} us (the roof is {roof:,.2f} "
        "us).",
        "zh": "**{label}**（占启动的 {share:.0f}%，{us:,.1f} us）：{fix}。消除后约 "
        "{without:,.1f} us（目前 {t:,.1f} us；上限处为 {roof:,.2f} us）。",
    },
    "plan_item_run": {
        "en": "**{label}** ({share:.0f}% of the run, {us:,.1f} us): {fix}. Without "
        "it: about {without:,.1f} us instead of {t:,.1f} us (the roof is {roof:,.2f} "
        "us).",
        "zh": "**{label}**（占整个运行的 {share:.0f}%，{us:,.1f} us）：{fix}。消除后约 "
        "{without:,.1f} us（目前 {t:,.1f} us；上限处为 {roof:,.2f} us）。",
    },
    "plan_unprofiled": {
        "en": "Not profiled: no counters rank the remedies; at the roof this work "
        "takes {roof:,.2f} us (now {t:,.1f} us).",
        "zh": "未采样：没有计数器可以排序改进方向；在上限处这些工作耗时 {roof:,.2f} us"
        "（目前 {t:,.1f} us）。",
    },
    "baseline_unprofiled": {
        "en": "`{variant}` was not profiled: its causes cannot be ranked (timing only).",
        "zh": "`{variant}` 未采样：无法对其原因排序（只有计时）。",
    },
    "headline": {
        "en": "**Result at n = {n} ({input}):** the fastest correct variant is "
        "`{variant}` at {time:,.2f} us, {speedup:.2f}x the baseline `{baseline}`; "
        "{regime}, {rate}, {pct:.0f}% of {ceiling}{tie}.",
        "zh": "**n = {n} 时的结果（{input}）：** 最快的正确版本是 `{variant}`，耗时 "
        "{time:,.2f} us，是基线 `{baseline}` 的 {speedup:.2f}x；{regime}，{rate}，"
        "为{ceiling}的 {pct:.0f}%{tie}。",
    },
    "index_headline": {
        "en": "`{variant}` at n = {n} ({input}): {time:,.2f} us, {speedup:.2f}x "
        "`{baseline}`; {regime}, {pct:.0f}% of {ceiling}",
        "zh": "`{variant}`，n = {n}（{input}）：{time:,.2f} us，为 `{baseline}` 的 "
        "{speedup:.2f}x；{regime}，为{ceiling}的 {pct:.0f}%",
    },
    "input_default": {"en": "default input", "zh": "默认输入"},
    "input_named": {"en": "input {label}", "zh": "输入 {label}"},
    "conclusion_best": {
        "en": "Best: `{variant}`{tie}, {speedup:.2f}x the baseline, {regime}: {rate}, "
        "{pct:.0f}% of {ceiling}.",
        "zh": "最佳版本：`{variant}`{tie}，为基线的 {speedup:.2f}x，{regime}：{rate}，为"
        "{ceiling}的 {pct:.0f}%。",
    },
    "conclusion_step": {
        "en": "`{variant}` (from `{before}`): {speedup:.2f}x, {verdict}; primary cause: "
        "{why}.",
        "zh": "`{variant}`（基于 `{before}`）：{speedup:.2f}x，{verdict}；主要原因：{why}。",
    },
    "paid": {"en": "paid", "zh": "有收益"},
    "not_paid": {"en": "did not pay", "zh": "没有收益"},
    "no_gain": {
        "en": "no change (within 2% or the timing noise)",
        "zh": "没有变化（2% 或计时噪声以内）",
    },
    "paid_narrowly": {
        "en": "paid, narrowly ({pct:.1f}% against its {line:.1f}% line: 2% or the "
        "timing noise, the larger; a cause of a change this small is a hypothesis)",
        "zh": "有收益，但勉强（{pct:.1f}%，其界线为 {line:.1f}%：2% 与计时噪声中较大者；"
        "这么小的变化，其原因只是推测）",
    },
    "no_gain_within": {
        "en": "no change (within its {line:.1f}% line: 2% or the timing noise, the larger)",
        "zh": "没有变化（在其 {line:.1f}% 界线内：2% 与计时噪声中较大者）",
    },
    "next_at_dram_floor": AT_DRAM_FLOOR,
    "next_at_dram_floor_timing": AT_DRAM_FLOOR,  # the same words, timed only
    "next_dram_saturated_excess": {
        "en": "Next: cut the bytes `{variant}` moves beyond the ideal (reuse, or a "
        "layout without padding).",
        "zh": "下一步：削减 `{variant}` 超出理想值的字节（复用，或不带填充的布局）。",
    },
    "next_at_compute_roof": {
        "en": "Next: `{variant}` is at the compute roof; tensor cores or fewer FLOPs "
        "are what is left.",
        "zh": "下一步：`{variant}` 已到达计算上限；剩下的只有 tensor core 或减少 FLOPs。",
    },
    "next_profile": {
        "en": "Next: profile `{variant}` at this size to rank what limits it.",
        "zh": "下一步：在该规模上对 `{variant}` 采样，以便排序其限制因素。",
    },
    "next_remedy": {
        "en": "Next: `{variant}`'s largest cost is {label}: {fix}.",
        "zh": "下一步：`{variant}` 的最大开销是{label}：{fix}。",
    },
    "sweep_regimes": {
        "en": "`{variant}` changes roofline regime over the sizes: {spans}.",
        "zh": "`{variant}` 在不同规模下的 roofline 受限类型不同：{spans}。",
    },
    "sweep_span": {
        "en": "{regime} at n = {first}..{last}",
        "zh": "n = {first}..{last} 时{regime}",
    },
    "sweep_span_one": {"en": "{regime} at n = {n}", "zh": "n = {n} 时{regime}"},
    "sweep_drop": {
        "en": "`{variant}`: throughput falls {pct:.0f}% from {rate_a} at n = {n_a} to "
        "{rate_b} at n = {n_b}: {reason}.",
        "zh": "`{variant}`：吞吐量从 n = {n_a} 时的 {rate_a} 降到 n = {n_b} 时的 "
        "{rate_b}，下降 {pct:.0f}%：{reason}。",
    },
    "sweep_left_l2": {
        "en": "the working set ({working_set:,.0f} MB) no longer fits the {l2:,.0f} MB "
        "L2, so every byte now comes from DRAM",
        "zh": "工作集（{working_set:,.0f} MB）已放不进 {l2:,.0f} MB 的 L2，所有数据"
        "都要从 DRAM 读取",
    },
    "sweep_unexplained": {
        "en": "these measurements do not explain it (profile both sizes to compare)",
        "zh": "现有测量无法解释（请在两个规模上都采样后比较）",
    },
    "regime_changed": {
        "en": "The roofline regime changes: {before} -> {after} (`{basis}`).",
        "zh": "roofline 受限类型发生变化：{before} -> {after}（`{basis}`）。",
    },
    "stores_fixed": {
        "en": "Global stores now coalesced: store sectors {before:,.0f} -> {after:,.0f} "
        "(`l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum`); before: {evidence}",
        "zh": "全局存储已合并：存储 sector {before:,.0f} -> {after:,.0f}"
        "（`l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum`）；此前：{evidence}",
    },
    "stores_broken": {
        "en": "Global stores no longer coalesced: store sectors {before:,.0f} -> "
        "{after:,.0f} (`l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum`): {evidence}",
        "zh": "全局存储不再合并：存储 sector {before:,.0f} -> {after:,.0f}"
        "（`l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum`）：{evidence}",
    },
    "occupancy_gap": {
        "en": "Achieved occupancy {achieved:.0f}% is far below the theoretical "
        "{theoretical:.0f}% with {waves:,.1f} waves of blocks per SM (not a tail "
        "effect): the warps of a block finish at different times, or blocks are too "
        "short to keep the SM full.",
        "zh": "实际占用率 {achieved:.0f}% 远低于理论值 {theoretical:.0f}%，每个 SM 有 "
        "{waves:,.1f} 波 block（不是尾部效应）：同一 block 的 warp 结束时间不同，或 "
        "block 太短，无法让 SM 保持满载。",
    },
}

LIMITS: dict[str, dict[str, str]] = {
    "unit_dram": {"en": "DRAM", "zh": "DRAM"},
    "limit_dram": {
        "en": "**Limits it now:** DRAM at {pct:.0f}% of its peak.",
        "zh": "**当前瓶颈：**DRAM，达峰值的 {pct:.0f}%。",
    },
    "cell_limit_dram": {"en": "DRAM {pct:.0f}%", "zh": "DRAM {pct:.0f}%"},
    "unit_l2": {"en": "L2", "zh": "L2"},
    "limit_l2": {
        "en": "**Limits it now:** L2 at {pct:.0f}% of its peak.",
        "zh": "**当前瓶颈：**L2，达峰值的 {pct:.0f}%。",
    },
    "cell_limit_l2": {"en": "L2 {pct:.0f}%", "zh": "L2 {pct:.0f}%"},
    "unit_l1": {"en": "L1/shared", "zh": "L1/共享内存"},
    "limit_l1": {
        "en": "**Limits it now:** L1/shared at {pct:.0f}% of its peak{part}.",
        "zh": "**当前瓶颈：**L1/共享内存，达峰值的 {pct:.0f}%{part}。",
    },
    "l1_part": {
        "en": "; shared-memory wavefronts take {smem:.0f}% of its data pipe's peak",
        "zh": "；共享内存 wavefront 占数据流水线峰值的 {smem:.0f}%",
    },
    "cell_limit_l1": {"en": "L1/shared {pct:.0f}%", "zh": "L1/共享内存 {pct:.0f}%"},
    "unit_issue": {"en": "issue slots", "zh": "发射槽"},
    "limit_issue": {
        "en": "**Limits it now:** issue slots at {pct:.0f}% of its peak.",
        "zh": "**当前瓶颈：**发射槽，达峰值的 {pct:.0f}%。",
    },
    "cell_limit_issue": {"en": "issue slots {pct:.0f}%", "zh": "发射槽 {pct:.0f}%"},
    "unit_fma": {"en": "FMA pipe", "zh": "FMA 流水线"},
    "limit_fma": {
        "en": "**Limits it now:** FMA pipe at {pct:.0f}% of its peak.",
        "zh": "**当前瓶颈：**FMA 流水线，达峰值的 {pct:.0f}%。",
    },
    "cell_limit_fma": {"en": "FMA pipe {pct:.0f}%", "zh": "FMA 流水线 {pct:.0f}%"},
    "unit_alu": {"en": "ALU pipe", "zh": "ALU 流水线"},
    "limit_alu": {
        "en": "**Limits it now:** ALU pipe at {pct:.0f}% of its peak.",
        "zh": "**当前瓶颈：**ALU 流水线，达峰值的 {pct:.0f}%。",
    },
    "cell_limit_alu": {"en": "ALU pipe {pct:.0f}%", "zh": "ALU 流水线 {pct:.0f}%"},
    "unit_fp64": {"en": "FP64 pipe", "zh": "FP64 流水线"},
    "limit_fp64": {
        "en": "**Limits it now:** FP64 pipe at {pct:.0f}% of its peak.",
        "zh": "**当前瓶颈：**FP64 流水线，达峰值的 {pct:.0f}%。",
    },
    "cell_limit_fp64": {"en": "FP64 pipe {pct:.0f}%", "zh": "FP64 流水线 {pct:.0f}%"},
    "unit_xu": {"en": "XU pipe", "zh": "XU 流水线"},
    "limit_xu": {
        "en": "**Limits it now:** XU pipe at {pct:.0f}% of its peak.",
        "zh": "**当前瓶颈：**XU 流水线，达峰值的 {pct:.0f}%。",
    },
    "cell_limit_xu": {"en": "XU pipe {pct:.0f}%", "zh": "XU 流水线 {pct:.0f}%"},
    "unit_lsu": {"en": "LSU pipe", "zh": "LSU 流水线"},
    "limit_lsu": {
        "en": "**Limits it now:** LSU pipe at {pct:.0f}% of its peak.",
        "zh": "**当前瓶颈：**LSU 流水线，达峰值的 {pct:.0f}%。",
    },
    "cell_limit_lsu": {"en": "LSU pipe {pct:.0f}%", "zh": "LSU 流水线 {pct:.0f}%"},
    "unit_tensor": {"en": "tensor pipe", "zh": "张量流水线"},
    "limit_tensor": {
        "en": "**Limits it now:** tensor pipe at {pct:.0f}% of its peak.",
        "zh": "**当前瓶颈：**张量流水线，达峰值的 {pct:.0f}%。",
    },
    "cell_limit_tensor": {
        "en": "tensor pipe {pct:.0f}%",
        "zh": "张量流水线 {pct:.0f}%",
    },
    "limit_l2_slice": {
        "en": "**Limits it now:** the L2 slice of its atomics: {hot:,.0f} of its "
        "{all:,.0f} L2 atomic sectors go to the busiest of the {slices:.0f} slices "
        "(`lts__t_sectors_op_red.max` + `lts__t_sectors_op_atom.max`), which ncu puts "
        "at {pct:.0f}% of its peak against {avg:.1f}% for the L2 on average "
        "(`lts__throughput.max` / `.avg`: the slice's peak for any traffic, which "
        "atomics on one address, executed one after another, stay below){rate}.",
        "zh": "**当前瓶颈：**原子操作所在的 L2 slice：{all:,.0f} 个 L2 原子 sector 中有 "
        "{hot:,.0f} 个落在 {slices:.0f} 个 slice 中最忙的一个"
        "（`lts__t_sectors_op_red.max` + `lts__t_sectors_op_atom.max`），ncu 给出该 slice "
        "达峰值的 {pct:.0f}%，而 L2 平均为 {avg:.1f}%（`lts__throughput.max` / `.avg`："
        "这是 slice 对任意流量的峰值，同一地址上逐个执行的原子操作达不到它）{rate}。",
    },
    "limit_slice_rate": {
        "en": "; at {rate}, they need {pct:.0f}% of the launch",
        "zh": "；按{rate}计，它们需要该次启动的 {pct:.0f}%",
    },
    "serial_rate": {
        "en": "the {rate:,.0f} sectors per us that `{by}`'s slice served ({sectors:,.0f} "
        "in {us:,.1f} us at n = {n}), the highest of the family's launches that keep "
        "their slice busy",
        "zh": "`{by}` 的 slice 每 us 处理的 {rate:,.0f} 个 sector（n = {n} 时 {us:,.1f} us "
        "内 {sectors:,.0f} 个），即本族使 slice 保持繁忙的各次启动中的最高速率",
    },
    "limit_slice_rate_own": {"en": "; {rate}", "zh": "；{rate}"},
    "serial_rate_own": {
        "en": "the {rate:,.0f} sectors per us its own slice served ({sectors:,.0f} in "
        "{us:,.1f} us), the highest of the family's launches and so its whole launch "
        "by construction: the slice is busy with one atomic after another throughout",
        "zh": "它自己的 slice 每 us 处理的 {rate:,.0f} 个 sector（{us:,.1f} us 内 "
        "{sectors:,.0f} 个），为本族最高速率，因此按定义占满整个启动：该 slice 始终在"
        "逐个执行原子操作",
    },
    "cell_limit_l2_slice": {
        "en": "serial atomics on one L2 slice, {serial:.0f}% of its profiled time",
        "zh": "单个 L2 slice 上串行的原子操作，占其 profile 时间的 {serial:.0f}%",
    },
    "limit_grid": {
        "en": "**Limits it now:** the grid, {blocks:.0f} blocks for {sms:.0f} SMs (under "
        "one wave); its busiest unit, {kind}, runs at {pct:.0f}% of its peak{gpu}.",
        "zh": "**当前瓶颈：**grid 过小，{blocks:.0f} 个 block 对 {sms:.0f} 个 SM（不足一波）；"
        "最忙的单元{kind}达峰值的 {pct:.0f}%{gpu}。",
    },
    "limit_grid_gpu": {
        "en": " on the SMs that hold a block, {gpu:.0f}% over all SMs",
        "zh": "（仅计有 block 的 SM；按全部 SM 计为 {gpu:.0f}%）",
    },
    "cell_limit_grid": {"en": "grid < 1 wave", "zh": "grid 不足一波"},
    "limit_latency": {
        "en": "**Limits it now:** latency: no unit reaches 60% of its peak (the "
        "busiest, {kind}, {pct:.1f}%).",
        "zh": "**当前瓶颈：**延迟：没有单元达到峰值的 60%（最忙的{kind}为 {pct:.1f}%）。",
    },
    "cell_limit_latency": {
        "en": "latency ({kind} {pct:.1f}%)",
        "zh": "延迟（{kind} {pct:.1f}%）",
    },
    "limit_timing": {
        "en": "**Limits it now:** not profiled; its timing reaches {pct:.0f}% of "
        "{ceiling}.",
        "zh": "**当前瓶颈：**未采样；按计时达到{ceiling}的 {pct:.0f}%。",
    },
    "limit_launch": {
        "en": "{now} In its longest launch, `{kernel}` ({share:.0f}% of the run); the "
        "others: {others}.",
        "zh": "{now}此为最长的 launch `{kernel}`（占运行的 {share:.0f}%）；其余：{others}。",
    },
    "cell_limit_launch": {
        "en": "{cell} (`{kernel}`)",
        "zh": "{cell}（`{kernel}`）",
    },
    "limit_other": {
        "en": "`{kernel}` ({share:.0f}%): {cell}",
        "zh": "`{kernel}`（{share:.0f}%）：{cell}",
    },
    "cell_limit_timing": {
        "en": "{pct:.0f}% {ceiling} (timed)",
        "zh": "{ceiling} {pct:.0f}%（计时）",
    },
}


FINDING_MESSAGES: dict[str, dict[str, str]] = {
    **LIMITS,
    **MECHANISMS,
    **FIXES,
    **EVIDENCE,
    **SENTENCES,
}
