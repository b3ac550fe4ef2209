"""Agreement on labels (irmeta.metaeval.label_agreement): the kappas equal scikit-learn's
cohen_kappa_score and the alpha the krippendorff package's on the same label pairs (to
1e-12), the pairs found by brute force over Python dicts; counts by plain counting; a set
equal to the reference agrees perfectly; undefined statistics are empty."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from irmeta.campaign.qrels import Qrels
from irmeta.metaeval.label_agreement import (
    ASSESSOR_AGREEMENT_COLUMNS,
    LABEL_AGREEMENT_COLUMNS,
    LABEL_CONFUSION_COLUMNS,
    assessor_agreement_table,
    kappa,
    label_agreement_table,
    label_confusion_table,
)

TOL = 1e-12


def _qrels(judged: dict[tuple[str, str], int]) -> Qrels:
    return Qrels(qid=pa.array([q for q, _ in judged], pa.large_string()),
                 docid=pa.array([d for _, d in judged], pa.large_string()),
                 grade=np.array(list(judged.values()), dtype=np.int64))


def _random_set(rng, n: int, topics: int = 3, docs: int = 30, grades: int = 4) -> dict:
    pairs = {(str(100 + int(rng.integers(topics))), f"d{int(rng.integers(docs))}") for _ in range(n)}
    return {p: int(rng.integers(0, grades)) for p in sorted(pairs)}


def _sk(a, b, weights=None) -> float:
    labels = list(range(min(min(a), min(b)), max(max(a), max(b)) + 1))
    return cohen_kappa_score(a, b, labels=labels, weights=weights)


def _alpha(a, b) -> float:
    return krippendorff.alpha(reliability_data=[a, b], level_of_measurement="ordinal")


def _close(got, expected):
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert abs(got - expected) <= TOL, (got, expected)


@pytest.mark.parametrize("seed", range(12))
def test_rows_equal_the_reference_libraries_on_the_brute_force_pairs(seed):
    rng = np.random.default_rng(seed)
    reference, judgments = _random_set(rng, 60), _random_set(rng, 50)
    threshold = int(rng.integers(1, 3))
    table = label_agreement_table(_qrels(reference), {"llm": _qrels(judgments)}, threshold=threshold)
    assert list(table.columns) == list(LABEL_AGREEMENT_COLUMNS)
    topics = sorted({q for q, _ in reference} | {q for q, _ in judgments})
    assert table["topic"].tolist() == ["all", *topics]
    for _, row in table.iterrows():
        topic = row["topic"]
        shared = [p for p in reference if p in judgments and topic in ("all", p[0])]
        a, b = [reference[p] for p in shared], [judgments[p] for p in shared]
        assert row["shared"] == len(shared)
        assert row["only_reference"] == sum(1 for p in reference if p not in judgments and topic in ("all", p[0]))
        assert row["only_judgments"] == sum(1 for p in judgments if p not in reference and topic in ("all", p[0]))
        ra, rb = [int(g >= threshold) for g in a], [int(g >= threshold) for g in b]
        assert (row["relevant_reference"], row["relevant_judgments"]) == (sum(ra), sum(rb))
        if not shared:
            assert row[["agreement", "cohen_kappa", "krippendorff_alpha_ordinal"]].isna().all()
            continue
        _close(row["agreement"], np.mean(np.array(ra) == np.array(rb)))
        with np.errstate(divide="ignore", invalid="ignore"):
            _close(row["cohen_kappa"], _sk(ra, rb) if len(set(ra) | set(rb)) > 1 else np.nan)
        if len(set(a) | set(b)) > 1:
            _close(row["weighted_kappa_linear"], _sk(a, b, "linear"))
            _close(row["weighted_kappa_quadratic"], _sk(a, b, "quadratic"))
            _close(row["krippendorff_alpha_ordinal"], _alpha(a, b))


def test_a_set_equal_to_the_reference_agrees_perfectly():
    reference = _random_set(np.random.default_rng(3), 80)
    row = label_agreement_table(_qrels(reference), {"same": _qrels(dict(reversed(reference.items())))}).iloc[0]
    assert row["shared"] == len(reference) and row["only_reference"] == row["only_judgments"] == 0
    for column in ("agreement", "cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic",
                   "krippendorff_alpha_ordinal"):
        assert row[column] == pytest.approx(1.0, abs=TOL), column


def test_one_category_only_is_empty_not_a_number_made_up(tmp_path):
    from irmeta.pipeline.stored_scores import write_csv

    reference = {("1", "a"): 0, ("1", "b"): 0}
    table = label_agreement_table(_qrels(reference), {"zero": _qrels(reference)})
    row = table.iloc[0]
    assert row["agreement"] == 1.0
    assert row[["cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic",
                "krippendorff_alpha_ordinal"]].isna().all()
    write_csv(table, tmp_path / "label_agreement.csv")
    assert "zero,all,2,0,0,1.0,,,,,0,0" in (tmp_path / "label_agreement.csv").read_text()
    assert np.isnan(kappa(np.array([], dtype=int), np.array([], dtype=int)))


@pytest.mark.parametrize("seed", range(5))
def test_confusion_counts_every_shared_pair(seed):
    rng = np.random.default_rng(seed)
    reference, a, b = _random_set(rng, 60), _random_set(rng, 40), _random_set(rng, 40)
    table = label_confusion_table(_qrels(reference), {"a": _qrels(a), "b": _qrels(b)})
    assert list(table.columns) == list(LABEL_CONFUSION_COLUMNS)
    for name, judged in (("a", a), ("b", b)):
        expected: dict[tuple[int, int], int] = {}
        for pair in reference:
            if pair in judged:
                key = (reference[pair], judged[pair])
                expected[key] = expected.get(key, 0) + 1
        rows = table[table["judgments"] == name]
        assert dict(zip(zip(rows["reference_grade"], rows["judgments_grade"]), rows["count"])) == expected
        assert list(zip(rows["reference_grade"], rows["judgments_grade"])) == sorted(expected)


@pytest.mark.parametrize("seed", range(6))
def test_assessors_pairwise_and_alpha_with_missing_values(seed):
    rng = np.random.default_rng(seed)
    sets = {f"w{k}": _random_set(rng, 45) for k in range(4)}
    table = assessor_agreement_table({"crowd": {n: _qrels(s) for n, s in sets.items()},
                                      "pair": {"x": _qrels(sets["w0"]), "y": _qrels(sets["w1"])}}, threshold=2)
    assert list(table.columns) == list(ASSESSOR_AGREEMENT_COLUMNS)
    assert set(table["folder"]) == {"crowd"}  # two sets are no folder of assessors to compare
    names = list(sets)
    pairs = [(names[i], names[j]) for i in range(4) for j in range(i + 1, 4)]
    assert list(zip(table["judgments_a"], table["judgments_b"])) == [*pairs, ("all", "")]
    for (x, y), (_, row) in zip(pairs, table.iterrows()):
        shared = [p for p in sets[x] if p in sets[y]]
        a, b = [sets[x][p] for p in shared], [sets[y][p] for p in shared]
        assert row["shared"] == len(shared)
        _close(row["cohen_kappa"], _sk([int(g >= 2) for g in a], [int(g >= 2) for g in b]))
        _close(row["weighted_kappa_quadratic"], _sk(a, b, "quadratic"))
        _close(row["krippendorff_alpha_ordinal"], _alpha(a, b))
    units = sorted({p for s in sets.values() for p in s})
    data = [[s.get(p, np.nan) for p in units] for s in sets.values()]
    last = table.iloc[-1]
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    _close(last["krippendorff_alpha_ordinal"], expected)
    assert last["shared"] == sum(1 for p in units if sum(p in s for s in sets.values()) >= 2)
    assert pd.isna(last["cohen_kappa"])


@pytest.mark.parametrize("seed", range(4))
def test_a_set_of_the_same_rows_pairs_row_with_row_as_the_codes_would(seed):
    """A generated assessor (other grades of the very qrels rows) is paired row with row;
    the same set with its rows shuffled goes through the pair codes: the tables agree."""
    rng = np.random.default_rng(seed)
    reference = _qrels(_random_set(rng, 80))
    grades = rng.integers(0, 4, len(reference))
    same_rows = Qrels(qid=reference.qid, docid=reference.docid, grade=grades)
    order = rng.permutation(len(reference))
    shuffled = Qrels(qid=reference.qid.take(pa.array(order)), docid=reference.docid.take(pa.array(order)),
                     grade=grades[order])
    direct = label_agreement_table(reference, {"set": same_rows})
    coded = label_agreement_table(reference, {"set": shuffled})
    pd.testing.assert_frame_equal(direct, coded, check_exact=False, rtol=0, atol=TOL)
    pd.testing.assert_frame_equal(label_confusion_table(reference, {"set": same_rows}),
                                  label_confusion_table(reference, {"set": shuffled}))
    assert (direct["only_reference"] == 0).all() and (direct["only_judgments"] == 0).all()


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 80), values=st.integers(2, 7), low=st.integers(-2, 2), noise=st.floats(0, 1),
       seed=st.integers(0, 2**32 - 1))
def test_two_complete_raters_give_the_packages_alpha_to_the_last_bit(n, values, low, noise, seed):
    from irmeta.metaeval.label_agreement import ordinal_alpha

    rng = np.random.default_rng(seed)
    a = rng.integers(low, low + values, n)
    b = np.where(rng.random(n) < noise, rng.integers(low, low + values, n), a)
    ratings = np.vstack([a, b]).astype(float)
    if len(np.unique(ratings)) < 2:
        assert np.isnan(ordinal_alpha(ratings))
        return
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = float(krippendorff.alpha(reliability_data=ratings, level_of_measurement="ordinal"))
    got = ordinal_alpha(ratings)
    assert got == expected or (np.isnan(got) and not np.isfinite(expected)), (got, expected)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 80), values=st.integers(1, 6), low=st.integers(-2, 2), noise=st.floats(0, 1),
       weights=st.sampled_from([None, "linear", "quadratic"]), seed=st.integers(0, 2**32 - 1))
def test_kappa_is_statsmodels_to_the_last_bit(n, values, low, noise, weights, seed):
    import warnings

    from statsmodels.stats.inter_rater import cohens_kappa

    rng = np.random.default_rng(seed)
    a = rng.integers(low, low + values, n)
    b = np.where(rng.random(n) < noise, rng.integers(low, low + values, n), a)
    got = kappa(a, b, weights)
    span = max(a.max(), b.max()) - min(a.min(), b.min()) + 1
    if span == 1:
        assert np.isnan(got)
        return
    shift = min(a.min(), b.min())
    table = np.bincount((a - shift) * span + (b - shift), minlength=span * span).reshape(span, span).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = float(cohens_kappa(table, wt=weights, return_results=False))
    assert got == expected or (np.isnan(got) and not np.isfinite(expected)), (got, expected)
