# cardgym: `make train` (the main job: train a Tripoli agent and evaluate it) and `make test` (lint + tests).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# constraints.txt pins torch to the CPU build available to pip on these machines (see README, "Install").
PIP_INSTALL := $(PY) -m pip install --quiet -c constraints.txt

.PHONY: install train test demo bench notebook clean

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -e ".[dev]"
	touch $@

install: $(VENV)/.installed

# The main job: MaskablePPO at a 4-player Tripoli table against a mixed pool of bots re-weighted towards the ones it
# does not beat yet (--league), after an imitation warm start, 14 minutes of training, then the closing table of its
# advantage over the heuristic in every field (README "Training").
TRAIN_MINUTES ?= 14
train: install
	$(VENV)/bin/cardgym train --game tripoli --players 4 --opponents heuristic=2,random=1,tight=1,longsuit=1 \
		--whole-table 0.5 --league --minutes $(TRAIN_MINUTES) --final-deals 4000 --out runs/tripoli

test: install
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2

demo: install
	$(VENV)/bin/cardgym random --game tripoli --players 4 --tables 4096

# JupyterLab in .venv, then the quickstart notebook (README "Play, logs and notebooks").
notebook: install
	$(PIP_INSTALL) -e ".[notebook]"
	$(VENV)/bin/jupyter lab notebooks/quickstart.ipynb

bench: install
	$(PY) -m benchmarks.throughput --game tripoli
	$(PY) -m benchmarks.throughput --game triolet
	$(PY) -m benchmarks.throughput --game flipflop

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .hypothesis
