"""nDCG_rareness@k and nDCG_rareness_norm@k (issue 20): a per-list loop on random graded
campaigns, nDCG exactly at alpha 0 on TREC-8 and DL 2020 passage, [0, 1] bounds, and
``irmeta score`` naming them."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import innovation_reference as ref
from campaigns import write
from irmeta.campaign.rarity import RARITY_FUNCTIONS
from irmeta.cli import main
from irmeta.measures.averaging import evaluate
from irmeta.measures.graded import ndcg
from irmeta.measures.names import parse_measure


@pytest.fixture(scope="module")
def dl2020(shared_data):
    return ref.dl2020_passage(shared_data)[2]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=ref.campaigns(), k=st.integers(1, 8), function=st.sampled_from(RARITY_FUNCTIONS),
       gains=ref.gain_maps)
def test_ndcg_rareness_matches_a_loop(campaign, k, function, gains):
    qrels, runs, threshold = campaign
    if len(runs) < 2:
        runs = dict(runs, extra={"1": ["d0", "d1"]})  # log rarity needs S >= 2
    alphas = [0.0, 0.5, 1.0, 2.0, "1/R"]
    options = {"gains": gains} if gains is not None else {}
    with tempfile.TemporaryDirectory() as tmp:
        m = ref.campaign_matrix(Path(tmp), qrels, runs, threshold=threshold)
    for normalised in (False, True):
        name = f"nDCG_rareness{'_norm' if normalised else ''}(rarity={function})@{k}"
        got = evaluate(m, [name], alphas=alphas, **options)[parse_measure(name)]
        for s, run in enumerate(m.runs):
            for q, topic in enumerate(m.topics):
                rare = ref.rarities(qrels, runs, topic, threshold=threshold, depth=k, function=function)
                n_rel = sum(1 for g in qrels[topic].values() if g >= threshold)
                for a, alpha in enumerate(alphas):
                    want = ref.ndcg_rareness(runs[run].get(topic, []), qrels[topic], rare, gains=gains, k=k,
                                             alpha=ref.alpha_of(alpha, n_rel), normalised=normalised)
                    assert got[a, s, q] == pytest.approx(want, rel=1e-12, abs=1e-13), (name, run, topic, alpha)
                    if normalised:
                        assert -1e-15 <= got[a, s, q] <= 1 + 1e-12


def test_relevant_documents_no_run_retrieved_enter_the_normalised_ideal(tmp_path):
    # d2 (grade 1) is found by no run: S_d = 0, R = 1; the ideal ranks its weighted gain
    # 1 (1 + 1) = 2 above d1's 2 (1 + 0) = 2 ... and d0, found by one run of two, 1 (1 + 0.5)
    qrels = {"1": {"d0": 1, "d1": 2, "d2": 1}}
    runs = {"a": {"1": ["d0", "d1"]}, "b": {"1": ["d1"]}}
    m = ref.campaign_matrix(tmp_path, qrels, runs)
    got = evaluate(m, ["nDCG_rareness_norm@3"], alphas=[1.0])[parse_measure("nDCG_rareness_norm@3")][0]
    ideal = 2 / np.log2(2) + 2 / np.log2(3) + 1.5 / np.log2(4)
    assert got[0, 0] == pytest.approx((1.5 / np.log2(2) + 2 / np.log2(3)) / ideal, rel=1e-14)
    assert got[1, 0] == pytest.approx(2 / ideal, rel=1e-14)


@pytest.mark.parametrize("cutoff", [10, 100])
def test_ndcg_rareness_is_ndcg_at_alpha_zero_on_trec8(trec8_matrix, cutoff):
    want = ndcg(trec8_matrix, cutoff)
    for function in RARITY_FUNCTIONS:
        name = f"nDCG_rareness(rarity={function})@{cutoff}"
        got = evaluate(trec8_matrix, [name], alphas=[0.0, 1.0])[parse_measure(name)]
        assert np.array_equal(got[0], want), name  # to the last bit
        assert np.all(got[1] >= want) and np.any(got[1] > want)


@pytest.mark.slow
@pytest.mark.parametrize("gains", [None, {1: 1, 2: 3, 3: 7}])
def test_ndcg_rareness_is_ndcg_at_alpha_zero_on_dl2020_passage(dl2020, gains):
    options = {} if gains is None else {"gains": gains}
    want = ndcg(dl2020, 10, **options)
    for function in RARITY_FUNCTIONS:
        for family in ("nDCG_rareness", "nDCG_rareness_norm"):
            name = f"{family}(rarity={function})@10"
            got = evaluate(dl2020, [name], alphas=[0.0, 0.5], **options)[parse_measure(name)]
            if family == "nDCG_rareness":
                assert np.array_equal(got[0], want), name
            else:  # the same ideal list, sorted from weighted gains: equal to rounding
                assert np.allclose(got[0], want, rtol=1e-14, atol=0), name
                assert np.all((got[1] >= 0) & (got[1] <= 1 + 1e-12)), name


def test_irmeta_score_names_the_rareness_forms(tmp_path, shared_data):
    qrels = shared_data / "trec8_adhoc" / "qrels.txt"
    runs = sorted((shared_data / "trec8_adhoc" / "runs").iterdir())[:3]
    out = tmp_path / "scores.tsv"
    args = ["score", "--qrels", str(qrels), "--measure", "nDCG@10", "--measure", "nDCG_rareness@10",
            "--measure", "P_rareness(alpha=1,rarity=log)@100", "--measure", "RBP_rareness(p=0.8)",
            "--output", str(out)]
    for run in runs:
        args += ["--runs", str(run)]
    assert main(args) == 0
    rows = [line.split("\t") for line in out.read_text().splitlines()[1:]]
    names = {row[1] for row in rows}
    assert {"nDCG@10", "P_rareness(alpha=1,rarity=log)@100"} <= names
    assert any(n.startswith("nDCG_rareness(alpha=") for n in names)
    assert any(n.startswith("RBP_rareness(alpha=") for n in names)
    means = {(row[0], row[1]): float(row[3]) for row in rows if row[2] == "all"}
    for run in {row[0] for row in rows}:  # at alpha 0 the rareness form is nDCG
        assert means[(run, "nDCG_rareness(alpha=0)@10")] == means[(run, "nDCG@10")]
    bad = write(tmp_path / "err", "")
    code = main(["score", "--qrels", str(qrels), "--runs", str(runs[0]), "--measure", "nDCG_rareness(rarity=idf)@10",
                 "--output", str(bad)])
    assert code != 0


def test_the_largest_gains_and_alpha_stay_finite_and_scale_free(tmp_path):
    """Gains near 1e300 times alpha 1e100 overflowed the normalised form's ideal (NaN);
    both forms are unchanged by scaling every gain by a power of 2 (1e300 is near 2^997)."""
    qrels = {"1": {"a": 1, "b": 2, "c": 1}}
    runs = {"r": {"1": ["a", "c"]}, "s": {"1": ["b", "x", "a"]}}
    m = ref.campaign_matrix(tmp_path, qrels, runs)
    for form in ("nDCG_rareness", "nDCG_rareness_norm"):
        huge, small = (f"{form}(gains={{1:{g},2:{2 * g}}})@10" for g in (2.0 ** 995, 1))
        got = evaluate(m, [huge, small], alphas=[0, 1, 1e100])
        assert np.isfinite(got[parse_measure(huge)]).all(), form
        assert np.array_equal(got[parse_measure(huge)], got[parse_measure(small)]), form
