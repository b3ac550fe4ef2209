"""Rarity functions (issue 20): ``linear`` (eq. 2), ``log``, ``inverse`` and their [0, 1]
forms against the formulas written out; the ``rarity`` parameter of P_rareness and
AP_rareness (and their [0, 1] forms) against a per-list loop on random campaigns; the
grammar refusing what a measure does not take; the rational mean grid and system
subsampling, which hold for the linear rarity only, refusing the others."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import innovation_reference as ref
from irmeta.artefacts.figures.collection import plot_rarity_distribution
from irmeta.campaign.rarity import RARITY_FUNCTIONS, document_rarity, rarity_listing, rarity_values
from irmeta.measures.averaging import counted_means, evaluate, mean_grid, score_arrays
from irmeta.measures.names import parse_measure
from irmeta.measures.rareness import configured_rarity_functions
from irmeta.metaeval.system_subsampling import co_retrieval


@given(s=st.integers(2, 200), data=st.data())
def test_rarity_functions_match_their_formulas(s, data):
    s_d = np.asarray(data.draw(st.lists(st.integers(0, s), min_size=1, max_size=20)))
    for function in RARITY_FUNCTIONS:
        for normalised in (False, True):
            got = rarity_values(s_d, s, function, normalised)
            want = [ref.rarity(function, int(x), s, normalised) for x in s_d]
            assert got == pytest.approx(want, rel=1e-14, abs=1e-15), (function, normalised)


@given(s=st.integers(2, 200))
def test_rarity_functions_span_zero_to_one_over_retrieved_documents(s):
    retrieved = np.arange(1, s + 1)
    for function in RARITY_FUNCTIONS:
        values = rarity_values(retrieved, s, function)
        assert values[0] == pytest.approx(1.0 - (1 / s if function == "linear" else 0.0))
        assert np.all(np.diff(values) < 0)  # rarer is higher
        prime = rarity_values(retrieved, s, function, normalised=True)
        assert prime[0] == pytest.approx(1.0) and prime[-1] == pytest.approx(0.0, abs=1e-15)
    # an unretrieved document (S_d = 0, only in nDCG_rareness_norm's ideal) is as rare as can be
    assert [rarity_values(np.asarray([0]), s, f)[0] for f in RARITY_FUNCTIONS] == [1.0, 1.0, 1.0]


def test_linear_is_the_papers_rarity(trec8_matrix):
    found = document_rarity(trec8_matrix, depth=100)
    assert np.array_equal(found.values("linear"), found.rarity)
    assert np.array_equal(found.values("linear", normalised=True), found.rarity_prime)


def test_fewer_than_two_runs_are_refused_where_a_function_needs_them():
    with pytest.raises(ValueError, match="at least two runs"):
        rarity_values(np.asarray([1]), 1, "log")
    with pytest.raises(ValueError, match="at least two runs"):
        rarity_values(np.asarray([1]), 1, "inverse", normalised=True)
    assert rarity_values(np.asarray([1]), 1, "inverse")[0] == 1.0


# ----------------------------------------------------------------------- names


def test_rarity_is_a_name_parameter_dropped_at_its_default():
    assert str(parse_measure("P_rareness(alpha=1,rarity=log)@100")) == "P_rareness(alpha=1,rarity=log)@100"
    assert str(parse_measure("P_rareness(rarity=linear)@100")) == "P_rareness@100"
    for family in ("P_rareness", "AP_rareness", "P_rareness_norm", "AP_rareness_norm", "nDCG_rareness",
                   "nDCG_rareness_norm", "RBP_rareness"):
        assert str(parse_measure(f"{family}(rarity=inverse)@10")) == f"{family}(rarity=inverse)@10"


@pytest.mark.parametrize("name, message", [
    ("P_rareness(rarity=sqrt)@100", "P_rareness takes rarity=linear, log, inverse, not rarity='sqrt'"),
    ("nDCG_rareness(rarity=idf)@10", "nDCG_rareness takes rarity=linear, log, inverse"),
    ("AP(rarity=log)@100", "AP takes no parameter 'rarity'"),
    ("RBP(rarity=log)", "RBP takes no parameter 'rarity'; it takes p, gains"),
    ("ERR(p=0.5)@10", "ERR takes no parameter 'p'"),
])
def test_what_a_measure_does_not_take_is_refused_in_one_line(name, message):
    with pytest.raises(ValueError) as error:
        parse_measure(name)
    assert message in str(error.value) and "\n" not in str(error.value)


# --------------------------------------------------- P and AP rareness, any rarity

FAMILIES = {"P_rareness": (ref.p_rareness, False), "AP_rareness": (ref.ap_rareness, False),
            "P_rareness_norm": (ref.p_rareness, True), "AP_rareness_norm": (ref.ap_rareness, True)}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=ref.campaigns(), k=st.integers(1, 8), function=st.sampled_from(RARITY_FUNCTIONS))
def test_p_and_ap_rareness_with_each_rarity_match_a_loop(campaign, k, function):
    qrels, runs, threshold = campaign
    if len(runs) < 2:
        runs = dict(runs, extra={"1": ["d0", "d1"]})  # R' and log need S >= 2
    alphas = [0.0, 0.5, 1.0, "1/R"]
    with tempfile.TemporaryDirectory() as tmp:
        m = ref.campaign_matrix(Path(tmp), qrels, runs, threshold=threshold)
    for family, (loop, normalised) in FAMILIES.items():
        name = f"{family}(rarity={function})@{k}"
        got = evaluate(m, [name], alphas=alphas)[parse_measure(name)]
        for s, run in enumerate(m.runs):
            for q, topic in enumerate(m.topics):
                rare = ref.rarities(qrels, runs, topic, threshold=threshold, depth=k, function=function,
                                    normalised=normalised)
                n_rel = sum(1 for g in qrels[topic].values() if g >= threshold)
                for a, alpha in enumerate(alphas):
                    want = loop(runs[run].get(topic, []), qrels[topic], rare, threshold=threshold, k=k,
                                alpha=ref.alpha_of(alpha, n_rel), normalised=normalised)
                    assert got[a, s, q] == pytest.approx(want, rel=1e-12, abs=1e-13), (name, run, topic, alpha)


def test_rarity_functions_stay_affine_in_alpha(trec8_matrix):
    # computed once and broadcast: the score at alpha is the score at 0 plus alpha times one term
    for name in ("P_rareness(rarity=log)@100", "AP_rareness(rarity=inverse)@100", "nDCG_rareness(rarity=log)@10",
                 "RBP_rareness(rarity=inverse)", "nDCG_rareness_norm(rarity=log)@10"):
        got = evaluate(trec8_matrix, [name], alphas=[0.0, 1.0, 2.0])[parse_measure(name)]
        if "norm" in name:  # the numerator is affine; the ideal is re-sorted per alpha
            assert np.all((got >= 0) & (got <= 1 + 1e-12)), name
            continue
        assert np.allclose(got[2] - got[0], 2 * (got[1] - got[0]), rtol=1e-12, atol=1e-15), name


# ----------------------------------------- only the linear rarity has a rational grid


def test_the_mean_grid_is_for_the_linear_rarity_only(trec8_matrix):
    assert mean_grid("P_rareness@100", 0.5, 129) is not None
    assert mean_grid("P_rareness(rarity=log)@100", 0.5, 129) is None
    assert mean_grid("P_rareness_norm(rarity=inverse)@100", 0.5, 129) is None
    assert counted_means(trec8_matrix, parse_measure("P_rareness(rarity=log)@100"), alphas=[1.0]) is None
    scores = score_arrays(trec8_matrix, ["P_rareness(rarity=log)@100"], alphas=[1.0])
    per_topic = scores.per_topic[0]
    assert np.allclose(scores.means["all_topics"][0], per_topic.mean(axis=1), rtol=1e-14)


def test_system_subsampling_refuses_other_rarity_functions(trec8_matrix):
    with pytest.raises(ValueError, match=r"linear rarity .* not P_rareness\(rarity=log\)@100"):
        co_retrieval(trec8_matrix, "P_rareness(rarity=log)@100")
    with pytest.raises(ValueError, match="not nDCG_rareness@10"):
        co_retrieval(trec8_matrix, "nDCG_rareness@10")


# ------------------------------------------- the rarity listing and its figure


def test_configured_rarity_functions_are_those_the_measures_name():
    assert configured_rarity_functions(["P@100", "P_rareness@100"]) == ["linear"]
    assert configured_rarity_functions(["AP_rareness(rarity=inverse)@100", "nDCG_rareness(rarity=log)@10",
                                        "RBP_rareness(rarity=inverse)", "P_rareness@100"]) == [
        "linear", "inverse", "log"]


@pytest.mark.slow
def test_the_rarity_listing_shows_each_configured_function(trec8_matrix, tmp_path):
    listing = rarity_listing(trec8_matrix, [100, 1000], ["linear", "log", "inverse"])
    assert {"rarity", "rarity_prime", "rarity_log", "rarity_prime_log", "rarity_inverse",
            "rarity_prime_inverse"} <= set(listing.columns)
    s_d, s = listing["n_retrieving"].to_numpy(), trec8_matrix.n_runs
    for function in ("log", "inverse"):
        want = [ref.rarity(function, int(x), s) for x in s_d[:500]]
        assert listing[f"rarity_{function}"].to_numpy()[:500] == pytest.approx(want, rel=1e-14)
    plain = rarity_listing(trec8_matrix, [100])
    assert "rarity_log" not in plain.columns and "rarity_inverse" not in plain.columns
    with pytest.raises(ValueError, match="rarity=linear, log, inverse"):
        rarity_listing(trec8_matrix, [100], ["linear", "sqrt"])
    paths = plot_rarity_distribution(listing, tmp_path / "rarity_distribution")
    assert sorted(p.suffix for p in paths) == [".pdf", ".png"] and all(p.stat().st_size > 0 for p in paths)
