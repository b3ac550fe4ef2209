"""Agreement at the top of two rankings (irmeta.metaeval.top_ranks) against brute force:
Python's own sort by (-mean, name), sets of the first k, and a loop over the runs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from irmeta.metaeval.top_ranks import TOP_COLUMNS, ranks, top_agreement


def brute_order(means, runs) -> list[str]:
    return [run for _, run in sorted(zip((-float(m) for m in means), runs))]


def brute_row(reference, judgments, runs) -> dict:
    ref, alt = brute_order(reference, runs), brute_order(judgments, runs)
    row = {"top1_same": ref[0] == alt[0]}
    for k in (5, 10):
        row[f"top{k}_overlap"] = len(set(ref[:k]) & set(alt[:k])) / k if len(runs) >= k else math.nan
    change = {run: abs(ref.index(run) - alt.index(run)) for run in runs}
    largest = max(change.values())
    row["largest_rank_change"] = largest
    row["largest_rank_change_run"] = "" if largest == 0 else min(
        (ref.index(run), run) for run in runs if change[run] == largest)[1]
    return row


def same(a: dict, b: dict) -> bool:
    return all((isinstance(a[c], float) and math.isnan(a[c]) and math.isnan(b[c])) or a[c] == b[c]
               for c in TOP_COLUMNS)


@pytest.mark.parametrize("n_runs", [1, 2, 4, 5, 7, 10, 13, 30])
def test_every_column_equals_brute_force_with_and_without_ties(n_runs):
    rng = np.random.default_rng(n_runs)
    for trial in range(40):
        runs = [f"run{int(i):03d}" for i in rng.permutation(n_runs)]
        # few distinct values (ties, decided by name) in half the trials
        scale = 3 if trial % 2 else 10**6
        reference = rng.integers(0, scale, n_runs) / scale
        judgments = np.where(rng.random(n_runs) < 0.5, reference, rng.integers(0, scale, n_runs) / scale)
        got = top_agreement(reference, judgments, runs)
        assert list(got) == list(TOP_COLUMNS)
        assert same(got, brute_row(reference, judgments, runs)), (got, brute_row(reference, judgments, runs))


def test_a_ranking_against_itself_agrees_fully():
    rng = np.random.default_rng(3)
    means = rng.random(12)
    runs = [f"r{i}" for i in range(12)]
    got = top_agreement(means, means.copy(), runs)
    assert got == {"top1_same": True, "top5_overlap": 1.0, "top10_overlap": 1.0, "largest_rank_change": 0,
                   "largest_rank_change_run": ""}


def test_fewer_runs_than_k_leave_the_overlap_missing():
    got = top_agreement(np.array([0.3, 0.2, 0.1]), np.array([0.1, 0.2, 0.3]), ["a", "b", "c"])
    assert math.isnan(got["top5_overlap"]) and math.isnan(got["top10_overlap"])
    assert got["top1_same"] is False
    # a and c trade places (2 ranks each); a, first in the reference, is named
    assert got["largest_rank_change"] == 2 and got["largest_rank_change_run"] == "a"


def test_ranks_break_ties_by_name_and_refuse_repeated_names():
    assert ranks(np.array([1.0, 2.0, 1.0]), ["b", "c", "a"]).tolist() == [3, 1, 2]
    with pytest.raises(ValueError, match="distinct"):
        top_agreement(np.zeros(2), np.zeros(2), ["a", "a"])
