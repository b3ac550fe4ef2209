"""ir_measures' parameter spellings (issue 42): ``rel=t`` and ``IPrec@x`` mean what
ir_measures means, or are refused in one line naming what to write. Checked per topic
against ir_measures on a TREC 2020 DL passage run (grades 0..3), fed in trec_eval's order
as strictly decreasing scores (as tests/unit/measures/test_aliases.py feeds the peers)."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

import irmeta
from irmeta.campaign.runs import read_runs
from irmeta.measures.names import parse_measure

ir_measures = pytest.importorskip("ir_measures")

# ir_measures' binary measures with rel=, each as irmeta names it at --threshold t
REL = [("P(rel=2)@10", "P@10"), ("AP(rel=2)", "AP"), ("R(rel=2)@100", "Recall@100"), ("RR(rel=3)", "RR"),
       ("Success(rel=2)@10", "Success@10"), ("Rprec(rel=2)", "Rprec"), ("Bpref(rel=2)", "Bpref"),
       ("SetP(rel=3)", "SetP"), ("SetR(rel=2)", "SetR"), ("SetF(rel=2)", "SetF"), ("SetAP(rel=2)", "SetAP"),
       ("infAP(rel=2)", "infAP"), ("MAP(rel=2)", "AP"), ("MRR(rel=2)", "RR"),
       ("IPrec(rel=2,recall=0.5)", "IPrec(recall=0.5)")]


@pytest.fixture(scope="module")
def dl2020(shared_data):
    folder = shared_data / "dl2020_passage"
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in (folder / "qrels.txt").read_text().splitlines():
        q, _, d, g = line.split()
        qrels[q][d] = int(g)
    runs = read_runs(folder / "runs" / "pash_r3.gz", depth=1000)
    docids = runs.docids.to_pylist()
    run: dict[str, dict[str, float]] = defaultdict(dict)
    for q, d, rank in zip(runs.qid.tolist(), runs.docid.tolist(), runs.rank.tolist()):
        if runs.topics[q] in qrels:
            run[runs.topics[q]][docids[d]] = 1e7 - rank
    return dict(qrels), dict(run)


@pytest.mark.parametrize("typed,ours", REL, ids=[t for t, _ in REL])
def test_rel_is_refused_naming_the_threshold_that_gives_ir_measures_value(dl2020, typed, ours):
    threshold = re.search(r"rel=(\d+)", typed).group(1)
    with pytest.raises(ValueError) as excinfo:
        parse_measure(typed)
    message = str(excinfo.value)
    assert "\n" not in message and f"--threshold {threshold}" in message and "without rel=" in message
    qrels, run = dl2020
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(typed)], qrels, run)}
    assert len(theirs) >= 40
    table = irmeta.evaluate(qrels, {"r": run}, [ours], threshold=int(threshold), depth=1000)
    mine = {q: v for q, v in zip(table.qid, table.value) if q != "all"}
    differ = {q: (mine[q], v) for q, v in theirs.items() if abs(mine[q] - v) > 1e-9 * max(1.0, abs(v))}
    assert not differ, f"{ours} at --threshold {threshold} is not ir_measures' {typed}: {list(differ.items())[:3]}"


def test_rel_on_a_family_irmeta_reads_without_it_is_not_taken_for_another_parameter():
    assert str(parse_measure("INST(T=1,max_rel=2)")) == "INST(max_rel=2)"  # cwl_eval's max_rel is its own
    with pytest.raises(ValueError, match="--threshold 2"):
        parse_measure("ap(rel=2,judged_only=true)@100")


def test_iprec_at_a_fraction_is_the_recall_level(dl2020):
    qrels, run = dl2020
    for typed in ("IPrec@0.1", "IPrec@.8"):
        level = float(typed.split("@")[1])
        assert parse_measure(typed) == parse_measure(f"IPrec(recall={level})")
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(typed)], qrels, run)}
        table = irmeta.evaluate(qrels, {"r": run}, [typed], depth=1000)
        mine = {q: v for q, v in zip(table.qid, table.value) if q != "all"}
        assert len(theirs) >= 40 and all(abs(mine[q] - v) <= 1e-9 for q, v in theirs.items())
    assert str(parse_measure("IPrec@10")) == "IPrec@10"  # a whole number is irmeta's cutoff, as written back


@pytest.mark.parametrize("k", [10, 20])
def test_exp_log2_ndcg_is_refused_naming_the_gains_that_give_ir_measures_value(dl2020, k):
    """ir_measures' nDCG(dcg='exp-log2')@k is gdeval.pl's (printed to 5 decimals): on DL 2020's
    grades 0..3 the refusal's nDCG(gains={1:1,2:3,3:7})@k gives it."""
    typed = f"nDCG(dcg='exp-log2')@{k}"
    with pytest.raises(ValueError, match=re.escape("write nDCG(gains={1:1,2:3,3:7})@k")):
        parse_measure(typed)
    qrels, run = dl2020
    assert {g for judged in qrels.values() for g in judged.values()} == {0, 1, 2, 3}
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(typed)], qrels, run)}
    table = irmeta.evaluate(qrels, {"r": run}, [f"nDCG(gains={{1:1,2:3,3:7}})@{k}"], depth=1000)
    mine = {q: v for q, v in zip(table.qid, table.value) if q != "all"}
    assert len(theirs) >= 40 and all(abs(mine[q] - v) <= 0.5e-5 + 1e-12 for q, v in theirs.items())
    assert parse_measure(f"nDCG(dcg='log2')@{k}") == parse_measure(f"nDCG@{k}")  # ir_measures' default: trec_eval's
