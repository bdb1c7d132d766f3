# ruff: noqa: RUF001  (Chinese templates use full-width punctuation on purpose)
"""Messages of the plot stage's figures as the report shows them: captions."""

FIGURE_MESSAGES: dict[str, dict[str, str]] = {
    "fig_step": {
        "en": "this step: before and after over sizes, and its primary cause's metric",
        "zh": "本步：各规模下前后耗时，及主要原因的指标",
    },
}
