"""Peer names (issues 29 and 42): every name the registry's PEER_NAMES declares is read as
the peer whose meaning it takes computes it, per topic, on a TREC-8 run (INQ601, binary)
and a TREC 2020 DL passage run (pash_r3, grades 0..3), or is refused saying why.

Each entry's examples are computed by irmeta (as typed) and by its peer (as that peer is
asked for it): trec_eval's names by pytrec-eval-terrier (trec_eval's code) where it has
the measure, else by golden trec_eval 10.0-rc2 output (data/trec_eval_10_*.tsv, provenance
in their headers); ir_measures' by ir_measures (its ERR@k by gdeval.pl, printed to 5
decimals); ranx's by ranx where it is installed (the bench extra), else by what ranx's
source (0.3.21, ``ranx/metrics/*.py``) defines each as: the trec_eval measure it equals, or
its formula written out here (rbp, ndcg/dcg with -lN, hits, f1@k). ndeval's names (subtopic
qrels) and trec_eval's ``*_avgjg`` (``-R qrels_jg``) and ``11pt_avg.x,y`` (``-l 2``) name the
module that computes their examples with the peer (``checked_by``). Runs are fed to the peers in
trec_eval's order as strictly decreasing scores (docs/PROTOCOL.md, Numerical care).
"""

from __future__ import annotations

import csv
import importlib.util
import math
import os
import re
from collections import defaultdict
from pathlib import Path

import pytest

import irmeta
from irmeta.measures.names import parse_measure
from irmeta.measures.registry import MEASURES, PEER_NAMES, PeerName

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

# the peers' own noise: trectools' pandas call, ranx's numba casts
pytestmark = [pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.sort_values"),
              pytest.mark.filterwarnings("ignore:unsafe cast from uint64 to int64")]

TOLERANCE = 1e-9
GDEVAL_DECIMALS = 5  # gdeval.pl prints %.5f
PEERS = ("trec_eval", "ir_measures", "ranx", "ndeval")
CAMPAIGNS = (("trec8_adhoc", "INQ601"), ("dl2020_passage", "pash_r3"))
GOLDEN = sorted((Path(__file__).parent / "data").glob("trec_eval_10_*.tsv"))
# IRMETA_TEST_RANX_DEFINITIONS=1 checks ranx's names against its definitions even where ranx is installed
HAS_RANX = importlib.util.find_spec("ranx") is not None and not os.environ.get("IRMETA_TEST_RANX_DEFINITIONS")

ALL_EXAMPLES = [(entry, typed, request) for entry in PEER_NAMES for typed, request in entry.examples]
# the examples computed here; an entry whose peer needs other qrels or flags names its own module
EXAMPLES = [(entry, typed, request) for entry in PEER_NAMES if not entry.checked_by
            for typed, request in entry.examples]


def _id(example: tuple[PeerName, str, str]) -> str:
    entry, typed, request = example
    return f"{entry.peer}:{typed}" + ("" if typed == request else f"={request}")


# ------------------------------------------------------------------ the table itself


def test_every_peer_name_records_its_peer_and_is_checked():
    """A name without its peer, or read without an example the peer computes, fails."""
    for entry in PEER_NAMES:
        assert entry.peer in PEERS, f"{entry.name}: peer {entry.peer!r} is not one of {PEERS}"
        assert entry.family in MEASURES, f"{entry.name}: no family {entry.family}"
        if entry.refused:
            assert entry.differs and not entry.examples, entry
        else:
            assert entry.examples, f"{entry.peer}'s {entry.name} is read as {entry.reads} with no check against it"


@pytest.mark.parametrize("entry", [e for e in PEER_NAMES if e.checked_by], ids=lambda e: f"{e.peer}:{e.name}")
def test_an_example_checked_elsewhere_is_a_case_of_its_module(entry):
    """ndeval's names need subtopic qrels, trec_eval's *_avgjg -R qrels_jg: their module
    computes each example with the peer (its cases name the example as typed)."""
    module = Path(__file__).parents[3] / entry.checked_by
    assert module.is_file(), f"{entry.name}: no {entry.checked_by}"
    text = module.read_text()
    for typed, request in entry.examples:
        for spelling in (typed, request):
            assert f'"{spelling}"' in text, f"{entry.peer}'s {spelling}: not a case of {entry.checked_by}"


