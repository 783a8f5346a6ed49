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

# The main job: MaskablePPO at a 4-player Tripoli table against the whole zoo, eight members of the style family,
# eight of its careless twin (5-40% random moves), the five zoo bots made careless, and snapshots of itself (30% of
# the opponent seats), re-weighted sharply towards the ones it does not beat yet (--league with the fourth power of
# how far it is from beating each and a floor of 1%), anchored to the heuristic, 12.75
# minutes of training with the periodic evaluations in a second process (--background-eval); it keeps the policy of
# the periodic evaluation whose worst opponent family is best (--keep best: where the time budget cuts the run matters
# less), then plays the closing table of its advantage over the heuristic in every field, held-out styles included,
# 20,000 deals each, half of them in the second process (under 2 minutes; docs/training.md).
TRAIN_MINUTES ?= 12.75
train: install
	$(VENV)/bin/cardgym train --game tripoli --players 4 \
		--opponents heuristic=2,random=1,tight=1,aggressive=1,longsuit=1,lowlead=1,styles:8=3,careless-styles:8=3,careless-bots:5=3 \
		--hints --anchor heuristic --imitate 300000 --whole-table 0.5 --league --league-power 4 --league-floor 0.01 \
		--selfplay --selfplay-share 0.3 --keep best --background-eval --minutes $(TRAIN_MINUTES) --final-deals 20000 \
		--out runs/tripoli

# The measured recipes for the other two games (docs/training.md). Le triolet's league counts deals rather than
# points at stake (two runs with points: 6 and 7 of 11 fields; two with deals: 11 of 11 each). Flip Flop's gives half
# the fixed seats to patient players, whom the others' lessons make it lose to, lets the learning rate fall to 0
# over the last 30% and plays its periodic evaluations in a second process (--background-eval: 2.1 M decisions in
# 12.25 minutes where 11.5 minutes in process gave about 1.6 M).
train-triolet: install
	$(VENV)/bin/cardgym train --game triolet --players 4 \
		--opponents heuristic=2,random=1,specials=1,pairs=1,saver=1,blocker=1 --anchor heuristic --imitate 300000 \
		--whole-table 0.5 --league --league-by deals --selfplay --selfplay-share 0.3 --reward-scale 1 --minutes 11.5 \
		--final-deals 20000 --out runs/triolet

train-flipflop: install
	$(VENV)/bin/cardgym train --game flipflop --players 4 \
		--opponents heuristic=2,random=1,early=1,patient=6,dumper=1,builder=1 --anchor reader --imitate 300000 \
		--whole-table 0.5 --league --selfplay --selfplay-share 0.3 --anneal-lr 0.3 --reward-scale 1 --background-eval \
		--minutes 12.25 --final-deals 40000 --anchor-weight-on "discard=5" --out runs/flipflop

test: install
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2

demo: install
	$(VENV)/bin/cardgym random --game tripoli --players 4 --tables 4096

# JupyterLab in .venv, then the quickstart notebook (README "Play, watch, replay and logs").
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
