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
    "index_sections": {"en": "Sections:", "zh": "章节："},
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
