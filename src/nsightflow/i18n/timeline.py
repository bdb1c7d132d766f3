# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The timeline section's messages, merged into :data:`nsightflow.i18n.CATALOGUE`.

Data only, in the catalogue's form: key -> language -> template (see
:mod:`nsightflow.i18n.catalogue` for the key prefixes).
"""

TIMELINE_MESSAGES: dict[str, dict[str, str]] = {
    "h_timeline": {
        "en": "Timeline: copies and kernel",
        "zh": "时间线：数据拷贝与 kernel",
    },
    "timeline_intro": {
        "en": "Each variant ran the sequence a program runs, at n = {sizes}: allocate, "
        "copy the inputs in from pageable host memory, zero the outputs, launch once, "
        "copy the outputs back. A first round warms up; the second was traced with "
        "{backend} on {gpu} ({date}). Bandwidth counts the bytes of each copy over "
        "its duration. Gaps between the bars in the figure are host-side time in "
        "which the GPU runs nothing of the sequence.",
        "zh": "每个版本在 n = {sizes} 下按真实程序的顺序运行一遍：分配显存，把输入从"
        "可分页主机内存拷入，输出清零，launch 一次，再把输出拷回。第一轮用于预热；第二轮"
        "用 {backend} 记录（{gpu}，{date}）。带宽为每次拷贝的字节数除以其耗时。图中各段之间的"
        "空白是主机端耗时，其间 GPU 没有执行该序列的任何操作。",
    },
    "timeline_backend_cupti": {
        "en": "CUPTI activity tracing (cupti-python)",
        "zh": "CUPTI activity 跟踪（cupti-python）",
    },
    "timeline_backend_nsys": {
        "en": "Nsight Systems (`nsys stats --report cuda_gpu_trace`)",
        "zh": "Nsight Systems（`nsys stats --report cuda_gpu_trace`）",
    },
    "timeline_note": {
        "en": "Backend choice: {note}.",
        "zh": "后端选择：{note}。",
    },
    "fig_timeline": {
        "en": "copies and kernel of each variant",
        "zh": "各版本的数据拷贝与 kernel",
    },
    "col_copy_in_ms": {"en": "copy in [ms]", "zh": "拷入 [ms]"},
    "col_memset_us": {"en": "memset [us]", "zh": "memset [us]"},
    "col_kernel_us": {"en": "kernel [us]", "zh": "kernel [us]"},
    "col_copy_out_ms": {"en": "copy out [ms]", "zh": "拷出 [ms]"},
    "col_htod_gbps": {"en": "HtoD GB/s", "zh": "HtoD GB/s"},
    "col_dtoh_gbps": {"en": "DtoH GB/s", "zh": "DtoH GB/s"},
    "col_transfer_ratio": {"en": "transfers / kernel", "zh": "拷贝 / kernel"},
    "col_launch_gap_us": {"en": "gap before kernel [us]", "zh": "kernel 前空隙 [us]"},
    "timeline_dominate_all": {
        "en": "At n = {n}, the copies take {transfer} ms against {kernel} ms of "
        "kernel: **transfers dominate every variant**, {ratio}x the kernel time.",
        "zh": "n = {n} 时，拷贝耗时 {transfer} ms，而 kernel 只有 {kernel} ms："
        "**所有版本的时间都主要花在数据传输上**，是 kernel 时间的 {ratio} 倍。",
    },
    "timeline_dominate_some": {
        "en": "At n = {n}, transfers dominate {k} of {m} variants (copies over "
        "kernel time): {which}.",
        "zh": "n = {n} 时，{m} 个版本中有 {k} 个以数据传输为主（拷贝时间 / kernel "
        "时间）：{which}。",
    },
    "timeline_ratio_one": {
        "en": " (over its {k} launches of one kernel; {one:.1f}x over one)",
        "zh": "（为同一 kernel {k} 次 launch 之和；按一次计为 {one:.1f}x）",
    },
    "timeline_dominate_none": {
        "en": "At n = {n}, every kernel takes longer than its copies (transfers "
        "{ratio}x the kernel time).",
        "zh": "n = {n} 时，每个版本的 kernel 都比其拷贝耗时更长（拷贝为 kernel 时间的 "
        "{ratio} 倍）。",
    },
    "timeline_advice": {
        "en": "A kernel much shorter than its copies pays off only when the data "
        "stays on the GPU across many launches; pinned host memory (cudaMallocHost) "
        "raises the copy bandwidth, and copies on streams overlap with compute. A "
        "copy into freshly allocated pageable memory also pays the page faults of "
        "its first touch: reuse the host buffer or pin it.",
        "zh": "kernel 比数据拷贝短得多时，只有数据在 GPU 上驻留并被多次 launch 复用才划算；"
        "锁页主机内存（cudaMallocHost）可提高拷贝带宽，多个 stream 可让拷贝与计算重叠。"
        "拷贝到新分配的可分页内存时，还要承担首次访问的缺页开销：复用主机缓冲区或将其锁页。",
    },
    "timeline_vs_timed": {
        "en": "Traced kernel time against the event-timed median, where they differ "
        "by more than the timing's noise line (1 + max(2%, IQR / median)): {items}. "
        "A trace is one run of the sequence after one warm-up round; the median is of "
        "launches back to back on the same buffers.",
        "zh": "时间线中的 kernel 时间与事件计时中位数之差超出计时噪声线（1 + max(2%, "
        "IQR / 中位数）的版本：{items}。时间线是预热一轮后该序列的一次运行；中位数来自在"
        "同一缓冲区上背靠背的多次 launch。",
    },
    "timeline_vs_item": {
        "en": "`{variant}` at n = {n} {traced:,.1f} against {median:,.1f} us "
        "({ratio:.2f}x{launches})",
        "zh": "`{variant}`（n = {n}）{traced:,.1f} 对 {median:,.1f} us（{ratio:.2f}x"
        "{launches}）",
    },
    "timeline_launches": {
        "en": ": its trace launches one kernel {k} times, {each:,.1f} us each, and "
        "the table sums every launch of the trace",
        "zh": "：其时间线中同一 kernel launch 了 {k} 次，每次 {each:,.1f} us，表中为时间线"
        "所有 launch 之和",
    },
    "timeline_failed": {
        "en": "Variants without a trace, kept with their status:",
        "zh": "没有时间线记录的版本（保留其状态）：",
    },
    "timeline_none": {
        "en": "No variant of this family has a trace.",
        "zh": "本 family 没有任何版本的时间线记录。",
    },
}
