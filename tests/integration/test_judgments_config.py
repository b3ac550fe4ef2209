"""config/judgments.yaml (docs/judgments.md: TREC-8 under generated assessors) plans the
judgment-set experiments and the claims on TREC-8 alone, with the generated assessors only."""

from __future__ import annotations

from test_workflow import _copy_workflow, _ok, _snakemake


# docs: judgments.md: make run ARGS="--configfile config/judgments.yaml --config data_root=/path/to/data"
# (planned here, as make run calls snakemake with ARGS; the page's numbers come from a full run)
def test_the_judgments_config_plans_trec8_under_generated_assessors(tmp_path, shared_data):
    workdir = _copy_workflow(tmp_path / "work")
    proc = _ok(_snakemake(workdir, "-n", "--cores", "2", "--configfile", "config/judgments.yaml", "--config",
                          f"data_root={shared_data}"))
    planned = {tuple(line.split()) for line in (proc.stdout + proc.stderr).splitlines()}
    for rule, count in (("ingest_collection", "1"), ("compare_reduced_judgments", "2"),
                        ("tabulate_judgment_agreement", "1"), ("tabulate_label_agreement", "1"),
                        ("tabulate_claims", "1")):
        assert (rule, count) in planned, rule
    assert not any(line[0] == "ingest_judgments" for line in planned if line)  # no named set
