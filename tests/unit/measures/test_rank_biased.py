"""RBP, RBP_residual, RBP_rareness and ERR (issue 20): a per-list loop on random graded
campaigns, and ir_measures' RBP(p=0.8) on TREC-8 and DL 2020 passage.

ir_measures has two RBP providers: cwl_eval (binary, ``RBP(p=0.8,rel=t)``: rel_i = 1 at
grade >= t, irmeta's RBP at threshold t) and trectools (``RBP(p=0.8)`` without ``rel``:
rel_i = the raw grade where positive, not divided by the largest, so irmeta's
``RBP(gains={1:1,2:2,3:3})`` times 3 on DL 2020's grades 0..3, and irmeta's RBP on TREC-8's
binary qrels). trectools averages RBP's weights over tied scores; both are fed trec_eval's
order as strictly decreasing scores, so they see irmeta's ranking.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import ir_measures
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import innovation_reference as ref
from irmeta.campaign.rarity import RARITY_FUNCTIONS
from irmeta.measures.averaging import evaluate
from irmeta.measures.names import parse_measure
from irmeta.measures.rank_biased import rbp

# trectools' own pandas call, not ours
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.sort_values")


# ------------------------------------------------------- per-list loop, random campaigns


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=ref.campaigns(), p=st.sampled_from([0.5, 0.8, 0.95]), k=st.sampled_from([None, 1, 3, 8]),
       function=st.sampled_from(RARITY_FUNCTIONS), gains=ref.gain_maps)
def test_rank_biased_measures_match_a_loop(campaign, p, k, function, gains):
    qrels, runs, threshold = campaign
    if len(runs) < 2:
        runs = dict(runs, extra={"1": ["d0", "d1"]})  # log rarity needs S >= 2
    alphas = [0.0, 0.5, 1.0, "1/R"]
    cut = "" if k is None else f"@{k}"
    gain_text = "" if gains is None else ",gains={" + ",".join(f"{g}:{v}" for g, v in sorted(gains.items())) + "}"
    names = {"rbp": f"RBP(p={p}{gain_text}){cut}", "residual": f"RBP_residual(p={p}){cut}",
             "rareness": f"RBP_rareness(p={p},rarity={function}{gain_text}){cut}", "err": f"ERR({gain_text[1:]}){cut}"
             if gains is not None else f"ERR{cut}"}
    with tempfile.TemporaryDirectory() as tmp:
        m = ref.campaign_matrix(Path(tmp), qrels, runs, threshold=threshold)
    got = evaluate(m, list(names.values()), alphas=alphas)
    got = {key: got[parse_measure(name)] for key, name in names.items()}
    g_max = max((ref.dcg_gain(judged, d, gains) for judged in qrels.values() for d in judged), default=0.0)
    depth = 12 if k is None else k  # rarity counted at the depth the measure reads
    for s, run in enumerate(m.runs):
        for q, topic in enumerate(m.topics):
            ranking, judged = runs[run].get(topic, []), qrels[topic]
            rare = ref.rarities(qrels, runs, topic, threshold=threshold, depth=depth, function=function)
            n_rel = sum(1 for g in judged.values() if g >= threshold)
            at = (run, topic)
            assert got["rbp"][s, q] == pytest.approx(
                ref.rbp(ranking, judged, rare, threshold=threshold, gains=gains, p=p, k=k), rel=1e-12, abs=1e-14), at
            assert got["residual"][s, q] == pytest.approx(ref.rbp_residual(ranking, judged, p=p, k=k),
                                                          rel=1e-12, abs=1e-14), at
            assert got["err"][s, q] == pytest.approx(ref.err(ranking, judged, gains=gains, g_max=g_max, k=k),
                                                     rel=1e-12, abs=1e-14), at
            for a, alpha in enumerate(alphas):
                want = ref.rbp(ranking, judged, rare, threshold=threshold, gains=gains, p=p, k=k,
                               alpha=ref.alpha_of(alpha, n_rel))
                assert got["rareness"][a, s, q] == pytest.approx(want, rel=1e-12, abs=1e-14), (at, alpha)


def test_rbp_and_its_residual_bound_every_score_rel_could_reach(trec8_matrix):
    # RBP + residual is the most RBP could become once every unjudged document is judged
    low = evaluate(trec8_matrix, ["RBP", "RBP_residual"])
    best = low[parse_measure("RBP")] + low[parse_measure("RBP_residual")]
    assert np.all(best <= 1 + 1e-12) and np.all(low[parse_measure("RBP_residual")] >= 0)
    assert np.array_equal(evaluate(trec8_matrix, ["RBP_rareness"], alphas=[0.0])[parse_measure("RBP_rareness")][0],
                          low[parse_measure("RBP")])


def test_persistence_outside_zero_one_is_refused(trec8_matrix):
    with pytest.raises(ValueError, match=r"persistence p must be in \(0, 1\)"):
        evaluate(trec8_matrix, ["RBP(p=1)"])


# ----------------------------------------------------------------- ir_measures


def ir_qrels(qrels) -> list:
    return [ir_measures.Qrel(q, d, int(g)) for q, d, g in
            zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade.tolist())]


def compare(evaluator, runs, matrix, ours: np.ndarray, every: int = 1) -> int:
    """ir_measures' per-topic value against ``ours`` (runs, topics) on every ``every``-th
    run, fed trec_eval's order as strictly decreasing scores; returns the values compared."""
    docids = runs.docids.to_pylist()
    compared = 0
    for r in range(0, len(runs.names), every):
        rows = np.flatnonzero(runs.run == r)
        ranked = [ir_measures.ScoredDoc(runs.topics[q], docids[d], -float(i))
                  for i, (q, d) in enumerate(zip(runs.qid[rows].tolist(), runs.docid[rows].tolist()))]
        s = matrix.runs.index(runs.names[r])
        for metric in evaluator.iter_calc(ranked):
            value = ours[s, matrix.topics.index(metric.query_id)]
            assert value == pytest.approx(metric.value, rel=1e-12, abs=1e-14), (runs.names[r], metric.query_id)
            compared += 1
    return compared


