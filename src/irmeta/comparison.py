"""Which of my runs differ? ``irmeta compare`` and ``irmeta.compare``: per run and measure
the mean, and per comparison the difference, p-value, adjusted p-value, effect size and
interval, from one paired test of :mod:`irmeta.metaeval.stats` and one correction.

What a table holds (columns :data:`COLUMNS`), for each measure (rareness measures once per
alpha, named ``P_rareness(alpha=0.5)@100``):

* With a ``baseline`` B: one row per other run r, ``baseline`` = B, ``difference`` =
  mean(r) - mean(B), the test on r against B. The correction's family is the n - 1
  comparisons with the baseline of that measure.
* Without: one row per ordered pair (r, s), r != s (n(n - 1) rows), ``baseline`` = s,
  ``difference`` = mean(r) - mean(s). Both orders carry the p-value of the one unordered
  test; the correction's family is the n(n - 1)/2 unordered pairs of that measure.
* ``mean`` is the run's mean over every qrels topic (a topic it did not return scores 0,
  ``irmeta score --average all``, trec_eval -c): paired tests need a score of both runs on
  the same topics, so ``average="returned"`` is refused.
* ``effect_size_dz`` = mean(d) / sd(d) of the per-topic differences d = r - s (Cohen's
  d_z) and ``ci_low``, ``ci_high`` the paired t interval of mean(d) at confidence
  1 - level, not adjusted for multiplicity; both change sign with the order of the pair.
* ``p_adjusted`` is ``p_value`` adjusted by the correction (Holm, Benjamini-Hochberg or
  Bonferroni), ``p_value`` itself with ``correction="none"``; ``significant`` is
  ``p_adjusted < level``.
* ``tukey_hsd`` is the two-way (topic-blocked) Tukey HSD over all the runs given
  (:mod:`irmeta.metaeval.stats.tukey_hsd`): it accounts for every pair of runs itself, so
  its correction is ``none`` (the default for it; any other is refused), with a baseline
  too (conservative: a family of all pairs, not of n - 1 comparisons).
* The randomised tests (``randomisation``, ``paired_bootstrap``) draw ``permutations``
  sign flips or resamples from ``seed``, shared by every pair: the same seed gives the
  same table, byte for byte. Their p = (b + 1) / (B + 1) is never below 1 / (B + 1);
  where that cannot pass the correction at the level (Holm over m comparisons needs
  p < level / m), a :class:`TooFewDrawsWarning` says so, one line, before any test runs
  (``irmeta compare`` prints it on standard error). ``randomisation_count`` and
  ``paired_bootstrap_count`` give b / B of the same draws.

The Markdown and LaTeX reports are ranx's: a row per run, lettered a, b, c... in the order
the runs were read, a column per measure with the mean and, as superscripts, the letters
of the runs it is significantly better than (higher mean, or lower for measures where
lower is better).
"""

from __future__ import annotations

import csv
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

import irmeta.settings as check
from irmeta.api import DEFAULT_MEASURES, DEFAULT_SEED, score_checked
from irmeta.artefacts.tables import latex_table, markdown_table
from irmeta.measures.averaging import AVERAGING_NAMES, Scores
from irmeta.measures.names import Measure
from irmeta.measures.typed import as_typed, spellings_note
from irmeta.metaeval.stats.blocks import run_pairs
from irmeta.metaeval.stats.pair_differences import finite_or_missing
from irmeta.metaeval.stats.paired_tests import pair_summary, run_test
from irmeta.metaeval.stats.registry import (
    CORRECTIONS,
    NO_CORRECTION,
    TESTS,
    correction_names,
    resolve,
    unattainable_note,
)
from irmeta.support.formats import (
    REPORT_FORMATS,
    Markup,
    check_tsv_names,
    markdown_escape,
    refuse_infinite,
    refuse_non_finite,
)
from irmeta.support.progress import progress_steps

if TYPE_CHECKING:  # pandas in the functions that build its tables: importing it costs every subcommand's start
    import pandas as pd

FORMATS = REPORT_FORMATS
COLUMNS = ("run", "measure", "mean", "baseline", "difference", "p_value", "p_adjusted", "effect_size_dz",
           "ci_low", "ci_high", "significant")


