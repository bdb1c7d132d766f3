# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The integrity checks' messages (measurement-checks part of the appendix).

Data only, in the catalogue's form: key -> language -> template; merged into
:data:`nsightflow.i18n.CATALOGUE`. The checks are :mod:`nsightflow.analysis.integrity`.
"""

INTEGRITY_MESSAGES: dict[str, dict[str, str]] = {
    "integrity_faster": {
        "en": "{where}: **faster than the family's own floor**, kept out of the "
        "ranking: {message}.",
        "zh": "{where}：**比该族自身的下限还快**，不参与排名：{message}。",
    },
    "integrity_changed": {
        "en": "{where}: **output changed after timing**, kept out of the ranking: "
        "{message}.",
        "zh": "{where}：**计时之后输出发生变化**，不参与排名：{message}。",
    },
    "integrity_disagree": {
        "en": "{where}: ncu's time ({ncu:,.2f} us) and the events' median "
        "({event:,.2f} us) are {diff:,.2f} us apart, beyond their noise "
        "({noise:,.2f} us: 3 x the IQR of {iqr:,.2f} us, 5 us of launch gaps and "
        "1% of the median).",
        "zh": "{where}：ncu 的时间（{ncu:,.2f} us）与事件计时中位数（{event:,.2f} us）"
        "相差 {diff:,.2f} us，超出二者的噪声（{noise:,.2f} us：IQR {iqr:,.2f} us 的 "
        "3 倍、5 us 的启动间隙与中位数的 1%）。",
    },
    "integrity_gpu_state": {
        "en": "GPU state around the {runs} timing runs (NVML, before and after "
        "each): SM clock {sm}, memory clock {mem}, largest SM clock drop during a "
        "run {drop:.0f} MHz; clock-event reasons: {reasons}; other processes on the "
        "GPU: {procs}.",
        "zh": "{runs} 次计时前后的 GPU 状态（NVML，每次前后各读一次）：SM 时钟 {sm}，"
        "显存时钟 {mem}，单次计时中 SM 时钟最大降幅 {drop:.0f} MHz；时钟事件原因："
        "{reasons}；GPU 上的其他进程：{procs}。",
    },
}