@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=_id)
def test_each_example_is_read_through_its_own_entry(example):
    entry, typed, _ = example
    if entry.pattern is not None:
        match = re.fullmatch(entry.pattern, typed)
        assert match is not None, f"{typed} does not match {entry.name}'s pattern"
        assert str(parse_measure(typed)) == str(parse_measure(entry.reads.format(*match.groups())))
    elif typed.split("(")[0].split("@")[0].lower() == entry.name.lower():
        assert parse_measure(typed).family == entry.reads
    else:  # an irmeta spelling that gives the peer's value (ERR(max_grade=4)@k for ir_measures' ERR@k)
        assert parse_measure(typed).family == entry.family and entry.differs


@pytest.mark.parametrize("entry", [e for e in PEER_NAMES if e.refused and e.pattern is None], ids=lambda e: e.name)
def test_a_refused_word_says_why(entry):
    typed = entry.name + ("@10" if entry.cutoff else "")
    with pytest.raises(ValueError) as excinfo:
        parse_measure(typed)
    assert str(excinfo.value) == f"measure {typed!r}: {entry.differs}"


# ------------------------------------------------------------------ values against the peers


def _qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        q, _, d, g = line.split()
        out[q][d] = int(g)
    return dict(out)


def _in_trec_order(path: Path) -> dict[str, dict[str, float]]:
    """One run's {qid: {docid: 1e7 - rank}}: trec_eval's order as strictly decreasing scores."""
    from irmeta.campaign.runs import read_runs

    runs = read_runs(path, depth=1000)
    docids = runs.docids.to_pylist()
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for q, d, rank in zip(runs.qid.tolist(), runs.docid.tolist(), runs.rank.tolist()):
        out[runs.topics[q]][docids[d]] = 1e7 - rank
    return dict(out)


def _golden(collection: str, run: str) -> dict[str, dict[str, float]]:
    """{printed name: {qid: value}} of trec_eval 10's golden output for the run."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for path in GOLDEN:
        with path.open() as handle:
            for row in csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t"):
                if (row["collection"], row["run"]) == (collection, run) and row["qid"] != "all" \
                        and row.get("qrels", "trec") == "trec" and not row.get("flags"):  # trec_eval -q alone
                    out[row["measure"]][row["qid"]] = float(row["value"])
    return out


def trec_eval_values(request: str, qrels, run, golden) -> dict[str, float]:
    """trec_eval's per-topic values of ``request`` (as -m takes it): the golden output's
    where it has them, else pytrec_eval's."""
    printed = request.replace(".", "_", 1)
    if printed in golden:
        return golden[printed]
    if request.split(".")[0] in pytrec_eval.supported_measures:
        result = pytrec_eval.RelevanceEvaluator(qrels, {request}).evaluate(run)
        (name,) = {name for values in result.values() for name in values}  # one request, one name
        return {q: values[name] for q, values in result.items()}
    raise AssertionError(f"trec_eval's {request}: neither the golden output nor pytrec_eval has it")


def ir_measures_values(request: str, qrels, run) -> dict[str, float]:
    """ir_measures' values; its RBP without rel= by the one provider that has it (trectools)."""
    measure = ir_measures.parse_measure(request)
    provider = ir_measures.trectools if measure.NAME == "RBP" and "rel" not in measure.params else ir_measures
    return {m.query_id: m.value for m in provider.iter_calc([measure], qrels, run)}


def _ranx_split(request: str) -> tuple[str, str | None, int]:
    """ranx's own reading of a metric name (ranx/meta/evaluate.py): name, the text after
    . or @, and -lN's level (default 1)."""
    metric, _, level = request.partition("-l")
    match = re.fullmatch(r"([a-z0-9_\-]+?)(?:[.@](\d+))?", metric)
    assert match is not None, request
    return match.group(1), match.group(2), int(level or 1)


def _ranx_graded(qrels: dict[str, int], ranking: dict[str, float], *, kind: str, k: str | None,
                 level: int) -> float:
    """ranx's rbp, dcg and ndcg written out: gain = grade for grades >= level (0 below),
    rbp (1 - p) sum g_i p^(i - 1) over every rank, p = 0.k; dcg sum g_i / log2(i + 1) over
    the top k; ndcg dcg over the ideal's dcg (ideal 0: 0)."""
    order = sorted(ranking, key=ranking.get, reverse=True)
    gain = [qrels.get(d, 0) if qrels.get(d, 0) >= level else 0 for d in order]
    if kind == "rbp":
        p = float(f"0.{k}")
        return (1 - p) * sum(g * p ** i for i, g in enumerate(gain))
    depth = int(k) if k else len(order)
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gain[:depth]))
    if kind == "dcg":
        return dcg
    ideal_gains = sorted((g for g in qrels.values() if g >= level), reverse=True)
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains[:int(k) if k else len(ideal_gains)]))
    return dcg / ideal if ideal > 0 else 0.0


