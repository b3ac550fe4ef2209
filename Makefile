# Two commands on a fresh machine with Python >= 3.11 and pip:
#   make run    set up .venv, then run the pipeline on the configured collections
#   make test   set up .venv, then run the test suite
PYTHON ?= python3
VENV   ?= .venv
CORES  ?= 2
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench clean setup

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/snakemake --cores $(CORES) $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest $(ARGS)

lint: $(STAMP)
	$(BIN)/snakemake --lint

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf results .snakemake
