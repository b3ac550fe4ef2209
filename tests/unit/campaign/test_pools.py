"""Pools and reduced judgments against brute force over the dense views of small campaigns."""

from __future__ import annotations

import numpy as np
import pytest

from campaigns import random_campaign, write_campaign
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.pools import pooled_judgments, sole_pooling_unit
from irmeta.measures.averaging import evaluate


def random_matrix(root, seed: int):
    """A small random campaign (tests/campaigns.py), judged."""
    r, q = write_campaign(root, *random_campaign(seed), pad_topic="PAD")
    return relevance_matrix(r, q)


def _brute_pools(matrix, depth):
    """{qrels row: set of runs that rank it within depth}, from the dense judgment view."""
    judgment = matrix.judgment[:, :, :depth]
    pools: dict[int, set[int]] = {}
    for s, q, r in zip(*np.nonzero(judgment >= 0)):
        pools.setdefault(int(judgment[s, q, r]), set()).add(int(s))
    return pools


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [1, 3, 10])
def test_pools_equal_brute_force(tmp_path, seed, depth):
    matrix = random_matrix(tmp_path, seed)
    rng = np.random.default_rng(seed)
    units = rng.integers(0, 3, matrix.n_runs)
    pools = _brute_pools(matrix, depth)
    expected_pooled = np.array([j in pools for j in range(len(matrix.qrels_grade))])
    np.testing.assert_array_equal(pooled_judgments(matrix, depth), expected_pooled)
    expected_sole = np.array([next(iter({int(units[s]) for s in pools[j]}))
                              if j in pools and len({int(units[s]) for s in pools[j]}) == 1 else -1
                              for j in range(len(matrix.qrels_grade))])
    np.testing.assert_array_equal(sole_pooling_unit(matrix, depth, units), expected_sole)


@pytest.mark.parametrize("seed", range(6))
def test_with_judgments_scores_as_reduced_qrels(tmp_path, seed):
    """Dropping qrels rows scores as if those documents had never been judged."""
    matrix = random_matrix(tmp_path, seed)
    rng = np.random.default_rng(100 + seed)
    keep = rng.random(len(matrix.qrels_grade)) < 0.6
    reduced = matrix.with_judgments(keep)
    assert int(reduced.n_relevant.sum()) == int((matrix.qrels_grade[keep] >= matrix.threshold).sum())
    # Brute force: the dense grade view with dropped judgments read as unjudged (grade 0).
    judgment = matrix.judgment
    dropped = (judgment >= 0) & ~keep[np.maximum(judgment, 0)]
    expected_rel = matrix.relevant & ~dropped
    np.testing.assert_array_equal(reduced.relevant, expected_rel)
    np.testing.assert_array_equal(reduced.length, matrix.length)
    got = evaluate(reduced, ["P@5", "AP", "Bpref", "nDCG@10"])
    assert all(np.isfinite(v).all() for v in got.values())
    depth = matrix.depth
    ranks = np.arange(1, depth + 1)
    ap = np.where(expected_rel, np.cumsum(expected_rel, axis=2) / ranks, 0).sum(axis=2)
    n_rel = reduced.n_relevant[None, :]
    np.testing.assert_allclose(got[next(m for m in got if str(m) == "AP")],
                               np.divide(ap, n_rel, out=np.zeros_like(ap), where=n_rel > 0), rtol=0, atol=1e-12)


def test_bad_inputs_are_refused(tmp_path):
    matrix = random_matrix(tmp_path, 0)
    with pytest.raises(ValueError, match="pool depth"):
        pooled_judgments(matrix, 0)
    with pytest.raises(ValueError, match="one code"):
        sole_pooling_unit(matrix, 5, np.zeros(matrix.n_runs + 1))
    with pytest.raises(ValueError, match="one flag per qrels row"):
        matrix.with_judgments(np.ones(3, dtype=bool))
