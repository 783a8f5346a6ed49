"""The notebooks run top to bottom headless (nbclient) and show what they promise; they are stored without outputs.

The research notebooks read ``CARDGYM_NOTEBOOK_FAST=1``: the same cells with small sizes (each about a minute here),
set for every notebook run by this file; the quickstart is small anyway and ignores it."""

from __future__ import annotations

import tempfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
NOTEBOOK = NOTEBOOKS / "quickstart.ipynb"
RESEARCH = {
    # notebook: (its temporary folder's prefix, figures at least, text it must print)
    "tripoli_betting": ("cardgym_betting_", 5, ["betting decisions", "chips per seat per deal",
                                                "minus the heuristic in its seats", "over the heuristic"]),
    "benchmark_your_bot": ("cardgym_bot_", 2, ["conforms on", "caught:", "payoff matrix", "alpha-Rank", "Kendall tau",
                                               "a lower bound on the exploitability"]),
    "games_at_a_glance": ("cardgym_glance_", 4, ["burned by a 10", "stopped by the ace", "dropped and caught"]),
}


def _run(path: Path) -> list:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]


def _text(outputs: list) -> str:
    return "".join(o.get("text", "") for o in outputs)


def _figures(outputs: list) -> int:
    return sum("image/png" in o.get("data", {}) for o in outputs)


@pytest.fixture(autouse=True)
def fast(monkeypatch) -> None:
    monkeypatch.setenv("CARDGYM_NOTEBOOK_FAST", "1")  # the kernel inherits the environment


def test_every_notebook_is_tested_and_stored_without_outputs() -> None:
    assert {p.stem for p in NOTEBOOKS.glob("*.ipynb")} == {"quickstart", *RESEARCH}
    for path in NOTEBOOKS.glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: outputs are stored"


def test_quickstart_notebook_runs_top_to_bottom():
    before = set(Path(tempfile.gettempdir()).glob("cardgym_quickstart_*"))
    outputs = _run(NOTEBOOK)
    assert not [o for o in outputs if o.output_type == "error"]
    html = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    text = _text(outputs)
    assert html.count('<table class="cardgym"') >= 4  # three envs and the game log
    assert "color:#c0392b" in html  # red suits
    assert "replayed" in text and "95% intervals" in text and "heuristic minus random" in text
    assert _figures(outputs) >= 2  # evaluation bars and the learning curve
    # (the curve is shown with plt.show() after train(): training no longer switches matplotlib's backend)
    assert set(Path(tempfile.gettempdir()).glob("cardgym_quickstart_*")) == before  # no folder left behind


@pytest.mark.parametrize("name", list(RESEARCH))
def test_research_notebook_runs_in_fast_mode(name: str) -> None:
    prefix, figures, phrases = RESEARCH[name]
    before = set(Path(tempfile.gettempdir()).glob(f"{prefix}*"))
    outputs = _run(NOTEBOOKS / f"{name}.ipynb")
    errors = [f"{o.ename}: {o.evalue}" for o in outputs if o.output_type == "error"]
    assert not errors, errors
    text = _text(outputs)
    assert [p for p in phrases if p not in text] == []
    assert _figures(outputs) >= figures
    assert not [o for o in outputs if o.get("name") == "stderr"], "a notebook cell wrote to stderr (a warning?)"
    assert set(Path(tempfile.gettempdir()).glob(f"{prefix}*")) == before  # no folder left behind
