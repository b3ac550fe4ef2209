"""irmeta.measures.aliases: the names trec_eval, ir_measures, ranx and PyTerrier users type
are read as the irmeta family that computes the same thing, and each gives its peer's value.

The peers: pytrec-eval-terrier (trec_eval's code) for trec_eval's and PyTerrier's names,
ir_measures for its own, ranx itself for hits@k and f1@k (issue 42). The other ranx names are
checked against the trec_eval measure its source defines them as (ranx 0.3.21, ``ranx/metrics/*.py``: map@k sums
precision at the relevant ranks <= k over all relevant documents = map_cut_k; ndcg@k takes
gain = grade, discount log2(rank + 1), ideal from the qrels cut at k = ndcg_cut_k;
hit_rate@k = success_k; mrr@k stops at k; precision without k divides by the documents
returned = set_P; f1 without k = set_F), and its dcg@k against its formula written out here.
Runs are fed to the peers in trec_eval's order (docs/PROTOCOL.md, Numerical care).
"""

from __future__ import annotations

import math
from collections import defaultdict

import pytest

import irmeta
from irmeta.measures.aliases import ALIASES, REFUSED
from irmeta.measures.names import parse_measure

pytrec_eval = pytest.importorskip("pytrec_eval")
ranx = pytest.importorskip("ranx")
ir_measures = pytest.importorskip("ir_measures")

pytestmark = pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")  # inside ranx

TOLERANCE = 1e-12
TREC8_RUN = "INQ601"
DL_RUN = "pash_r3"

# name as typed -> the peer's measure it must equal: ("trec_eval", name pytrec_eval prints)
# or ("ir_measures", name ir_measures parses) or ("formula", ranx's dcg).
CASES = {
    # trec_eval's names (PyTerrier's strings are these), as printed and as -m takes them
    "map": ("trec_eval", "map"), "ndcg": ("trec_eval", "ndcg"), "recip_rank": ("trec_eval", "recip_rank"),
    "Rprec": ("trec_eval", "Rprec"), "bpref": ("trec_eval", "bpref"), "set_P": ("trec_eval", "set_P"),
    "set_recall": ("trec_eval", "set_recall"), "set_F": ("trec_eval", "set_F"),
    "P_10": ("trec_eval", "P_10"), "P.10": ("trec_eval", "P_10"), "map_cut_100": ("trec_eval", "map_cut_100"),
    "map_cut.100": ("trec_eval", "map_cut_100"), "ndcg_cut_10": ("trec_eval", "ndcg_cut_10"),
    "ndcg_cut.10": ("trec_eval", "ndcg_cut_10"), "recall.100": ("trec_eval", "recall_100"),
    "success.10": ("trec_eval", "success_10"), "P_": ("trec_eval", "P_1000"),
    "set_map": ("trec_eval", "set_map"), "set_relative_P": ("trec_eval", "set_relative_P"),
    "num_q": ("trec_eval", "num_q"), "num_ret": ("trec_eval", "num_ret"), "num_rel": ("trec_eval", "num_rel"),
    "num_rel_ret": ("trec_eval", "num_rel_ret"), "ndcg_rel": ("trec_eval", "ndcg_rel"),
    # ir_measures' names and aliases
    "NDCG@10": ("ir_measures", "NDCG@10"), "nDCG@10": ("ir_measures", "nDCG@10"), "MAP": ("ir_measures", "MAP"),
    "MAP@100": ("ir_measures", "AP@100"), "MRR": ("ir_measures", "MRR"), "MRR@10": ("ir_measures", "RR@10"),
    "Precision@10": ("ir_measures", "Precision@10"), "R@100": ("ir_measures", "R@100"),
    "Recall@100": ("ir_measures", "Recall@100"), "RPrec": ("ir_measures", "RPrec"), "BPref": ("ir_measures", "BPref"),
    "Success@10": ("ir_measures", "Success@10"),
    # ranx's names, each against what its source defines it as
    "ndcg@10": ("trec_eval", "ndcg_cut_10"), "precision@10": ("trec_eval", "P_10"),
    "precision": ("trec_eval", "set_P"), "recall@100": ("trec_eval", "recall_100"),
    "mrr": ("trec_eval", "recip_rank"), "mrr@10": ("ir_measures", "RR@10"),
    "hit_rate@10": ("trec_eval", "success_10"), "map@100": ("trec_eval", "map_cut_100"),
    "r-precision": ("trec_eval", "Rprec"), "r_precision": ("trec_eval", "Rprec"), "f1": ("trec_eval", "set_F"),
    "dcg@10": ("formula", "dcg@10"), "f1@10": ("ranx", "f1@10"), "hits@10": ("ranx", "hits@10"),
    "hits": ("ranx", "hits"),
}
TREC_REQUEST = {"map", "ndcg", "recip_rank", "Rprec", "bpref", "set_P", "set_recall", "set_F", "P.10,1000",
                "map_cut.100", "ndcg_cut.10", "recall.100", "success.10", "set_map", "set_relative_P", "num_q",
                "num_ret", "num_rel", "num_rel_ret", "ndcg_rel"}


