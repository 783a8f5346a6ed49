# cardgym: `make train` (the main job: train a Tripoli agent and evaluate it) and `make test` (lint + tests).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# constraints.txt pins torch to the CPU build available to pip on these machines (see README, "Install").
PIP_INSTALL := $(PY) -m pip install --quiet -c constraints.txt

.PHONY: install train train-triolet train-flipflop test demo bench notebook clean clean-cache

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -e ".[dev]"
	touch $@

install: $(VENV)/.installed

# The main job: train a Tripoli agent by the recommended recipe, then one short round of expert iteration from it
# (the search player's decisions distilled into the network), and print the closing table of both against the
# heuristic (docs/training.md). The other games' recipes have the same shape; every recipe is a file any run can
# start from (cardgym train --recipe, cardgym distill --recipe).
train: install
	$(VENV)/bin/cardgym train --recipe recipes/tripoli.toml --final-deals 0
	$(VENV)/bin/cardgym distill --recipe recipes/distill/tripoli.toml

train-triolet: install
	$(VENV)/bin/cardgym train --recipe recipes/triolet.toml

train-flipflop: install
	$(VENV)/bin/cardgym train --recipe recipes/flipflop.toml

test: install
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2

demo: install
	$(VENV)/bin/cardgym random --game tripoli --players 4 --tables 4096

# JupyterLab in .venv, then the quickstart notebook (README "Play, watch, replay and logs"); the research notebooks
# (tripoli_betting, benchmark_your_bot, games_at_a_glance) are beside it in notebooks/ (docs/README.md).
notebook: install
	$(PIP_INSTALL) -e ".[notebook]"
	$(VENV)/bin/jupyter lab notebooks/quickstart.ipynb

bench: install
	$(PY) -m benchmarks.throughput --game tripoli
	$(PY) -m benchmarks.throughput --game triolet
	$(PY) -m benchmarks.throughput --game flipflop
	$(PY) -m benchmarks.one_process

clean: clean-cache
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .hypothesis

clean-cache:  # numba's compiled kernels (rebuilt on first use); a stale entry can fail to load after a pull
	find envs agents training benchmarks tests -name '*.nbi' -delete -o -name '*.nbc' -delete
