"""Agreement on labels between judgment sets: each set against the reference (the
official qrels), and the assessors of one folder with each other, on the (topic,
document) pairs both judged.

The statistics are the libraries made for them, to the last bit: Cohen's kappa,
unweighted and weighted (linear, quadratic), is statsmodels'
(``statsmodels.stats.inter_rater.cohens_kappa`` on the confusion table; Cohen 1960,
1968), Krippendorff's alpha (ordinal) the ``krippendorff`` package's (Krippendorff,
"Content analysis", 2004). Kappa, and alpha of two sets' grades of the same pairs (every
row against the reference), repeat the libraries' arithmetic on the same small tables,
tested for equality with them: statsmodels costs 1.9 s to import and more to call once
per topic and set, and the package's alpha holds a (pairs, V, V) array, 3 GB at 10^7
pairs. Alpha over more sets with missing grades is the package's own call.

- Binary kappa: both labels cut at the collection's relevance threshold (relevant or not).
- Weighted kappas: on grades, a weight's distance the grades' difference (a grade nobody
  gave still counts as a step between the others), over the table spanning every integer
  grade from the lowest to the highest either set gives (statsmodels', to the last bit)
  when that is at most :data:`DENSE_GRADES` grades, else over the grades given only (a
  grade of 100,000 beside 0..3 is a 5 x 5 table, not 74.5 GiB): the same kappa, the
  grades nobody gave adding nothing to any sum (equal to the dense table's to 1e-12).
- Alpha: ordinal, on grades (grades nobody gave carry no weight in the ordinal metric).
- Undefined: when the chance agreement is 1 (both sets give one and the same category
  only: kappa is 0/0) or alpha's value domain holds one value, the cell is empty, never
  NaN or a guess.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta.campaign.judgment_sets import pair_codes
from irmeta.campaign.postings import RelevanceMatrix
from irmeta.campaign.qrels import Qrels, sort_topics
from irmeta.metaeval.generated_set_names import ERROR, parse_set_name
from irmeta.metaeval.judgment_reduction import error_grades

LABEL_AGREEMENT_COLUMNS = (
    "judgments", "topic", "shared", "only_reference", "only_judgments", "agreement", "cohen_kappa",
    "weighted_kappa_linear", "weighted_kappa_quadratic", "krippendorff_alpha_ordinal", "relevant_reference",
    "relevant_judgments",
)
LABEL_CONFUSION_COLUMNS = ("judgments", "reference_grade", "judgments_grade", "count")
ASSESSOR_AGREEMENT_COLUMNS = (
    "folder", "judgments_a", "judgments_b", "shared", "cohen_kappa", "weighted_kappa_quadratic",
    "krippendorff_alpha_ordinal",
)
#: The ``topic`` of the rows over every topic (as in irmeta's score tables).
ALL_TOPICS = "all"


#: The most grades kappa's table spans every integer of (module docstring): 256 x 256
#: cells, half a megabyte a temporary.
DENSE_GRADES = 256


def kappa(a: np.ndarray, b: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa of two raters' integer labels (statsmodels' value), ``weights`` None,
    ``"linear"`` or ``"quadratic"`` over the integers min..max of both (the distance of
    two grades their difference; the table over the grades given when the integers are
    more than :data:`DENSE_GRADES`); NaN when undefined (chance agreement 1) or no label
    is given."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if len(a) == 0:
        return float("nan")
    grades, codes = grade_codes(np.concatenate([a, b]))
    size = len(grades)
    if size == 1:
        return float("nan")
    table = np.bincount(codes[:len(a)] * size + codes[len(a):], minlength=size * size).reshape(size, size)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(_table_kappa(table.astype(float), weights, _offsets(grades)))
    return value if np.isfinite(value) else float("nan")


def grade_codes(grades: np.ndarray, dense: int = DENSE_GRADES) -> tuple[np.ndarray, np.ndarray]:
    """The grades a table of ``grades`` (int64) spans, ascending, and each grade's place
    among them: every integer from the lowest to the highest when they are at most
    ``dense``, else the distinct grades only (memory in proportion to the grades given,
    never to their values)."""
    low, high = int(grades.min()), int(grades.max())
    if high - low < dense:
        return np.arange(low, high + 1, dtype=np.int64), grades - low
    present, codes = np.unique(grades, return_inverse=True)
    return present, codes.reshape(-1)


def _offsets(grades: np.ndarray) -> np.ndarray:
    """Each grade's distance from the lowest, as floats: exact modulo 2^64 in unsigned
    integers (a difference of int64 grades may pass int64's range)."""
    return (grades.astype(np.uint64) - grades[:1].astype(np.uint64)).astype(np.float64)


def _table_kappa(table: np.ndarray, weights: str | None, positions: np.ndarray | None = None) -> np.floating:
    """Cohen's kappa of a (V, V) float confusion table: statsmodels' ``cohens_kappa``
    arithmetic on the same arrays, so the very same float (tested for equality), without
    its import (scipy.stats, 1.9 s) and checks in each of a campaign's topics x sets calls.
    ``positions``: each row's grade as its distance from the first's (default 0..V-1, the
    table of every integer grade).

    Unweighted (Cohen 1960): (p_o - p_e) / (1 - p_e), p_e = sum_v p_v. q_.v; weighted
    (Cohen 1968, disagreement weights w_ck = |g_c - g_k| / (g_max - g_min), or its square;
    |c - k| / (V - 1) over every integer grade): 1 - sum w n / N / sum w p_e.
    """
    nobs = table.sum()
    freq_row = table.sum(1) / nobs
    freq_col = table.sum(0) / nobs
    expected = freq_col * freq_row[:, None]
    if weights is None:
        agree_exp = np.diag(expected).sum()
        return (np.diag(table).sum() / nobs - agree_exp) / (1 - agree_exp)
    grades = np.arange(table.shape[0], dtype=float) if positions is None else positions
    if weights == "linear":
        w = np.abs(grades[:, None] - grades) / (grades[-1] - grades[0])
    elif weights == "quadratic":
        w = (grades[:, None] - grades) ** 2 / (grades[-1] - grades[0]) ** 2
    else:
        raise ValueError(f"kappa weights are None, linear or quadratic, not {weights!r}")
    return 1 - (w * table).sum() / nobs / (w * expected).sum()


def ordinal_alpha(ratings: np.ndarray) -> float:
    """Krippendorff's alpha, ordinal (the ``krippendorff`` package), of ``ratings``
    (raters, units), NaN for a missing rating; NaN when undefined (one value only)."""
    ratings = np.asarray(ratings, dtype=float)
    complete_pairs = ratings.ndim == 2 and len(ratings) == 2 and np.isfinite(ratings).all()
    domain = np.unique(ratings if complete_pairs else ratings[np.isfinite(ratings)])
    if len(domain) < 2:
        return float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        if complete_pairs:
            value = float(_paired_ordinal_alpha(np.searchsorted(domain, ratings), len(domain)))
        else:
            import krippendorff

            value = float(krippendorff.alpha(reliability_data=ratings, level_of_measurement="ordinal"))
    return value if np.isfinite(value) else float("nan")


def _paired_ordinal_alpha(codes: np.ndarray, n_values: int) -> np.floating:
    """Ordinal alpha of two raters who rated every unit, ``codes`` (2, units) their values'
    places in the sorted value domain: from the coincidence matrix, the package's
    arithmetic on the same (V, V) arrays, so the very same float (tested for equality),
    in O(units) memory where the package holds a (units, V, V) array (3 GB at 10^7 pairs).

    Krippendorff (2011), "Computing Krippendorff's alpha-reliability": with both values of
    every unit pairable, a unit (c, k) adds 1 to o_ck and to o_kc (2 to o_cc when c = k),
    integers, so their float sums are exact in any order; n_v = sum_k o_vk, expected
    e_ck = (n_c n_k - [c = k] n_c) / (n - 1), ordinal distance
    d_ck = (sum_{g = c..k} n_g - (n_c + n_k) / 2)^2, alpha = 1 - sum o d / sum e d.
    """
    counts = np.bincount(codes[0] * n_values + codes[1], minlength=n_values * n_values).reshape(n_values, n_values)
    o = (counts + counts.T).astype(np.float64)
    n_v = o.sum(axis=0)
    e = np.divide(np.outer(n_v, n_v) - np.diagflat(n_v), n_v.sum() - 1, dtype=np.float64)
    index = np.arange(n_values)
    low, high = np.minimum(index[:, None], index[None, :]), np.maximum(index[:, None], index[None, :])
    between = np.add.reduceat(np.append(n_v, 0), np.dstack((low, high + 1)).reshape(-1))[::2].reshape(low.shape)
    d = (between - np.divide(n_v[low] + n_v[high], 2, dtype=np.float64)) ** 2
    return 1 - (o * d).sum() / (e * d).sum()


@dataclass(frozen=True)
class _Paired:
    """Two sets' judgments aligned: the shared pairs' topics (codes into ``names``) and
    grades, and per topic the pairs judged by one set only."""

    names: list[str]  # the topic of each code
    topic: np.ndarray  # topic code of each shared pair
    reference: np.ndarray  # the reference's grade of each shared pair
    judgments: np.ndarray  # the set's grade of each shared pair
    only_reference: dict[str, int]
    only_judgments: dict[str, int]

    def by_topic(self) -> dict[str, np.ndarray]:
        """The shared pairs' indices per topic (each in pair order), one sort for all topics."""
        counts = np.bincount(self.topic, minlength=len(self.names))
        groups = np.split(np.argsort(self.topic, kind="stable"), np.cumsum(counts)[:-1])
        return {self.names[c]: groups[c] for c in np.flatnonzero(counts).tolist()}


def _topic_codes(qrels: Qrels) -> tuple[list[str], np.ndarray]:
    """Each row's topic as a code into the topics' names (never 10^7 strings in Python)."""
    import pyarrow as pa

    encoded = qrels.qid.dictionary_encode()
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    return [str(t) for t in encoded.dictionary.to_pylist()], np.asarray(encoded.indices, dtype=np.int64)


def _counted(names: list[str], codes: np.ndarray) -> dict[str, int]:
    counts = np.bincount(codes, minlength=len(names))
    return {names[c]: int(counts[c]) for c in np.flatnonzero(counts).tolist()}


def _paired(reference: Qrels, judgments: Qrels, topics: tuple[list[str], np.ndarray] | None = None) -> _Paired:
    """The two sets aligned on their shared (topic, document) pairs; ``topics``: the
    reference's :func:`_topic_codes`, when the caller has them. A set of the very same
    rows (a generated assessor's grades of the qrels) pairs row with row, unmatched."""
    names, codes = _topic_codes(reference) if topics is None else topics
    if len(reference) == len(judgments) and reference.qid.equals(judgments.qid) \
            and reference.docid.equals(judgments.docid):
        return _Paired(names, codes, reference.grade, judgments.grade, {}, {})
    ours, theirs = pair_codes([reference, judgments])
    common, i, j = np.intersect1d(ours, theirs, assume_unique=True, return_indices=True)
    set_names, set_codes = _topic_codes(judgments)

    def unmatched(names: list[str], codes: np.ndarray, matched: np.ndarray) -> dict[str, int]:
        alone = np.ones(len(codes), dtype=bool)
        alone[matched] = False
        return _counted(names, codes[alone])

    return _Paired(names, codes[i], reference.grade[i], judgments.grade[j], unmatched(names, codes, i),
                   unmatched(set_names, set_codes, j))


def _row(name: str, topic: str, ref: np.ndarray, alt: np.ndarray, only_ref: int, only_alt: int,
         threshold: int) -> dict:
    """One row of :data:`LABEL_AGREEMENT_COLUMNS` from the shared pairs' grades."""
    rel_ref, rel_alt = ref >= threshold, alt >= threshold
    shared = len(ref)
    return {
        "judgments": name, "topic": topic, "shared": shared, "only_reference": only_ref, "only_judgments": only_alt,
        "agreement": float(np.mean(rel_ref == rel_alt)) if shared else float("nan"),
        "cohen_kappa": kappa(rel_ref.astype(np.int64), rel_alt.astype(np.int64)),
        "weighted_kappa_linear": kappa(ref, alt, "linear"),
        "weighted_kappa_quadratic": kappa(ref, alt, "quadratic"),
        "krippendorff_alpha_ordinal": ordinal_alpha(np.vstack([ref, alt])) if shared else float("nan"),
        "relevant_reference": int(rel_ref.sum()), "relevant_judgments": int(rel_alt.sum()),
    }


def label_agreement_table(reference: Qrels, sets: Mapping[str, Qrels], *, threshold: int = 1) -> pd.DataFrame:
    """``label_agreement.csv``: per set (the mapping's order), first over every topic
    (``topic`` = ``all``), then per topic (the topics either judged, natural order), with
    columns :data:`LABEL_AGREEMENT_COLUMNS`:

    - ``shared``: (topic, document) pairs both judged; ``only_reference``,
      ``only_judgments``: pairs judged by one of the two only;
    - ``agreement``: the share of shared pairs both call relevant or both not (at
      ``threshold``), the observed agreement of the binary kappa;
    - ``cohen_kappa``: binary, at ``threshold``; ``weighted_kappa_linear``,
      ``weighted_kappa_quadratic``, ``krippendorff_alpha_ordinal``: on grades (module
      docstring); empty when undefined;
    - ``relevant_reference``, ``relevant_judgments``: shared pairs each calls relevant.
    """
    return label_tables(reference, sets, threshold=threshold)[0]


def label_confusion_table(reference: Qrels, sets: Mapping[str, Qrels]) -> pd.DataFrame:
    """``label_confusion.csv``: per set, the shared pairs counted by (reference grade, set
    grade), every combination that occurs (a count of 0 is no row), grades ascending."""
    return label_tables(reference, sets)[1]


def label_tables(reference: Qrels, sets: Mapping[str, Qrels], *,
                 threshold: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`label_agreement_table` and :func:`label_confusion_table` of the same sets,
    each set aligned with the reference once."""
    rows, frames = [], []
    topics = _topic_codes(reference) if sets else None  # once for every set
    row_groups = None  # the reference's rows by topic: every set paired row with row shares them
    for name, judgments in sets.items():
        paired = _paired(reference, judgments, topics)
        same_rows = topics is not None and paired.topic is topics[1]
        if same_rows:
            row_groups = paired.by_topic() if row_groups is None else row_groups
        rows.extend(_agreement_rows(str(name), paired, threshold, row_groups if same_rows else paired.by_topic()))
        frames.append(_confusion(str(name), paired))
    confusion = (pd.concat(frames, ignore_index=True)[list(LABEL_CONFUSION_COLUMNS)] if frames
                 else pd.DataFrame(columns=list(LABEL_CONFUSION_COLUMNS)))
    return pd.DataFrame(rows, columns=list(LABEL_AGREEMENT_COLUMNS)), confusion


def _agreement_rows(name: str, paired: _Paired, threshold: int, shared: dict[str, np.ndarray]) -> list[dict]:
    """The set's rows: over every topic, then per topic (``shared``: ``paired.by_topic()``)."""
    rows = [_row(name, ALL_TOPICS, paired.reference, paired.judgments, sum(paired.only_reference.values()),
                 sum(paired.only_judgments.values()), threshold)]
    nothing = np.empty(0, dtype=np.int64)
    for topic in sort_topics(set(shared) | set(paired.only_reference) | set(paired.only_judgments)):
        index = shared.get(topic, nothing)
        rows.append(_row(name, topic, paired.reference[index], paired.judgments[index],
                         paired.only_reference.get(topic, 0), paired.only_judgments.get(topic, 0), threshold))
    return rows


def _confusion(name: str, paired: _Paired) -> pd.DataFrame:
    """The shared pairs counted by (reference grade, set grade), ascending: one integer
    per combination, so one sort of integers (a unique over rows sorts records)."""
    ref, alt = paired.reference.astype(np.int64), paired.judgments.astype(np.int64)
    if not len(ref):
        return pd.DataFrame({"judgments": name, "reference_grade": ref, "judgments_grade": alt,
                             "count": np.zeros(0, np.int64)})
    # codes over the grades given: (ref - low) * span overflowed int64 for grades far apart
    grades, place = grade_codes(np.concatenate([ref, alt]), dense=0)
    span = len(grades)
    codes, counts = np.unique(place[:len(ref)] * span + place[len(ref):], return_counts=True)
    return pd.DataFrame({"judgments": name, "reference_grade": grades[codes // span],
                         "judgments_grade": grades[codes % span], "count": counts.astype(np.int64)})


def _ratings(sets: Sequence[Qrels]) -> np.ndarray:
    """(sets, units) grades, NaN where a set did not judge a unit (every pair any judged)."""
    codes = pair_codes(list(sets))
    units, inverse = np.unique(np.concatenate(codes), return_inverse=True)
    ratings = np.full((len(sets), len(units)), np.nan)
    bounds = np.cumsum([0] + [len(c) for c in codes])
    for k, qrels in enumerate(sets):
        ratings[k, inverse.ravel()[bounds[k]:bounds[k + 1]]] = qrels.grade
    return ratings


def assessor_agreement_table(folders: Mapping[str, Mapping[str, Qrels]], *, threshold: int = 1) -> pd.DataFrame:
    """``assessor_agreement.csv``: for each folder of three or more sets, every two sets
    (in the folder's order) on what both judged (binary kappa at ``threshold``, quadratic
    weighted kappa, ordinal alpha), then one row ``judgments_a`` = ``all`` (``judgments_b``
    empty): Krippendorff's alpha over every set, a set's missing judgments missing values,
    ``shared`` the pairs at least two sets judged. Columns :data:`ASSESSOR_AGREEMENT_COLUMNS`."""
    rows = []
    for folder, sets in folders.items():
        if len(sets) < 3:
            continue
        names = list(sets)
        ratings = _ratings([sets[n] for n in names])
        for a in range(len(names)):
            for b in range(a + 1, len(names)):
                both = np.isfinite(ratings[a]) & np.isfinite(ratings[b])
                ga, gb = ratings[a, both].astype(np.int64), ratings[b, both].astype(np.int64)
                relevant_a, relevant_b = (ga >= threshold).astype(np.int64), (gb >= threshold).astype(np.int64)
                rows.append({"folder": folder, "judgments_a": names[a], "judgments_b": names[b],
                             "shared": int(both.sum()), "cohen_kappa": kappa(relevant_a, relevant_b),
                             "weighted_kappa_quadratic": kappa(ga, gb, "quadratic"),
                             "krippendorff_alpha_ordinal": ordinal_alpha(np.vstack([ga, gb]))})
        rated = np.isfinite(ratings).sum(axis=0) >= 2
        rows.append({"folder": folder, "judgments_a": ALL_TOPICS, "judgments_b": "", "shared": int(rated.sum()),
                     "cohen_kappa": float("nan"), "weighted_kappa_quadratic": float("nan"),
                     "krippendorff_alpha_ordinal": ordinal_alpha(ratings[:, rated])})
    return pd.DataFrame(rows, columns=list(ASSESSOR_AGREEMENT_COLUMNS))


def matrix_qrels(matrix: RelevanceMatrix, grades: np.ndarray | None = None) -> Qrels:
    """A campaign's qrels rows as :class:`Qrels` (``grades``: other grades of the same rows)."""
    import pyarrow as pa

    topics = pa.array(matrix.topics, pa.large_string()).take(pa.array(matrix.qrels_topic, pa.int64()))
    return Qrels(qid=topics, docid=matrix.docids.cast(pa.large_string()),
                 grade=np.asarray(matrix.qrels_grade if grades is None else grades, dtype=np.int64))


def generated_assessors(matrix: RelevanceMatrix, names: Sequence[str], seed: int) -> Mapping[str, Qrels]:
    """The generated assessors among ``names`` (``error_<q>_trial_<t>``, the other
    generated sets being subsets of the qrels that agree with them by construction), each
    as :class:`Qrels` of the campaign's qrels rows with that assessor's grades. The sets
    share one copy of the rows' topics and documents, and each set's grades are drawn
    when it is read, so one set's are held at a time (at 10^7 qrels rows, 60 sets drawn
    at once held 5 GB)."""
    return _GeneratedSets(matrix, matrix_qrels(matrix), [n for n in names if parse_set_name(n).kind == ERROR], seed)


class _GeneratedSets(Mapping):
    """Generated assessors by name, each drawn (:func:`error_grades`) when read."""

    def __init__(self, matrix: RelevanceMatrix, rows: Qrels, names: list[str], seed: int) -> None:
        self._matrix, self._rows, self._names, self._seed = matrix, rows, names, seed

    def __getitem__(self, name: str) -> Qrels:
        if name not in self._names:
            raise KeyError(name)
        generated = parse_set_name(name)
        grades = error_grades(self._matrix, float(generated.value), int(generated.trial or 0), self._seed)
        return Qrels(qid=self._rows.qid, docid=self._rows.docid, grade=np.asarray(grades, dtype=np.int64))

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)
