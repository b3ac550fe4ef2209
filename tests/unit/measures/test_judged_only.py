"""Condensed lists (``judged_only=true``, Sakai 2007), ``Judged@k`` and ``infAP`` against
independent references on random campaigns: plain Python on lists with the unjudged
documents filtered out, the same campaign written with only its judged documents (every
family, rareness included), pytrec_eval's ``infAP`` (with -M k as a truncated run), and
ir_measures' ``Judged@k`` rule written out; the name grammar; and ``irmeta score``.
"""

from __future__ import annotations

import io
import math
import tempfile
from collections import defaultdict
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import write
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs
from irmeta.cli import main
from irmeta.measures.averaging import counted_means, evaluate, score_arrays
from irmeta.measures.diversity import needs_subtopics
from irmeta.measures.group_averaged import GROUP_FAMILIES
from irmeta.measures.names import depth_read, parse_measure, trec_eval_name
from irmeta.measures.registry import MEASURES

pytrec_eval = pytest.importorskip("pytrec_eval")

Lists = dict[str, dict[str, list[str]]]
Judgments = dict[str, dict[str, int]]

_doc = st.sampled_from([f"d{i}" for i in range(10)] + ["u1", "u2", "u3", "u4"])  # u*: never judged


@st.composite
def campaigns(draw):
    """Qrels graded -1..3 (-1: pooled, not judged) and 2-4 runs, which also retrieve
    documents the qrels never name."""
    qrels: Judgments = {}
    for t in range(draw(st.integers(1, 3))):
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(10)]), min_size=1, max_size=9, unique=True))
        qrels[str(t + 1)] = {d: draw(st.integers(-1, 3)) for d in docs}
    runs: Lists = {}
    for r in range(draw(st.integers(2, 4))):
        topics = draw(st.lists(st.sampled_from(sorted(qrels)), min_size=1, max_size=len(qrels), unique=True))
        runs[f"r{r}"] = {t: draw(st.lists(_doc, min_size=1, max_size=14, unique=True)) for t in topics}
    return qrels, runs


def matrix_of(root: Path, qrels: Judgments, runs: Lists, *, depth: int, threshold: int):
    q = read_qrels(write(root / "qrels", "".join(f"{t} 0 {d} {g}\n" for t, j in qrels.items() for d, g in j.items())))
    paths = [write(root / "runs" / name, "".join(f"{t} Q0 {d} {i + 1} {len(docs) - i} {name}\n"
                                                 for t, docs in lists.items() for i, d in enumerate(docs))
                   + f"pad Q0 pad 1 1 {name}\n")  # a topic the qrels lack: no run file is empty
             for name, lists in runs.items()]
    return relevance_matrix(read_runs(paths), q, depth=depth, threshold=threshold)


def condense(docs: list[str], judged: dict[str, int], depth: int) -> list[str]:
    """Sakai's condensed list: the top ``depth``, judged documents only (grade >= 0)."""
    return [d for d in docs[:depth] if judged.get(d, -1) >= 0]


def slow_condensed(docs: list[str], judged: dict[str, int], *, k: int, threshold: int) -> dict[str, float]:
    """P@k, AP@k, nDCG@k (trec_eval's ndcg_cut) and Q@k (beta = 1) of a condensed list."""
    top = docs[:k]
    rel = [judged[d] >= threshold for d in top]
    n_rel = sum(g >= threshold for g in judged.values())
    out = {"P": sum(rel) / k}
    ap = 0.0
    for i, r in enumerate(rel):
        if r:
            ap += sum(rel[:i + 1]) / (i + 1)
    out["AP"] = ap / n_rel if n_rel else 0.0
    dcg = sum(max(judged[d], 0) / math.log2(i + 2) for i, d in enumerate(top))
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    out["nDCG"] = dcg / best if best > 0 else 0.0
    sakai = [judged[d] if judged[d] >= threshold else 0 for d in top]
    ideal_q = sorted((g for g in judged.values() if g >= threshold), reverse=True)
    q, cg, count = 0.0, 0.0, 0
    for i in range(len(top)):
        cg += sakai[i]
        if rel[i]:
            count += 1
            best_cg = sum(ideal_q[:i + 1])
            q += (cg + count) / (best_cg + i + 1)
    out["Q"] = q / n_rel if n_rel else 0.0
    return out