def _ranx_count(qrels: dict[str, int], ranking: dict[str, float], *, kind: str, k: str | None,
                level: int) -> float:
    """ranx's hits and f1 written out: hits@k the documents graded >= level in the top k
    (without k: the whole list); f1@k 2 P R / (P + R), P = hits@k / k, R = hits@k / relevant."""
    order = sorted(ranking, key=ranking.get, reverse=True)[:int(k) if k else None]
    hits = sum(qrels.get(d, 0) >= level for d in order)
    if kind == "hits":
        return float(hits)
    precision, recall = hits / int(k), hits / max(sum(g >= level for g in qrels.values()), 1)
    return 2 * precision * recall / (precision + recall) if hits else 0.0


# ranx's binary metrics as the trec_eval measure its source defines each as (no k / k).
RANX_AS_TREC_EVAL = {"precision": ("set_P", "P.{}"), "recall": ("recall.1000", "recall.{}"),
                     "mrr": ("recip_rank", None), "map": ("map", "map_cut.{}"), "hit_rate": (None, "success.{}"),
                     "r-precision": ("Rprec", None), "f1": ("set_F", None), "bpref": ("bpref", None)}


def ranx_values(request: str, qrels, run) -> dict[str, float]:
    """ranx's per-topic values: ranx itself when installed, else its definitions."""
    topics = sorted(set(qrels) & set(run))
    if HAS_RANX:
        import ranx

        # two metrics: with one, ranx 0.3.21's return_mean=False looks its result up by the wrong key
        other = "hits@1" if request != "hits@1" else "hits@2"
        scores = ranx.evaluate({q: qrels[q] for q in topics}, {q: run[q] for q in topics}, [request, other],
                               return_mean=False, threads=1, save_results_in_run=False)[request]
        return dict(zip(topics, scores.tolist()))
    name, k, level = _ranx_split(request)
    if name in ("rbp", "dcg", "ndcg"):
        return {q: _ranx_graded(qrels[q], run[q], kind=name, k=k, level=level) for q in topics}
    if name == "mrr" and k:
        return ir_measures_values(f"RR@{k}", qrels, run)
    if name in ("hits", "f1") and (k or name == "hits"):
        return {q: _ranx_count(qrels[q], run[q], kind=name, k=k, level=level) for q in topics}
    bare, cut = RANX_AS_TREC_EVAL[name]
    return trec_eval_values(bare if not k else cut.format(k), qrels, run, {})


@pytest.fixture(scope="module", params=CAMPAIGNS, ids=[c for c, _ in CAMPAIGNS])
def campaign(request, shared_data):
    """(irmeta's {(measure, qid): value}, the peers' inputs) on one run."""
    collection, name = request.param
    qrels_path = shared_data / collection / "qrels.txt"
    run_path = shared_data / collection / "runs" / f"{name}.gz"
    canonical = list(dict.fromkeys(str(parse_measure(typed)) for _, typed, _ in EXAMPLES))
    ours = irmeta.evaluate(qrels_path, [run_path], canonical, depth=1000)
    per_topic = {(m, q): v for m, q, v in zip(ours.measure, ours.qid, ours.value) if q != "all"}
    qrels = _qrels(qrels_path)
    run = {q: docs for q, docs in _in_trec_order(run_path).items() if q in qrels}
    return per_topic, qrels, run, _golden(collection, name)


def peer_values(peer: str, request: str, qrels, run, golden) -> dict[str, float]:
    if peer == "trec_eval":
        return trec_eval_values(request, qrels, run, golden)
    if peer == "ir_measures":
        return ir_measures_values(request, qrels, run)
    return ranx_values(request, qrels, run)


def tolerance(peer: str, request: str, value: float) -> float:
    """1e-9, or half a unit of the last decimal the peer prints (gdeval's 5)."""
    if peer == "ir_measures" and request.startswith("ERR@"):
        return 0.5 * 10.0 ** -GDEVAL_DECIMALS + 1e-12
    return TOLERANCE * max(1.0, abs(value))


