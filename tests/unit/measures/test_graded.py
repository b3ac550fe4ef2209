"""Graded and one-document measures (irmeta.measures.graded): the seeds' worked examples,
pytrec_eval on TREC-8 and on random graded campaigns, properties against plain loops,
bounds, gain maps, and the registry.

Seeds: 003 is an IR lecture (P@K, AP/MAP, RR, DCG/NDCG with the Järvelin-Kekäläinen
discount); 004 is Sakai, "Give me just one highly relevant document: P-measure"
(SIGIR 2006), which defines Q-, O-, P- and P+-measure in its section 2 (the paper has
no equation numbers).
"""

from __future__ import annotations

import math
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from campaigns import ranked_matrix as campaign_matrix
from irmeta.campaign.qrels import Qrels
from irmeta.measures.averaging import evaluate, score_table
from irmeta.measures.graded import (
    dcg,
    dcg_jk,
    gain_of,
    ndcg,
    ndcg_jk,
    normalise_gains,
    o_measure,
    p_measure,
    p_plus_measure,
    q_measure,
    reciprocal_rank,
)
from irmeta.measures.names import Measure, parse_measure
from irmeta.measures.precision import average_precision, precision
from irmeta.measures.registry import MEASURES

pytrec_eval = pytest.importorskip("pytrec_eval")

GRADED = ("RR", "DCG", "nDCG", "DCG_jk", "nDCG_jk", "Q", "O", "Pmeasure", "Pplus")
FUNCTIONS = {"RR": reciprocal_rank, "DCG": dcg, "nDCG": ndcg, "DCG_jk": dcg_jk, "nDCG_jk": ndcg_jk,
             "Q": q_measure, "O": o_measure, "Pmeasure": p_measure, "Pplus": p_plus_measure}
BOUNDED = ("RR", "nDCG", "nDCG_jk", "Q", "O", "Pmeasure", "Pplus")
SAKAI = ("Q", "O", "Pmeasure", "Pplus")


# ------------------------------------------------------------------------ helpers


def scores(matrix, measure: str, **options) -> np.ndarray:
    return evaluate(matrix, [measure], **options)[parse_measure(measure)]


def one(matrix, measure: str, run: str, topic: str = "1", **options) -> float:
    return float(scores(matrix, measure, **options)[matrix.runs.index(run), matrix.topics.index(topic)])


# ------------------------------------------------------- seed 003: DCG and NDCG (JK)

LECTURE_GRADES = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]


@pytest.fixture()
def lecture(tmp_path):
    """The lecture's 10 ranked documents judged 0-3, one qrels line each (so the ideal
    ranking is 3, 3, 3, 2, 2, 2, 1, 0, 0, 0 as the slide's "perfect ranking"), and a run
    listing that ideal order."""
    docs = [f"d{i}" for i in range(1, 11)]
    qrels = {"1": dict(zip(docs, LECTURE_GRADES))}
    ideal = sorted(docs, key=lambda d: -qrels["1"][d])
    return campaign_matrix(tmp_path, qrels, {"system": {"1": docs}, "ideal": {"1": ideal}})


def test_seed003_dcg_curve(lecture):
    # "DCG: 3, 5, 6.89, 6.89, 6.89, 7.28, 7.99, 8.66, 9.61, 9.61"
    printed = [3, 5, 6.89, 6.89, 6.89, 7.28, 7.99, 8.66, 9.61, 9.61]
    got = [one(lecture, f"DCG_jk@{k}", "system") for k in range(1, 11)]
    assert got == pytest.approx(printed, abs=0.005)
    # The discounted gains: "3, 2, 1.89, 0, 0, 0.39, 0.71, 0.67, 0.95, 0".
    assert np.diff([0.0] + got) == pytest.approx([3, 2, 1.89, 0, 0, 0.39, 0.71, 0.67, 0.95, 0], abs=0.005)
    assert one(lecture, "DCG_jk", "system") == pytest.approx(9.6051, abs=5e-5)


def test_seed003_ideal_dcg_curve(lecture):
    # "Ideal DCG values: 3, 6, 7.89, 8.89, 9.75, 10.52, 10.88, 10.88, 10.88, 10". Two
    # printed values are slips: at rank 6 the slide adds rounded terms (9.75 + 0.77;
    # exactly 10.5278), and the last value lost its decimals (the curve is flat at 10.88).
    printed = [3, 6, 7.89, 8.89, 9.75, 10.52, 10.88, 10.88, 10.88, 10]
    got = [one(lecture, f"DCG_jk@{k}", "ideal") for k in range(1, 11)]
    exact = [1, 2, 3, 4, 5, 7, 8, 9]  # 1-based ranks printed correctly to two decimals
    assert [got[k - 1] for k in exact] == pytest.approx([printed[k - 1] for k in exact], abs=0.005)
    assert got[5] == pytest.approx(10.5278, abs=5e-5) and abs(got[5] - 10.52) < 0.01
    assert got[9] == pytest.approx(10.88, abs=0.005)
    # nDCG_jk's denominator is that curve: the ideal run scores 1 at every cutoff.
    assert [one(lecture, f"nDCG_jk@{k}", "ideal") for k in range(1, 11)] == [1.0] * 10


