"""Leave-one-unit-out against brute force: the reduced qrels written as a file, the unit's
runs judged again from their files, rarity counted by hand over lists of documents."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from campaigns import random_campaign as any_random_campaign
from campaigns import write_campaign
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.rarity import document_rarity
from irmeta.campaign.run_groups import read_run_groups, run_units
from irmeta.measures.averaging import score_arrays
from irmeta.metaeval.reusability import check_pool_depth, leave_one_unit_out
from irmeta.metaeval.reusability_tables import (
    COLUMNS,
    SUMMARY_COLUMNS,
    ranks_against,
    reusability_summary,
    reusability_table,
)

MEASURES = ["P@5", "AP", "nDCG@10", "P_rareness@5", "AP_rareness@10", "P_rareness_norm@5",
            "AP_rareness_norm@10"]
ALPHAS = [0, 0.5, 1, "1/R"]


def random_campaign(seed: int):
    """4-7 runs, each topic with a judged document no run retrieves (tests/campaigns.py)."""
    return any_random_campaign(seed, min_runs=4, hand_judged=True)


def brute_left_out(root, runs, qrels, of_run, unit, *, pool_depth, rarity_depth, rule):
    """Means over topics of the unit's runs scored from files: Q_u written out, the unit's
    runs judged by it, S_d counted by hand over the runs outside u (plus the scored run for
    ``joined``)."""
    names = list(runs)
    inside = [n for n, u in zip(names, of_run) if u == unit]
    outside = [n for n, u in zip(names, of_run) if u != unit]

    def pooled_by(members):
        return {(q, d) for n in members for q, docs in runs[n].items() for d in docs[:pool_depth]}

    solely = pooled_by(inside) - pooled_by(outside)
    reduced = {q: {d: g for d, g in docs.items() if (q, d) not in solely} for q, docs in qrels.items()}
    removed = [(q, d) for q, docs in qrels.items() for d in docs if (q, d) in solely]
    r, q = write_campaign(root / f"unit{unit}_{rule}", {n: runs[n] for n in inside}, reduced, pad_topic="PAD")
    matrix = relevance_matrix(r, q)
    out = {}
    for i, name in enumerate(inside):
        counted = outside + ([name] if rule == "joined" else [])
        base = document_rarity(matrix)
        topics = np.asarray(matrix.topics)[base.topic]
        docs = matrix.docids.take(base.doc).to_pylist()
        s_d = np.array([sum(d in runs[n].get(t, [])[:rarity_depth] for n in counted) for t, d in zip(topics, docs)])
        found = dataclasses.replace(base, n_retrieving=s_d.astype(np.int64), n_systems=len(counted))
        one = matrix.subset([i])
        scores = score_arrays(one, MEASURES, averaging=("all",), alphas=ALPHAS, rarity_counts=found,
                              rarity_depth=rarity_depth)
        out[name] = {(m, a): scores.means["all_topics"][b][0] for b, (m, a) in enumerate(zip(scores.measures,
                                                                                          scores.alphas))}
    n_relevant = sum(qrels[q][d] >= 1 for q, d in removed)
    return out, len(removed), n_relevant


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("pool_depth", [2, 5])
def test_left_out_scores_equal_brute_force(tmp_path, seed, pool_depth):
    runs, qrels = random_campaign(seed)
    r, q = write_campaign(tmp_path / "full", runs, qrels, pad_topic="PAD")
    matrix = relevance_matrix(r, q)
    rng = np.random.default_rng(seed)
    of_run = rng.integers(0, 3, matrix.n_runs)
    of_run[:3] = [0, 1, 2]  # every unit has a run
    groups = {name: f"g{u}" for name, u in zip(matrix.runs, of_run)}
    units = run_units(matrix.runs, groups)
    rarity_depth = 10  # deeper than the pool: S_d counts documents below it too
    result = leave_one_unit_out(matrix, MEASURES, units, pool_depth=pool_depth, alphas=ALPHAS,
                                rarity_depth=rarity_depth)
    table = reusability_table(result)
    assert list(table.columns) == COLUMNS
    codes = {name: i for i, name in enumerate(units.names)}
    for u, unit_name in enumerate(units.names):
        for rule in ("frozen", "joined"):
            expected, n_removed, n_rel = brute_left_out(tmp_path, runs, qrels, [codes[groups[n]] for n in runs],
                                                        u, pool_depth=pool_depth, rarity_depth=rarity_depth,
                                                        rule=rule)
            rows = table[(table["unit"] == unit_name) & table["rarity"].isin([rule, "none"])]
            assert set(rows["removed_judged"]) == {n_removed}
            assert set(rows["removed_relevant"]) == {n_rel}
            for row in rows.itertuples():
                alpha = None if pd.isna(row.alpha) else row.alpha
                np.testing.assert_allclose(row.score_left_out, expected[row.run][(row.measure, alpha)],
                                           rtol=0, atol=1e-12, err_msg=f"{row.run} {row.measure} {alpha} {rule}")


def test_full_scores_and_ranks(tmp_path):
    runs, qrels = random_campaign(3)
    r, q = write_campaign(tmp_path, runs, qrels, pad_topic="PAD")
    matrix = relevance_matrix(r, q)
    units = run_units(matrix.runs)
    result = leave_one_unit_out(matrix, MEASURES, units, pool_depth=3, alphas=ALPHAS, rarity_depth=10)
    full = score_arrays(matrix, MEASURES, averaging=("all",), alphas=ALPHAS, rarity_depth=10)
    table = reusability_table(result)
    for b, (m, a) in enumerate(zip(full.measures, full.alphas)):
        rows = table[(table["measure"] == m) & (table["alpha"].fillna("") == (a or ""))]
        for _rule, part in rows.groupby("rarity"):
            np.testing.assert_array_equal(part["score_full"].to_numpy(), full.means["all_topics"][b])
            scores = part["score_full"].to_numpy()
            left = part["score_left_out"].to_numpy()
            for i in range(len(scores)):  # ranks by their definition, pair by pair
                others = np.delete(scores, i)
                assert part["rank_full"].iloc[i] == 1 + (others > scores[i]).sum()
                assert part["rank_left_out"].iloc[i] == 1 + (others > left[i]).sum()


def test_ranks_follow_the_measure_direction():
    full = np.array([0.5, 0.2, 0.9])
    np.testing.assert_array_equal(ranks_against(full, full), [2, 3, 1])
    np.testing.assert_array_equal(ranks_against(full, full, higher_is_better=False), [2, 1, 3])
    np.testing.assert_array_equal(ranks_against(full, np.array([0.1, 0.2, 0.3])), [3, 3, 2])
    np.testing.assert_array_equal(ranks_against(full, np.array([0.1, 0.2, 0.3]), higher_is_better=False),
                                  [1, 1, 2])


def test_rules_differ_as_defined(tmp_path):
    """frozen counts S - |u| runs, joined S - |u| + 1: for a one-run unit, joined is the
    campaign's own rarity (only the judgments differ), frozen drops the run's own find."""
    runs, qrels = random_campaign(5)
    r, q = write_campaign(tmp_path, runs, qrels, pad_topic="PAD")
    matrix = relevance_matrix(r, q)
    units = run_units(matrix.runs)
    depth = matrix.depth  # every list pooled whole; runs with judgments of their own alone are set aside
    keep_all = leave_one_unit_out(matrix, ["P_rareness@5", "P@5"], units, pool_depth=depth, alphas=[1],
                                  rarity_depth=10)
    table = reusability_table(keep_all)
    solely = table["removed_judged"] > 0
    joined = table[(table["rarity"] == "joined") & ~solely]
    np.testing.assert_array_equal(joined["score_left_out"], joined["score_full"])
    frozen = table[(table["rarity"] == "frozen")]
    # Frozen rarity (S - 1 runs, without the run's own finds) differs for a run
    # that found a relevant document in its top 5 that others found too or not at all.
    assert (frozen["score_left_out"] != frozen["score_full"]).any()
    assert not (table[(table["measure"] == "P@5") & ~solely]["score_left_out"]
                != table[(table["measure"] == "P@5") & ~solely]["score_full"]).any()


def test_unit_without_sole_judgments_leaves_scores_unchanged(tmp_path):
    """Two identical runs pool the same documents: neither alone pooled anything."""
    runs, qrels = random_campaign(2)
    first = next(iter(runs))
    runs = {**runs, "copy": runs[first]}
    r, q = write_campaign(tmp_path, runs, qrels, pad_topic="PAD")
    matrix = relevance_matrix(r, q)
    units = run_units(matrix.runs)
    result = leave_one_unit_out(matrix, MEASURES, units, pool_depth=5, alphas=ALPHAS, rarity_depth=10)
    table = reusability_table(result)
    for name in (first, "copy"):
        rows = table[(table["run"] == name) & table["rarity"].isin(["none", "joined"])]
        assert (rows["removed_judged"] == 0).all()
        np.testing.assert_array_equal(rows["score_left_out"], rows["score_full"])


def test_summary(tmp_path):
    runs, qrels = random_campaign(6)
    r, q = write_campaign(tmp_path, runs, qrels, pad_topic="PAD")
    matrix = relevance_matrix(r, q)
    result = leave_one_unit_out(matrix, MEASURES, run_units(matrix.runs), pool_depth=2, alphas=ALPHAS,
                                rarity_depth=10)
    table = reusability_table(result)
    summary = reusability_summary(table)
    assert list(summary.columns) == SUMMARY_COLUMNS
    assert len(summary) == len(table.groupby(["measure", "alpha", "rarity"], dropna=False))
    from scipy.stats import kendalltau

    for row in summary.itertuples():
        part = table[(table["measure"] == row.measure) & (table["rarity"] == row.rarity)
                     & (table["alpha"].fillna("") == ("" if pd.isna(row.alpha) else row.alpha))]
        expected = kendalltau(part["score_full"], part["score_left_out"]).statistic
        if np.isnan(expected):
            assert np.isnan(row.kendall_tau)
        else:
            assert row.kendall_tau == pytest.approx(expected, abs=1e-12)
        drop = part["rank_left_out"] - part["rank_full"]
        assert row.largest_rank_drop == max(0, drop.max())
        assert row.runs_dropping == (drop > 0.05 * len(part)).sum()


def test_trec8_removed_counts_equal_a_direct_count(trec8_matrix, trec8_runs, trec8_qrels, shared_data):
    """Per group, the judged and relevant documents in the top 100 of its runs and of no
    other group's, counted from the runs' rows and the qrels with pandas."""
    path = shared_data / "trec8_adhoc" / "runs_participants.tsv"
    groups = read_run_groups(path)
    units = run_units(trec8_matrix.runs, groups, source=path)
    assert units.n_units == 41
    result = leave_one_unit_out(trec8_matrix, ["P@10"], units, pool_depth=100)
    top = trec8_runs.rank <= 100
    rows = pd.DataFrame({
        "group": np.asarray([groups[n] for n in trec8_runs.names], dtype=object)[trec8_runs.run[top]],
        "qid": np.asarray(trec8_runs.topics, dtype=object)[trec8_runs.qid[top]],
        "docid": trec8_runs.docids.take(trec8_runs.docid[top]).to_pylist(),
    }).drop_duplicates()
    qrels = pd.DataFrame({"qid": trec8_qrels.qid.to_pylist(), "docid": trec8_qrels.docid.to_pylist(),
                          "grade": trec8_qrels.grade})
    n_groups = rows.groupby(["qid", "docid"])["group"].transform("size")
    alone = rows[n_groups == 1].merge(qrels, on=["qid", "docid"])
    judged = alone.groupby("group").size()
    relevant = alone[alone["grade"] >= 1].groupby("group").size()
    for u, name in enumerate(units.names):
        assert result.removed_judged[u] == judged.get(name, 0), name
        assert result.removed_relevant[u] == relevant.get(name, 0), name
    assert result.removed_judged.sum() > 0


def test_bad_groups_and_pool_depth(tmp_path):
    runs, qrels = random_campaign(1)
    r, q = write_campaign(tmp_path, runs, qrels, pad_topic="PAD")
    matrix = relevance_matrix(r, q, depth=9)
    path = tmp_path / "groups.tsv"
    path.write_text("run\tgroup\n" + "".join(f"{n}\tg\n" for n in matrix.runs) + "ghost\tg\n")
    with pytest.raises(ValueError, match=r"groups.tsv: run ghost is not among"):
        run_units(matrix.runs, read_run_groups(path), source=path)
    path.write_text("run\tgroup\n" + "".join(f"{n}\tg\n" for n in matrix.runs[1:]))
    with pytest.raises(ValueError, match=rf"groups.tsv: run {matrix.runs[0]} has no group"):
        run_units(matrix.runs, read_run_groups(path), source=path)
    with pytest.raises(ValueError, match="key 'pool_depth'"):
        check_pool_depth(10, matrix, "trec8.yaml")
    with pytest.raises(ValueError, match="two units"):
        leave_one_unit_out(matrix, ["P@5"], run_units(matrix.runs, {n: "g" for n in matrix.runs}), pool_depth=5)
    with pytest.raises(ValueError, match="rules"):
        leave_one_unit_out(matrix, ["P@5"], run_units(matrix.runs), pool_depth=5, rules=["thawed"])


PAPER_MEASURES = ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100", "P_rareness_norm@100",
                  "AP_rareness_norm@100"]


def _top_rows(runs, names, depth):
    """(run, qid, docid) of the named runs' top ``depth``, from the runs' rows."""
    codes = [runs.names.index(n) for n in names]
    wanted = np.isin(runs.run, codes) & (runs.rank <= depth)
    return pd.DataFrame({
        "run": np.asarray(runs.names, dtype=object)[runs.run[wanted]],
        "qid": np.asarray(runs.topics, dtype=object)[runs.qid[wanted]],
        "docid": runs.docids.take(runs.docid[wanted]).to_pylist(),
    })


@pytest.mark.slow
def test_trec8_left_out_scores_equal_brute_force(tmp_path, trec8_matrix, trec8_runs, trec8_qrels, shared_data):
    """Two groups of TREC-8 (the one losing most judgments, and one with a single run): Q_u
    written as a qrels file, the group's runs judged by it, S_d counted with pandas."""
    from irmeta.campaign.qrels import read_qrels

    groups = read_run_groups(shared_data / "trec8_adhoc" / "runs_participants.tsv")
    units = run_units(trec8_matrix.runs, groups)
    alphas = [0, 0.5, 1]
    result = leave_one_unit_out(trec8_matrix, PAPER_MEASURES, units, pool_depth=100, alphas=alphas)
    table = reusability_table(result)
    sizes = np.bincount(units.of_run)
    chosen = [int(np.argmax(result.removed_judged)), int(np.flatnonzero(sizes == 1)[0])]
    qrels = pd.DataFrame({"qid": trec8_qrels.qid.to_pylist(), "docid": trec8_qrels.docid.to_pylist(),
                          "grade": trec8_qrels.grade})
    for u in chosen:
        inside = [n for n in trec8_matrix.runs if groups[n] == units.names[u]]
        outside = [n for n in trec8_matrix.runs if groups[n] != units.names[u]]
        pooled_in = _top_rows(trec8_runs, inside, 100)[["qid", "docid"]].drop_duplicates()
        pooled_out = _top_rows(trec8_runs, outside, 100)[["qid", "docid"]].drop_duplicates()
        alone = pooled_in.merge(pooled_out, how="left", indicator=True).query("_merge == 'left_only'")
        marked = qrels.merge(alone[["qid", "docid"]].assign(alone=True), how="left", on=["qid", "docid"])
        reduced = marked[marked["alone"].isna()]
        path = tmp_path / f"qrels_{u}.txt"
        path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in reduced[["qid", "docid", "grade"]].itertuples(
            index=False)))
        matrix = relevance_matrix(trec8_runs.select(inside), read_qrels(path), depth=1000)
        assert matrix.topics == trec8_matrix.topics
        relevant = reduced[reduced["grade"] >= 1][["qid", "docid"]]
        base = document_rarity(matrix, depth=100)
        keys = pd.MultiIndex.from_arrays([np.asarray(matrix.topics, dtype=object)[base.topic],
                                          matrix.docids.take(base.doc).to_pylist()], names=["qid", "docid"])
        top = _top_rows(trec8_runs, trec8_matrix.runs, 100).merge(relevant)
        outside_s_d = top[top["run"].isin(outside)].groupby(["qid", "docid"]).size().reindex(keys, fill_value=0)
        for i, name in enumerate(inside):
            own = top[top["run"] == name].groupby(["qid", "docid"]).size().reindex(keys, fill_value=0)
            for rule in ("frozen", "joined"):
                s_d = outside_s_d + (own if rule == "joined" else 0)
                found = dataclasses.replace(base, n_retrieving=s_d.to_numpy(np.int64),
                                            n_systems=len(outside) + (rule == "joined"))
                scores = score_arrays(matrix.subset([i]), PAPER_MEASURES, averaging=("all",), alphas=alphas,
                                      rarity_counts=found)
                rows = table[(table["run"] == name) & table["rarity"].isin([rule, "none"])]
                assert len(rows) == 2 + 4 * len(alphas)
                for row in rows.itertuples():
                    b = scores.block(row.measure, None if pd.isna(row.alpha) else row.alpha)
                    np.testing.assert_allclose(row.score_left_out, scores.means["all_topics"][b][0], rtol=0,
                                               atol=1e-12, err_msg=f"{name} {row.measure} {row.alpha} {rule}")


@pytest.mark.slow
def test_figure_is_written(tmp_path):
    from irmeta.artefacts.figures.reusability import plot_reusability, shown_rows

    runs, qrels = random_campaign(7)
    r, q = write_campaign(tmp_path, runs, qrels, pad_topic="PAD")
    matrix = relevance_matrix(r, q)
    table = reusability_table(leave_one_unit_out(matrix, MEASURES, run_units(matrix.runs), pool_depth=2,
                                                 alphas=ALPHAS, rarity_depth=10))
    shown = shown_rows(table)
    assert set(shown.loc[shown["alpha"].notna(), "alpha"]) == {"1"}  # the largest numeric alpha, not 1/R
    png, pdf = plot_reusability(table, tmp_path / "reusability", title="test")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and pdf.read_bytes()[:5] == b"%PDF-"
