# Two commands on a fresh machine with Python >= 3.11 and pip:
#   make run    set up .venv, then run the pipeline on the configured collections
#   make test   set up .venv, then run the test suite (the full one, as CI runs it)
#   make test-fast  the unit tests but the slow ones, a few minutes: no Snakemake run, no SLURM,
#               no browser, nothing installed
#   make docs   build the documentation site into site/ (warnings are errors), its figure
#               gallery rendered first into build/gallery (the demo and the paper's config)
PYTHON ?= python3
VENV   ?= .venv
CORES  ?= 2
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

DATA   ?= ../shared/data

.PHONY: run test test-fast lint bench bench-peers clean setup reproduce campaigns report docs gallery

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[workflow,test,lint,docs]'
	touch $(STAMP)

# Every command that writes tables rebuilds the report after them, with the same options,
# so results/report.html shows what ran (the run's summary says it comes next).
REPORT := results/report.html
PAPER_OPTIONS := --configfile config/paper.yaml --config data_root=$(abspath $(DATA))
CAMPAIGN_OPTIONS := --configfile config/campaigns.yaml --config data_root=$(abspath $(DATA))

run: $(STAMP)
	IRMETA_REPORT_NEXT=1 $(BIN)/snakemake --cores $(CORES) $(ARGS)
	$(BIN)/snakemake --report $(REPORT) $(ARGS)

# The full suite (.ci/run calls it). As root it installs what its integration tests need
# when missing: slurm-wlm and munge (tests/integration/test_slurm.py), chromium
# (test_report.py, test_docs_browser.py), through apt-get; not as root, those tests fail
# naming the apt-get command.
test: $(STAMP)
	$(BIN)/python -m pytest $(ARGS)

# The unit tests (tests/unit) but those marked slow (pyproject.toml's markers: workflow runs,
# simulations, real data end to end, many generated examples), for quick checks while
# developing, in minutes (their count and time: benchmarks/measured.yaml, make_test_fast).
# They read ../shared/data as the suite does, start no workflow, cluster or browser, install
# nothing. `make test` runs the slow ones too.
test-fast: $(STAMP)
	$(BIN)/python -m pytest tests/unit -q -m "not slow" $(ARGS)

# The paper on its four collections; those whose runs are absent under DATA are skipped.
reproduce: $(STAMP)
	IRMETA_REPORT_NEXT=1 $(BIN)/snakemake --cores $(CORES) $(PAPER_OPTIONS) $(ARGS)
	$(BIN)/snakemake --report $(REPORT) $(PAPER_OPTIONS) $(ARGS)

# Every public campaign (TREC-8, CLEF TAR 2017, DL 2020 passage): the paper's measures plus
# nDCG, RBP and their rareness forms, the claims and the collection properties beside them.
campaigns: $(STAMP)
	IRMETA_REPORT_NEXT=1 $(BIN)/snakemake --cores $(CORES) $(CAMPAIGN_OPTIONS) $(ARGS)
	$(BIN)/snakemake --report $(REPORT) $(CAMPAIGN_OPTIONS) $(ARGS)

# Self-contained HTML report of the last run (figures, tables, captions with the settings);
# run, reproduce and campaigns build it themselves. After a run of other options, pass them
# (the run's summary prints the command): make report ARGS="--configfile config/paper.yaml".
report: $(STAMP)
	$(BIN)/snakemake --report $(REPORT) $(ARGS)

# The documentation site (mkdocs.yml, docs/): the reference pages are generated from the
# measure registry, the config schemas and the experiment manifest by docs/hooks/reference.py;
# the figure gallery from the figures the workflow draws for the demo and for the paper's config
# on DATA, rendered first into GALLERY (docs/hooks/gallery.py: two runs, a few minutes on 2 cores).
GALLERY ?= build/gallery

gallery: $(STAMP)
	$(BIN)/python docs/hooks/gallery.py --data $(abspath $(DATA)) --out $(GALLERY)

docs: gallery
	IRMETA_GALLERY=$(abspath $(GALLERY)) NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# Clean means: ruff (pyproject.toml's rules), mypy on the core, Snakemake's own lint.
lint: $(STAMP)
	$(BIN)/ruff check src tests workflow/scripts benchmarks
	$(BIN)/mypy
	$(BIN)/snakemake --lint

BENCH_STAMP := $(VENV)/.installed-bench

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	touch $(BENCH_STAMP)

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

# irmeta score and compare beside trec_eval, pytrec_eval, ir_measures and ranx on TREC-8.
# trec_eval: TREC_EVAL=/path/to/trec_eval, or TREC_EVAL_SRC=/path/to/its/source (built with make).
# Without network access to its source, a binary comes with pyserini's sdist: Anserini's fat
# jar holds trec_eval/trec_eval-linux-amd64 (docs/reference/benchmarks.md).
# ARGS='--measures all': every peer name irmeta registers (the alias registry), irmeta's
# value beside each installed peer's (trec_eval, pytrec_eval, ir_measures with cwl_eval
# and pyndeval, ranx) on TREC-8, DL 2020 and a generated campaign with subtopic qrels, the
# largest per-topic difference and its cause when known (ties order, float32 scores).
bench-peers: $(BENCH_STAMP)
	$(BIN)/python benchmarks/bench_peers.py --data $(abspath $(DATA)) $(ARGS)

clean:
	rm -rf results .snakemake site $(GALLERY)
