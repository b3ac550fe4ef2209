"""The diversity measures equal ndeval's (through pyndeval, ndeval 4.5's C code), per
topic, on a campaign in the shape of the TREC Web track's diversity task (50 topics of
3-8 graded subtopics, runs with unjudged documents, a topic without a relevant document,
a subtopic without one, a run missing a topic, runs whose scores tie), at every cutoff
pyndeval takes and at other alphas and patiences; the names ndeval and ir_measures write
give the same values; ordinary measures read the subtopic qrels collapsed to each
document's largest grade; what has no ndeval meaning is refused in one line.

pyndeval breaks score ties by docid ascending, ndeval -traditional (and trec_eval,
and irmeta) by docid descending: the runs are fed to it in irmeta's order, as scores
that no longer tie. A topic the run misses scores 0 in irmeta (pyndeval reports none), and
a topic without a relevant document 0 everywhere (ndeval's nNRBP is 0/0 there, nan).
"""

from __future__ import annotations

import io
import math
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

import irmeta
from campaigns import diversity_campaign, write
from irmeta.campaign.judge import judge_runs
from irmeta.campaign.subtopics import read_subtopic_qrels
from irmeta.cli import main
from irmeta.measures.averaging import evaluate
from irmeta.measures.diversity import DIVERSITY_FAMILIES
from irmeta.measures.names import parse_measure
from irmeta.measures.registry import PEER_NAMES

pyndeval = pytest.importorskip("pyndeval")

TOLERANCE = 1e-9
CUT = {"alpha_nDCG": "alpha-nDCG", "alpha_DCG": "alpha-DCG", "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA",
       "P_IA": "P-IA", "StRecall": "strec"}
UNCUT = {"NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA"}
WITH_ALPHA = {"alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP"}
UNDIVIDED_AT_1 = {"alpha_DCG", "ERR_IA"}  # refused at k = 1 (test_undivided_at_one_is_refused)
# ndeval's and ir_measures' names of the family (tests/unit/measures/test_aliases.py leaves them to this module)
ALIAS_CASES = {"alpha-nDCG@10": "alpha-nDCG@10", "alpha-DCG@10": "alpha-DCG@10", "ERR-IA@20": "ERR-IA@20",
               "nERR-IA@20": "nERR-IA@20", "P-IA@5": "P-IA@5", "MAP-IA": "MAP-IA", "strec@10": "strec@10",
               "MAP_IA": "MAP-IA"}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    root = tmp_path_factory.mktemp("diversity")
    qrels_path, runs = diversity_campaign(root, 2024)
    qrels = read_subtopic_qrels(qrels_path)
    matrix, _ = judge_runs(runs, qrels)
    rows = [(q, s, d, int(g)) for q, s, d, g in (line.split() for line in qrels_path.read_text().splitlines())]
    return matrix, rows, runs, qrels_path


def _in_irmeta_order(path: Path) -> list[tuple[str, str, float]]:
    """A run as (qid, docid, score) with its scores strictly decreasing in trec_eval's order
    (score descending, docid descending), so pyndeval's own tie order plays no part."""
    by_topic: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        by_topic.setdefault(q, []).append((float(s), d))
    out = []
    for q, docs in by_topic.items():
        ranked = sorted(docs, key=lambda x: (x[0], x[1].encode()), reverse=True)
        out += [(q, d, float(len(ranked) - i)) for i, (_, d) in enumerate(ranked)]
    return out


def _ndeval(rows, run, names, alpha=0.5, beta=0.5) -> dict[str, dict[str, float]]:
    return pyndeval.RelevanceEvaluator(rows, names, alpha=alpha, beta=beta).evaluate(run)


def _names(alpha: float, patience: float, cutoffs) -> dict[str, str]:
    """irmeta's name -> pyndeval's, every measure at each cutoff (``alpha``, ``patience``
    written into the names that take them)."""
    own = "" if alpha == 0.5 else f"alpha={alpha}"
    out = {}
    for family, theirs in CUT.items():
        for k in cutoffs:
            if k == 1 and family in UNDIVIDED_AT_1:
                continue
            params = f"({own})" if own and family in WITH_ALPHA else ""
            out[f"{family}{params}@{k}"] = f"{theirs}@{k}"
    for family, theirs in UNCUT.items():
        params = [own] if own and family in WITH_ALPHA else []
        if family in ("NRBP", "nNRBP") and patience != 0.5:
            params.append(f"beta={patience}")  # ndeval's and ir_measures' spelling of the patience
        out[f"{family}({','.join(params)})" if params else family] = theirs
    return out