def test_seed003_ndcg_curve(lecture):
    # "NDCG values (divide actual by ideal): 1, 0.83, 0.87, 0.76, 0.71, 0.69, 0.73, 0.8,
    # 0.88, 0.88". At rank 4 the slide's own numbers give 6.89 / 8.89 = 0.775, not 0.76
    # (an arithmetic slip); the other nine agree to the two decimals printed.
    printed = [1, 0.83, 0.87, 0.76, 0.71, 0.69, 0.73, 0.8, 0.88, 0.88]
    got = [one(lecture, f"nDCG_jk@{k}", "system") for k in range(1, 11)]
    others = [i for i in range(10) if i != 3]
    assert [got[i] for i in others] == pytest.approx([printed[i] for i in others], abs=0.005)
    assert got[3] == pytest.approx(6.8928 / 8.8928, abs=1e-4)
    assert got[3] == pytest.approx(6.89 / 8.89, abs=0.001)


def test_seed003_ndcg_another_example(tmp_path):
    # Ground truth d4 2, d3 2, d2 1, d1 0; RF1 ranks d3 d4 d2 d1, RF2 ranks d3 d2 d4 d1.
    # DCG_GT = DCG_RF1 = 4.6309, DCG_RF2 = 4.2619, NDCG_RF1 = 1.00, NDCG_RF2 = 0.9203.
    m = campaign_matrix(tmp_path, {"1": {"d1": 0, "d2": 1, "d3": 2, "d4": 2}},
                        {"GT": {"1": ["d4", "d3", "d2", "d1"]}, "RF1": {"1": ["d3", "d4", "d2", "d1"]},
                         "RF2": {"1": ["d3", "d2", "d4", "d1"]}})
    for run, want_dcg, want_ndcg in (("GT", 4.6309, 1.0), ("RF1", 4.6309, 1.0), ("RF2", 4.2619, 0.9203)):
        assert one(m, "DCG_jk@4", run) == pytest.approx(want_dcg, abs=5e-5), run
        assert one(m, "nDCG_jk@4", run) == pytest.approx(want_ndcg, abs=5e-5), run
    assert one(m, "nDCG_jk@4", "GT") == 1.0 and one(m, "nDCG_jk@4", "RF1") == 1.0


# ------------------------------------------- seed 003: P@K, AP, MAP and RR (binary)


def binary_campaign(root: Path, rankings: dict[str, str], n_relevant: dict[str, int] | None = None):
    """Topics whose ranking is a string of R/N (one run, "lecture"); relevant documents
    the ranking misses are added to the qrels up to ``n_relevant``."""
    qrels, run = {}, {}
    for topic, pattern in rankings.items():
        docs = [f"t{topic}d{i}" for i in range(1, len(pattern) + 1)]
        judged = {d: int(c == "R") for d, c in zip(docs, pattern)}
        missing = (n_relevant or {}).get(topic, pattern.count("R")) - pattern.count("R")
        judged.update({f"t{topic}missing{i}": 1 for i in range(missing)})
        qrels[topic], run[topic] = judged, docs
    return campaign_matrix(root, qrels, {"lecture": run})


def test_seed003_precision_and_ap(tmp_path):
    # "Prec@3 of 2/3, Prec@4 of 2/4, Prec@5 of 3/5" and, on the same ranking,
    # "AvgPrec of 1/3 (1/1 + 2/3 + 3/5) ~ 0.76": relevant at ranks 1, 3, 5 of 3.
    m = binary_campaign(tmp_path, {"1": "RNRNR"})
    assert [one(m, f"P@{k}", "lecture") for k in (3, 4, 5)] == [2 / 3, 2 / 4, 3 / 5]
    ap = one(m, "AP", "lecture")
    assert ap == pytest.approx((1 + 2 / 3 + 3 / 5) / 3, rel=1e-15)
    assert round(ap, 2) == 0.76
    # RR = 1/K, K the rank of the first relevant document (MRR: its mean over queries).
    assert one(m, "RR", "lecture") == 1.0


