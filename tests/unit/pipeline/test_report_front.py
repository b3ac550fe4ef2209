"""irmeta.pipeline.report_front (the report's first page) and the run summary's report
line (irmeta.pipeline.summary): what ran and what did not, the claims, the figures; a
report named only when it is as new as the tables. Fast: docutils, no Snakemake run
(tests/integration/test_report_front.py builds a report of a small run)."""

from __future__ import annotations

import os
import re
import shlex
from html import unescape

import numpy as np
import pandas as pd
from docutils.core import publish_parts

from irmeta.pipeline.report_front import FrontPage, rst_text, skipped_collections
from irmeta.pipeline.summary import newest_table, rebuild_command, report_status

WARNINGS = ["skipping collection trec5: config/collections/trec5.yaml: key 'runs': /data/trec5/runs: no such file",
            "collection trec8: 2 official run(s) missing: a, b"]


def html_of(rst: str) -> str:
    parts = publish_parts(rst, writer="html", settings_overrides={"report_level": 1})
    assert "system-message" not in parts["html_body"], parts["html_body"]
    return unescape(parts["html_body"])


def results_with_claims(tmp_path):
    from matplotlib.figure import Figure

    from irmeta.artefacts.claims import COLUMNS, write_claims

    rows = [["rank_agreement", "kendall_tau", "P_rareness@100", "P@100", "1", "TREC-8", 0.95, np.nan, np.nan,
             0.9, "tau at least 0.9", True, np.nan],
            ["discriminative_power", "paper_pairwise", "P_rareness@100", "P@100", "1", "TREC-8", 160, 5000, 5160,
             0.0, "gain above 0", True, 160 / 8256],
            ["discriminative_power", "tukey_hsd", "P_rareness@100", "P@100", "1", "TREC-8", -3, 4000, 3997,
             0.0, "gain above 0", False, -3 / 8256]]
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["holds"] = table["holds"].astype("boolean")
    write_claims(table, tmp_path / "claims")
    fig = Figure(figsize=(2, 1))
    fig.subplots().plot([0, 1], [1, 0])
    fig.savefig(tmp_path / "claims.png")
    return tmp_path


def test_what_ran_and_what_did_not_with_why():
    assert skipped_collections(["trec5", "trec8", "dl2020"], ["trec8"], WARNINGS[:1]) == {
        "trec5": "config/collections/trec5.yaml: key 'runs': /data/trec5/runs: no such file", "dl2020": "not run"}
    front = FrontPage.of(["trec5", "trec8"], {"trec8": "TREC-8"}, WARNINGS, {"trec8": {"asl": "scores only"}})
    html = re.sub(r"<[^>]+>", "", html_of(front.collections()))
    ran, not_run = html.split("Not run")
    assert "Ran on 1 collection:" in ran and "TREC-8 (trec8)" in ran and "trec5" not in ran
    assert "trec5: config/collections/trec5.yaml: key 'runs': /data/trec5/runs: no such file" in not_run
    assert "trec8, asl: scores only" in html and "2 official run(s) missing: a, b" in html


def test_the_claims_under_their_first_protocol_with_the_share(tmp_path):
    front = FrontPage.of(["trec8"], {"trec8": "TREC-8"}, [], {}, results=str(results_with_claims(tmp_path)))
    html = re.sub(r"<[^>]+>", "", html_of(front.claims()))
    assert "+160 = +1.94% of pairs (yes)" in html and "0.950 (yes)" in html
    assert "tukey_hsd" not in html  # the second protocol: in claims.md, not on the first page
    assert "mailto" not in html and "P_rareness@100 vs P@100" in html
    figures = html_of(front.figures())
    assert figures.count('src="data:image/png;base64,') == 1 and "claims.png" not in figures
    empty = FrontPage.of(["trec8"], {"trec8": "TREC-8"}, [], {}, results=str(tmp_path / "none"))
    assert "No claims table" in html_of(empty.claims()) and empty.figures() == ""


def test_every_markup_character_is_text():
    hostile = "<b>x</b> `y`_ **z** |s| a_ [#]_ c:d: e@f.org"
    body = publish_parts(rst_text(hostile), writer="html", settings_overrides={"report_level": 1})["body"]
    assert "system-message" not in body and "&lt;b&gt;x&lt;/b&gt;" in body
    for tag in ("<b>", "<a ", "<strong>", "<em>", "<cite>"):
        assert tag not in body, body
    assert unescape(re.sub(r"<[^>]+>", "", body)).strip() == hostile


def test_the_report_is_named_only_when_as_new_as_the_tables(tmp_path):
    (tmp_path / "t" / "tables").mkdir(parents=True)
    table = tmp_path / "t" / "tables" / "x.csv"
    table.write_text("a\n")
    os.utime(table, (1000, 1000))
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "late.md").write_text("a log, not a table")
    assert newest_table(tmp_path) == 1000
    rebuild = "snakemake --report results/report.html"
    assert report_status(tmp_path, rebuild=rebuild) == (f"{tmp_path}/report.html is not built yet: "
                                                        f"run `{rebuild}` to rebuild it")
    report = tmp_path / "report.html"
    report.write_text("<html>")
    os.utime(report, (999, 999))
    assert "is older than this run's tables: run `snakemake --report" in report_status(tmp_path, rebuild=rebuild)
    os.utime(report, (1001, 1001))
    assert report_status(tmp_path, rebuild=rebuild) == str(report)
    os.utime(report, (999, 999))
    assert report_status(tmp_path, rebuild=rebuild, follows=True) == f"{report} (built next, from these tables)"


def test_the_rebuild_command_has_the_run_s_options(tmp_path):
    command = rebuild_command([os.path.abspath("config/paper.yaml")],
                              {"data_root": "/data root", "collections": ["trec8", "dl2020"]})
    assert shlex.split(command) == ["snakemake", "--report", "results/report.html", "--configfile",
                                    "config/paper.yaml", "--config", "data_root=/data root",
                                    "collections=[trec8,dl2020]"]
    assert rebuild_command([], {}) == "snakemake --report results/report.html"
    assert re.fullmatch(r"snakemake --report results/report.html --configfile /\S+", rebuild_command(["/x.yaml"], {}))
