"""irmeta.measures.names: one grammar for every measure name, parameters in the name
(ir_measures style), checked against what each family declares, canonical text that
round-trips, and scores that follow the name's parameters."""

from __future__ import annotations

import numpy as np
import pytest

from campaigns import asl_campaign
from irmeta.measures.averaging import evaluate, score_arrays
from irmeta.measures.names import Measure, measure_label, parse_asl_name, parse_measure


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    return asl_campaign(tmp_path_factory.mktemp("names"))  # graded: c has grade 2


@pytest.mark.parametrize("text,canonical", [
    ("P@100", "P@100"), ("P_100", "P@100"), ("map", "AP"), ("map_cut_100", "AP@100"), ("ndcg", "nDCG"),
    ("ndcg_cut_10", "nDCG@10"), ("recall_100", "Recall@100"), ("R@5", "Recall@5"), ("success_10", "Success@10"),
    ("ASL@g1-10", "ASL_g1@10"), ("asl@g_1\u201310", "ASL_g1@10"), ("ASL@g1", "ASL_g1@1"),
    ("nDCG(gains={1:1,2:3})@10", "nDCG(gains={1:1,2:3})@10"),
    ("nDCG( gains = { 2 : 3 , 1 : 1.0 } )@10", "nDCG(gains={1:1,2:3})@10"),
    ("Q(gains={1:1,2:3},beta=0.5)@100", "Q(beta=0.5,gains={1:1,2:3})@100"),
    ("Q(beta=1)@100", "Q@100"), ("Q(beta=1.0,gains={1:2})@100", "Q(gains={1:2})@100"),
    ("ASL(asl_unretrieved=depth)", "ASL(asl_unretrieved=depth)"), ("ASL(asl_unretrieved=paper)", "ASL"),
    ("P_rareness(alpha=0.50)@100", "P_rareness(alpha=0.5)@100"), ("AP_rareness(alpha=1/N_R)", "AP_rareness(alpha=1/R)"),
])
def test_names_read_to_one_canonical_text(text, canonical):
    m = parse_measure(text)
    assert str(m) == canonical
    assert parse_measure(canonical) == m  # the canonical text is a fixed point


@pytest.mark.parametrize("text,fault", [
    ("P(gains={1:1})@10", "P takes no parameter 'gains'"),
    ("nDCG(beta=2)@10", "takes no parameter 'beta'; it takes gains"),
    ("nDCG(gains)@10", "key=value"),
    ("nDCG(gains={1:1},gains={1:2})@10", "given twice"),
    ("nDCG(gains={1:1,2:3,1:2})@10", "grade 1 is given twice"),  # not the last silently winning
    ("nDCG(gains={a:1})@10", "integer grades"),
    ("P_rareness(alpha=-1)@10", "alpha"),
    ("nDCG(gains={1:1}@10", "cannot read measure"),
])
def test_bad_parameters_are_named(text, fault):
    with pytest.raises(ValueError, match=fault.replace("(", r"\(").replace(")", r"\)")):
        parse_measure(text)


def test_options_fill_what_the_name_leaves_and_the_name_wins():
    assert str(parse_measure("nDCG@10", {"gains": {1: 1, 2: 3}, "beta": 2})) == "nDCG(gains={1:1,2:3})@10"
    assert str(parse_measure("nDCG(gains={1:5})@10", {"gains": {1: 1}})) == "nDCG(gains={1:5})@10"
    assert str(parse_measure("Q@10", {"gains": None, "beta": 1, "asl_unretrieved": "paper"})) == "Q@10"
    assert parse_measure("P@10") == Measure("P", 10)


def test_labels_with_alpha_read_back():
    label = measure_label("P_rareness@100", 0.5)
    assert label == "P_rareness(alpha=0.5)@100"
    assert parse_measure(label).alpha == 0.5 and parse_measure(label).without_alpha() == Measure("P_rareness", 100)
    assert measure_label("AP_rareness", "1/R") == "AP_rareness(alpha=1/R)"
    assert parse_asl_name("ASL@g1-10") == "ASL_g1@10" and parse_asl_name(" not a measure ") == "not a measure"


def test_parameters_in_the_name_score_as_the_options_do(matrix):
    gains = {1: 1, 2: 3}
    by_name = evaluate(matrix, ["nDCG(gains={1:1,2:3})@5"])[parse_measure("nDCG(gains={1:1,2:3})@5")]
    by_option = evaluate(matrix, ["nDCG@5"], gains=gains)[Measure("nDCG", 5)]
    assert np.array_equal(by_name, by_option)
    assert not np.array_equal(by_name, evaluate(matrix, ["nDCG@5"])[Measure("nDCG", 5)])  # grade 2 matters
    depth = evaluate(matrix, ["ASL(asl_unretrieved=depth)"])[parse_measure("ASL(asl_unretrieved=depth)")]
    assert depth.tolist() == [[4.0, 3.0, 0.0], [2.0, 8.0, 0.0]]


def test_one_run_scored_under_two_gain_maps_side_by_side(matrix):
    scores = score_arrays(matrix, ["nDCG@5", "nDCG(gains={1:1,2:10})@5", "Q(beta=0.5)@5"])
    assert scores.measures == ["nDCG@5", "nDCG(gains={1:1,2:10})@5", "Q(beta=0.5)@5"]
    plain, weighted = scores.per_topic[0], scores.per_topic[1]
    assert not np.array_equal(plain, weighted)


def test_an_alpha_in_the_name_replaces_the_grid(matrix):
    scores = score_arrays(matrix, ["P_rareness(alpha=0.5)@5", "P_rareness@5"], alphas=[0, 1])
    assert scores.measures == ["P_rareness@5"] * 3 and scores.alphas == ["0.5", "0", "1"]
    grid = score_arrays(matrix, ["P_rareness@5"], alphas=[0.5])
    assert np.array_equal(scores.per_topic[0], grid.per_topic[0])
    assert np.array_equal(scores.means["all_topics"][0], grid.means["all_topics"][0])