def slow_judged(docs: list[str], judged: dict[str, int], k: int | None) -> float:
    """ir_measures' Judged@k: documents the qrels name (any grade) in the top k, over
    min(k, documents returned)."""
    top = docs if k is None else docs[:k]
    return sum(d in judged for d in top) / len(top)


# the diversity ones: test_diversity.py; the judgment-group ones: test_trec_eval_jg_gains.py
FAMILIES = sorted(f for f in MEASURES if not needs_subtopics(f) and f not in GROUP_FAMILIES)
ALPHAS = [0.0, 0.5, 1.0]


def every_family(cutoff: int | None) -> list[str]:
    return [f + ("" if cutoff is None else f"@{cutoff}") for f in FAMILIES if cutoff is not None or f != "ASL_g1"]


def with_judged_only(name: str) -> str:
    m = parse_measure(name)
    return str(parse_measure(f"{m.family}(judged_only=true)" + ("" if m.cutoff is None else f"@{m.cutoff}")))


# ---------------------------------------------------------- random campaigns


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=campaigns(), cutoff=st.one_of(st.none(), st.integers(1, 12)), depth=st.integers(1, 14),
       threshold=st.sampled_from([1, 2]))
def test_every_family_on_condensed_lists_is_the_family_on_judged_runs(campaign, cutoff, depth, threshold):
    """judged_only=true on a campaign = the plain measure on the campaign whose runs list
    their judged documents only (cut at the depth first): every family, per topic, bit for
    bit. Rareness measures count rarity on the condensed lists (docs/PROTOCOL.md)."""
    qrels, runs = campaign
    judged_runs = {name: {t: condense(docs, qrels[t], depth) for t, docs in lists.items()}
                   for name, lists in runs.items()}
    judged_runs = {name: {t: docs for t, docs in lists.items() if docs} for name, lists in judged_runs.items()}
    names = every_family(cutoff)
    with tempfile.TemporaryDirectory() as tmp:
        matrix = matrix_of(Path(tmp) / "all", qrels, runs, depth=depth, threshold=threshold)
        reference = matrix_of(Path(tmp) / "judged", qrels, judged_runs, depth=depth, threshold=threshold)
    ours = score_arrays(matrix, [with_judged_only(n) for n in names], alphas=ALPHAS, averaging=("all",))
    want = score_arrays(reference, names, alphas=ALPHAS, averaging=("all",))
    assert ours.measures == [with_judged_only(n) for n in want.measures]
    same = ours.per_topic == want.per_topic
    assert same.all(), [(ours.measures[i], ours.alphas[i]) for i in np.flatnonzero(~same.all(axis=(1, 2)))]
    # evaluate() takes the same path
    direct = evaluate(matrix, [with_judged_only(n) for n in names if not parse_measure(n).uses_alpha])
    for name, values in direct.items():
        assert np.array_equal(values, ours.per_topic[ours.measures.index(str(name))]), name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=campaigns(), cutoff=st.integers(1, 12), depth=st.integers(1, 14), threshold=st.sampled_from([1, 2]))
def test_condensed_p_ap_ndcg_q_against_plain_python(campaign, cutoff, depth, threshold):
    qrels, runs = campaign
    with tempfile.TemporaryDirectory() as tmp:
        matrix = matrix_of(Path(tmp), qrels, runs, depth=depth, threshold=threshold)
    families = ("P", "AP", "nDCG", "Q")
    got = evaluate(matrix, [f"{f}(judged_only=true)@{cutoff}" for f in families])
    for s, run in enumerate(matrix.runs):
        for q, topic in enumerate(matrix.topics):
            docs = runs[run].get(topic)
            want = (slow_condensed(condense(docs, qrels[topic], depth), qrels[topic], k=cutoff, threshold=threshold)
                    if docs else dict.fromkeys(families, 0.0))
            for f in families:
                value = got[parse_measure(f"{f}(judged_only=true)@{cutoff}")][s, q]
                assert value == pytest.approx(want[f], rel=1e-12, abs=1e-15), (f, run, topic)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=campaigns(), cutoff=st.one_of(st.none(), st.integers(1, 12)), depth=st.integers(1, 14))
