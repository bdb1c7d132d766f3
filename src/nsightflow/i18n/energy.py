# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The energy section's messages, merged into :data:`nsightflow.i18n.CATALOGUE`.

Data only, in the catalogue's form: key -> language -> template (see
:mod:`nsightflow.i18n.catalogue` for the key prefixes).
"""

ENERGY_MESSAGES: dict[str, dict[str, str]] = {
    "h_energy": {"en": "Energy per launch", "zh": "每次 launch 的能耗"},
    "h_app_energy": {"en": "A.{k} Energy per launch", "zh": "A.{k} 每次 launch 的能耗"},
    "energy_intro": {
        "en": "After timing each size, the time stage ran the variant's launches back "
        "to back (hot cache) and read NVML's total-energy counter of the board over "
        "whole steps of it (two steps, 100 ms apart on the H200); energy per launch is the "
        "average power over that window times the stream's GPU time per launch. "
        "It is the whole board's energy, idle power included: a faster kernel "
        "usually costs less energy even at a higher power.",
        "zh": "每个规模计时之后，time 阶段把该版本的 launch 连续排队执行（缓存为热），"
        "并在 NVML 的整卡累计能耗计数器完整跳变的窗口内读数（两次跳变，H200 上每 100 ms 跳变一次）；"
        "每次 launch 的能耗 = 窗口内的平均功率 × 该连续流中每次 launch 的 GPU 时间。"
        "这是整卡的能耗，包含空闲功耗：更快的 kernel 即使功率更高，能耗通常也更低。",
    },
    "energy_not_recorded": {
        "en": "Not recorded: {why}.",
        "zh": "未记录：{why}。",
    },
    "energy_why_none": {
        "en": "the time records hold no energy (NVML's total-energy counter was not "
        "read: a recording made before the time stage read it, or a GPU without one)",
        "zh": "计时记录中没有能耗数据（未读取 NVML 的累计能耗计数器："
        "该录制早于 time 阶段读取能耗，或该 GPU 没有此计数器）",
    },
    "energy_busy": {
        "en": "Where the stream took more than 10% longer per launch than the timed "
        "median (the timed median over the stream's time per launch below 0.9: "
        "{which}), its energy per launch covers that longer time. The recording "
        "does not say why the stream ran slower than the timing loop (the clocks it "
        "ran at under sustained load, or, for the shortest kernels, gaps between "
        "launches).",
        "zh": "在连续流中每次 launch 的 GPU 时间比计时中位数长 10% 以上的情况下（计时中位数与连续流每次 launch "
        "时间之比低于 0.9：{which}），每次 launch 的能耗包含这段更长的时间。录制数据无法说明连续流为何比"
        "计时循环慢（持续负载下的时钟，或对最短的 kernel 而言 launch 之间的间隙）。",
    },
    "energy_overlap": {
        "en": "The timed median over the stream's time per launch is not a busy "
        "fraction: it exceeds 1 where the timed launch pays its own start-up, which "
        "a stream of back-to-back launches hides behind the launch before it (up to "
        "{most:.2f} at {where}); the energy per launch is then that shorter stream "
        "time's.",
        "zh": "计时中位数与连续流每次 launch 时间之比不是忙碌比例：单次计时的 launch 要付出自身的启动"
        "开销，而连续 launch 的流把它藏在前一次 launch 之后，该比值因此会超过 1（最高 {most:.2f}，见 "
        "{where}）；此时每次 launch 的能耗按这段更短的连续流时间计算。",
    },
    "fig_energy": {
        "en": "median time against energy per launch, per variant and size",
        "zh": "各版本、各规模的中位时间与每次 launch 能耗",
    },
    "col_energy_mj": {"en": "energy / launch [mJ]", "zh": "每次 launch 能耗 [mJ]"},
    "col_power_w": {"en": "power [W]", "zh": "功率 [W]"},
    "col_gflop_per_j": {"en": "GFLOP/J", "zh": "GFLOP/J"},
    "col_gb_per_j": {"en": "GB/J", "zh": "GB/J"},
}