def _qrels(path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        q, _, d, g = line.split()
        out[q][d] = int(g)
    return dict(out)


def _in_trec_order(path) -> dict[str, dict[str, float]]:
    """One run's {qid: {docid: 1e7 - rank}}: trec_eval's order as strictly decreasing scores."""
    from irmeta.campaign.runs import read_runs

    runs = read_runs(path, depth=1000)
    docids = runs.docids.to_pylist()
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for q, d, rank in zip(runs.qid.tolist(), runs.docid.tolist(), runs.rank.tolist()):
        out[runs.topics[q]][docids[d]] = 1e7 - rank
    return dict(out)


def _ranx_dcg(qrels: dict[str, int], ranking: dict[str, float], k: int) -> float:
    """ranx's dcg@k (its "Jarvelin" form): grade / log2(rank + 1) over the top k, grades >= 1."""
    top = sorted(ranking, key=ranking.get, reverse=True)[:k]
    return sum(qrels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(top) if qrels.get(d, 0) >= 1)


def _peer_values(qrels, run) -> dict[tuple[str, str], dict[str, float]]:
    """(peer, name) -> {qid: value} of every case, for the run's topics in the qrels."""
    run = {q: docs for q, docs in run.items() if q in qrels}
    trec = pytrec_eval.RelevanceEvaluator(qrels, TREC_REQUEST).evaluate(run)
    out: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for q, values in trec.items():
        for name, value in values.items():
            out[("trec_eval", name)][q] = value
    wanted = {name for peer, name in CASES.values() if peer == "ir_measures"}
    parsed = {name: ir_measures.parse_measure(name) for name in wanted}
    for metric in ir_measures.iter_calc(list(set(parsed.values())), qrels, run):
        for name, measure in parsed.items():
            if metric.measure == measure:
                out[("ir_measures", name)][metric.query_id] = metric.value
    out[("formula", "dcg@10")] = {q: _ranx_dcg(qrels[q], run[q], 10) for q in run}
    scored = ranx.Run(run)
    ranx.evaluate(ranx.Qrels(qrels), scored, [name for peer, name in CASES.values() if peer == "ranx"],
                  make_comparable=True)
    for name, values in scored.scores.items():
        out[("ranx", name)] = {q: v for q, v in values.items() if q in run}
    return out


@pytest.fixture(scope="module", params=[("trec8_adhoc", TREC8_RUN), ("dl2020_passage", DL_RUN)])
def campaign(request, shared_data):
    """(ours: {(name, qid): value}, theirs: {(peer, name): {qid: value}}) on one run."""
    collection, name = request.param
    qrels_path = shared_data / collection / "qrels.txt"
    run_path = shared_data / collection / "runs" / f"{name}.gz"
    canonical = list(dict.fromkeys(str(parse_measure(name)) for name in CASES))  # P.10 and P_10 are one
    ours = irmeta.evaluate(qrels_path, [run_path], canonical, depth=1000)
    per_topic = {(m, q): v for m, q, v in zip(ours.measure, ours.qid, ours.value) if q != "all"}
    return per_topic, _peer_values(_qrels(qrels_path), _in_trec_order(run_path))


@pytest.mark.parametrize("name", list(CASES))
def test_each_alias_gives_its_peers_value(campaign, name):
    ours, theirs = campaign
    canonical = str(parse_measure(name))
    want = theirs[CASES[name]]
    assert len(want) >= 40  # every judged topic the run returned
    differ = {q: (ours[(canonical, q)], v) for q, v in want.items() if abs(ours[(canonical, q)] - v) > TOLERANCE}
    assert not differ, f"{name} ({canonical}) differs from {CASES[name]} on {len(differ)} topics, e.g. " \
                       f"{list(differ.items())[:3]}"


# ndeval's and ir_measures' names of the diversity family: checked against pyndeval on
# subtopic qrels by tests/unit/measures/test_diversity.py (ALIAS_CASES), not here on TREC qrels
CHECKED_ON_SUBTOPIC_QRELS = {"alpha-ndcg", "alpha-dcg", "err-ia", "nerr-ia", "p-ia", "map-ia", "strec", "map_ia"}


def test_every_alias_in_the_table_is_checked_against_its_peer():
    """A new alias needs a case here: its peer's value, not only its spelling."""
    assert {a.name.lower() for a in ALIASES} <= {name.lower().split("@")[0] for name in CASES} | \
        CHECKED_ON_SUBTOPIC_QRELS


@pytest.mark.parametrize("typed,canonical", [
    ("NDCG@10", "nDCG@10"), ("ndcg@10", "nDCG@10"), ("nDcG@10", "nDCG@10"), ("ndcg_cut.10", "nDCG@10"),
    ("ndcg_cut_10", "nDCG@10"), ("P.10", "P@10"), ("p_10", "P@10"), ("precision@10", "P@10"), ("precision", "SetP"),
    ("recall@100", "Recall@100"), ("mrr", "RR"), ("MRR@10", "RR@10"), ("hit_rate@10", "Success@10"),
    ("map@100", "AP@100"), ("MAP", "AP"), ("recip_rank", "RR"), ("map_cut_100", "AP@100"), ("map_cut.100", "AP@100"),
    ("r-precision", "Rprec"), ("f1", "SetF"), ("f1@10", "F1@10"), ("hits@10", "Hits@10"), ("hits", "Hits"),
    ("ap_rareness@100", "AP_rareness@100"), ("err@20", "ERR@20"),
    ("NDCG(gains={1:1,2:3})@10", "nDCG(gains={1:1,2:3})@10"), ("rbp(p=0.9)", "RBP(p=0.9)"),
])
def test_aliases_read_as_the_canonical_name(typed, canonical):
    assert str(parse_measure(typed)) == canonical


def test_outputs_name_the_canonical_measure():
    table = irmeta.evaluate({"q": {"a": 1, "b": 0}}, {"r": {"q": {"a": 2.0, "b": 1.0}}},
                            ["NDCG@10", "mrr", "hit_rate@1", "P.1"])
    assert list(dict.fromkeys(table.measure)) == ["nDCG@10", "RR", "Success@1", "P@1"]


@pytest.mark.parametrize("typed,reason", [
    ("ndcg_burges@10", "nDCG(gains={1:1,2:3,3:7})@k"), ("dcg_burges@5", "DCG(gains={1:1,2:3,3:7})@k"),
    ("rbp.95", "write RBP(p=0.95)"), ("gm_map", "average geometric"),
])
def test_a_peers_name_for_something_else_is_refused_with_why(typed, reason):
    with pytest.raises(ValueError) as excinfo:
        parse_measure(typed)
    message = str(excinfo.value)
    assert reason in message and message.startswith(f"measure {typed!r}: ") and "\n" not in message
    assert {"ndcg_burges", "dcg_burges", "rbp", "gm_map"} == set(REFUSED)


@pytest.mark.parametrize("typed,closest", [
    ("ndgc@10", ["nDCG@10", "Rndcg@10", "DCG@10"]),  # trec_eval's Rndcg (issue 42) is as close as DCG
    ("Precison@5", ["P@5"]),  # ranx's precision, misspelt: its family first
    ("succes", ["Success"]),
])
def test_an_unknown_name_gets_the_three_closest(typed, closest):
    with pytest.raises(ValueError) as excinfo:
        parse_measure(typed)
    message = str(excinfo.value)
    head, _, shown = message.partition("; the closest known: ")
    assert head == f"unknown measure {typed!r}" and "\n" not in message
    names = shown.split(", ")
    assert len(names) == 3 and names[:len(closest)] == closest


def test_a_plugin_cannot_take_an_alias_in_another_case():
    from irmeta.measures.plugins import register_measure

    for name in ("Mrr", "NDCG", "Hit_Rate"):
        with pytest.raises(ValueError, match="irmeta reads"):
            register_measure(name, lambda matrix, cutoff: None)