def test_seed003_average_precision_rankings(tmp_path):
    # The figure is lost in the seed's text, but the printed P@K at each relevant
    # document fixes the rankings: #1 "(1.0 + 0.67 + 0.75 + 0.8 + 0.83 + 0.6)/6 = 0.78"
    # has its 6 relevant at ranks 1, 3, 4, 5, 6, 10; #2 "(0.5 + 0.4 + 0.5 + 0.57 + 0.56
    # + 0.6)/6 = 0.52" at ranks 2, 5, 6, 7, 9, 10.
    m = binary_campaign(tmp_path, {"1": "RNRRRRNNNR", "2": "NRNNRRRNRR"})
    s = m.runs.index("lecture")
    ap = average_precision(m, None)[s]
    assert abs(ap[0] - 0.78) <= 0.005 + 1e-12  # exactly 4.65 / 6 = 0.775
    assert abs(ap[1] - 0.52) <= 0.005
    for q, printed in ((0, [1.0, 0.67, 0.75, 0.8, 0.83, 0.6]), (1, [0.5, 0.4, 0.5, 0.57, 0.56, 0.6])):
        ranks = np.flatnonzero(m.relevant[s, q]) + 1
        assert [one(m, f"P@{r}", "lecture", m.topics[q]) for r in ranks] == pytest.approx(printed, abs=0.005)
    assert one(m, "RR", "lecture", "2") == 0.5


def test_seed003_map(tmp_path):
    # "mean average precision = (0.62 + 0.44)/2 = 0.53". The figure with the two
    # queries is lost in the seed's text; these rankings (query 1: 5 relevant at ranks
    # 1, 3, 6, 9, 10; query 2: 3 relevant at 2, 5, 7) are the lecture's usual ones and
    # reproduce the three printed values.
    m = binary_campaign(tmp_path, {"1": "RNRNNRNNRR", "2": "NRNNRNRNNN"})
    ap = average_precision(m, None)[0]
    assert [round(x, 2) for x in ap] == [0.62, 0.44]
    assert round(float(ap.mean()), 2) == 0.53
    table = score_table(m, ["AP"], averaging=("all",), per_topic=False)
    assert round(float(table.value.iloc[0]), 2) == 0.53


# ---------------------------------------------- seed 004: Sakai's Figure 1 example


@pytest.fixture()
def figure1(tmp_path):
    """One topic with one relevant document per level: S (grade 3), A (2), B (1); the
    default gains are gain(S) = 3, gain(A) = 2, gain(B) = 1, the paper's defaults. X has
    B at rank 1 and S at rank 2; Y only S at rank 2 (a non-relevant document at rank 1);
    "inverse" is the perfect inverse of the ideal output (B, A, S); "ideal" is S, A, B."""
    qrels = {"1": {"S": 3, "A": 2, "B": 1, "N": 0}}
    runs = {"X": {"1": ["B", "S"]}, "Y": {"1": ["N", "S"]}, "inverse": {"1": ["B", "A", "S"]},
            "ideal": {"1": ["S", "A", "B"]}}
    return campaign_matrix(tmp_path, qrels, runs)


def test_seed004_p_measure(figure1):
    # "For System X, P-measure = (4 + 2)/(5 + 2) = 6/7. For Y, P-measure = O-measure =
    # (3 + 1)/(5 + 2) = 4/7."
    assert one(figure1, "Pmeasure", "X") == pytest.approx(6 / 7, rel=1e-15)
    assert one(figure1, "Pmeasure", "Y") == pytest.approx(4 / 7, rel=1e-15)
    assert one(figure1, "O", "Y") == pytest.approx(4 / 7, rel=1e-15)
    # "P-measure would be one for a perfect inverse of the ideal output shown in
    # Figure 1 since r_p = 3": BR(3) = (6 + 3) / (6 + 3).
    assert one(figure1, "Pmeasure", "inverse") == 1.0


def test_seed004_o_measure_and_rr(figure1):
    # "r_1 = 1 for X while r_1 = 2 for Y ... With default gain values, Y outperforms X
    # in terms of O-measure": O(X) = (g(1) + 1)/(cg*(1) + 1) = (1 + 1)/(3 + 1).
    assert one(figure1, "O", "X") == 0.5
    assert one(figure1, "O", "Y") > one(figure1, "O", "X")
    # "smaller gain values could be used to favour X": gain(B) = gain(S)'s 3 makes
    # O(X) = (3 + 1)/(3 + 1) = 1.
    assert one(figure1, "O", "X", gains={1: 3, 2: 2, 3: 3}) == 1.0
    # RR = 1/r_1, blind to the levels.
    assert one(figure1, "RR", "X") == 1.0 and one(figure1, "RR", "Y") == 0.5


def test_seed004_q_and_p_plus(figure1):
    # BR(r) = (cg(r) + count(r)) / (cg*(r) + r), cg* = 3, 5, 6.
    br_x = [(1 + 1) / (3 + 1), (4 + 2) / (5 + 2)]
    br_inverse = [(1 + 1) / (3 + 1), (3 + 2) / (5 + 2), (6 + 3) / (6 + 3)]
    # Q = (1/R) sum isrel(r) BR(r), R = 3.
    assert one(figure1, "Q", "X") == pytest.approx(sum(br_x) / 3, rel=1e-15)
    assert one(figure1, "Q", "Y") == pytest.approx((4 / 7) / 3, rel=1e-15)
    assert one(figure1, "Q", "inverse") == pytest.approx(sum(br_inverse) / 3, rel=1e-15)
    # P+ = sum_{r <= r_p} isrel(r) BR(r) / count(r_p): it avoids P-measure's 1 for the
    # inverse output ("this problem may be avoided by using P+-measure").
    assert one(figure1, "Pplus", "X") == pytest.approx(sum(br_x) / 2, rel=1e-15)
    assert one(figure1, "Pplus", "Y") == pytest.approx(4 / 7, rel=1e-15)
    assert one(figure1, "Pplus", "inverse") == pytest.approx(sum(br_inverse) / 3, rel=1e-15)
    assert one(figure1, "Pplus", "inverse") < 1.0
    for measure in SAKAI + ("nDCG", "nDCG_jk", "RR"):
        assert one(figure1, measure, "ideal") == 1.0, measure