class TooFewDrawsWarning(UserWarning):
    """A randomised test's draws cannot give any comparison a p that passes its
    correction at its level (the smallest p is 1 / (B + 1))."""


def compare_tests() -> list[str]:
    """The tests ``compare`` offers, in the registry's order: every paired test (a
    plugin's too) and the all-runs tests that give pairs' p-values (``tukey_hsd``)."""
    return [t.name for t in TESTS.values() if t.in_compare]


def _title(test: str) -> str:
    title = TESTS[test].title
    return title[:1].upper() + title[1:]


@dataclass(frozen=True)
class ComparePlan:
    """How runs are compared: the test, the correction, the level and the randomised
    tests' draws; checked by :func:`compare_plan`."""

    test: str
    correction: str
    level: float
    permutations: int
    seed: int


@dataclass(frozen=True)
class Comparison:
    """A comparison's table, with what the reports need beside it: every run's mean
    (``means``: measures x runs, the baseline's too), in the order the runs were read."""

    table: pd.DataFrame
    runs: list[str]
    measures: list[str]
    means: np.ndarray
    higher_is_better: list[bool]
    baseline: str | None
    plan: ComparePlan
    labelled: list[Measure]  # measures[i] as read, its alpha in its name


# The interval at confidence 1 - level takes t's quantile at 1 - level / 2, which is 1 (an
# infinite interval) once level / 2 is below the spacing of doubles next to 1 (2^-53).
SMALLEST_LEVEL = 1e-15


def compare_plan(test: str = "paired_t", correction: str | None = None, level: float = 0.05,
                 permutations: int = 1000, seed: int = DEFAULT_SEED) -> ComparePlan:
    """The comparison's settings checked, one line each refusal; ``correction`` None is
    the test's own default: ``holm``, or ``none`` for a test over all runs (``tukey_hsd``)."""
    if isinstance(test, str) and test in TESTS and test not in compare_tests():
        raise ValueError(f"{test} gives no p-value per pair of runs, so compare cannot use it; expected one of "
                         f"{', '.join(compare_tests())}")
    if not isinstance(test, str) or test not in compare_tests():
        raise ValueError(f"unknown test {check.shown(test)} for compare; expected one of "
                         f"{', '.join(compare_tests())} (a test of your own: irmeta.register_test, or --plugin)")
    paired = TESTS[test].paired
    if correction is None:
        correction = "holm" if paired else NO_CORRECTION
    correction = check.choice("correction", correction, correction_names(none=True))
    if not paired and correction != NO_CORRECTION:
        raise ValueError(f"{test} accounts for every pair of runs itself: its correction is none, "
                         f"not {correction!r}")
    level = check.number("level", level, SMALLEST_LEVEL, 1.0, open_high=True)
    p = check.experiment_parameters(permutations=permutations, seed=seed)
    return ComparePlan(test, correction, level, p["permutations"], p["seed"])


def compare(qrels: Any, runs: Any, measures: Sequence[str] = DEFAULT_MEASURES, *, baseline: str | None = None,
            test: str = "paired_t", correction: str | None = None, level: float = 0.05, permutations: int = 1000,
            seed: int = DEFAULT_SEED, **settings: Any) -> pd.DataFrame:
    """The table of ``irmeta compare --format tsv`` as a DataFrame (columns
    :data:`COLUMNS`; see the module's docstring for what each row holds). ``test``: one
    of :func:`compare_tests`; ``correction``: ``none`` or one of the registry's, None for the
    test's default (``holm``; ``none`` for ``tukey_hsd``). ``settings``: those of
    :func:`irmeta.score` (``depth``, ``threshold``, ``alphas``, ``gains``...), checked as
    it checks them, before any file is read."""
    return compare_runs(qrels, runs, measures, baseline=baseline, test=test, correction=correction, level=level,
                        permutations=permutations, seed=seed, **settings).table


_OWN_KEYWORDS = ("baseline", "test", "correction", "level", "permutations", "seed")  # beside score's


