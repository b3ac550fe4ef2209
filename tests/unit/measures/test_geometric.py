"""The geometric mean over topics (averaging ``geometric``): trec_eval's gm_map rule.

(a) AP at depth 1000 under ``geometric`` equals pytrec_eval's gm_map (trec_eval -c -m gm_map)
    on every TREC-8 run, pytrec_eval fed trec_eval's order as scores (docs/PROTOCOL.md,
    Numerical care); a topic a run does not return counts as log(1e-5), as -c counts it.
(b) The floor and the order by hand, the scores-file path and ``irmeta score --average geometric``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from campaigns import write_campaign
from irmeta.measures.averaging import AVERAGING_NAMES, GEOMETRIC_FLOOR, geometric_means, mean_scores, score_arrays
from irmeta.measures.precision import average_precision

pytrec_eval = pytest.importorskip("pytrec_eval")


def _pytrec_gm_map(trec8_runs, trec8_qrels, topics):
    from test_exactness import qrels_dict, run_dicts

    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict(trec8_qrels), {"gm_map"})
    out = {}
    for name, per_topic in run_dicts(trec8_runs, 1000, raw_scores=False).items():
        logs = {q: v["gm_map"] for q, v in evaluator.evaluate(dict(per_topic)).items()}
        # -c: a qrels topic the run lacks scores 0, so its log is log(1e-5)
        values = [logs.get(q, math.log(GEOMETRIC_FLOOR)) for q in topics]
        out[name] = pytrec_eval.compute_aggregated_measure("gm_map", values)
    return out


@pytest.mark.slow
def test_ap_geometric_equals_gm_map_on_trec8(trec8_runs, trec8_qrels, trec8_matrix):
    ours = mean_scores(trec8_matrix, average_precision(trec8_matrix, None), "geometric")
    reference = _pytrec_gm_map(trec8_runs, trec8_qrels, trec8_matrix.topics)
    assert len(reference) == trec8_matrix.n_runs == 129
    got = np.array([ours[trec8_matrix.runs.index(name)] for name in reference])
    want = np.array(list(reference.values()))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    # the geometric mean is below the arithmetic one (AM-GM), strictly for uneven topics
    arithmetic = mean_scores(trec8_matrix, average_precision(trec8_matrix, None), "all")
    assert (ours < arithmetic).all()


def test_floor_and_order_by_hand():
    values = np.array([[0.5, 0.0, 0.2], [0.2, 0.5, -1.0], [1.0, 1.0, 1.0]])
    got = geometric_means(values)
    want = [math.exp((math.log(0.5) + math.log(1e-5) + math.log(0.2)) / 3)] * 2 + [1.0]
    assert got.tolist() == pytest.approx(want, rel=1e-15)
    assert got[0] == got[1]  # the same multiset of (floored) scores: the same bits
    assert geometric_means(np.zeros((2, 0))).tolist() == [0.0, 0.0]


def test_every_path_gives_it(tmp_path):
    import irmeta
    from irmeta.campaign.judge import relevance_matrix
    from irmeta.cli import main
    from irmeta.measures.score_files import read_score_file, scores_from_table

    runs, qrels = write_campaign(tmp_path, {"A": {"1": ["a", "x", "b"], "2": ["y", "c"]}, "B": {"1": ["b"]}},
                                 {"1": {"a": 1, "b": 1, "x": 0}, "2": {"c": 1, "y": 0}, "3": {"d": 1}})
    matrix = relevance_matrix(runs, qrels)
    scores = score_arrays(matrix, ["AP", "P@2"], averaging=("all", "geometric"))
    per_topic = scores.per_topic
    want = np.exp(np.log(np.maximum(per_topic, 1e-5)).mean(axis=-1))
    np.testing.assert_allclose(scores.means[AVERAGING_NAMES["geometric"]], want, rtol=1e-14)
    api = irmeta.score(tmp_path / "qrels.txt", [tmp_path / "runs"], ["AP", "P@2"], average="geometric").scores
    assert np.array_equal(api.means[AVERAGING_NAMES["geometric"]], scores.means[AVERAGING_NAMES["geometric"]])
    # from a scores file: the per-topic rows give the same geometric means
    path = tmp_path / "scores.tsv"
    assert main(["score", "--qrels", str(tmp_path / "qrels.txt"), "--runs", str(tmp_path / "runs"), "--measure", "AP",
                 "--measure", "P@2", "--per-topic", "--output", str(path)]) == 0
    table = read_score_file(path)
    read = scores_from_table(table, ["AP", "P@2"], [])
    np.testing.assert_allclose(read.means[AVERAGING_NAMES["geometric"]], want, rtol=1e-14)
    # the CLI names the geometric mean rows gm_<measure>, trec_eval's gm_map
    out = tmp_path / "gm.txt"
    assert main(["score", "--qrels", str(tmp_path / "qrels.txt"), "--runs", str(tmp_path / "runs"), "--measure", "map",
                 "--average", "geometric", "--format", "trec_eval", "--output", str(out)]) == 0
    lines = [line.split() for line in out.read_text().splitlines() if line.startswith("gm_map")]
    assert [float(v) for _, _, v in lines] == [round(x, 4) for x in want[0]]
    with pytest.raises(ValueError, match="geometric"):
        irmeta.score(tmp_path / "qrels.txt", [tmp_path / "runs"], ["AP"], average="geometrical")