def test_seed004_cutoff_and_beta(figure1):
    # At k = 1 Y holds no relevant document; X's preferred rank within the top 1 is 1.
    assert one(figure1, "Pmeasure@1", "Y") == 0.0 and one(figure1, "Pplus@1", "Y") == 0.0
    assert one(figure1, "Pmeasure@1", "X") == 0.5
    # beta weights the gains: BR(r) = (beta cg(r) + count(r)) / (beta cg*(r) + r).
    assert one(figure1, "Pmeasure", "X", beta=2.0) == pytest.approx((2 * 4 + 2) / (2 * 5 + 2), rel=1e-15)
    # beta = 0: BR is precision, O is RR, P-measure is precision at r_p.
    assert one(figure1, "O", "X", beta=0.0) == 1.0 and one(figure1, "Pmeasure", "Y", beta=0.0) == 0.5


# ------------------------------------------------------ pytrec_eval on TREC-8 (binary)

TREC_EVAL_CUTOFFS = (1, 3, 5, 10, 15, 20, 30, 100, 200, 500, 1000)


def matrix_run_dicts(matrix) -> dict[str, dict[str, dict[str, float]]]:
    """{run: {topic: {docid: depth - position}}} from the matrix: trec_eval's order as
    scores (never the raw scores, whose near-ties pytrec_eval breaks otherwise). The
    matrix keeps judged documents only; an unjudged rank gets a name no qrels judge,
    which every trec_eval measure reads as the unjudged document it stood for."""
    docids = np.asarray(matrix.docids.to_pylist(), dtype=object)
    score = (matrix.depth - np.arange(matrix.depth, dtype=np.float64)).tolist()
    judgment = matrix.judgment
    out: dict[str, dict[str, dict[str, float]]] = {}
    for s, name in enumerate(matrix.runs):
        out[name] = {}
        for q, topic in enumerate(matrix.topics):
            n = int(matrix.length[s, q])
            if n:
                rows = judgment[s, q, :n]
                names = [docids[j] if j >= 0 else f"unjudged-{r}" for r, j in enumerate(rows.tolist())]
                out[name][topic] = dict(zip(names, score[:n]))
    return out


def qrels_dict(qrels: Qrels) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for q, d, g in zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade.tolist()):
        out[q][d] = int(g)
    return dict(out)


def nonnegative(qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """Negative grades raised to 0, for pytrec_eval only: pytrec_eval-terrier 0.5.11
    corrupts memory (segfaults or hangs, depending on the heap) on qrels where a topic
    has no grade >= 0, e.g. {"2": {"d3": -2}, "3": {"a": 1}} with a run on both topics.
    For ndcg_cut, ndcg and recip_rank a negative grade acts exactly as 0 in trec_eval
    (gain only when > 0, relevant only when >= the relevance level >= 1)."""
    return {t: {d: max(g, 0) for d, g in j.items()} for t, j in qrels.items()}


def pytrec_differences(matrix, qrels: dict, *, relevance_level: int = 1, gains=None):
    """Per (run, topic) differences > 1e-9 between pytrec_eval's ndcg_cut_k, ndcg and
    recip_rank and ours; and the number of values compared."""
    measures = {"ndcg_cut." + ",".join(map(str, TREC_EVAL_CUTOFFS)), "ndcg", "recip_rank"}  # one ndcg_cut set
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=relevance_level)
    ours = {f"ndcg_cut_{k}": ndcg(matrix, k, gains=gains) for k in TREC_EVAL_CUTOFFS}
    ours["recip_rank"] = reciprocal_rank(matrix, None)
    ours["ndcg"] = ndcg(matrix, None, gains=gains)  # the ideal over every positive judged gain
    topic_index = {t: i for i, t in enumerate(matrix.topics)}
    differ, compared = [], 0
    for name, per_topic in matrix_run_dicts(matrix).items():
        s = matrix.runs.index(name)
        result = evaluator.evaluate(per_topic)
        for topic, values in result.items():
            q = topic_index[topic]
            for key, mine in ours.items():
                compared += 1
                if abs(values[key] - mine[s, q]) > 1e-9:
                    differ.append((name, topic, key, values[key], float(mine[s, q])))
        missing = [q for q in range(len(matrix.topics)) if matrix.topics[q] not in result]
        assert not matrix.returned[s, missing].any()
        for mine in ours.values():  # topics the run did not return score 0
            assert (mine[s, missing] == 0).all()
    return differ, compared


