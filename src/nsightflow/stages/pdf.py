"""``nsightflow pdf``: report.html -> report.pdf (A4)."""

import argparse
from pathlib import Path


def register_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``pdf`` to the CLI."""
    p = sub.add_parser("pdf", help="report.html -> report.pdf (A4)")
    p.add_argument("html", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument(
        "--language",
        choices=["en", "zh"],
        help="zh embeds a CJK font (fonts-wqy-microhei); default: the page's <html lang>",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``nsightflow pdf``."""
    from nsightflow.report.pdf.build import write_pdf

    write_pdf(
        args.html.read_text(), args.html.parent, args.output, language=args.language
    )
    return 0