@pytest.mark.slow
def test_rbp_equals_ir_measures_on_trec8(trec8_runs, trec8_qrels, trec8_matrix):
    ours = rbp(trec8_matrix, None)
    graded = ir_measures.trectools.evaluator([ir_measures.RBP(p=0.8)], ir_qrels(trec8_qrels))
    assert compare(graded, trec8_runs, trec8_matrix, ours, every=8) == 17 * 50
    binary = ir_measures.evaluator([ir_measures.RBP(p=0.8, rel=1)], ir_qrels(trec8_qrels))  # cwl_eval
    assert compare(binary, trec8_runs, trec8_matrix, ours, every=16) > 0


@pytest.mark.slow
def test_rbp_equals_ir_measures_on_dl2020_passage(shared_data):
    runs, qrels, matrix = ref.dl2020_passage(shared_data)
    graded = ir_measures.trectools.evaluator([ir_measures.RBP(p=0.8)], ir_qrels(qrels))
    top = 3  # DL 2020's largest grade: rel / 3 is irmeta's gain over the largest
    compared = compare(graded, runs, matrix, top * rbp(matrix, None, gains={1: 1, 2: 2, 3: 3}))
    assert compared == int(matrix.returned.sum())
    binary = ir_measures.evaluator([ir_measures.RBP(p=0.8, rel=1)], ir_qrels(qrels))  # cwl_eval, threshold 1
    assert compare(binary, runs, matrix, rbp(matrix, None), every=4) > 0


# ------------------------------------------------------------------ ERR, huge grades


def exact_err(ranking: list[str], grades: dict[str, int], k: int) -> float:
    """ERR@k in exact fractions, R = (2^g - 1) / 2^g_max over positive grades."""
    from fractions import Fraction

    g_max = max(max(grades.values()), 0)
    total, reach = Fraction(0), Fraction(1)
    for i, d in enumerate(ranking[:k], start=1):
        g = max(grades.get(d, 0), 0)
        stop = Fraction(2 ** g - 1, 2 ** g_max)
        total += reach * stop / i
        reach *= 1 - stop
    return float(total)


@pytest.mark.parametrize("top", [1023, 1024, 1025, 2000, 5000])
def test_err_with_grades_past_2_to_the_1024_equals_exact_fractions(tmp_path, top):
    grades = {"a": top, "b": top - 1, "c": top - 3, "d": 1, "e": 0, "f": -2}
    runs = {"r": {"1": ["d", "b", "a", "x"]}, "s": {"1": ["c", "b", "e", "f", "a"]}, "t": {"1": ["f", "d"]}}
    m = ref.campaign_matrix(tmp_path, {"1": grades}, runs)
    got = evaluate(m, ["ERR@10"])[parse_measure("ERR@10")]
    assert np.isfinite(got).all()
    for s, run in enumerate(m.runs):
        assert got[s, 0] == pytest.approx(exact_err(runs[run]["1"], grades, 10), rel=1e-15), run


def test_err_keeps_int64_grades_past_2_to_the_53_apart(tmp_path):
    top = 2 ** 63 - 1  # float64 would merge top and top - 1
    m = ref.campaign_matrix(tmp_path, {"1": {"a": top, "b": top - 1, "c": 5}}, {"r": {"1": ["b", "a", "c"]}})
    assert evaluate(m, ["ERR"])[parse_measure("ERR")][0, 0] == 0.5 + 0.5 * 1 / 2  # R_b = 1/2, R_a = 1


def test_err_with_huge_gains_in_a_map_is_finite(tmp_path):
    m = ref.campaign_matrix(tmp_path, {"1": {"a": 2, "b": 1}}, {"r": {"1": ["b", "a"]}})
    got = evaluate(m, ["ERR(gains={1:1e300,2:5000})"])[parse_measure("ERR(gains={1:1e300,2:5000})")]
    assert got[0, 0] == 1.0  # b's R = (2^1e300 - 1) / 2^1e300 = 1
