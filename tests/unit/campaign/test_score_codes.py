"""Scores stored as decimal codes come back as the very doubles read from the run files."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irmeta.campaign.score_codes import (
    ScoreSummary,
    codes,
    decimal_places,
    falls,
    score_coding,
    score_summary,
    scores_of_codes,
)


def _read(texts: list[str]) -> np.ndarray:
    return np.array([float(t) for t in texts])  # as the runs' reader parses them


@settings(max_examples=300, deadline=None)
@given(digits=st.integers(0, 9), sizes=st.lists(st.integers(1, 12), min_size=1, max_size=6),
       seed=st.integers(0, 2**32 - 1))
def test_decimal_scores_come_back_exactly(digits, sizes, seed):
    rng = np.random.default_rng(seed)
    integers = -np.sort(-rng.integers(-10**6, 10**6, size=sum(sizes)))  # one falling ranking, then cut
    start = np.concatenate([[0], np.cumsum(sizes)])
    for c in range(len(sizes)):  # each cell falls on its own
        integers[start[c]:start[c + 1]] = -np.sort(-integers[start[c]:start[c + 1]])
    texts = [f"{v / 10**digits:.{digits}f}" for v in integers.tolist()]
    score = _read(texts)
    k = decimal_places(score)
    assert k is not None and k <= digits
    code = codes(score, k)
    back = scores_of_codes(code[start[:-1]], falls(code, start), start, k)
    assert back.tobytes() == score.tobytes()


def test_the_fewest_decimals_and_no_code_where_there_is_none():
    assert decimal_places(_read(["3", "2", "-7"])) == 0
    assert decimal_places(_read(["1.996501", "1.5", "0.000001"])) == 6
    assert decimal_places(_read(["12.3456", "12.3"])) == 4
    assert decimal_places(np.array([0.1], dtype=np.float32).astype(np.float64)) is None  # a float32 widened
    assert decimal_places(np.array([1.0, np.nan])) is None
    assert decimal_places(np.array([1e300])) is None
    assert decimal_places(np.array([1 / 3])) is None


def test_a_part_summary_and_the_coding_of_parts_together():
    start = np.array([0, 3, 5])
    two = score_summary(_read(["3.5", "3.25", "1", "0.5", "0.5"]), start)
    assert two == ScoreSummary(decimals=2, fall=225, magnitude=350, single=True)
    one = score_summary(_read(["9.1", "2.7"]), np.array([0, 2]))
    assert one.decimals == 1 and one.fall == 64 and not one.single
    # together at 2 decimals: the 1-decimal part's fall of 64 is 640 there (10 bits)
    coding = score_coding([two, one], n_scores=1000, n_cells=10)
    assert (coding.kind, coding.decimals, coding.fall_bits) == ("decimal", 2, 10)
    assert score_summary(_read(["1", "2"]), np.array([0, 2])).decimals == -1  # rising: not trec_eval's order
    undecimal = ScoreSummary(-1, 0, 0, True)
    assert score_coding([two, undecimal], 1000, 10).kind == "float32"
    assert score_coding([one, undecimal], 1000, 10).kind == "float64"
    # codes of 40 bits a score take more than float32's 4 bytes
    assert score_coding([ScoreSummary(0, 1 << 39, 1 << 39, True)], 1000, 10).kind == "float32"
