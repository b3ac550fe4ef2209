"""Every trec_eval name irmeta reads gives trec_eval's value for the same flags.

pytrec-eval-terrier (trec_eval 9's code) is the reference: per topic and mean, to 1e-9,
for -M (the depth runs are read to), -l (the relevance threshold) and -c (averaging
over every qrels topic) on TREC-8 (binary, 129 runs), CLEF TAR 2017 (messy runs up to
12,800 deep) and two graded campaigns: the real TREC 2014 Web Track qrels (grades -2..4)
with runs drawn from them, and irmeta's simulated demo (grades 0..2, tied scores).
pytrec_eval is fed trec_eval's order as scores (docs/PROTOCOL.md, Numerical care): the
order itself is checked against NIST's figures in test_exactness.py.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import Qrels, read_qrels
from irmeta.campaign.runs import Runs, read_runs
from irmeta.measures.averaging import score_table
from irmeta.measures.names import parse_measure
from irmeta.simulate import simulate_campaign

pytrec_eval = pytest.importorskip("pytrec_eval")

# The names as trec_eval prints them, and how pytrec_eval is asked for them.
NAMES = ("P_5", "P_100", "map", "map_cut_100", "recip_rank", "ndcg", "ndcg_cut_10", "ndcg_cut_100",
         "recall_100", "recall_1000", "Rprec", "bpref", "set_P", "set_recall", "set_F", "success_1",
         "success_10")
REQUEST = {"P.5,100", "map", "map_cut.100", "recip_rank", "ndcg", "ndcg_cut.10,100", "recall.100,1000",
           "Rprec", "bpref", "set_P", "set_recall", "set_F", "success.1,10"}
TOLERANCE = 1e-9


def qrels_for_pytrec(qrels: Qrels) -> dict[str, dict[str, int]]:
    """{qid: {docid: grade}} without negative grades. trec_eval reads a negative grade as
    "in the pool, unjudged", which every measure here treats as an unjudged document;
    leaving them out also keeps pytrec-eval-terrier 0.5.11 from corrupting memory on a
    topic with no grade >= 0."""
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for q, d, g in zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade.tolist()):
        if g >= 0:
            out[q][d] = int(g)
    return dict(out)


def runs_in_trec_order(runs: Runs) -> dict[str, dict[str, dict[str, float]]]:
    """{run: {qid: {docid: n - position}}}: trec_eval's order as strictly decreasing scores."""
    docids = np.asarray(runs.docids.to_pylist(), dtype=object)
    out: dict[str, dict[str, dict[str, float]]] = {name: defaultdict(dict) for name in runs.names}
    scores = (1e7 - runs.rank.astype(np.float64)).tolist()
    for r, q, d, s in zip(runs.run.tolist(), runs.qid.tolist(), docids[runs.docid].tolist(), scores):
        out[runs.names[r]][runs.topics[q]][d] = s
    return out


def compare(runs: Runs, qrels: Qrels, *, threshold: int) -> int:
    """Assert irmeta's per-topic values and both means equal trec_eval's; return how many
    values were compared."""
    matrix = relevance_matrix(runs, qrels, threshold=threshold)
    table = score_table(matrix, list(NAMES), averaging=("all", "returned"))
    ours = {(row.run, row.measure, row.qid, row.averaging if isinstance(row.averaging, str) else ""): row.value
            for row in table.itertuples()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_for_pytrec(qrels), REQUEST, relevance_level=threshold)
    qrels_topics = set(matrix.topics)
    differ, compared = [], 0
    for run, per_topic in runs_in_trec_order(runs).items():
        result = evaluator.evaluate({q: docs for q, docs in per_topic.items() if q in qrels_topics})
        s = matrix.runs.index(run)
        returned = [q for i, q in enumerate(matrix.topics) if matrix.returned[s, i]]
        for name in NAMES:
            measure = str(parse_measure(name))
            # trec_eval: a topic the run did not return, or with no judgment >= 0, scores 0.
            theirs = {q: result.get(q, {}).get(name, 0.0) for q in matrix.topics}
            for q, value in theirs.items():
                compared += 1
                if abs(ours[(run, measure, q, "")] - value) > TOLERANCE:
                    differ.append((run, name, q, ours[(run, measure, q, "")], value))
            mean_all = sum(theirs.values()) / len(theirs)  # trec_eval -c
            mean_returned = sum(theirs[q] for q in returned) / len(returned) if returned else 0.0
            for mode, value in (("all_topics", mean_all), ("returned_topics", mean_returned)):
                compared += 1
                if abs(ours[(run, measure, "all", mode)] - value) > TOLERANCE:
                    differ.append((run, name, mode, ours[(run, measure, "all", mode)], value))
    assert not differ, f"{len(differ)} of {compared} values differ from trec_eval, e.g. {differ[:6]}"
    return compared


