"""Collection properties (irmeta.campaign.properties) against brute-force counts: plain
Python over the ranked lists, on small drawn campaigns (hypothesis) and on TREC-8 with
its participants file; the run-groups reader's refusals; the rarity depth the pipeline picks."""

from __future__ import annotations

import statistics
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import write, write_campaign
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.properties import PROPERTY_COLUMNS, collection_properties, groups_of_runs
from irmeta.pipeline.experiment_settings import properties_rarity_depth


def brute_force(lists, qrels, threshold, depth, groups, topics, pool_depth=None):
    """The properties from the lists themselves: (topic, doc) -> runs holding it in the top ``depth``;
    with ``pool_depth`` (whole lists given), how deep each run is wholly judged, counted document by document."""
    holders = defaultdict(set)
    for run, per_topic in lists.items():
        for q, docs in per_topic.items():
            for d in docs[:depth]:
                if qrels.get(q, {}).get(d, -99) >= threshold:
                    holders[(q, d)].add(run)
    found = [runs for runs in holders.values() if runs]
    n_runs = len(lists)
    judged = [len(qrels.get(q, {})) for q in topics]
    relevant = [sum(g >= threshold for g in qrels.get(q, {}).values()) for q in topics]
    nan = float("nan")
    return {
        "runs": n_runs, "groups": len(set(groups.values())) if groups else nan, "topics": len(topics),
        "judged_per_topic_mean": statistics.fmean(judged), "judged_per_topic_median": statistics.median(judged),
        "relevant_per_topic_mean": statistics.fmean(relevant), "relevant_per_topic_median": statistics.median(relevant),
        "unique_run_relevant_share": sum(len(r) == 1 for r in found) / len(found) if found else nan,
        "unique_group_relevant_share": (sum(len({groups[x] for x in r}) == 1 for r in found) / len(found)
                                        if found and groups else nan),
        "mean_rarity": statistics.fmean(1 - len(r) / n_runs for r in found) if found else nan,
    } | ({} if pool_depth is None else brute_judged_depth(lists, qrels, topics, pool_depth))


def brute_judged_depth(lists, qrels, topics, pool_depth):
    """Per run, the median over the qrels topics it returned of the leading documents with a
    qrels entry (counted to twice the pool depth); over runs their median and least, and the
    share judged to the pool depth (or the whole list) on more than half of its topics."""
    medians, judged_to_pool = [], []
    for per_topic in lists.values():
        returned = [docs for q, docs in per_topic.items() if q in topics and docs]
        if not returned:
            continue
        leading = []
        for q, docs in per_topic.items():
            if q in topics and docs:
                n = 0
                while n < min(len(docs), 2 * pool_depth) and docs[n] in qrels.get(q, {}):
                    n += 1
                leading.append((n, len(docs)))
        medians.append(statistics.median(n for n, _ in leading))
        judged_to_pool.append(2 * sum(n >= min(pool_depth, size) for n, size in leading) > len(leading))
    nan = float("nan")
    return {"judged_depth_median": statistics.median(medians) if medians else nan,
            "judged_depth_min": min(medians) if medians else nan,
            "runs_judged_to_pool_depth": sum(judged_to_pool) / len(medians) if medians else nan}


def assert_row(got, want):
    assert list(got) == list(PROPERTY_COLUMNS)
    for key, value in want.items():
        if isinstance(value, float) and np.isnan(value):
            assert np.isnan(got[key]), key
        else:
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


@st.composite
def campaigns(draw):
    n_runs = draw(st.integers(1, 6))
    topics = [str(t + 1) for t in range(draw(st.integers(1, 4)))]
    pool = [f"D{i}" for i in range(draw(st.integers(1, 8)))]
    lists = {}
    for s in range(n_runs):
        lists[f"run{s}"] = {q: list(draw(st.permutations(pool)))[:draw(st.integers(1, len(pool)))] for q in topics
                            if draw(st.booleans())}
    qrels = {q: {d: draw(st.integers(-1, 3)) for d in draw(st.lists(st.sampled_from(pool + [f"U{q}"]), min_size=1,
                                                                      unique=True))} for q in topics}
    groups = draw(st.one_of(st.none(), st.just({r: f"g{draw(st.integers(0, 2))}" for r in lists})))
    return dict(lists=lists, qrels=qrels, groups=groups, depth=draw(st.integers(1, len(pool) + 1)),
                threshold=draw(st.sampled_from([1, 2])))


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaigns())
def test_against_brute_force(c):
    with tempfile.TemporaryDirectory() as tmp:
        runs, qrels = write_campaign(Path(tmp), c["lists"], c["qrels"], pad_topic="999")
        matrix = relevance_matrix(runs, qrels, threshold=c["threshold"])
    got = collection_properties(matrix, collection="small", rarity_depth=c["depth"], pool_depth=7,
                                run_groups=c["groups"])
    assert got["collection"] == "small" and got["pool_depth"] == 7
    assert_row(got, brute_force(c["lists"], c["qrels"], c["threshold"], c["depth"], c["groups"], matrix.topics,
                                pool_depth=7))


