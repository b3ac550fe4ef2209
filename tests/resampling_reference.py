"""Independent references for the randomised paired tests: exact enumeration in Python
integers (every sign vector, every composition of n draws) and a resample-by-resample
count from the drawn differences themselves."""

from __future__ import annotations

import itertools
import math

import numpy as np


def all_sign_vectors(n: int) -> np.ndarray:
    return np.array(list(itertools.product((1, -1), repeat=n)))


def compositions(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every vector of draw counts of n topics drawn n times, and how many of the n^n
    index vectors produce it (the multinomial coefficient)."""
    counts = [np.bincount(c, minlength=n) for c in itertools.combinations_with_replacement(range(n), n)]
    weights = [math.factorial(n) // math.prod(math.factorial(int(k)) for k in w) for w in counts]
    return np.array(counts, dtype=np.int64).astype(object), np.array(weights, dtype=object)


def exact_randomisation_count(d: np.ndarray) -> int:
    """#{s in {+-1}^n : |s.d| >= |sum d|}, in integers."""
    return int(np.count_nonzero(np.abs(all_sign_vectors(len(d)).astype(object) @ d) >= abs(d.sum())))


def exact_bootstrap_count(d: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> int:
    """How many of the n^n resamples have |t*| >= |t| (paired_bootstrap's rules), in
    integers. With c' = n d - sum d, m' = sum d, C' = sum c'^2, S = w.c' and
    V = n w.c'^2 - S^2 (n^2 mean* - ..., n^3 (n - 1) var*): |t*| >= |t| iff
    S^2 C' >= n m'^2 V; t = 0 (m' = 0) counts every resample; t* = +-inf (V = 0 != S)
    counts; t* = 0/0 := 0 does not unless t = 0."""
    n = len(d)
    total = d.sum()
    c = n * d - total
    big_c = (c * c).sum()
    shift = counts @ c
    spread = n * (counts @ (c * c)) - shift * shift
    counted = [total == 0 or (v == 0 and s != 0) or (big_c > 0 and v > 0 and s * s * big_c >= n * total * total * v)
               for s, v in zip(shift, spread)]
    return int(sum(w for w, k in zip(weights, counted) if k))


def direct_bootstrap_count(d: np.ndarray, resamples: np.ndarray) -> int:
    """paired_bootstrap's count for one pair, resample by resample from the drawn
    differences themselves (their mean and sd), with its documented rules."""
    n = len(d)
    if (d == d[0]).all():
        return len(resamples) if d[0] == 0 else 0  # t = 0: every t* ties; t = +-inf: none reaches it
    mean = d.mean()
    t = mean / (d.std(ddof=1) / math.sqrt(n))
    noise, threshold = 1e-9 * np.abs(d - mean).max(), abs(t) * (1 - 1e-9) - 1e-9
    counted = 0
    for drawn in d[resamples]:
        shift = drawn.mean() - mean
        if abs(shift) <= noise:
            counted += threshold <= 0
            continue
        sd = drawn.std(ddof=1)
        counted += sd == 0 or abs(shift) / (sd / math.sqrt(n)) >= threshold
    return counted
