# cardgym: `make test` (lint + tests) and `make demo` (the main job until training lands) on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# constraints.txt pins torch to the CPU build available to pip on these machines (see README, "Install").
PIP_INSTALL := $(PY) -m pip install --quiet -c constraints.txt

.PHONY: install test demo bench clean

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) -e ".[dev]"
	touch $@

install: $(VENV)/.installed

test: install
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2

demo: install
	$(VENV)/bin/cardgym random --game tripoli --players 4 --tables 4096

bench: install
	$(PY) -m benchmarks.throughput --game tripoli
	$(PY) -m benchmarks.throughput --game triolet
	$(PY) -m benchmarks.throughput --game flipflop

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .ruff_cache .hypothesis
