"""The example notebook runs top to bottom on a CPU machine (replay, no GPU).

Executed with nbclient in a kernel of this Python, started in a folder outside the
repository (the notebook finds the checkout nsightflow is installed from); its outputs
must hold the tables (pandas' HTML) and the figure (a PNG), so the notebook cannot rot
unnoticed.
"""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOK = ROOT / "examples" / "python_api.ipynb"


def test_the_example_notebook_runs_and_shows_tables_and_a_figure(tmp_path):
    nbformat = pytest.importorskip("nbformat", reason="pip install -e '.[dev]'")
    nbclient = pytest.importorskip("nbclient", reason="pip install -e '.[dev]'")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},  # its working folder
    )
    client.execute()
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
