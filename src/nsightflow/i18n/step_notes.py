# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The sentences a step adds after its causes, merged into the catalogue.

Its DRAM traffic with the L2 hit rate that explains it, and the compiler's spills
beside its local-memory traffic. Data only, in the catalogue's form: key ->
language -> template (see :mod:`nsightflow.i18n.catalogue` for the key prefixes).
"""

STEP_NOTE_MESSAGES: dict[str, dict[str, str]] = {
    "step_spills": {
        "en": " (ptxas's spill stores per thread {before:,.0f} -> {after:,.0f} bytes)",
        "zh": "（ptxas 报告的每线程溢出存储 {before:,.0f} -> {after:,.0f} 字节）",
    },
    "step_dram_l2": {
        "en": "; the L2 hit rate {before:.0f}% -> {after:.0f}%",
        "zh": "；L2 命中率 {before:.0f}% -> {after:.0f}%",
    },
    "step_dram_moved": {
        "en": "**DRAM traffic:** {before:,.0f} -> {after:,.0f} MB ({ratio:.2f}x)"
        "{expected}{l2}{rate}.",
        "zh": "**DRAM 流量：**{before:,.0f} -> {after:,.0f} MB（{ratio:.2f} 倍）"
        "{expected}{l2}{rate}。",
    },
    "step_dram_expected": {
        "en": ", where fewer bytes were expected",
        "zh": "，而预期是更少的字节",
    },
    "step_dram_rate": {
        "en": "; DRAM at {pct:.0f}% of its peak",
        "zh": "；DRAM 处于其峰值的 {pct:.0f}%",
    },
    # a step whose sweep split code from configuration: its counters hold both
    "step_expected_both": {
        "en": " Those counters are of code and configuration together.",
        "zh": "这些计数器是代码与配置共同作用的结果。",
    },
}