@pytest.mark.slow
def test_trec8_ndcg_and_rr_equal_pytrec_eval(trec8_matrix, trec8_qrels):
    assert trec8_matrix.shape == (129, 50, 1000)
    differ, compared = pytrec_differences(trec8_matrix, qrels_dict(trec8_qrels))
    assert compared == 129 * 50 * (len(TREC_EVAL_CUTOFFS) + 2)
    assert not differ, f"{len(differ)} values differ from pytrec_eval, e.g. {differ[:5]}"


def test_trec8_sakai_binary_relations(trec8_matrix):
    """Sakai (seed 004): with binary relevance Q >= AP, with equality iff no relevant
    document lies below rank R; O >= RR, with equality iff r_1 <= R; and P-measure,
    P+-measure and O-measure coincide (every relevant document is on one level)."""
    m = trec8_matrix
    q, ap = q_measure(m, None), average_precision(m, None)
    o, rr = o_measure(m, None), reciprocal_rank(m, None)
    ranks = np.arange(1, m.depth + 1)
    below_r = (m.relevant & (ranks > m.n_relevant[None, :, None])).any(axis=2)
    assert np.array_equal(q == ap, ~below_r)
    assert (q[below_r] > ap[below_r]).all()
    first = np.argmax(m.relevant, axis=2) + 1
    late = m.relevant.any(axis=2) & (first > m.n_relevant[None, :])
    assert np.array_equal(o == rr, ~late) and (o[late] > rr[late]).all()
    assert np.array_equal(p_measure(m, None), o) and np.array_equal(p_plus_measure(m, None), o)
    # beta = 0 turns BR(r) into count(r)/r: Q is AP and O is RR, to the last bit.
    assert np.array_equal(q_measure(m, None, beta=0.0), ap)
    assert np.array_equal(o_measure(m, None, beta=0.0), rr)


# ----------------------------------------------------------- random graded campaigns

_doc = st.sampled_from([f"d{i}" for i in range(10)] + ["u1", "u2"])


@st.composite
def graded_campaigns(draw, min_relevant: int = 0):
    n_topics = draw(st.integers(1, 4))
    qrels = {}
    for t in range(n_topics):
        judged = draw(st.lists(_doc, min_size=1, max_size=8, unique=True))
        qrels[str(t + 1)] = {d: draw(st.integers(-2, 3)) for d in judged}
    runs = {}
    for r in range(draw(st.integers(1, 3))):
        topics = draw(st.lists(st.sampled_from(sorted(qrels) + ["77"]), min_size=1, max_size=5, unique=True))
        runs[f"run{r}"] = {t: draw(st.lists(_doc, min_size=1, max_size=12, unique=True)) for t in topics}
    return qrels, runs


_gain_maps = st.one_of(st.none(), st.dictionaries(st.integers(-2, 3), st.sampled_from([0, 0.5, 1, 2, 3, 7]),
                                                  max_size=6))


def slow_measures(ranking: list[str], judged: dict[str, int], *, threshold: int, gains, k: int,
                  depth: int, beta: float, ideal_cut: int | None = None) -> dict[str, float]:
    """Every measure of one ranked list, as the definitions read, one rank at a time.
    ``ideal_cut``: where nDCG's ideal list is cut (None: never, trec_eval's ndcg)."""

    def gain(doc: str, floor: int = threshold) -> float:
        if doc not in judged:
            return 0.0
        g = judged[doc]
        if gains is None:
            return float(g) if g >= max(floor, 1) else 0.0
        return float(gains.get(g, 0))

    def dcg_gain(doc: str) -> float:  # trec_eval: -l changes no gain
        return gain(doc, floor=1)

    def isrel(doc: str) -> bool:
        return doc in judged and judged[doc] >= threshold

    top = ranking[:min(k, depth)]
    ideal = sorted((gain(d) for d in judged if gain(d) > 0), reverse=True)
    dcg_ideal = sorted((dcg_gain(d) for d in judged if dcg_gain(d) > 0), reverse=True)
    n_rel = sum(1 for g in judged.values() if g >= threshold)
    out: dict[str, float] = {}
    for name, disc in (("", lambda r: math.log2(r + 1)), ("_jk", lambda r: 1.0 if r == 1 else math.log2(r))):
        value = 0.0
        for r, d in enumerate(top, start=1):
            value += dcg_gain(d) / disc(r)
        best = 0.0
        for r in range(1, len(dcg_ideal[:ideal_cut]) + 1):
            best += dcg_ideal[r - 1] / disc(r)
        out["DCG" + name] = value
        out["nDCG" + name] = value / best if best > 0 else 0.0
    cg, count, blended = 0.0, 0, []  # blended: (rank, BR(r), count(r)) at relevant ranks
    for r, d in enumerate(top, start=1):
        cg += gain(d)
        count += isrel(d)
        ideal_cg = 0.0
        for g in ideal[:r]:
            ideal_cg += g
        if isrel(d):
            blended.append((r, (beta * cg + count) / (beta * ideal_cg + r), count, judged[d]))
    if not blended:
        return out | {"RR": 0.0, "Q": 0.0, "O": 0.0, "Pmeasure": 0.0, "Pplus": 0.0}
    total = 0.0
    for _, br, _, _ in blended:
        total += br
    out["Q"] = total / n_rel
    out["RR"] = 1.0 / blended[0][0]
    out["O"] = blended[0][1]
    top_level = max(level for *_, level in blended)
    p = next(i for i, (*_, level) in enumerate(blended) if level == top_level)  # nearest the top
    out["Pmeasure"] = blended[p][1]
    head = 0.0
    for _, br, _, _ in blended[:p + 1]:
        head += br
    out["Pplus"] = head / blended[p][2]
    return out


