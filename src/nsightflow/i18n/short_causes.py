"""Short names of causes, a few words each, for the brief's ladder and a step's body.

Keyed by ``findings.csv`` ``rule`` (the stable snake_case id of the diagnosis rule):
the long names (``mech_<rule>`` in :mod:`nsightflow.i18n.findings`) say what the rule
measures; these say it the way a performance engineer names it in a table cell
("barrier waits", "uncoalesced stores"). A rule added later without an entry here
reads as its id in words (``tail_effect`` -> "tail effect") until it gets one.
"""

from nsightflow.i18n import current

SHORT_CAUSES: dict[str, dict[str, str]] = {
    # a launch's time (baseline) and a step's change share these
    "global_atomics": {"en": "global atomics in L2", "zh": "L2 全局原子操作"},
    "uncoalesced_loads": {"en": "uncoalesced loads", "zh": "未合并的加载"},
    "uncoalesced_stores": {"en": "uncoalesced stores", "zh": "未合并的存储"},
    "local_memory": {"en": "local-memory traffic", "zh": "local memory 访问"},
    "dram_excess": {"en": "excess DRAM traffic", "zh": "多余的 DRAM 流量"},
    "dram_bytes": {"en": "DRAM bytes", "zh": "DRAM 字节数"},
    "bytes_in_flight": {"en": "too few bytes in flight", "zh": "在途字节不足"},
    "dram_bandwidth": {"en": "DRAM bandwidth", "zh": "DRAM 带宽"},
    "memory_latency": {"en": "global-memory latency", "zh": "全局内存延迟"},
    "low_occupancy": {"en": "low occupancy", "zh": "占用率低"},
    "lsu_queue": {"en": "load/store queue full", "zh": "load/store 队列满"},
    "store_drain": {"en": "store drain", "zh": "存储排空"},
    "bank_conflicts": {"en": "bank conflicts", "zh": "bank 冲突"},
    "shared_atomics": {"en": "shared-memory atomics", "zh": "共享内存原子操作"},
    "shared_pipe": {"en": "shared-memory pipe (MIO)", "zh": "共享内存流水线"},
    "barrier": {"en": "barrier waits", "zh": "屏障等待"},
    "fp32_pipe": {"en": "FP32 pipe busy", "zh": "FP32 流水线繁忙"},
    "math_pipe_other": {"en": "non-FMA math pipe", "zh": "非 FMA 运算流水线"},
    "issue_bound": {"en": "issue slots busy", "zh": "发射槽繁忙"},
    "issue": {"en": "instruction issue", "zh": "指令发射"},
    "instruction_count": {"en": "instruction count", "zh": "指令数"},
    "global_loads": {"en": "global load count", "zh": "全局加载数"},
    "idle_lanes": {"en": "fewer idle lanes", "zh": "空闲 lane 减少"},
    "wider_accesses": {"en": "wider loads", "zh": "更宽的加载"},
    "dependency": {"en": "instruction dependencies", "zh": "指令依赖"},
    "membar": {"en": "memory fences", "zh": "内存栅栏"},
    "frontend": {"en": "instruction fetch", "zh": "取指"},
    "dispatch": {"en": "dispatch stalls", "zh": "分派停顿"},
    "other": {"en": "other stalls", "zh": "其他停顿"},
    "grid_too_small": {"en": "grid smaller than the GPU", "zh": "grid 过小"},
    "tail_effect": {"en": "tail effect", "zh": "尾部效应"},
    "idle_sms": {"en": "idle SMs", "zh": "SM 空闲"},
    "occupancy": {"en": "occupancy", "zh": "占用率"},
    "clock": {"en": "SM clock", "zh": "SM 时钟"},
    "step_unchanged": {"en": "no net change", "zh": "无净变化"},
    "mio_shuffle": {"en": "warp shuffles (MIO)", "zh": "MIO 中的 warp shuffle"},
    "mio_other": {"en": "MIO queue", "zh": "MIO 队列"},
    "instruction_overhead": {"en": "instruction overhead", "zh": "指令开销"},
    "launch_removed": {"en": "a launch removed", "zh": "少一次启动"},
    "launch_changed": {"en": "a later launch", "zh": "后续启动"},
    "later_launch": {"en": "a later launch", "zh": "后续启动"},
    "step_time_only": {"en": "timed only (not profiled)", "zh": "仅计时未采样"},
    "step_not_in_counters": {"en": "not in the counters", "zh": "计数器未体现"},
    "dram_rate": {"en": "achieved DRAM rate", "zh": "DRAM 实际速率"},
    "other_factors": {"en": "other factors", "zh": "其他因素"},
    "other_stalls": {"en": "other stall reasons", "zh": "其他停顿原因"},
    "timing_residual": {"en": "timing vs profile", "zh": "计时与采样之差"},
    "input_changed": {"en": "another input", "zh": "换了输入"},
    # where a variant stands (the brief's best variant)
    "at_dram_floor": {"en": "at the DRAM floor", "zh": "已达 DRAM 下限"},
    "at_compute_roof": {"en": "at the compute roof", "zh": "已达计算上限"},
    "divergence": {"en": "warp divergence", "zh": "warp 分支发散"},
}


def short_cause(rule: str, language: str | None = None) -> str:
    """The short name of the cause a rule names, in ``language`` (default: current).

    Args:
        rule: ``findings.csv`` ``rule``.
        language: ``en`` or ``zh``; None takes the language in force.

    Returns:
        The entry's name, or the rule id in words for a rule without one.
    """
    entry = SHORT_CAUSES.get(rule)
    if entry is None:
        return rule.replace("_", " ").strip()
    return entry[language or current()]
