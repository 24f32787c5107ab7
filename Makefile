# ranklens: the two commands the README promises, plus a few helpers.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[plot]"
	touch $(STAMP)

$(DEVSTAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP) $(DEVSTAMP)

demo: $(STAMP)
	$(BIN)/ranklens demo

test: $(DEVSTAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n 2 -q

lint: $(DEVSTAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: $(DEVSTAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache
