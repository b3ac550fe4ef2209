"""cwl_eval's measures through ir_measures (issue 42): INST, INSQ, SDCG, NERR8-NERR11 and BPM.

The references are cwl_eval's own metric classes (``cwl.ruler.measures``) on each list of
random graded campaigns, whatever the list's length against the depth ``max_depth`` (the
list cut or padded), and ir_measures' cwl_eval provider on TREC-8 and TREC DL 2020 passage,
fed trec_eval's order as strictly decreasing scores (docs/PROTOCOL.md, Numerical care).
irmeta sums each stretch between documents of positive gain in closed form; cwl_eval
visits every rank: equal to 1e-12 here, to 1e-9 on the real runs.
"""

from __future__ import annotations

import logging
import math
import tempfile
from pathlib import Path

import ir_measures
import numpy as np
import pytest
from cwl.ruler.measures.cwl_bpm import BPMCWLMetric
from cwl.ruler.measures.cwl_dcg import NDCGCWLMetric
from cwl.ruler.measures.cwl_insq import INSQCWLMetric
from cwl.ruler.measures.cwl_inst import INSTCWLMetric
from cwl.ruler.measures.cwl_nerr import NERReq8CWLMetric, NERReq9CWLMetric, NERReq10CWLMetric, NERReq11CWLMetric
from cwl.ruler.ranking import Ranking
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import zeta

import innovation_reference as ref
from irmeta.measures.averaging import evaluate
from irmeta.measures.cwl import trigamma
from irmeta.measures.names import parse_measure

logging.getLogger("ir_measures").setLevel(logging.ERROR)  # its notes on max_rel against the grades seen


def cwl_metric(family: str, k: int | None, T: float, p: float):
    return {"INST": lambda: INSTCWLMetric(T), "INSQ": lambda: INSQCWLMetric(T), "SDCG": lambda: NDCGCWLMetric(k),
            "NERR8": lambda: NERReq8CWLMetric(k), "NERR9": lambda: NERReq9CWLMetric(k),
            "NERR10": lambda: NERReq10CWLMetric(p), "NERR11": lambda: NERReq11CWLMetric(T),
            "BPM": lambda: BPMCWLMetric(T, k)}[family]()


def cwl_value(family: str, ranking: list[str], judged: dict[str, int], *, k: int | None, T: float, p: float,
              min_rel: int, max_rel: int, n: int, cut: int | None) -> float:
    """cwl_eval's expected utility of one list, gains scaled as ir_measures scales them;
    ``cut``: irmeta's @k on a family without a depth of its own (the list cut there)."""
    gains = []
    for d in ranking[:cut]:
        if d not in judged:
            gains.append(math.nan)  # unjudged: cwl_eval's worst case, gain 0
        else:
            grade = min(max(max(judged[d], 0), min_rel), max_rel)
            gains.append((grade - min_rel) / (max_rel - min_rel))
    return cwl_metric(family, k, T, p).measure(Ranking("q", gains, [math.nan] * len(gains), max_n=n))


OWN_DEPTH = ("SDCG", "NERR8", "NERR9", "BPM")  # k is the measure's own (ir_measures requires it)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=ref.campaigns(), family=st.sampled_from(["INST", "INSQ", "SDCG", "NERR8", "NERR9", "NERR10",
                                                         "NERR11", "BPM"]),
       k=st.sampled_from([None, 1, 3, 8, 30]), n=st.sampled_from([1, 4, 10, 1000]),
       T=st.sampled_from([0.3, 1.0, 2.5]), p=st.sampled_from([0.5, 0.9]),
       rels=st.sampled_from([(0, 3), (1, 3), (0, 1), (-1, 2)]))
def test_each_list_equals_cwl_evals_own_metric(campaign, family, k, n, T, p, rels):
    qrels, runs, threshold = campaign
    own = k if k is not None or family not in OWN_DEPTH else n  # their k is n without @k
    min_rel, max_rel = rels
    params = {"T": T, "p": p, "min_rel": min_rel, "max_rel": max_rel, "max_depth": n}
    taken = {"INST": "T", "INSQ": "T", "NERR11": "T", "BPM": "T", "NERR10": "p"}
    inner = ",".join(f"{key}={value}" for key, value in params.items() if key in ("min_rel", "max_rel", "max_depth")
                     or taken.get(family) == key)
    name = f"{family}({inner})" + ("" if k is None else f"@{k}")
    with tempfile.TemporaryDirectory() as tmp:
        m = ref.campaign_matrix(Path(tmp), qrels, runs, threshold=threshold)
    got = evaluate(m, [name])[parse_measure(name)]
    for s, run in enumerate(m.runs):
        for q, topic in enumerate(m.topics):
            want = cwl_value(family, runs[run].get(topic, []), qrels[topic], k=own, T=T, p=p, min_rel=min_rel,
                             max_rel=max_rel, n=n, cut=None if family in OWN_DEPTH else k)
            assert got[s, q] == pytest.approx(want, rel=1e-12, abs=1e-14), (name, run, topic)


def test_max_rel_defaults_to_the_largest_grade_of_the_qrels(tmp_path):
    qrels = {"1": {"a": 3, "b": 1, "c": 0}, "2": {"x": 2}}
    runs = {"r": {"1": ["b", "z", "a"], "2": ["x"]}}
    m = ref.campaign_matrix(tmp_path, qrels, runs)
    for family in ("INST", "INSQ", "NERR10", "NERR11", "SDCG", "NERR8@5", "NERR9@5", "BPM@5"):
        base, _, cut = family.partition("@")
        explicit = f"{base}(max_rel=3)" + (f"@{cut}" if cut else "")
        got = evaluate(m, [family, explicit])
        assert np.array_equal(got[parse_measure(family)], got[parse_measure(explicit)]), family


@pytest.mark.parametrize("name,fault", [
    ("INST(T=0)", "T .* must be a finite number > 0"), ("BPM(T=-1)@10", "T .* must be a finite number > 0"),
    ("INST(min_rel=2,max_rel=1)", "max_rel must be greater than min_rel"),
    ("INSQ(max_depth=0)", "max_depth must be a whole number of ranks >= 1"),
    ("SDCG(dcg=log10)@10", "takes log2 only"), ("NERR10(p=1)", r"must be in \(0, 1\)"),
])
def test_a_setting_outside_the_measures_range_is_refused_in_one_line(tmp_path, name, fault):
    m = ref.campaign_matrix(tmp_path, {"1": {"a": 1}}, {"r": {"1": ["a"]}})
    with pytest.raises(ValueError, match=fault) as excinfo:
        evaluate(m, [name])
    assert "\n" not in str(excinfo.value)


def test_peer_spellings_read_as_the_family():
    assert str(parse_measure("INST(T=1.0,max_rel=3)")) == "INST(max_rel=3)"
    assert str(parse_measure("SDCG(dcg=log2,max_rel=3,min_rel=0)@10")) == "SDCG(max_rel=3)@10"
    assert str(parse_measure("NERR10(p=0.9)")) == "NERR10"
    assert str(parse_measure("bpm(T=2.0)@10")) == "BPM(T=2)@10"


def test_trigamma_equals_hurwitz_zeta():
    x = np.concatenate([np.linspace(1e-3, 40, 40_001), np.geomspace(40, 1e12, 500), [7.0]])
    got, want = trigamma(x), zeta(2.0, x)
    assert np.max(np.abs(got - want) / want) < 4e-15
    assert trigamma(np.float64(2.5)).shape == ()


# ------------------------------------------------------------------- ir_measures


def ir_qrels(qrels) -> list:
    return [ir_measures.Qrel(q, d, int(g)) for q, d, g in
            zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade.tolist())]


def compare_with_ir_measures(runs, qrels, matrix, names: dict[str, str], every: int) -> int:
    """Every ``every``-th run: ir_measures' value of each peer name against irmeta's name
    (``names``: peer name -> irmeta name), per topic; returns the values compared."""
    wanted = {ir_measures.parse_measure(peer): ours for peer, ours in names.items()}
    scores = evaluate(matrix, list(wanted.values()))
    evaluator = ir_measures.evaluator(list(wanted), ir_qrels(qrels))
    docids = runs.docids.to_pylist()
    compared = 0
    for r in range(0, len(runs.names), every):
        rows = np.flatnonzero(runs.run == r)
        ranked = [ir_measures.ScoredDoc(runs.topics[q], docids[d], 1e7 - float(i))
                  for i, (q, d) in enumerate(zip(runs.qid[rows].tolist(), runs.docid[rows].tolist()))]
        s = matrix.runs.index(runs.names[r])
        for metric in evaluator.iter_calc(ranked):
            ours = scores[parse_measure(wanted[metric.measure])][s, matrix.topics.index(metric.query_id)]
            assert ours == pytest.approx(metric.value, rel=1e-9, abs=1e-12), (metric, runs.names[r])
            compared += 1
    return compared


@pytest.mark.slow
def test_cwl_measures_equal_ir_measures_on_trec8(trec8_runs, trec8_qrels, trec8_matrix):
    names = {"INST(T=1.0,max_rel=1)": "INST", "INSQ(T=2.0,max_rel=1)": "INSQ(T=2)",
             "SDCG(max_rel=1)@10": "SDCG@10", "NERR8(max_rel=1)@20": "NERR8@20", "NERR9(max_rel=1)@10": "NERR9@10",
             "NERR10(p=0.8,max_rel=1)": "NERR10(p=0.8)", "NERR11(T=1.0,max_rel=1)": "NERR11",
             "BPM(T=2.0,max_rel=1)@20": "BPM(T=2)@20"}
    # 9 of the 129 runs (every 16th): cwl_eval visits each of 1000 ranks per list in Python
    assert compare_with_ir_measures(trec8_runs, trec8_qrels, trec8_matrix, names, every=16) == 9 * 50 * len(names)


@pytest.mark.slow
@pytest.mark.parametrize("threshold,every", [(1, 6), (2, 20)])
def test_cwl_measures_equal_ir_measures_on_dl2020_passage(shared_data, threshold, every):
    runs, qrels, matrix = ref.dl2020_passage(shared_data, threshold=threshold)  # the threshold changes no gain
    names = {"INST(T=1.0,max_rel=3)": "INST(max_rel=3)", "INST(T=0.3,min_rel=1,max_rel=2)":
             "INST(T=0.3,min_rel=1,max_rel=2)", "INSQ(T=1.0,max_rel=3)": "INSQ", "SDCG(max_rel=3)@10": "SDCG@10",
             "NERR8(max_rel=3)@10": "NERR8@10", "NERR9(max_rel=3)@100": "NERR9@100",
             "NERR10(max_rel=3)": "NERR10", "NERR11(T=2.0,max_rel=3)": "NERR11(T=2)",
             "BPM(T=1.0,max_rel=3)@10": "BPM@10", "BPM(T=3.0,max_rel=3)@1000": "BPM(T=3)@1000"}
    # 10 of the 59 runs (every 6th); at threshold 2 (grade 1 gains, below it: the judged postings) 3
    compared = compare_with_ir_measures(runs, qrels, matrix, names, every=every)
    assert compared == len(range(0, 59, every)) * 54 * len(names)