def _compare(matrix, rows, runs, names: dict[str, str], alpha=0.5, patience=0.5) -> dict[str, float]:
    """Largest per-topic difference from ndeval of each measure, over every run and topic."""
    ours = evaluate(matrix, list(names))
    worst = dict.fromkeys(names, 0.0)
    for s, path in enumerate(runs):
        theirs = _ndeval(rows, _in_irmeta_order(path), sorted(set(names.values())), alpha, patience)
        for name, peer in names.items():
            values = ours[parse_measure(name)]
            for q, topic in enumerate(matrix.topics):
                want = theirs.get(topic, {}).get(peer, 0.0)  # a topic the run misses: 0
                want = 0.0 if math.isnan(want) else want  # nNRBP of a topic without a relevant document
                worst[name] = max(worst[name], abs(float(values[s, q]) - want))
    return worst


def test_the_campaign_has_the_edge_cases(campaign):
    matrix, rows, runs, _ = campaign
    n_subtopics = (matrix.subtopics.relevant_per_subtopic(1, matrix.qrels_topic, matrix.n_topics) > 0).sum(axis=1)
    declared = {(q, s) for q, s, _, _ in rows}
    counts = _count(declared)
    assert matrix.n_topics == 50 and 3 <= min(counts.values()) and max(counts.values()) <= 8
    assert n_subtopics[-1] == 0 and n_subtopics[0] < counts["1"]  # no relevant document; a barren subtopic
    assert (matrix.length == 0).sum() == 1  # a run misses a topic
    relevant_to_several = (matrix.subtopics.relevant(1).sum(axis=1) >= 2).sum()
    assert relevant_to_several >= 20
    ties = [line.split()[4] for line in runs[0].read_text().splitlines()]
    assert len(set(ties)) < len(ties)


def _count(pairs) -> dict[str, int]:
    out: dict[str, int] = {}
    for q, _ in pairs:
        out[q] = out.get(q, 0) + 1
    return out


def test_equal_to_ndeval_per_topic_at_every_cutoff(campaign):
    matrix, rows, runs, _ = campaign
    worst = _compare(matrix, rows, runs, _names(0.5, 0.5, range(1, 21)))
    assert max(worst.values()) <= TOLERANCE, {k: v for k, v in worst.items() if v > TOLERANCE}


@pytest.mark.parametrize("alpha,patience", [(0.3, 0.8), (1.0, 0.2), (0.0, 0.9), (0.75, 1.0)])
def test_equal_to_ndeval_at_other_alphas_and_patiences(campaign, alpha, patience):
    matrix, rows, runs, _ = campaign
    worst = _compare(matrix, rows, runs, _names(alpha, patience, (2, 5, 10, 20)), alpha, patience)
    assert max(worst.values()) <= TOLERANCE, {k: v for k, v in worst.items() if v > TOLERANCE}


def test_the_tie_order_is_trec_evals_not_pyndevals(campaign):
    """Fed its own tie order (docid ascending), pyndeval gives other values on the tied runs:
    the comparison above would see a wrong tie order."""
    matrix, rows, runs, _ = campaign
    ours = evaluate(matrix, ["alpha_nDCG@10"])[parse_measure("alpha_nDCG@10")]
    raw = [(q, d, float(s)) for q, _, d, _, s, _ in (line.split() for line in runs[0].read_text().splitlines())]
    theirs = _ndeval(rows, raw, ["alpha-nDCG@10"])
    differ = [t for q, t in enumerate(matrix.topics) if t in theirs
              and abs(ours[0, q] - theirs[t]["alpha-nDCG@10"]) > TOLERANCE]
    assert differ


def test_pyndevals_readme_example():
    """pyndeval's README (and test): four judgments of three subtopics, a run of four."""
    rows = [("0", "a", "A", 1), ("0", "b", "B", 1), ("0", "b", "D", 1), ("0", "c", "C", 1)]
    run = {"run": {"0": {"A": 9.3, "D": 8.4, "E": 8.1, "B": 7.6}}}
    table = irmeta.evaluate(rows, run, ["ERR_IA@5", "nERR_IA@5", "alpha_DCG@5", "alpha_nDCG@5", "NRBP", "nNRBP",
                                        "AP_IA", "P_IA@5", "StRecall@5"], depth=5, qrels_format="subtopics")
    got = dict(zip(table.measure[table.qid == "0"], table.value[table.qid == "0"]))
    want = {"ERR_IA@5": 0.3933, "nERR_IA@5": 0.8297, "alpha_DCG@5": 0.4052, "alpha_nDCG@5": 0.7868, "NRBP": 0.3906,
            "nNRBP": 0.8620, "AP_IA": 0.5, "P_IA@5": 0.2, "StRecall@5": 0.6666}  # as pyndeval prints them (cut)
    assert {m: math.floor(v * 1e4) / 1e4 for m, v in got.items()} == pytest.approx(want, abs=1e-12)


