"""Every subcommand's ``--help`` works and ends with an example that parses."""

import contextlib
import io
import re
import shlex
import subprocess
import sys

import pytest

from nsightflow import cli
from nsightflow.examples import EXAMPLES

COMMANDS = sorted(cli.build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


def test_every_subcommand_has_an_example() -> None:
    assert set(EXAMPLES) == set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_exits_0_and_shows_the_example(command: str) -> None:
    parser = cli.build_parser()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        parser.parse_args([command, "--help"])
    assert done.value.code == 0
    assert f"example: nsightflow {command}" in out.getvalue()


@pytest.mark.parametrize("command", COMMANDS)
def test_the_example_parses(command: str) -> None:
    argv = shlex.split(EXAMPLES[command])
    args = cli.build_parser().parse_args(argv[1:])
    assert args.handler is not None


def test_compare_help_in_a_process() -> None:
    """The crash a new user met first: a bare % in compare's help."""
    done = subprocess.run(
        [sys.executable, "-m", "nsightflow", "compare", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "(default 3%)" in done.stdout


MARKUP = re.compile(r"``|:(mod|func|class|meth|data|attr):`")


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)])
def test_help_is_plain_text(command: list[str]) -> None:
    """No reStructuredText roles or double backquotes in what a terminal shows."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.build_parser().parse_args([*command, "--help"])
    assert not MARKUP.search(out.getvalue()), out.getvalue()


def test_version_in_a_process() -> None:
    from importlib import metadata

    done = subprocess.run(
        [sys.executable, "-m", "nsightflow", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"nsightflow {metadata.version('nsightflow')}"