def test_judged_at_k_is_ir_measures_rule(campaign, cutoff, depth):
    qrels, runs = campaign
    with tempfile.TemporaryDirectory() as tmp:
        matrix = matrix_of(Path(tmp), qrels, runs, depth=depth, threshold=1)
    suffix = "" if cutoff is None else f"@{cutoff}"
    got = evaluate(matrix, [f"Judged{suffix}", f"Judged(judged_only=true){suffix}"])
    plain, condensed = got[parse_measure(f"Judged{suffix}")], got[parse_measure(f"Judged(judged_only=true){suffix}")]
    for s, run in enumerate(matrix.runs):
        for q, topic in enumerate(matrix.topics):
            docs = runs[run].get(topic, [])[:depth]
            assert plain[s, q] == (slow_judged(docs, qrels[topic], cutoff) if docs else 0.0), (run, topic)
            # a condensed list is judged throughout
            assert condensed[s, q] == (1.0 if condense(docs, qrels[topic], depth) else 0.0), (run, topic)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=campaigns(), depth=st.integers(1, 14), threshold=st.sampled_from([1, 2]))
def test_infap_equals_trec_eval_on_random_campaigns(campaign, depth, threshold):
    """trec_eval's infAP (and under -J) with the run cut at ``depth`` (-M), -1 grades in the qrels."""
    qrels, runs = campaign
    with tempfile.TemporaryDirectory() as tmp:
        matrix = matrix_of(Path(tmp), qrels, runs, depth=depth, threshold=threshold)
    got = evaluate(matrix, ["infAP", "infAP(judged_only=true)"])
    for flag, name in ((False, "infAP"), (True, "infAP(judged_only=true)")):
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"infAP"}, relevance_level=threshold,
                                                   judged_docs_only_flag=flag)
        for s, run in enumerate(matrix.runs):
            cut = {t: {d: float(len(docs) - i) for i, d in enumerate(docs[:depth])} for t, docs in runs[run].items()}
            for topic, values in evaluator.evaluate(cut).items():
                ours = got[parse_measure(name)][s, matrix.topics.index(topic)]
                assert abs(ours - values["infAP"]) <= 1e-12, (name, run, topic, ours, values["infAP"])


def test_condensed_matrix_on_trec8(trec8_matrix):
    """Each cell's judged postings keep their order, renumbered 1..n; lengths are the
    judged counts; condensing twice changes nothing; relevant counts and qrels stay."""
    c = trec8_matrix.condensed()
    assert c is trec8_matrix.condensed()  # built once
    judged = trec8_matrix.judged
    assert np.array_equal(c.length, trec8_matrix.grid(judged.counts))  # TREC-8 has no negative grade
    both = c.judged
    assert np.array_equal(both.rank, both.position + 1)
    assert np.array_equal(both.judgment, judged.judgment)  # same documents, same order
    assert np.array_equal(c.n_relevant, trec8_matrix.n_relevant) and c.run_depth == trec8_matrix.run_depth
    twice = c.condensed()
    assert np.array_equal(twice.hits.rank, c.hits.rank) and np.array_equal(twice.length, c.length)
    assert (c.cell_counts(c.hits) <= c.length).all() and int(c.length.max()) <= 1000
    # P's integer-total mean reads the condensed lists too, and the sorted sums snap to it
    p10 = parse_measure("P(judged_only=true)@10")
    means = score_arrays(trec8_matrix, [p10], averaging=("all",)).means["all_topics"][0]
    assert np.array_equal(means, counted_means(trec8_matrix, p10))
    assert not np.array_equal(means, counted_means(trec8_matrix, parse_measure("P@10")))