@pytest.mark.slow
@settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=graded_campaigns(), cutoffs=st.lists(st.one_of(st.none(), st.integers(1, 14)), min_size=1,
                                                     max_size=3),
       depth=st.integers(1, 12), threshold=st.sampled_from([1, 2]), gains=_gain_maps,
       beta=st.sampled_from([1.0, 0.0, 0.5, 2.0]))
def test_against_plain_python(campaign, cutoffs, depth, threshold, gains, beta):
    qrels, runs = campaign
    with tempfile.TemporaryDirectory() as tmp:
        m = campaign_matrix(Path(tmp), qrels, runs, depth=depth, threshold=threshold)
    for cutoff in cutoffs:
        k = m.depth if cutoff is None else cutoff
        got = {}
        for name, fn in FUNCTIONS.items():
            options = {} if name == "RR" else {"gains": gains}
            if name in SAKAI:
                options["beta"] = beta
            got[name] = fn(m, cutoff, **options)
            assert got[name].shape == (len(runs), len(m.topics)) and got[name].dtype == np.float64
        for s, run in enumerate(m.runs):
            for q, topic in enumerate(m.topics):
                want = slow_measures(runs[run].get(topic, []), qrels[topic], threshold=threshold, gains=gains,
                                     k=k, depth=m.depth, beta=beta, ideal_cut=cutoff)
                for name, value in want.items():
                    assert got[name][s, q] == pytest.approx(value, rel=1e-12, abs=1e-12), (name, run, topic, cutoff)
        for name in BOUNDED:
            assert ((got[name] >= 0) & (got[name] <= 1)).all(), name
        # beta = 0 makes BR(r) = count(r)/r at any grades: O is RR and Q is AP, bit for bit.
        if beta == 0.0:
            assert np.array_equal(got["O"], got["RR"])
            assert np.array_equal(got["Q"], average_precision(m, cutoff))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=graded_campaigns(), threshold=st.sampled_from([1, 2]), cutoff=st.integers(1, 14))
def test_random_graded_equal_pytrec_eval(campaign, threshold, cutoff):
    """trec_eval's ndcg and ndcg_cut take the raw grade as gain whatever the relevance
    level, as our default gains do (and the identity map {1: 1, 2: 2, 3: 3}).
    recip_rank uses the relevance level (our threshold)."""
    qrels, runs = campaign
    with tempfile.TemporaryDirectory() as tmp:
        m = campaign_matrix(Path(tmp), qrels, runs, depth=cutoff, threshold=threshold)
    for gains in (None, {1: 1, 2: 2, 3: 3}):
        differ, compared = pytrec_differences(m, nonnegative(qrels), relevance_level=threshold, gains=gains)
        assert compared >= int(m.returned.sum()) * (len(TREC_EVAL_CUTOFFS) + 2)  # every returned topic
        assert not differ, differ[:5]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=graded_campaigns(), threshold=st.sampled_from([1, 2]), data=st.data(),
       exponential=st.booleans())
def test_ideal_run_scores_one(campaign, threshold, data, exponential):
    """A run listing each topic's relevant documents by grade descending (then anything
    non-relevant) scores 1 on nDCG, nDCG_jk, Q, O, P and P+ (and RR) at full depth, with
    default gains or any gains increasing in the grade."""
    qrels, _ = campaign
    assume(all(any(g >= threshold for g in j.values()) for j in qrels.values()))
    ideal = {}
    for topic, judged in qrels.items():
        shuffled = data.draw(st.permutations(sorted(d for d, g in judged.items() if g >= threshold)))
        relevant = sorted(shuffled, key=lambda d: -judged[d])  # stable: ties in a random order
        # the rest by grade too: nDCG's gains do not stop at the threshold (trec_eval's)
        ideal[topic] = relevant + sorted((d for d in judged if judged[d] < threshold), key=lambda d: -judged[d])
    gains = {g: 2.0 ** g - 1 for g in range(threshold, 4)} if exponential else None
    with tempfile.TemporaryDirectory() as tmp:
        m = campaign_matrix(Path(tmp), qrels, {"ideal": ideal}, threshold=threshold)
    for name in BOUNDED:
        options = {} if name == "RR" else {"gains": gains}
        assert (FUNCTIONS[name](m, None, **options) == 1.0).all(), name