@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES, ids=_id)
def test_each_peer_name_gives_its_peers_value(campaign, example):
    entry, typed, request = example
    ours, qrels, run, golden = campaign
    canonical = str(parse_measure(typed))
    theirs = peer_values(entry.peer, request, qrels, run, golden)
    assert len(theirs) >= 40  # every judged topic the run returned
    differ = {q: (ours[(canonical, q)], v) for q, v in theirs.items()
              if abs(ours[(canonical, q)] - v) > tolerance(entry.peer, request, v)}
    assert not differ, (f"{entry.peer}'s {typed} (irmeta: {canonical}) differs from {entry.peer}'s {request} on "
                        f"{len(differ)} of {len(theirs)} topics, e.g. {list(differ.items())[:3]}")


def test_ranx_rbp_at_95_is_p_095_over_the_whole_ranking(campaign):
    """Issue 42: ranx's rbp@95 was read as RBP(p=0.8) cut at 95; now p = 0.95, every rank."""
    ours, qrels, run, _ = campaign
    assert str(parse_measure("rbp@95")) == str(parse_measure("rbp.95")) == "RBP(gain_scale=none,p=0.95)"
    assert str(parse_measure("RBP@95")) == "RBP@95"  # ir_measures' RBP@95: p = 0.8, cut at 95
    theirs = ranx_values("rbp@95", qrels, run)
    assert all(abs(ours[("RBP(gain_scale=none,p=0.95)", q)] - v) <= TOLERANCE for q, v in theirs.items())
    old = irmeta.evaluate(qrels, {"r": run}, ["RBP@95"])
    old = dict(zip(old.qid, old.value))
    assert any(abs(old[q] - v) > 1e-3 for q, v in theirs.items())  # the old reading was wrong


# ------------------------------------------------------------------ spellings and refusals


@pytest.mark.parametrize("typed,canonical", [
    ("NDCG@10", "nDCG@10"), ("ndcg@10", "nDCG@10"), ("nDcG@10", "nDCG@10"), ("ndcg_cut.10", "nDCG@10"),
    ("ndcg_cut_10", "nDCG@10"), ("P.10", "P@10"), ("p_10", "P@10"), ("precision@10", "P@10"), ("precision", "SetP"),
    ("recall@100", "Recall@100"), ("mrr", "RR"), ("MRR@10", "RR@10"), ("hit_rate@10", "Success@10"),
    ("map@100", "AP@100"), ("MAP", "AP"), ("recip_rank", "RR"), ("map_cut_100", "AP@100"), ("map_cut.100", "AP@100"),
    ("r-precision", "Rprec"), ("f1", "SetF"), ("f1@10", "F1@10"), ("hits@10", "Hits@10"), ("hits", "Hits"),
    ("ap_rareness@100", "AP_rareness@100"), ("err@20", "ERR@20"),
    ("NDCG(gains={1:1,2:3})@10", "nDCG(gains={1:1,2:3})@10"), ("rbp(p=0.9)", "RBP(p=0.9)"),
    ("rbp", "RBP(gain_scale=topic_max,p=0.9)"), ("rbp.9", "RBP(gain_scale=none,p=0.9)"),
    ("rbp@8", "RBP(gain_scale=none)"), ("rbp.5", "RBP(gain_scale=none,p=0.5)"),
    ("rbp.95-l2", "RBP(gain_scale=none,min_grade=2,p=0.95)"),
    ("RBP@95", "RBP@95"), ("ndcg@10-l2", "nDCG(min_grade=2)@10"), ("dcg@5-l3", "DCG(min_grade=3)@5"),
    ("SetF(beta=0.5)", "SetF(recall_weight=0.5)"), ("ERR(max_grade=4)@20", "ERR(max_grade=4)@20"),
])
def test_peer_names_read_as_the_canonical_name(typed, canonical):
    assert str(parse_measure(typed)) == canonical


def test_ranx_l2_ndcg_drops_the_lower_grades_gains(campaign):
    """Issue 42: ranx's ndcg@10-l2 equals irmeta's nDCG(gains={2:2,3:3})@10 on DL 2020's grades 0..3."""
    ours, qrels, run, _ = campaign
    table = irmeta.evaluate(qrels, {"r": run}, ["nDCG(gains={2:2,3:3})@10", "ndcg@10-l2"])
    values = table[table.qid != "all"].pivot(index="qid", columns="measure", values="value")
    assert (values["nDCG(gains={2:2,3:3})@10"] - values["nDCG(min_grade=2)@10"]).abs().max() <= 1e-12


