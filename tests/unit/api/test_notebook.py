"""The example notebook runs top to bottom on a CPU machine (replay, no GPU).

Executed with nbclient in a kernel of this Python, started in a folder outside the
repository (the notebook finds the checkout nsightflow is installed from and works
there); its outputs must hold the tables (pandas' HTML) and the figure (a PNG), so
the notebook cannot rot unnoticed. It is stored with its outputs, for a reader on
GitHub: they must be the ones it runs to now, small, and name no folder of the
machine that ran it. To store it again after a change:
``python tests/unit/api/test_notebook.py``.
"""

import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOK = ROOT / "examples" / "python_api.ipynb"
# the stored file (the PNG is most of it: ~140 kB), and any one output
MAX_BYTES, MAX_OUTPUT_BYTES = 300_000, 200_000
# an absolute path: POSIX below a top-level folder, or a Windows drive
ABSOLUTE = re.compile(
    r"(?<![\w.])/(?:home|root|tmp|work|Users|var|private|opt|mnt)/|\b[A-Z]:\\\\"
)


def execute(folder: Path) -> Any:
    """The notebook, run in a kernel whose working folder is ``folder``."""
    import nbclient
    import nbformat

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        record_timing=False,  # no timestamps in the stored cells
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    return notebook


def _texts(notebook: Any) -> list[tuple[str, str]]:
    """Each output's text (printed, HTML, plain) in order; the PNG's bytes left out."""
    texts = []
    for cell in (c for c in notebook.cells if c.cell_type == "code"):
        for out in cell.outputs:
            if out.output_type == "stream":
                texts.append((out.name, out.text))
            for kind in ("text/html", "text/plain"):
                if kind in out.get("data", {}) and "image/png" not in out.data:
                    texts.append((kind, out.data[kind]))
    return texts


def test_the_example_notebook_runs_and_shows_tables_and_a_figure(tmp_path):
    pytest.importorskip("nbformat", reason="pip install -e '.[dev]'")
    pytest.importorskip("nbclient", reason="pip install -e '.[dev]'")
    notebook = execute(tmp_path)
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o.data["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    tables = [h for h in html if 'class="dataframe' in h]
    # the ladder, the findings, the counters and the compared pairs
    assert len(tables) >= 4
    assert any("v4_triton" in t for t in tables)
    assert any("SAME" in t for t in tables)
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1
    # the stored outputs are these (else: python tests/unit/api/test_notebook.py)
    import nbformat

    assert _texts(nbformat.read(NOTEBOOK, as_version=4)) == _texts(notebook)


def test_the_stored_notebook_holds_small_outputs_naming_no_folder_here():
    nbformat = pytest.importorskip("nbformat", reason="pip install -e '.[dev]'")
    text = NOTEBOOK.read_text()
    assert len(text.encode()) < MAX_BYTES
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    # every cell but the imports shows something, numbered in order
    assert all(c.outputs for c in code[1:]), [
        c.source[:40] for c in code if not c.outputs
    ]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert max(len(str(o).encode()) for o in outputs) < MAX_OUTPUT_BYTES
    assert str(ROOT) not in text and str(Path.home()) not in text
    assert not ABSOLUTE.search(text), ABSOLUTE.search(text)


def test_the_path_check_finds_a_folder_of_a_machine():
    for path in ("from /work/repo/examples", "'/home/me/x'", "in C:\\\\Users"):
        assert ABSOLUTE.search(path), path
    assert not ABSOLUTE.search("from examples/h200 (kernels/vecadd/v4_triton.py)")


if __name__ == "__main__":  # store the notebook with the outputs it runs to now
    import nbformat

    with tempfile.TemporaryDirectory() as work:
        nbformat.write(execute(Path(work)), NOTEBOOK)
    sys.exit(0)