# -------------------------------------------------------------------------- gains


@pytest.fixture()
def two_grades(tmp_path):
    """d1 grade 2, d2 grade 1, d3 grade 0, d4 grade -2 (spam); run A ranks d4 d2 d1 d3."""
    return campaign_matrix(tmp_path, {"1": {"d1": 2, "d2": 1, "d3": 0, "d4": -2}},
                           {"A": {"1": ["d4", "d2", "d1", "d3"]}})


def test_gain_of(two_grades):
    cell, ideal = gain_of(two_grades)
    assert cell.tolist() == [[[0.0, 1.0, 2.0, 0.0]]] and ideal.tolist() == [[2.0, 1.0]]
    cell, ideal = gain_of(two_grades, {1: 1, 2: 3})
    assert cell.tolist() == [[[0.0, 1.0, 3.0, 0.0]]] and ideal.tolist() == [[3.0, 1.0]]
    # A map may give judged non-relevant grades a gain; unjudged documents never gain.
    cell, ideal = gain_of(two_grades, {0: 0.5, -2: 0})
    assert cell.tolist() == [[[0.0, 0.0, 0.0, 0.5]]] and ideal.tolist() == [[0.5]]
    cell, _ = gain_of(two_grades, {"1": 1, "2": "3"}, depth=2)  # YAML-style keys and values
    assert cell.tolist() == [[[0.0, 1.0]]]


def test_gains_change_dcg_as_expected(two_grades):
    m = two_grades
    assert one(m, "DCG", "A") == pytest.approx(1 / math.log2(3) + 2 / math.log2(4), rel=1e-15)
    assert one(m, "DCG", "A", gains={1: 1, 2: 3}) == pytest.approx(1 / math.log2(3) + 3 / math.log2(4), rel=1e-15)
    base = one(m, "nDCG", "A")
    assert base == pytest.approx((1 / math.log2(3) + 1) / (2 + 1 / math.log2(3)), rel=1e-15)
    steep = one(m, "nDCG", "A", gains={1: 1, 2: 3})
    assert steep == pytest.approx((1 / math.log2(3) + 1.5) / (3 + 1 / math.log2(3)), rel=1e-15)
    assert steep != base
    # Equal gains for both levels: nDCG is binary nDCG (grade >= 1 relevant).
    flat = one(m, "nDCG", "A", gains={1: 1, 2: 1})
    assert flat == pytest.approx((1 / math.log2(3) + 1 / math.log2(4)) / (1 + 1 / math.log2(3)), rel=1e-15)
    # Gain 0 for grade 1: d2 no longer counts (nor in the ideal); RR ignores gains.
    assert one(m, "nDCG", "A", gains={2: 1}) == pytest.approx(0.5, rel=1e-15)
    assert one(m, "RR", "A") == 0.5 and one(m, "RR", "A", gains={2: 5}) == 0.5
    # Sakai's measures: O at r_1 = 2: (g(2) + 1) / (cg*(2) + 2).
    assert one(m, "O", "A") == pytest.approx((1 + 1) / (3 + 2), rel=1e-15)
    assert one(m, "O", "A", gains={1: 1, 2: 3}) == pytest.approx((1 + 1) / (4 + 2), rel=1e-15)
    # P-measure at r_p = 3 (the grade-2 document): (cg(3) + 2) / (cg*(3) + 3).
    assert one(m, "Pmeasure", "A") == pytest.approx((3 + 2) / (3 + 3), rel=1e-15)
    assert one(m, "Pmeasure", "A", gains={1: 1, 2: 3}) == pytest.approx((4 + 2) / (4 + 3), rel=1e-15)


def test_gain_map_equals_rewritten_qrels(tmp_path):
    """nDCG with gains {1: 1, 2: 3, 3: 7} equals nDCG with default gains on qrels whose
    grades were replaced by those gains (and pytrec_eval agrees on the rewritten ones)."""
    qrels = {"1": {"a": 3, "b": 2, "c": 1, "d": 0, "e": -2, "f": 2}, "2": {"x": 1, "y": 3}}
    runs = {"r": {"1": ["e", "c", "a", "u", "b", "d"], "2": ["y", "z", "x"]}, "s": {"1": ["b", "f", "a"]}}
    gains = {1: 1, 2: 3, 3: 7}
    rewritten = {t: {d: gains.get(g, g) for d, g in j.items()} for t, j in qrels.items()}
    m = campaign_matrix(tmp_path / "graded", qrels, runs)
    w = campaign_matrix(tmp_path / "rewritten", rewritten, runs)
    for k in (1, 2, 3, 5, 10):
        assert np.array_equal(ndcg(m, k, gains=gains), ndcg(w, k))
        assert np.array_equal(dcg_jk(m, k, gains=gains), dcg_jk(w, k))
    differ, _ = pytrec_differences(w, nonnegative(rewritten))
    assert not differ