# ----------------------------------------------------------------- the names


@pytest.mark.parametrize("text, canonical", [
    ("AP(judged_only=true)@100", "AP(judged_only=true)@100"),
    ("AP(judged_only=TRUE)@100", "AP(judged_only=true)@100"),
    ("P(judged_only=1)@10", "P(judged_only=true)@10"),
    ("AP(judged_only=false)@100", "AP@100"),
    ("nDCG(judged_only=true,gains={2:3,1:1})@10", "nDCG(gains={1:1,2:3},judged_only=true)@10"),
    ("P_rareness(judged_only=true,alpha=0.5)@100", "P_rareness(alpha=0.5,judged_only=true)@100"),
    ("infAP", "infAP"),
    ("Judged@10", "Judged@10"),
])
def test_names_round_trip(text, canonical):
    m = parse_measure(text)
    assert str(m) == canonical and parse_measure(str(m)) == m
    assert m.judged_only == ("judged_only=true" in canonical)
    assert "judged_only" not in m.options()


def test_every_family_takes_judged_only():
    for family in MEASURES:
        assert parse_measure(f"{family}(judged_only=true)@5").judged_only, family
    with pytest.raises(ValueError, match="judged_only takes true or false"):
        parse_measure("AP(judged_only=maybe)")
    assert trec_eval_name("AP(judged_only=true)") == "AP(judged_only=true)"  # no trec_eval name without -J
    # the cutoff counts judged documents, which may sit anywhere in the run: read it all
    assert depth_read(["P@10", "AP(judged_only=true)@100"]) is None
    assert depth_read(["P@10", "AP@100"]) == 100


def test_cli_scores_judged_only(shared_data, trec8_qrels, trec8_runs):
    runs = shared_data / "trec8_adhoc" / "runs"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["score", "--qrels", str(shared_data / "trec8_adhoc" / "qrels.txt"), "--runs",
                     str(runs / "INQ601.gz"), str(runs / "ok8alx.gz"), "--measure", "AP(judged_only=true)@100",
                     "--measure", "AP(judged_only=true)", "--depth", "1000", "--per-topic"])
    assert code == 0, err.getvalue()
    table = pd.read_csv(io.StringIO(out.getvalue()), sep="\t", dtype={"qid": str})
    assert set(table["measure"]) == {"AP(judged_only=true)@100", "AP(judged_only=true)"}
    qrels: Judgments = defaultdict(dict)
    for q, d, g in zip(trec8_qrels.qid.to_pylist(), trec8_qrels.docid.to_pylist(), trec8_qrels.grade.tolist()):
        qrels[q][d] = int(g)
    evaluator = pytrec_eval.RelevanceEvaluator(dict(qrels), {"map", "map_cut_100"}, judged_docs_only_flag=True)
    docids = np.asarray(trec8_runs.docids.to_pylist(), dtype=object)
    for run in ("INQ601", "ok8alx"):
        rows = trec8_runs.run == trec8_runs.names.index(run)
        ordered: dict[str, dict[str, float]] = defaultdict(dict)
        for q, d, k in zip(trec8_runs.qid[rows].tolist(), docids[trec8_runs.docid[rows]].tolist(),
                           trec8_runs.rank[rows].tolist()):
            ordered[trec8_runs.topics[q]][d] = float(1001 - k)  # trec_eval's order as scores
        want = evaluator.evaluate(dict(ordered))
        mine = table[(table["run"] == run) & (table["qid"] != "all")]
        for measure, theirs in (("AP(judged_only=true)@100", "map_cut_100"), ("AP(judged_only=true)", "map")):
            got = mine[mine["measure"] == measure].set_index("qid")["value"]
            assert len(got) == 50
            assert max(abs(got[q] - v[theirs]) for q, v in want.items()) < 1e-9, (run, measure)
