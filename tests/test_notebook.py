"""notebooks/quickstart.ipynb runs top to bottom headless (nbclient) and shows what it promises."""

from __future__ import annotations

import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "quickstart.ipynb"


def test_quickstart_notebook_runs_top_to_bottom():
    before = set(Path(tempfile.gettempdir()).glob("cardgym_quickstart_*"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    text = "".join(o.get("text", "") for o in outputs)
    assert html.count('<table class="cardgym"') >= 4  # three envs and the game log
    assert "color:#c0392b" in html  # red suits
    assert "replayed" in text and "95% intervals" in text and "heuristic minus random" in text
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 2  # evaluation bars and the learning curve
    # (the curve is shown with plt.show() after train(): training no longer switches matplotlib's backend)
    assert set(Path(tempfile.gettempdir()).glob("cardgym_quickstart_*")) == before  # no folder left behind
