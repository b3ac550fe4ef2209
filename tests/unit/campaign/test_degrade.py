"""Degraded reproductions (irmeta.campaign.degrade): what each kind changes, level 0 the
run itself, and every stream keyed by seed, kind, run, level and trial alone."""

from __future__ import annotations

import numpy as np
import pytest

from irmeta.campaign.degrade import (
    as_run,
    degradation_rng,
    degrade_run,
    name_key,
    perturb_scores,
    replace_documents,
    swap_adjacent,
    topic_pools,
)

DOCS = [f"d{i:02d}" for i in range(40)]
RUN = {"1": (DOCS, np.arange(40, 0, -1, dtype=np.float64)), "2": (DOCS[:10], np.linspace(1, 0, 10))}
OTHER = {"1": ([f"x{i}" for i in range(30)] + DOCS[:5], np.arange(35, 0, -1.0)), "2": (["y1", "y2"], np.ones(2))}


@pytest.mark.parametrize("kind", ["swap", "replace", "noise"])
def test_level_zero_is_the_run_itself(kind):
    rng = degradation_rng(1, kind, "r", 0.0, 0)
    assert degrade_run(RUN, kind, 0.0, rng, topic_pools({"r": RUN, "o": OTHER})) == {t: d for t, (d, _) in RUN.items()}


def test_swap_moves_only_adjacent_pairs_top_down():
    out = swap_adjacent(DOCS, 1.0, np.random.default_rng(0))
    # every pair swapped top down: the first document travels to the bottom
    assert out == DOCS[1:] + DOCS[:1]
    some = swap_adjacent(DOCS, 0.3, np.random.default_rng(5))
    assert sorted(some) == DOCS and some != DOCS


def test_replace_draws_unretrieved_documents_of_the_other_runs():
    pool = topic_pools({"r": RUN, "o": OTHER})["1"]
    out = replace_documents(DOCS, 0.5, pool, np.random.default_rng(3))
    new = [d for d in out if d not in DOCS]
    assert new and set(new) <= {f"x{i}" for i in range(30)} and len(set(out)) == len(out) == len(DOCS)
    assert [d for d in out if d in DOCS] == [d for d in DOCS if d in out]  # kept documents keep their order
    # the pool runs out: the rest stay
    assert replace_documents(DOCS[:10], 1.0, ["y1", *DOCS[:10]], np.random.default_rng(0)).count("y1") == 1


def test_noise_reranks_in_trec_eval_order():
    scores = np.array([3.0, 2.0, 2.0, 1.0])
    assert perturb_scores(["a", "b", "c", "d"], scores, 0.0, np.random.default_rng(0)) == ["a", "c", "b", "d"]
    shuffled = perturb_scores(DOCS, RUN["1"][1], 0.4, np.random.default_rng(1))
    assert sorted(shuffled) == DOCS and shuffled != DOCS


def test_streams_are_keyed_by_name_level_and_trial_alone():
    a = degradation_rng(7, "swap", "run1", 0.1, 3).random(4)
    assert np.array_equal(a, degradation_rng(7, "swap", "run1", 0.1, 3).random(4))
    for other in (degradation_rng(7, "swap", "run2", 0.1, 3), degradation_rng(7, "swap", "run1", 0.2, 3),
                  degradation_rng(7, "swap", "run1", 0.1, 4), degradation_rng(7, "noise", "run1", 0.1, 3),
                  degradation_rng(8, "swap", "run1", 0.1, 3)):
        assert not np.array_equal(a, other.random(4))
    assert name_key("run1") == int.from_bytes(__import__("hashlib").sha256(b"run1").digest()[:8], "big") >> 1
    with pytest.raises(ValueError, match="degradation kind must be one of swap, replace, noise, not 'flip'"):
        degradation_rng(1, "flip", "r", 0.1, 0)
    with pytest.raises(ValueError, match=r"degradation level must be in \[0, 1\], not 1.5"):
        degradation_rng(1, "swap", "r", 1.5, 0)


def test_as_run_keeps_the_order():
    assert as_run({"1": ["b", "a"]}) == {"1": {"b": 2.0, "a": 1.0}}
