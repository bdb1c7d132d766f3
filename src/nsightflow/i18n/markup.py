"""Text that is data, quoted inside the Markdown the messages are written in.

The diagnosis quotes a kernel's line in a finding's sentence, the report a sampled
line in its table: both as an inline code span that the quoted text cannot close.
"""

import re


def code_span(text: str) -> str:
    """``text`` as an inline code span that no run of backticks inside can close.

    On one line: a line break inside would let the next line start a block (a
    heading, a list, an image in a paragraph of its own) outside the span.
    """
    text = " ".join(text.splitlines())
    runs = [len(m) for m in re.findall(r"`+", text)]
    ticks = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"