def test_a_subset_of_the_judgments_equals_ndeval_on_those_judgments(campaign, tmp_path):
    """with_judgments (pools, sampled judgments) keeps each kept row's subtopics: ndeval on
    the subtopic qrels of the kept rows gives the same."""
    matrix, rows, runs, _ = campaign
    keep = np.random.default_rng(5).random(len(matrix.qrels_grade)) < 0.6
    topics = [matrix.topics[t] for t in matrix.qrels_topic]
    kept = {(q, d) for q, d, k in zip(topics, matrix.docids.to_pylist(), keep) if k}
    reduced_rows = [r for r in rows if (r[0], r[2]) in kept]
    names = _names(0.5, 0.5, (3, 10, 20))
    worst = _compare(matrix.with_judgments(keep), reduced_rows, runs, names)
    assert max(worst.values()) <= TOLERANCE, {k: v for k, v in worst.items() if v > TOLERANCE}


@pytest.mark.slow
@pytest.mark.parametrize("typed", list(ALIAS_CASES))
def test_ndevals_and_ir_measures_names_give_ndevals_values(campaign, typed):
    matrix, rows, runs, _ = campaign
    assert _compare(matrix, rows, runs, {typed: ALIAS_CASES[typed]})[typed] <= TOLERANCE


def test_every_diversity_alias_has_a_case():
    assert {e.name for e in PEER_NAMES if e.family in DIVERSITY_FAMILIES} == \
        {name.split("@")[0] for name in ALIAS_CASES}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["alpha_nDCG@10", "ERR_IA@20", "nERR_IA@20", "alpha_DCG@10", "NRBP",
                                  "nNRBP(beta=0.8)", "AP_IA", "MAP_IA", "P_IA@10", "StRecall@10",
                                  "alpha_nDCG(alpha=0.25)@20"])
def test_ir_measures_pyndeval_provider_agrees(campaign, name):
    """ir_measures' names (its pyndeval provider; its judged_only fails there, in 0.4.3)."""
    ir_measures = pytest.importorskip("ir_measures")
    matrix, rows, runs, _ = campaign
    measure = ir_measures.parse_measure(name)
    qrels = [ir_measures.Qrel(q, d, g, s) for q, s, d, g in rows]
    ours = evaluate(matrix, [name])[parse_measure(name)]
    for s, path in enumerate(runs[:3]):
        run = [ir_measures.ScoredDoc(q, d, v) for q, d, v in _in_irmeta_order(path)]
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
        for q, topic in enumerate(matrix.topics):
            want = theirs.get(topic, 0.0)
            assert abs(ours[s, q] - (0.0 if math.isnan(want) else want)) <= TOLERANCE, (name, s, topic)


def _judged_only(name: str) -> str:
    m = parse_measure(name)
    return str(type(m)(m.family, m.cutoff, tuple(sorted(m.params + (("judged_only", "true"),)))))


def test_judged_only_equals_ndeval_on_the_judged_documents(campaign):
    """judged_only=true: the lists condensed (unjudged documents, and those whose every grade
    is negative, removed first, as trec_eval -J), then scored: ndeval on the condensed runs."""
    matrix, rows, runs, _ = campaign
    best: dict[tuple[str, str], int] = {}
    for q, _, d, g in rows:
        best[(q, d)] = max(g, best.get((q, d), g))
    names = {_judged_only(m): peer for m, peer in _names(0.5, 0.5, (2, 10, 20)).items()}
    ours = evaluate(matrix, list(names))
    for s, path in enumerate(runs[:4]):
        run = [(q, d, v) for q, d, v in _in_irmeta_order(path) if best.get((q, d), -1) >= 0]
        theirs = _ndeval(rows, run, sorted(set(names.values())))
        for name, peer in names.items():
            for q, topic in enumerate(matrix.topics):
                want = theirs.get(topic, {}).get(peer, 0.0)
                assert abs(ours[parse_measure(name)][s, q] - (0.0 if math.isnan(want) else want)) <= TOLERANCE