def test_outputs_name_the_canonical_measure():
    table = irmeta.evaluate({"q": {"a": 1, "b": 0}}, {"r": {"q": {"a": 2.0, "b": 1.0}}},
                            ["NDCG@10", "mrr", "hit_rate@1", "P.1"])
    assert list(dict.fromkeys(table.measure)) == ["nDCG@10", "RR", "Success@1", "P@1"]


@pytest.mark.parametrize("typed,reason", [
    ("ndcg_burges@10", "nDCG(gains={1:1,2:3,3:7})@k"), ("dcg_burges@5", "DCG(gains={1:1,2:3,3:7})@k"),
    ("gm_map", "average geometric"), ("ndcg_burges@10-l2", "2^grade - 1"),
    ("precision@10-l2", "write precision@10 with --threshold 2"),
    ("RBP.9", "write rbp.9 for ranx's RBP(p=0.9,gain_scale=none)"),
    ("RBP.9", "RBP(p=0.9) for irmeta's RBP at p = 0.9"),
    ("Rbp@95", "RBP@95 for irmeta's RBP(p=0.8) cut at rank 95"),
    ("rBp.5", "rbp.5 for ranx's RBP(p=0.5,gain_scale=none)"),
])
def test_a_peers_name_for_something_else_is_refused_with_why(typed, reason):
    with pytest.raises(ValueError) as excinfo:
        parse_measure(typed)
    message = str(excinfo.value)
    assert reason in message and message.startswith(f"measure {typed!r}: ") and "\n" not in message


def test_err_max_grade_refuses_a_larger_grade():
    with pytest.raises(ValueError, match="grade 5, above max_grade"):
        irmeta.evaluate({"q": {"a": 5, "b": 0}}, {"r": {"q": {"a": 2.0, "b": 1.0}}}, ["ERR(max_grade=4)@20"])


@pytest.mark.parametrize("typed,closest", [
    ("ndgc@10", ["nDCG@10", "Rndcg@10", "DCG@10"]),  # trec_eval's Rndcg (issue 42) is as close as DCG
    ("Precison@5", ["P@5"]),  # ranx's precision, misspelt: its family first
    ("succes", ["Success"]),
    ("num_rett", ["NumRet"]),  # by trec_eval's name (issue 43)
    ("iprec_at_recal", ["IPrec"]),  # by a pattern's name
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


def test_err_max_grade_is_gdevals_formula_exactly():
    """ERR(max_grade=4)@k = sum_i R_i / i prod_{j<i} (1 - R_j), R = (2^g - 1) / 2^4 (gdeval.pl)."""
    from fractions import Fraction

    grades = {"a": 3, "b": 0, "c": 1, "d": 2, "e": 3}
    ranking = ["d", "b", "a", "x", "c", "e"]
    table = irmeta.evaluate({"q": grades}, {"r": {"q": {d: float(-i) for i, d in enumerate(ranking)}}},
                            ["ERR(max_grade=4)@5", "ERR@5"])
    values = dict(zip(table.measure, table.value))

    def exact(top: int) -> Fraction:
        total, reach = Fraction(0), Fraction(1)
        for i, d in enumerate(ranking[:5], start=1):
            r = Fraction(2 ** grades.get(d, 0) - 1, 2 ** top)
            total += reach * r / i
            reach *= 1 - r
        return total

    assert values["ERR(max_grade=4)@5"] == pytest.approx(float(exact(4)), rel=1e-15)  # to rounding
    assert values["ERR@5"] == pytest.approx(float(exact(3)), rel=1e-15)  # irmeta's own: the qrels' largest grade


def test_ranx_unscaled_rbp_is_unbounded_above_and_min_grade_needs_it():
    from irmeta.measures.ranges import measure_range

    assert measure_range("rbp.95").high == math.inf and measure_range("RBP@10").high == 1.0
    with pytest.raises(ValueError, match="min_grade applies with gain_scale=none"):
        irmeta.evaluate({"q": {"a": 2}}, {"r": {"q": {"a": 1.0}}}, ["RBP(min_grade=2)"])