@pytest.mark.slow
def test_trec8_against_brute_force(trec8_runs, trec8_qrels, trec8_matrix, shared_data):
    groups = groups_of_runs(shared_data / "trec8_adhoc" / "runs_participants.tsv", trec8_matrix.runs)
    got = collection_properties(trec8_matrix, collection="TREC-8", rarity_depth=100, pool_depth=100,
                                run_groups=groups)
    qrels = defaultdict(dict)
    for q, d, g in zip(trec8_qrels.qid.to_pylist(), trec8_qrels.docid.to_pylist(), trec8_qrels.grade.tolist()):
        qrels[q][d] = g
    docids = trec8_runs.docids.to_pylist()
    lists = {name: defaultdict(list) for name in trec8_runs.names}
    keep = trec8_runs.rank <= 100
    order = np.lexsort((trec8_runs.rank[keep], trec8_runs.qid[keep], trec8_runs.run[keep]))
    for r, q, d in zip(trec8_runs.run[keep][order].tolist(), trec8_runs.qid[keep][order].tolist(),
                       trec8_runs.docid[keep][order].tolist()):
        lists[trec8_runs.names[r]][trec8_runs.topics[q]].append(docids[d])
    want = brute_force(lists, qrels, 1, 100, groups, trec8_matrix.topics)
    assert want["runs"] == 129 and want["groups"] == 41 and want["topics"] == 50
    assert_row(got, want)
    # one run alone is unique only when its group has one run: the group share is the larger
    assert got["unique_group_relevant_share"] > got["unique_run_relevant_share"]


def test_run_groups_refusals(tmp_path):
    path = write(tmp_path / "groups.tsv", "run\tgroup\nA\tg1\nB\tg2\n")
    assert groups_of_runs(path, ["B", "A"]) == {"B": "g2", "A": "g1"}
    with pytest.raises(ValueError, match="run C has no group"):
        groups_of_runs(path, ["A", "B", "C"])
    with pytest.raises(ValueError, match=r"groups.tsv: line 3: run A is listed twice"):
        groups_of_runs(write(tmp_path / "groups.tsv", "run\tgroup\nA\tg1\nA\tg2\n"), ["A"])
    with pytest.raises(ValueError, match=r"groups.tsv: line 2: expected a run and its group"):
        groups_of_runs(write(tmp_path / "groups.tsv", "run\tgroup\nA\n"), ["A"])
    # TREC's participants file: the participant column, whatever its place
    trec = write(tmp_path / "participants.tsv", "run\ttask\tparticipant\nA\tadhoc\tg1\nZ\tadhoc\tg9\n")
    assert groups_of_runs(trec, ["A", "Z"]) == {"A": "g1", "Z": "g9"}
    # a run the collection lacks is refused, as reusability refuses it (one reader)
    with pytest.raises(ValueError, match="run Z is not among the collection's runs"):
        groups_of_runs(trec, ["A"])


def test_rarity_depth_of_config():
    assert properties_rarity_depth(["P@100", "AP_rareness@50", "P_rareness@100"], None) == 50
    assert properties_rarity_depth(["P@100", "P_rareness@100"], 20) == 20
    assert properties_rarity_depth(["P@100", "AP"], None) is None


def test_scores_only_row(tmp_path):
    """A collection of scores without rankings: runs, topics and judging from its scores and
    qrels; the ranking columns empty."""
    import pandas as pd

    from irmeta.measures.averaging import score_arrays
    from irmeta.pipeline.properties import describe_collection, gather_properties
    from irmeta.pipeline.stored_scores import write_scores

    lists = {"A": {"1": ["a", "x"], "2": ["c"]}, "B": {"1": ["b"]}}
    qrels = {"1": {"a": 1, "b": 2, "x": 0}, "2": {"c": 1, "y": 0, "z": 0}, "3": {"d": 0}}
    runs, q = write_campaign(tmp_path, lists, qrels)
    scores = score_arrays(relevance_matrix(runs, q), ["P@2"])
    write_scores(scores, tmp_path / "scores.npz", {})
    write(tmp_path / "groups.tsv", "run\tgroup\nA\tg\nB\tg\n")
    row = describe_collection(out=tmp_path / "row.csv", collection="S", pool_depth=20, rarity_depth=None,
                              scores=tmp_path / "scores.npz", qrels=tmp_path / "qrels.txt",
                              run_groups=tmp_path / "groups.tsv", threshold=2)
    assert row["runs"] == 2 and row["groups"] == 1 and row["topics"] == 3 and row["pool_depth"] == 20
    assert row["judged_per_topic_mean"] == pytest.approx(7 / 3) and row["judged_per_topic_median"] == 3
    assert row["relevant_per_topic_mean"] == pytest.approx(1 / 3) and row["relevant_per_topic_median"] == 0
    assert all(np.isnan(row[c]) for c in ("unique_run_relevant_share", "unique_group_relevant_share", "mean_rarity"))
    table = gather_properties([tmp_path / "row.csv"], tmp_path / "all.csv")
    assert list(table.columns) == list(PROPERTY_COLUMNS)
    assert pd.read_csv(tmp_path / "all.csv")["mean_rarity"].isna().all()
