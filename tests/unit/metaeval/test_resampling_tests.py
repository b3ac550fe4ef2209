"""The randomised paired tests' shared products (irmeta.metaeval.stats.resampling_tests):
their counts are those of each pair's own sums, where rounding could tell them apart
(near-identical runs, exact ties). Each test here fails with the guard removed."""

from __future__ import annotations

import itertools

import numpy as np

from irmeta.metaeval.stats.blocks import run_pairs
from irmeta.metaeval.stats.resampling_tests import bootstrap_resamples, paired_bootstrap, random_signs, randomisation
from resampling_reference import compositions, direct_bootstrap_count, exact_bootstrap_count


def test_randomisation_counts_equal_each_pairs_own_sums():
    """The flipped sums come from the runs' shared product where its rounding stays far
    below the tie band, from the pair's differences elsewhere: either way the counts are
    those of each pair's own sums. Near-identical runs (differences of 1e-13 beside
    scores near 1) need the pair's own sums."""
    rng = np.random.default_rng(8)
    base = rng.uniform(0.5, 1.0, 60)
    # differences of exactly +-2^-40: many flips tie with the observed sum
    grid = np.round(base * 64) / 64 + 2.0**-40 * np.where(rng.uniform(size=60) < 0.6, 1.0, -1.0)
    scores = np.vstack([base, base + 1e-13 * rng.standard_normal(60), base + 1e-13,
                        np.round(base * 64) / 64, grid,
                        rng.uniform(size=(5, 60)), np.round(rng.uniform(size=(3, 60)), 1)])
    signs = random_signs(400, 60, 3)
    result = randomisation(scores, signs=signs)
    a, b = run_pairs(len(scores))
    expected = []
    for x, y in zip(a, b):
        d = scores[x] - scores[y]
        threshold = abs(d.sum()) - 1e-9 * np.abs(d).sum()
        expected.append((int((np.abs(signs @ d) >= threshold).sum()) + 1) / (len(signs) + 1))  # Phipson-Smyth
    assert result.p_value.tolist() == expected
    # base against base + 1e-13 on every topic: of 400 random flips, none reaches the sum
    assert result.p_value[0] < 1 and result.p_value[1] == 1 / 401


def test_bootstrap_counts_equal_each_pairs_own_resamples():
    """The resampled shifts come from the runs' shared product unless its rounding could
    change a decision: the counts are those of each pair's own resampled differences,
    near-identical runs (differences of 1e-13 beside scores near 1) included."""
    rng = np.random.default_rng(9)
    base = rng.uniform(0.5, 1.0, 40)
    scores = np.vstack([base, base + 1e-13 * rng.standard_normal(40), base + 1e-13, base + 2e-13,
                        rng.uniform(size=(5, 40)), np.round(rng.uniform(size=(3, 40)), 1)])
    resamples = bootstrap_resamples(300, 40, 2)
    result = paired_bootstrap(scores, resamples=resamples)
    a, b = run_pairs(len(scores))
    expected = [(direct_bootstrap_count(scores[x] - scores[y], resamples) + 1) / (len(resamples) + 1)
                for x, y in zip(a, b)]
    assert result.p_value.tolist() == expected
    assert len(set(expected)) > 5


def test_bootstrap_exact_ties_survive_the_single_precision_products():
    """d = k (-2, -2, -2, 0, 2): 15 of the 5^5 resamples have |t*| = |t| exactly, which
    single-precision sums of c^2 (relative error ~1e-7, far above the 1e-9 tie band)
    would decide either way; those pairs must be decided again in double precision."""
    pattern = np.array([-2, -2, -2, 0, 2])
    everything = np.array(list(itertools.product(range(5), repeat=5)))
    base = np.random.default_rng(3).uniform(0.3, 0.6, 5)
    scores = np.vstack([base] + [base - k * pattern for k in (0.1, 1 / 3, 0.0123456789, 0.7)])
    counts, weights = compositions(5)
    expected = (exact_bootstrap_count(pattern.astype(object), counts, weights) + 1) / (len(everything) + 1)
    result = paired_bootstrap(scores, resamples=everything)
    assert result.p_value.tolist() == [expected] * len(result.p_value)
