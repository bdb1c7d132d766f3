# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""The HTML pages' own words (contents, index cards), merged into the catalogue.

Data only, in the catalogue's form: key -> language -> template (see
:mod:`nsightflow.i18n.catalogue`). Plain text: the pages escape it.
"""

PAGE_MESSAGES: dict[str, dict[str, str]] = {
    "page_contents": {"en": "Contents", "zh": "目录"},
    "page_back_to_text": {
        "en": "back to the text",
        "zh": "返回正文",
    },
    "index_families": {"en": "Families", "zh": "各 family"},
    "index_replayed": {
        "en": "Replayed from {recording}: measured on {gpu} on {date}.",
        "zh": "回放自 {recording}：{date} 在 {gpu} 上测量。",
    },
    "index_measured": {
        "en": "Measured here on {gpu} on {date}.",
        "zh": "在本机 {gpu} 上测量，时间 {date}。",
    },
    "index_not_measured": {
        "en": "Not measured: no timing was recorded for this family.",
        "zh": "未测量：本 family 没有计时记录。",
    },
    "index_statuses": {"en": "Variants: {counts}.", "zh": "版本：{counts}。"},
    "index_sections": {"en": "The report's {n} sections", "zh": "报告的 {n} 个章节"},
    "index_intro": {
        "en": "One card per family: its best correct variant at the size its report "
        "judges, that variant's time, its speedup over the family's baseline and its "
        "share of the ceiling of its regime; below them the figure its report opens "
        "with.",
        "zh": "每个 family 一张卡片：在其报告评判的规模下最佳的正确版本、该版本的耗时、"
        "相对基线的加速比以及占其所属受限类型上限的比例；下方是报告开篇的图。",
    },
    "index_best": {"en": "best variant", "zh": "最佳版本"},
    "index_time": {"en": "time", "zh": "耗时"},
    "index_speedup": {"en": "speedup", "zh": "加速比"},
    "index_ceiling": {"en": "of the ceiling", "zh": "占上限"},
    "index_over": {"en": "over", "zh": "相对"},
    "index_of": {"en": "of {ceiling}", "zh": "相对于{ceiling}"},
    "index_none_correct": {
        "en": "No variant computed the right result: nothing to rank.",
        "zh": "没有版本算出正确结果：无法排名。",
    },
    "index_files": {"en": "Files:", "zh": "文件："},
    "index_figure": {
        "en": "main figure of {family}",
        "zh": "{family} 的主图",
    },
    "index_no_figure": {
        "en": "No figure: {path} is missing; re-run the plot stage.",
        "zh": "没有图：缺少 {path}；请重新运行 plot 阶段。",
    },
    "index_no_facts": {
        "en": "{path} is missing: re-run this family's report stage "
        "(snakemake {path}).",
        "zh": "缺少 {path}：请重新运行该 family 的 report 阶段（snakemake {path}）。",
    },
}