@pytest.mark.slow
@pytest.mark.parametrize("depth", [1000, 100])
def test_trec8(shared_data, trec8_qrels, trec8_runs, depth):
    runs = trec8_runs if depth == 1000 else read_runs(shared_data / "trec8_adhoc" / "runs", depth=depth)
    assert compare(runs, trec8_qrels, threshold=1) == 129 * len(NAMES) * (50 + 2)


@pytest.mark.slow
def test_clef_tar(clef_runs, clef_qrels):
    assert clef_runs.rank.max() > 10_000  # whole candidate sets: recall_1000, set_P, bpref read deep
    assert compare(clef_runs, clef_qrels, threshold=1) == clef_runs.n_runs * len(NAMES) * (30 + 2)


def web2014_runs(root: Path, qrels: Qrels, n_runs: int = 12, seed: int = 2014) -> Path:
    """Runs drawn from the real graded qrels: per topic, judged documents of every grade
    (spam included) and unjudged ones, scores on a coarse grid so ties are common."""
    rng = np.random.default_rng(seed)
    docids = np.asarray(qrels.docid.to_pylist(), dtype=object)
    qids = np.asarray(qrels.qid.to_pylist(), dtype=object)
    for r in range(n_runs):
        lines = []
        for topic in rng.permutation(qrels.topics)[: len(qrels.topics) - r % 3]:  # some runs skip topics
            judged = docids[qids == topic]
            picked = rng.choice(judged, size=min(len(judged), int(rng.integers(5, 150))), replace=False)
            docs = np.concatenate([picked, [f"unjudged-{topic}-{i}" for i in range(int(rng.integers(0, 40)))]])
            scores = np.round(rng.normal(size=len(docs)), 1)
            lines += [f"{topic} Q0 {d} 0 {s} run{r}\n" for d, s in zip(docs, scores)]
        (root / f"run{r}").write_text("".join(lines))
    return root


@pytest.mark.slow
@pytest.mark.parametrize("threshold", [1, 2, 3])
@pytest.mark.parametrize("depth", [None, 50])
def test_graded_web2014(shared_data, tmp_path_factory, threshold, depth):
    qrels = read_qrels(shared_data / "qrels_only" / "web2014_adhoc.qrels.txt")
    assert qrels.grade.min() == -2 and qrels.grade.max() == 4
    root = tmp_path_factory.mktemp("web2014")
    runs = read_runs(web2014_runs(root, qrels), depth=depth)
    assert compare(runs, qrels, threshold=threshold) > 0


@pytest.mark.parametrize("threshold", [1, 2])
def test_graded_simulated(tmp_path, threshold):
    made = simulate_campaign(tmp_path / "demo", seed=7, n_runs=10, n_topics=12, depth=60)
    qrels = read_qrels(made["qrels"])
    assert set(qrels.grade.tolist()) == {0, 1, 2}
    runs = read_runs(tmp_path / "demo" / "runs")
    assert compare(runs, qrels, threshold=threshold) == 10 * len(NAMES) * (12 + 2)
