"""Judgment sets of any origin (irmeta.campaign.judgment_sets): filling a set's holes from
the reference and fusing a folder's sets, against brute force over Python dicts; the
folder's names; the refusals, one line each."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest

from campaigns import ranked_matrix, write
from irmeta.campaign.judgment_sets import (
    assessor_files,
    check_fusions,
    check_shares_topics,
    check_unjudged,
    filled_from_reference,
    fused_qrels,
)
from irmeta.campaign.qrels import Qrels, read_qrels
from irmeta.measures.averaging import score_arrays


def _qrels(judged: dict[tuple[str, str], int], source: str = "") -> Qrels:
    pairs = list(judged)
    return Qrels(qid=pa.array([q for q, _ in pairs], pa.large_string()),
                 docid=pa.array([d for _, d in pairs], pa.large_string()),
                 grade=np.array(list(judged.values()), dtype=np.int64), source=source)


def _as_dict(qrels: Qrels) -> dict[tuple[str, str], int]:
    out = {(q, d): int(g) for q, d, g in zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade)}
    assert len(out) == len(qrels)  # no pair twice
    return out


def _random_set(rng: np.random.Generator, n: int, topics: int = 4, docs: int = 12) -> dict[tuple[str, str], int]:
    pairs = {(str(rng.integers(1, topics + 1)), f"d{rng.integers(docs)}") for _ in range(n)}
    return {p: int(rng.integers(-2, 4)) for p in sorted(pairs)}


@pytest.mark.parametrize("seed", range(20))
def test_filled_from_reference_is_the_set_over_the_reference(seed):
    rng = np.random.default_rng(seed)
    reference, judgments = _random_set(rng, 30), _random_set(rng, 20)
    expected = {**reference, **judgments}  # the set's grade wins where both judged
    assert _as_dict(filled_from_reference(_qrels(reference), _qrels(judgments))) == expected


def test_filled_from_an_empty_set_is_the_reference():
    reference = {("1", "a"): 1, ("1", "b"): 0, ("2", "a"): 2}
    assert _as_dict(filled_from_reference(_qrels(reference), _qrels({}))) == reference


def _brute_fused(sets: list[dict], fusion: str) -> dict:
    out = {}
    for pair in dict.fromkeys(p for s in sets for p in s):
        grades = [s[pair] for s in sets if pair in s]
        if fusion == "majority":
            out[pair] = math.floor(statistics.median(grades))
        elif fusion == "mean":
            out[pair] = math.floor(Fraction(sum(grades), len(grades)) + Fraction(1, 2))
        else:
            out[pair] = max(grades)
    return out


@pytest.mark.parametrize("fusion", ["majority", "mean", "max"])
@pytest.mark.parametrize("seed", range(15))
def test_fused_grades_by_brute_force(fusion, seed):
    rng = np.random.default_rng(seed)
    sets = [_random_set(rng, int(rng.integers(5, 30))) for _ in range(int(rng.integers(2, 6)))]
    fused = fused_qrels({f"a{i}": _qrels(s) for i, s in enumerate(sets)}, fusion)
    expected = _brute_fused(sets, fusion)
    assert _as_dict(fused) == expected
    assert [(q, d) for q, d in zip(fused.qid.to_pylist(), fused.docid.to_pylist())] == list(expected)


def test_fused_rounding_on_ties():
    # grades 0 and 1: median 0.5 -> 0; mean 0.5 -> 1 (half up); -2 and -1: median -1.5 -> -2, mean -1.5 -> -1
    sets = {"a": _qrels({("1", "x"): 0, ("1", "y"): -2}), "b": _qrels({("1", "x"): 1, ("1", "y"): -1})}
    assert _as_dict(fused_qrels(sets, "majority")) == {("1", "x"): 0, ("1", "y"): -2}
    assert _as_dict(fused_qrels(sets, "mean")) == {("1", "x"): 1, ("1", "y"): -1}


def test_fused_over_fewer_than_two_sets_is_refused():
    with pytest.raises(ValueError, match=r"^fuse: .*at least two"):
        fused_qrels({"a": _qrels({("1", "x"): 1})}, "max")
    with pytest.raises(ValueError, match=r"^alternative_qrels.crowd.fuse: .*folder of at least two sets, not 1$"):
        check_fusions(["max"], 1, "alternative_qrels.crowd.fuse")
    with pytest.raises(ValueError, match=r"^fuse: 'median' is no fusion"):
        check_fusions(["median"], 3)
    with pytest.raises(ValueError, match=r"^fuse: 'max' listed twice"):
        check_fusions(["max", "max"], 3)
    assert check_fusions([], 1) == []


def test_unjudged_rules():
    assert check_unjudged("reference") == "reference"
    with pytest.raises(ValueError, match=r"^alternative_qrels.llm.unjudged: 'relevant' is no rule"):
        check_unjudged("relevant", "alternative_qrels.llm.unjudged")


def test_assessor_files_named_after_their_files(tmp_path):
    for name in ["b2.txt", "a1.txt", "c3"]:
        write(tmp_path / "crowd" / name, "1 0 d 1\n")
    write(tmp_path / "crowd" / ".hidden", "x")
    assert list(assessor_files(tmp_path / "crowd")) == ["a1", "b2", "c3"]
    write(tmp_path / "crowd" / "a1.qrels", "1 0 d 1\n")
    with pytest.raises(ValueError, match=r"a1.qrels and a1.txt both name the set 'a1'$"):
        assessor_files(tmp_path / "crowd")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"^path: .*empty: a folder of judgment sets holds no file$"):
        assessor_files(tmp_path / "empty")


def test_a_set_sharing_no_topic_is_refused():
    reference = _qrels({("1", "a"): 1})
    with pytest.raises(ValueError, match=r"^alternative_qrels.llm: llm.txt judges none of the reference's topics"):
        check_shares_topics(reference, _qrels({("7", "a"): 1}, "llm.txt"), "alternative_qrels.llm")
    check_shares_topics(reference, _qrels({("1", "z"): 0, ("7", "a"): 1}), "k")


def test_unjudged_reference_with_an_empty_set_scores_as_the_reference_bit_for_bit(tmp_path):
    qrels = {"1": {"a": 1, "b": 0, "c": 2, "x": 1}, "2": {"d": 1, "e": 0}}
    runs = {"r1": {"1": ["a", "b", "u", "c"], "2": ["d", "v"]}, "r2": {"1": ["c", "x", "a"], "2": ["e", "d"]},
            "r3": {"1": ["u", "a"], "2": ["d"]}}
    reference = ranked_matrix(tmp_path / "ref", qrels, runs)
    filled = filled_from_reference(read_qrels(tmp_path / "ref" / "qrels"), _qrels({}))
    text = "".join(f"{q} 0 {d} {g}\n" for (q, d), g in _as_dict(filled).items())
    write(tmp_path / "filled" / "qrels", text)
    again = ranked_matrix(tmp_path / "filled", {t: {d: g for (q, d), g in _as_dict(filled).items() if q == t}
                                                 for t in qrels}, runs)
    measures = ["P@2", "AP", "nDCG@3", "P_rareness@2"]
    a = score_arrays(reference, measures, alphas=[0, 1])
    b = score_arrays(again, measures, alphas=[0, 1])
    assert a.per_topic.tobytes() == b.per_topic.tobytes()