def compare_runs(qrels: Any, runs: Any, measures: Sequence[str] = DEFAULT_MEASURES, *,
                 baseline: str | None = None, test: str = "paired_t", correction: str | None = None,
                 level: float = 0.05, permutations: int = 1000, seed: int = DEFAULT_SEED,
                 **settings: Any) -> Comparison:
    """:func:`compare`, with the means and settings the reports need (:func:`render`)."""
    plan = compare_plan(test, correction, level, permutations, seed)
    if baseline is not None and not isinstance(baseline, str):
        raise TypeError(f"baseline must be a run name (str) or None, not {type(baseline).__name__}")
    s = check.score_settings("compare", measures, settings, own=_OWN_KEYWORDS)
    if s.average != "all":
        raise ValueError("compare pairs runs on every qrels topic (average 'all'): the paired tests need both "
                         f"runs' scores on the same topics, so average {s.average!r} is refused")
    return compare_scores(score_checked(qrels, runs, s).scores, plan, baseline)


def compare_scores(scores: Scores, plan: ComparePlan, baseline: str | None = None) -> Comparison:
    """Every measure's comparisons on :func:`irmeta.score`'s scores (per-topic over every
    qrels topic, means ``all_topics``)."""
    import pandas as pd

    runs = list(scores.runs)
    if len(runs) < 2:
        raise ValueError(f"compare needs at least two runs, got {len(runs)}")
    if baseline is not None and baseline not in runs:
        shown = ", ".join(runs[:8]) + (", ..." if len(runs) > 8 else "")
        raise ValueError(f"baseline {baseline!r} is not one of the runs given ({shown})")
    warn_too_few_draws(plan, len(runs) - 1 if baseline is not None else len(runs) * (len(runs) - 1) // 2)
    means = scores.means[AVERAGING_NAMES["all"]]
    labels, labelled, blocks = [], [], []
    for i, measure in enumerate(scores.labelled()):
        label = str(measure)
        if label not in labels:  # a measure asked for twice is compared once
            labels.append(label)
            labelled.append(measure)
            blocks.append(i)
    higher = [m.higher_is_better for m in labelled]
    where = None if baseline is None else runs.index(baseline)
    pairs = len(runs) - 1 if baseline is not None else len(runs) * (len(runs) - 1) // 2
    frames = []
    with progress_steps("pairs tested", pairs * len(labels), "pair") as step:  # each measure: every pair at once
        for label, i in zip(labels, blocks):
            frames.append(_measure_rows(label, scores.per_topic[i], means[i], runs, where, plan))
            step(pairs)
    return Comparison(pd.concat(frames, ignore_index=True), runs, labels, means[blocks], higher, baseline, plan,
                      labelled)


def warn_too_few_draws(plan: ComparePlan, comparisons: int) -> str:
    """Warn (:class:`TooFewDrawsWarning`, one line) when the plan's draws cannot make any
    of a measure's ``comparisons`` significant; return the line, "" when they can."""
    test = TESTS[plan.test]
    if not test.randomised:
        return ""
    name = plan.test if plan.correction == NO_CORRECTION else f"{plan.test}+{plan.correction}"
    note = unattainable_note(name, plan.level, plan.permutations, comparisons)
    if not note:
        return ""
    line = f"compare {name}: {note.replace(' pairs', ' comparisons').replace('no pair', 'no comparison')}"
    warnings.warn(TooFewDrawsWarning(line), stacklevel=3)
    return line


def _ordered_pairs(n_runs: int, baseline: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(r, s) of each row: every other run against the baseline, or every ordered pair
    r != s, r-major."""
    if baseline is not None:
        r = np.array([i for i in range(n_runs) if i != baseline], dtype=np.int64)
        return r, np.full(len(r), baseline, dtype=np.int64)
    r, s = np.divmod(np.arange(n_runs * n_runs), n_runs)
    keep = r != s
    return r[keep], s[keep]


def _pvalues(values: np.ndarray, selected: np.ndarray, plan: ComparePlan, runs: list[str]) -> np.ndarray:
    """p-values of the unordered pairs ``selected`` (positions in ``run_pairs`` order);
    ``runs``: the rows' names, which a plugin's fault with a pair names."""
    test = TESTS[plan.test]
    if not test.paired:
        assert test.pvalues is not None  # compare_plan offers no other
        return resolve(test.pvalues)(values, selected)
    return run_test(plan.test, values, plan.permutations, plan.seed, runs=runs).p_value[selected]


def _measure_rows(label: str, values: np.ndarray, means: np.ndarray, runs: list[str], baseline: int | None,
                  plan: ComparePlan) -> pd.DataFrame:
    """One measure's rows: tests on the unordered pairs, read out per ordered pair."""
    import pandas as pd

    n = len(runs)
    a, b = run_pairs(n)
    selected = np.arange(len(a)) if baseline is None else np.flatnonzero((a == baseline) | (b == baseline))
    p = _pvalues(values, selected, plan, runs)
    adjusted = p if plan.correction == NO_CORRECTION else CORRECTIONS[plan.correction].adjust(p)
    summary = pair_summary(values, 1.0 - plan.level)
    family = np.full((n, n), -1, dtype=np.int64)  # family[r, s]: the pair's place among ``selected``
    family[a[selected], b[selected]] = family[b[selected], a[selected]] = np.arange(len(selected))
    r, s = _ordered_pairs(n, baseline)
    k = family[r, s]
    pair = selected[k]
    forward = r < s  # run_pairs' differences are x_a - x_b with a < b: flip the others
    sign = np.where(forward, 1.0, -1.0)
    names = np.asarray(runs, dtype=object)
    return pd.DataFrame({
        "run": names[r], "measure": label, "mean": means[r], "baseline": names[s],
        "difference": means[r] - means[s], "p_value": p[k], "p_adjusted": adjusted[k],
        "effect_size_dz": finite_or_missing(sign * summary.effect_size_dz[pair]),
        "ci_low": np.where(forward, summary.ci_low[pair], -summary.ci_high[pair]),
        "ci_high": np.where(forward, summary.ci_high[pair], -summary.ci_low[pair]),
        "significant": adjusted[k] < plan.level}, columns=list(COLUMNS))


# ------------------------------------------------------------------- reports


def run_letters(n: int) -> list[str]:
    """a, b, ..., z, aa, ab, ...: the runs' letters in the reports."""
    out = []
    for i in range(n):
        letters = ""
        i += 1
        while i:
            i, rest = divmod(i - 1, 26)
            letters = chr(ord("a") + rest) + letters
        out.append(letters)
    return out


def better_than(c: Comparison) -> dict[tuple[str, str], list[str]]:
    """(run, measure) -> the runs it is significantly better than, in run order. Read
    from both sides of each row: with a baseline, the baseline's wins are the rows where
    the other run is worse."""
    direction = dict(zip(c.measures, c.higher_is_better))
    t = c.table
    higher, difference = t["measure"].map(direction).to_numpy(bool), t["difference"].to_numpy()
    ahead = np.where(higher, difference > 0, difference < 0)
    behind = np.where(higher, difference < 0, difference > 0)
    found: dict[tuple[str, str], set[str]] = {}
    columns = ["run", "measure", "baseline"]
    for winner, loser, rows in ((0, 2, t["significant"] & ahead), (2, 0, t["significant"] & behind)):
        for row in t.loc[rows, columns].itertuples(index=False, name=None):
            found.setdefault((row[winner], row[1]), set()).add(row[loser])
    order = {run: i for i, run in enumerate(c.runs)}
    return {key: sorted(v, key=order.__getitem__) for key, v in found.items()}


def _caption(c: Comparison, spellings: Mapping[str, str]) -> str:
    p = c.plan
    draws = f" ({p.permutations} draws, seed {p.seed})" if TESTS[p.test].randomised else ""
    against = f" against the baseline {c.baseline}" if c.baseline is not None else " between every pair of runs"
    lower = [as_typed(m, spellings) for m, h in zip(c.labelled, c.higher_is_better) if not h]
    note = f" (lower is better for {', '.join(lower)})" if lower else ""
    if not TESTS[p.test].paired:
        correction = "its own correction for all pairs"
    else:
        correction = "no correction" if p.correction == NO_CORRECTION else CORRECTIONS[p.correction].caption
    return (f"{_title(p.test)}{draws}{against}, {correction}, level {p.level:g}. "
            f"Superscripts: the runs a mean is significantly better than{note}.{spellings_note(spellings)}")


def _cells(c: Comparison, digits: int, sup: str) -> list[list[str]]:
    """Rows of the report: letter, run, then per measure the mean and its superscript
    (``sup``: a format with one field, the letters, in the report's own markup: a
    :class:`~irmeta.support.formats.Markup` cell; the run's name is text, escaped by the
    table writer)."""
    letters = run_letters(len(c.runs))
    letter_of = dict(zip(c.runs, letters))
    joiner = "" if len(c.runs) <= 26 else ","  # two-letter names need separating
    wins = better_than(c)
    _refuse_non_finite_means(c)
    rows = []
    for j, (letter, run) in enumerate(zip(letters, c.runs)):
        cells: list[str] = [letter, run]
        for i, measure in enumerate(c.measures):
            beaten = joiner.join(letter_of[o] for o in wins.get((run, measure), []))
            cells.append(Markup(f"{c.means[i, j]:.{digits}f}" + (sup.format(beaten) if beaten else "")))
        rows.append(cells)
    return rows


def _refuse_non_finite_means(c: Comparison) -> None:
    n_runs = len(c.runs)
    refuse_non_finite(c.means, lambda k: f"the mean of {c.measures[k // n_runs]} for run {c.runs[k % n_runs]}")


def comparison_markdown(c: Comparison, digits: int = 4, spellings: Mapping[str, str] | None = None) -> str:
    """The report as a GitHub Markdown table, the caption on the line above; names escaped
    (:func:`~irmeta.support.formats.markdown_escape`), measures as typed (``spellings``:
    :func:`~irmeta.measures.typed.typed_spellings`)."""
    spellings = spellings or {}
    lines = [markdown_escape(_caption(c, spellings)), ""] + markdown_table(
        ["#", "run", *(as_typed(m, spellings) for m in c.labelled)], _cells(c, digits, "<sup>{}</sup>"),
        [False, False] + [True] * len(c.measures))
    return "\n".join(lines) + "\n"


def comparison_latex(c: Comparison, digits: int = 4, spellings: Mapping[str, str] | None = None) -> str:
    """The report as a LaTeX ``table`` (``tabular``, ``\\hline`` rules, no package needed);
    names escaped (:func:`~irmeta.support.formats.latex_escape`), superscripts in math mode."""
    spellings = spellings or {}
    lines = latex_table(["", "run", *(as_typed(m, spellings) for m in c.labelled)], _cells(c, digits, "$^{{{}}}$"),
                        "ll" + "r" * len(c.measures), _caption(c, spellings))
    return "\n".join(lines) + "\n"


def comparison_tsv(table: pd.DataFrame, digits: int | None = None) -> str:
    """The table as TSV, :data:`COLUMNS`; values at full precision (shortest round trip)
    or ``digits`` decimals; ``significant`` True or False. A run or measure name TSV
    cannot carry (a tab, a newline) and a number that is not finite are refused, one line
    each (:mod:`irmeta.support.formats`)."""
    import pandas as pd

    check_tsv_names("run", pd.unique(table["run"]))
    check_tsv_names("measure", pd.unique(table["measure"]))
    for column in _NUMBERS:
        values = table[column].to_numpy(np.float64)
        # d_z is missing (empty) where every difference is the same non-zero value: d/0
        refuse = refuse_infinite if column == "effect_size_dz" else refuse_non_finite
        refuse(values, lambda i, column=column: (
            f"compare's {column} of {table['measure'].iat[i]} for run {table['run'].iat[i]} against "
            f"{table['baseline'].iat[i]}"))
    # fields unquoted, as every TSV irmeta writes: pandas would write a run named '"' as '""""'
    return table.to_csv(sep="\t", index=False, lineterminator="\n", quoting=csv.QUOTE_NONE,
                        float_format=None if digits is None else f"%.{digits}f")


_NUMBERS = ("mean", "difference", "p_value", "p_adjusted", "effect_size_dz", "ci_low", "ci_high")


def render(c: Comparison, fmt: str = "markdown", digits: int | None = None,
           spellings: Mapping[str, str] | None = None) -> str:
    """The comparison in one of :data:`FORMATS`; ``digits`` None: 4 decimals in the
    reports, full precision in the TSV. ``spellings`` (canonical -> typed): the reports
    name the measures as typed; the TSV keeps the canonical names."""
    fmt = check.choice("format", fmt, FORMATS)
    if fmt == "tsv":
        return comparison_tsv(c.table, digits)
    shown = 4 if digits is None else digits
    if fmt == "markdown":
        return comparison_markdown(c, shown, spellings)
    return comparison_latex(c, shown, spellings)