def test_bad_gains_and_beta_rejected(two_grades):
    for bad in ({1: -1}, {1: float("nan")}, {"x": 1}, {1.5: 1}, {True: 1}, [1, 2], {1: "many"}):
        with pytest.raises(ValueError, match="gain"):
            normalise_gains(bad)
        with pytest.raises(ValueError):
            ndcg(two_grades, 10, gains=bad)
    with pytest.raises(ValueError, match="beta"):
        q_measure(two_grades, 10, beta=-1)
    assert normalise_gains({"2": 3, 1: 1}) == {2: 3.0, 1: 1.0}


# ----------------------------------------------------------------------- registry


def test_registry_names_and_options():
    assert parse_measure("nDCG@10") == Measure("nDCG", 10)
    assert parse_measure("Q@1000") == Measure("Q", 1000)
    assert parse_measure("Pmeasure@1000") == Measure("Pmeasure", 1000)
    assert parse_measure("RR") == Measure("RR", None)
    assert parse_measure("P@5") == Measure("P", 5)  # P stays precision
    for name in GRADED:
        definition = MEASURES[name]
        assert definition.higher_is_better and not definition.uses_alpha
        assert definition.compute is FUNCTIONS[name]
    assert MEASURES["RR"].options == ()
    for name in ("DCG", "nDCG"):  # min_grade: ranx's -lN (issue 42)
        assert MEASURES[name].options == ("gains", "gains_rest", "min_grade")
    for name in ("DCG_jk", "nDCG_jk"):
        assert MEASURES[name].options == ("gains", "gains_rest")
    for name in SAKAI:
        assert MEASURES[name].options == ("gains", "beta")


def test_score_table_rows(figure1):
    m = figure1
    names = ["nDCG@10", "Q@1000", "Pmeasure@1000", "RR"]
    table = score_table(m, names, gains={1: 1, 2: 2, 3: 3}, beta=1.0)
    n_runs = len(m.runs)
    assert list(dict.fromkeys(table.measure)) == names
    for name in names:
        rows = table[table.measure == name]
        assert len(rows) == n_runs * len(m.topics) + 2 * n_runs
        assert set(rows.averaging.dropna()) == {"all_topics", "returned_topics"}
    per_topic = table[table.averaging.isna()].set_index(["run", "measure"]).value
    assert per_topic[("X", "Pmeasure@1000")] == pytest.approx(6 / 7, rel=1e-15)
    assert per_topic[("ideal", "Q@1000")] == 1.0
    assert per_topic[("Y", "RR")] == 0.5
    # The gain map reaches the measures that declare it, beta too.
    steep = score_table(m, ["Pmeasure@1000"], gains={1: 1, 2: 2, 3: 9}, per_topic=True, averaging=("all",))
    x = steep[(steep.run == "X") & steep.averaging.isna()].value.item()
    assert x == pytest.approx((10 + 2) / (11 + 2), rel=1e-15)
    q0 = evaluate(m, ["Q"], beta=0.0)[Measure("Q")]
    assert np.array_equal(q0, average_precision(m, None))
    assert np.array_equal(evaluate(m, ["P@2"], gains={1: 5})[Measure("P", 2)], precision(m, 2))


def test_huge_gains_and_beta_stay_finite(two_grades):
    with pytest.raises(ValueError, match=r"gain of grade 1 must be in \[0, 1e\+300\], not 1e\+308"):
        normalise_gains({1: 1e308})  # two of them would sum past the largest double
    for name in SAKAI + ("DCG", "nDCG"):
        huge = scores(two_grades, name, gains={1: 1e300, 2: 1e300})
        assert np.isfinite(huge).all(), name
    # beta -> infinity: BR(r) -> cg(r) / cg*(r), finite however large beta is
    assert one(two_grades, "O(beta=1e308)", "A") == pytest.approx(1 / 3, rel=1e-15)
    assert one(two_grades, "Pmeasure(beta=1e308)", "A") == pytest.approx(3 / 3, rel=1e-15)
    assert one(two_grades, "O(beta=4)", "A") == pytest.approx((4 * 1 + 1) / (4 * 3 + 2), rel=1e-15)


def test_huge_grades_stay_finite(tmp_path):
    top = 2 ** 63 - 1
    m = campaign_matrix(tmp_path, {"1": {"a": top, "b": top - 1, "c": 1}}, {"r": {"1": ["c", "a", "b"]}})
    for name in GRADED:
        assert np.isfinite(scores(m, name)).all(), name