@pytest.mark.parametrize("name", ["ERR_IA@1", "alpha_DCG@1"])
def test_undivided_at_one_is_refused(campaign, name):
    matrix, *_ = campaign
    with pytest.raises(ValueError, match=r"@1 .*undivided.*k >= 2") as caught:
        evaluate(matrix, [name])
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("name,message", [
    ("alpha_nDCG(alpha=1.5)@10", "alpha must be in \\[0, 1\\]"), ("NRBP(beta=2)", "patience must be in \\[0, 1\\]"),
    ("NRBP(beta=0.5,patience=0.5)", "beta and patience both give NRBP's patience"),
    ("P_IA(alpha=0.5)@10", "no parameter"),
])
def test_parameters_out_of_ndevals_range_are_refused(name, message):
    with pytest.raises(ValueError, match=message):
        parse_measure(name)


def test_names_are_canonical_with_ndevals_defaults_left_out():
    assert str(parse_measure("alpha-nDCG@20")) == "alpha_nDCG@20"
    assert str(parse_measure("alpha_nDCG(alpha=0.5)@20")) == "alpha_nDCG@20"
    assert str(parse_measure("NRBP(beta=0.9,alpha=0.25)")) == "NRBP(alpha=0.25,patience=0.9)"
    m = parse_measure("alpha_nDCG(alpha=0.25)@20")
    assert m.alpha is None and m.without_alpha() == m and m.options() == {"alpha": 0.25}  # no rarity weight


def test_a_diversity_measure_over_ordinary_qrels_is_refused_before_the_runs(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n")
    with pytest.raises(ValueError, match=r"^alpha_nDCG@10: a diversity measure needs subtopic qrels .*--qrels-format "
                                         r"subtopics") as caught:
        irmeta.evaluate(qrels, tmp_path / "no such run", ["alpha_nDCG@10", "P@10"])
    assert "\n" not in str(caught.value)


def test_irmeta_score_refuses_a_diversity_measure_over_ordinary_qrels_in_one_line(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 2.0 r\n")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["score", "--qrels", str(qrels), "--runs", str(run), "--measure", "nERR_IA@20", "--output", "-"])
    lines = err.getvalue().splitlines()
    assert code == 2 and out.getvalue() == "" and len(lines) == 1, (code, err.getvalue())
    assert "nERR_IA@20: a diversity measure needs subtopic qrels" in lines[0] and "--qrels-format subtopics" in lines[0]


def test_ordinary_measures_read_the_largest_grade_of_each_document(campaign, tmp_path):
    """P, AP, nDCG over subtopic qrels: as over TREC qrels holding each document once at its
    largest subtopic grade (relevant to the topic when relevant to a subtopic, as ndeval's MAP)."""
    matrix, rows, runs, qrels_path = campaign
    best: dict[tuple[str, str], int] = {}
    for q, _, d, g in rows:
        best[(q, d)] = max(g, best.get((q, d), g))
    trec = write(tmp_path / "collapsed", "".join(f"{q} 0 {d} {g}\n" for (q, d), g in best.items()))
    measures = ["P@10", "AP", "nDCG@20", "ERR@20", "RBP"]
    ours = irmeta.evaluate(qrels_path, runs, measures, qrels_format="subtopics")
    collapsed = irmeta.evaluate(trec, runs, measures)
    assert ours.equals(collapsed)


def test_a_run_scores_the_same_alone(campaign):
    """A run's diversity scores do not depend on the runs scored beside it (the ideal
    ranking is the qrels')."""
    matrix, *_ = campaign
    names = list(_names(0.5, 0.5, (1, 7, 20)))
    together = evaluate(matrix, names)
    for s in (0, 5):
        alone = evaluate(matrix.subset([s]), names)
        for m, values in together.items():
            assert np.array_equal(alone[m][0], values[s]), m


def test_regraded_documents_take_their_grade_on_every_subtopic(campaign):
    """with_grades (an assessor's errors): a document whose grade changed is judged so for
    every subtopic it is judged for; ndeval on the subtopic qrels so regraded agrees."""
    from irmeta.metaeval.judgment_reduction import error_grades

    matrix, rows, runs, _ = campaign
    grades = error_grades(matrix, 0.2, 0, 7)
    assert (grades != matrix.qrels_grade).sum() > 100
    topics = [matrix.topics[t] for t in matrix.qrels_topic]
    changed = {(q, d): int(g) for q, d, g, before in zip(topics, matrix.docids.to_pylist(), grades,
                                                          matrix.qrels_grade) if g != before}
    regraded = [(q, s, d, changed.get((q, d), g)) for q, s, d, g in rows]
    worst = _compare(matrix.with_grades(grades), regraded, runs, _names(0.5, 0.5, (5, 20)))
    assert max(worst.values()) <= TOLERANCE, {k: v for k, v in worst.items() if v > TOLERANCE}
