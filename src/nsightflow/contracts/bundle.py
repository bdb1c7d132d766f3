"""One family's analysis outputs, read through their declarations.

``results/analysis/<family>/`` holds what the analyze stage, the diagnosis and the
sweep and timeline analyses wrote for one family. The diagnosis, the figures, the
report, the index and the Python API all read it through :class:`Bundle`, so a file
is read with one NA policy everywhere and a reader names a table, not a path. Each
table is read on first use and kept: a figure run that never looks at the hot lines
does not parse them.
"""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nsightflow.contracts.table import Table
from nsightflow.contracts.tables import (
    ANALYSIS,
    FINDINGS,
    HOTSPOTS,
    RULES,
    STALLS,
    SWEEP,
    SWEEP_SUMMARY,
    TIMELINE,
    TIMELINE_SUMMARY,
)

if TYPE_CHECKING:
    import pandas as pd

CONTEXT = "context.json"
RULES_FILE = "rules.csv"  # the family's RULES table (every variant's rows)


class _Read:
    """A bundle's table, read from its file on first use and kept on the bundle."""

    def __init__(self, table: Table, file: str = "") -> None:
        self.table, self.file = table, file or table.name

    def __set_name__(self, owner: type, attr: str) -> None:
        self.attr = attr

    def __get__(self, bundle: "Bundle", owner: type) -> "pd.DataFrame":
        found = bundle.__dict__[self.attr] = self.table.read(bundle.path(self.file))
        return found


class _ReadIfPresent(_Read):
    """:class:`_Read` of a file a family may lack: None where it is absent."""

    def __get__(self, bundle: "Bundle", owner: type) -> "pd.DataFrame | None":  # type: ignore[override]
        path = bundle.path(self.file)
        found = bundle.__dict__[self.attr] = self.table.read_if_present(path)
        return found


class Bundle:
    """The analysis files of one family, in ``folder``.

    ``rules`` is a frame without columns where no launch had rule results;
    ``findings`` is None before the diagnosis has run, ``hotspots`` in analyses
    made before warp sampling.
    """

    analysis = _Read(ANALYSIS)
    stalls = _Read(STALLS)
    rules = _Read(RULES, RULES_FILE)
    findings = _ReadIfPresent(FINDINGS)
    hotspots = _ReadIfPresent(HOTSPOTS)
    timeline = _Read(TIMELINE)
    timeline_summary = _Read(TIMELINE_SUMMARY)
    sweep = _Read(SWEEP)
    sweep_summary = _Read(SWEEP_SUMMARY)

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def path(self, name: str) -> Path:
        """A file of the bundle by its name (``analysis.csv``, ``context.json``)."""
        return self.folder / name

    @property
    def context(self) -> dict[str, Any]:
        """``context.json``: the family's manifest facts, ceilings and provenance."""
        if "_context" not in self.__dict__:
            self.__dict__["_context"] = json.loads(self.path(CONTEXT).read_text())
        found: dict[str, Any] = self.__dict__["_context"]
        return found
