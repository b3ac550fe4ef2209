"""The registry of significance tests and corrections: each declares once its name, its
title, its place in figures and reports, whether it draws at random (and so from which
seed), and the function that computes it. The config schema's enum and default, the
API's defaults, the figures' titles, ``irmeta compare``'s choices and captions, the
claims' methods and the discriminative-power dispatch all read it.

It imports no test: the shipped ones name their function as ``module:function``,
imported on first use, so a job that only needs a title pays for no scipy; a user's own
test registers a callable (:func:`irmeta.metaeval.stats.test_plugins.register_test`).

Two kinds of test:

- ``paired``: one p-value per run pair, from that pair's per-topic scores, computed for
  every pair of a (runs, topics) matrix at once: ``function(scores, budget=None)``, or
  for a randomised test ``function(scores, permutations, seed, budget=None)``, returning a
  :class:`~irmeta.metaeval.stats.pair_differences.PairTest` in ``run_pairs`` order. Each
  is corrected over the family of all pairs by each :data:`CORRECTIONS` entry and is a
  row of ``tables/pairwise_tests.parquet``.
- ``all_runs``: a test that decides every pair from all runs at once and accounts for
  the multiplicity itself (the paper's Tukey HSDs): ``function(matrix, levels, context)``
  counts the significant pairs of one score matrix for discriminative power; ``pvalues``,
  when given, is ``pvalues(scores, selected) -> p`` for ``irmeta compare``.

What a randomised test's B draws can show: with p = (b + 1) / (B + 1) no p-value is below
1 / (B + 1), and a correction over m pairs can push that above any level (Holm over the
8,256 pairs of 129 runs needs p < 0.05 / 8256 = 6.1e-6, more than 165,000 draws). The
bound of each correction lives beside it (:attr:`Correction.scales_smallest`), and
:func:`attainable` says whether a name can find any pair significant at a level.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["paired", "all_runs"]


@dataclass(frozen=True)
class SignificanceTest:
    """A test as every table, figure and command names it. ``title`` is lower case, as a
    figure's panel shows it (``compare`` capitalises it); ``description`` one sentence for
    captions; ``default``: among ``experiments.discriminative_power.methods``' default;
    ``seed_offset``: added to the experiment's seed for a randomised test's draws (the
    shipped ones share theirs, common random numbers); ``claims``: the correction (or
    ``none``) under which the claims across collections judge discriminative power by
    it, None: not among the claims' protocols, and ``claims_note`` what that protocol is
    in the claims' caption (default: from the description and the correction); ``short``: its name in the end-of-run
    summary's headline (none: not there); ``source``: the plugin's file, "" for a
    shipped test.

    ``batched``: a paired test's form over a batch of trials (:mod:`.batched_tests`):
    ``batched(d, tails)``, or for a randomised test ``batched(d, tails, permutations,
    seed, ceiling=1.0)`` (and, if it takes them, ``settled=None, group=1``), the (trials,
    topics) differences of one pair per trial in and a (len(tails), trials) array of
    p-values out, each two-tailed one the function's on that trial's 2-run matrix;
    ``tails``: the tails it gives (1: the first run better, 2: either; 2 always among
    them). None: the error-rate simulation calls ``function`` on each trial's matrix (the
    same p-values, slower), two-tailed only."""

    name: str
    title: str
    description: str
    function: str | Callable[..., Any]
    kind: Kind = "paired"
    randomised: bool = False
    seed_offset: int = 0
    default: bool = True
    pvalues: str | Callable[..., Any] | None = None
    claims: str | None = None
    claims_note: str = ""
    short: str = ""
    source: str = ""
    plus_one: bool = False
    form_of: str = ""
    batched: str | Callable[..., Any] | None = None
    tails: tuple[int, ...] = (2,)

    @property
    def paired(self) -> bool:
        return self.kind == "paired"

    @property
    def in_compare(self) -> bool:
        """``irmeta compare --test`` offers it: a paired test, or one that gives pairs' p-values."""
        return self.paired or self.pvalues is not None

    def compute(self) -> Callable[..., Any]:
        return resolve(self.function)

    @property
    def claims_method(self) -> str | None:
        """The discriminative-power method name the claims read: ``paired_t+holm``, ``tukey_hsd``..."""
        if self.claims is None:
            return None
        return self.name if self.claims == NO_CORRECTION else f"{self.name}+{self.claims}"


@dataclass(frozen=True)
class Correction:
    """A multiple-comparison correction of one family's p-values: ``title`` in figures,
    ``caption`` in reports, ``function(p) -> adjusted p``; its adjusted p-values are the
    column ``p_adjusted_<name>`` of the pairwise tests.

    ``smallest``: ``module:function`` giving each family's smallest adjusted p-value from
    a (families, m) matrix (:meth:`family_smallest`).

    ``scales_smallest``: its smallest adjusted p of a family of m is m times the smallest
    raw p, min(1, m p_(1)) (Holm's first step, Bonferroni's every step), so a pair passes
    at a level only if its p < level / m; False: the smallest raw p itself (Benjamini and
    Hochberg's p_(j) m / j is p_(1) when all m pairs share it, j = m), so BH needs
    p < level, and k pairs at the smallest p only once k >= m p / level."""

    name: str
    title: str
    caption: str
    function: str
    scales_smallest: bool = True
    smallest: str = ""

    @property
    def column(self) -> str:
        return f"p_adjusted_{self.name}"

    def adjust(self, pvalues: Any) -> Any:
        return resolve(self.function)(pvalues)

    def family_smallest(self, pvalues: Any) -> Any:
        """The smallest adjusted p-value of each family, a row of the (families, m)
        ``pvalues``: a family has a pair significant at a level iff it is <= the level.
        ``smallest`` (``module:function``) computes them for all rows at once; without
        it, :meth:`adjust` each row."""
        import numpy as np

        p = np.asarray(pvalues, dtype=np.float64)
        if self.smallest:
            return resolve(self.smallest)(p)
        return np.array([np.min(self.adjust(row)) for row in p], dtype=np.float64).reshape(len(p))

    def smallest_adjusted(self, smallest: float, pairs: int) -> float:
        """The smallest adjusted p any pair of a family of ``pairs`` can get when no raw p
        is below ``smallest``: min(1, m p) computed as :func:`.multiple_testing.holm` and
        ``bonferroni`` compute it (p times m), or p."""
        return min(1.0, smallest * float(pairs)) if self.scales_smallest else smallest


def resolve(function: str | Callable[..., Any]) -> Callable[..., Any]:
    """A callable, or ``"module:function"`` imported now."""
    if callable(function):
        return function
    module, _, name = function.partition(":")
    return getattr(importlib.import_module(module), name)


_STATS = "irmeta.metaeval.stats"
_POWER = "irmeta.metaeval.discriminative_power"
_BATCHED = f"{_STATS}.batched_tests"
_BOTH_TAILS = (1, 2)

#: The tests irmeta ships, in their order in figures and reports (plugins follow, in the
#: order they register).
SHIPPED = (
    SignificanceTest("paper_pairwise", "paper pairwise (authors' script)",
                     "the authors' script: each pair alone by an unpaired test, no correction",
                     f"{_POWER}:paper_pairwise_counts", kind="all_runs", claims="none", short="per-pair",
                     claims_note="the authors' script, each pair alone by an unpaired test, no correction"),
    SignificanceTest("tukey_hsd", "Tukey HSD (two-way ANOVA)",
                     "one Tukey HSD over all runs, on the two-way ANOVA residual",
                     f"{_POWER}:tukey_hsd_counts", kind="all_runs", claims="none", short="two-way HSD",
                     pvalues=f"{_STATS}.tukey_hsd:tukey_hsd_pair_pvalues"),
    SignificanceTest("randomised_tukey_hsd", "randomised Tukey HSD", "the permutation form of the Tukey HSD",
                     f"{_POWER}:randomised_tukey_hsd_counts", kind="all_runs", randomised=True, claims="none",
                     short="randomised HSD", claims_note="its permutation form"),
    SignificanceTest("paired_t", "paired t-test", "the two-sided paired t-test",
                     f"{_STATS}.paired_tests:paired_t", claims="holm",
                     claims_note="the paired t-test on each pair, Holm-corrected over all pairs",
                     batched=f"{_BATCHED}:paired_t", tails=_BOTH_TAILS),
    SignificanceTest("wilcoxon", "Wilcoxon signed-rank test", "Wilcoxon's two-sided signed-rank test",
                     f"{_STATS}.signed_rank:wilcoxon", batched=f"{_BATCHED}:wilcoxon", tails=_BOTH_TAILS),
    SignificanceTest("sign", "sign test", "the two-sided sign test", f"{_STATS}.paired_tests:sign",
                     batched=f"{_BATCHED}:sign", tails=_BOTH_TAILS),
    SignificanceTest("randomisation", "paired randomisation test",
                     "Fisher's paired randomisation test on the mean difference",
                     f"{_STATS}.resampling_tests:randomisation", randomised=True, claims="holm", plus_one=True,
                     batched=f"{_BATCHED}:randomisation", tails=_BOTH_TAILS,
                     claims_note="Fisher's paired randomisation test, Holm-corrected over all pairs"),
    SignificanceTest("paired_bootstrap", "paired bootstrap test", "Sakai's studentised paired bootstrap test",
                     f"{_STATS}.resampling_tests:paired_bootstrap", randomised=True, claims="none", plus_one=True,
                     batched=f"{_BATCHED}:paired_bootstrap", tails=_BOTH_TAILS),
    # the count forms b / B of the same draws, by name only (Smucker et al. 2007, Sakai 2006 state them so)
    SignificanceTest("randomisation_count", "paired randomisation test (b/B)",
                     "Fisher's paired randomisation test on the mean difference, p = b / B",
                     f"{_STATS}.resampling_tests:randomisation_count", randomised=True, default=False,
                     form_of="randomisation", batched=f"{_BATCHED}:randomisation_count", tails=_BOTH_TAILS),
    SignificanceTest("paired_bootstrap_count", "paired bootstrap test (b/B)",
                     "Sakai's studentised paired bootstrap test, p = b / B",
                     f"{_STATS}.resampling_tests:paired_bootstrap_count", randomised=True, default=False,
                     form_of="paired_bootstrap", batched=f"{_BATCHED}:paired_bootstrap_count", tails=_BOTH_TAILS),
)

#: Every known test by name: the shipped ones, then those plugins register.
TESTS: dict[str, SignificanceTest] = {t.name: t for t in SHIPPED}

#: The corrections, in their order in tables and figures.
CORRECTIONS: dict[str, Correction] = {c.name: c for c in (
    Correction("holm", "Holm", "Holm's correction", f"{_STATS}.multiple_testing:holm",
               smallest=f"{_STATS}.multiple_testing:smallest_scaled"),
    Correction("bh", "BH", "Benjamini-Hochberg correction", f"{_STATS}.multiple_testing:benjamini_hochberg",
               scales_smallest=False, smallest=f"{_STATS}.multiple_testing:smallest_benjamini_hochberg"),
    Correction("bonferroni", "Bonferroni", "Bonferroni correction", f"{_STATS}.multiple_testing:bonferroni",
               smallest=f"{_STATS}.multiple_testing:smallest_scaled"),
)}

#: A paired test's raw p-values, as ``experiments.discriminative_power.corrections`` names them.
NO_CORRECTION = "none"


def paired_methods(methods: Iterable[str]) -> list[str]:
    """The paired tests of the registry among ``methods`` (a config's list), in its order."""
    return [m for m in methods if m in TESTS and TESTS[m].paired]


def registered_tests(*, kind: Kind | None = None, default_only: bool = False) -> list[str]:
    """The registered tests' names in registry order, of one kind or all; another form of
    a test (``randomisation_count``) only where it is named (not here)."""
    return [t.name for t in TESTS.values()
            if (kind is None or t.kind == kind) and (t.default or not default_only) and not t.form_of]


def correction_names(*, none: bool = False) -> list[str]:
    """The corrections' names, ``none`` first when asked."""
    return [NO_CORRECTION] * none + list(CORRECTIONS)


def significance_test(name: str, what: str = "test") -> SignificanceTest:
    """The test ``name``, or a one-line ValueError listing the known ones."""
    try:
        return TESTS[name]
    except (KeyError, TypeError):
        raise ValueError(unknown_test(name, what)) from None


def unknown_test(name: Any, what: str = "test") -> str:
    plugins = "" if len(TESTS) > len(SHIPPED) else "; a test of your own needs test_plugins or --plugin"
    return f"unknown {what} {name!r}; expected one of {', '.join(TESTS)}{plugins}"


def parse_test_name(name: str) -> tuple[SignificanceTest, str | None]:
    """``"<test>[+<correction>]"`` -> (test, correction or None): ``paired_t``,
    ``wilcoxon+holm``, ``sign+bh``... The one place the grammar is read; a correction
    only follows a paired test (an all-runs test accounts for every pair itself)."""
    method, plus, correction = str(name).partition("+")
    test = significance_test(method)
    if not plus:
        return test, None
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r} in {name!r}; expected one of {', '.join(CORRECTIONS)}")
    if not test.paired:
        raise ValueError(f"{name!r}: {method} accounts for every pair itself and takes no correction")
    return test, correction


def corrected_names(test: str, corrections: Iterable[str]) -> list[str]:
    """The discriminative-power names of one paired test: ``paired_t`` for ``none``,
    ``paired_t+holm`` for ``holm``, ..., each once, in the order of ``corrections``."""
    known = correction_names(none=True)
    unknown = [c for c in corrections if c not in known]
    if unknown:
        raise ValueError(f"unknown corrections {unknown}; expected some of {', '.join(known)}")
    return [test if c == NO_CORRECTION else f"{test}+{c}" for c in dict.fromkeys(corrections)]


def claims_methods() -> dict[str, str]:
    """The discriminative-power methods the claims judge by, each with what it is (for
    captions), in the registry's order."""
    out = {}
    for test in TESTS.values():
        method = test.claims_method
        if method is None:
            continue
        if test.claims_note:
            out[method] = test.claims_note
        elif not test.paired:
            out[method] = test.description
        elif test.claims == NO_CORRECTION:
            out[method] = f"{test.description}, uncorrected"
        else:
            out[method] = f"{test.description} on each pair, {CORRECTIONS[test.claims].title}-corrected over all pairs"
    return out


def name_title(name: str) -> str:
    """A method name's title: ``paired_t+holm`` -> "paired t-test, Holm"; an unknown
    name is its own title (a table from another version may hold one)."""
    method, _, correction = name.partition("+")
    test = TESTS.get(method)
    title = test.title if test is not None else method
    if not correction:
        return title
    known = CORRECTIONS.get(correction)
    return f"{title}, {known.title if known is not None else correction}"


def name_order(name: str) -> tuple:
    """Sort key of method names: the registry's order, each test raw, then corrected in
    :data:`CORRECTIONS` order; unknown names last, by name."""
    method, _, correction = name.partition("+")
    tests, corrections = list(TESTS), ["", *CORRECTIONS]
    return (tests.index(method) if method in tests else len(tests),
            corrections.index(correction) if correction in corrections else len(corrections), name)


# ------------------------------------------------------------------- what B draws can show


def smallest_pvalue(plus_one: bool, draws: int | None) -> float:
    """The smallest p-value a test can give a pair: 1 / (B + 1) for p = (b + 1) / (B + 1)
    of B = ``draws`` (computed as :func:`.resampling_tests.randomised_pvalues` does), else 0
    (b / B is 0 where no draw reaches the data; an analytic test's p comes as near 0 as
    the data make it)."""
    return 1.0 / (float(draws) + 1.0) if plus_one and draws else 0.0


def smallest_adjusted_pvalue(name: str, draws: int | None, pairs: int, *, plus_one: bool | None = None) -> float:
    """The smallest p (adjusted by the correction of ``name``, ``test[+correction]``) any
    pair of a family of ``pairs`` can get; ``plus_one`` None: the test's own form (the
    randomised Tukey HSD's is a setting, ``randomised_p``, so its caller says)."""
    test, correction = parse_test_name(name)
    smallest = smallest_pvalue(test.plus_one if plus_one is None else plus_one, draws)
    return smallest if correction is None else CORRECTIONS[correction].smallest_adjusted(smallest, pairs)


def attainable(name: str, level: float, draws: int | None, pairs: int, *, plus_one: bool | None = None) -> bool:
    """Whether any pair can be significant (p < level, strictly, as the counts are) by
    ``name`` at ``level`` with ``draws`` draws over a family of ``pairs``: False where the
    smallest attainable p (:func:`smallest_adjusted_pvalue`) is not below the level."""
    return smallest_adjusted_pvalue(name, draws, pairs, plus_one=plus_one) < float(level)


def draws_needed(name: str, level: float, pairs: int) -> int:
    """The fewest draws B with which ``name`` (a plus-one test) can reach ``level`` over
    ``pairs``: Holm and Bonferroni need 1 / (B + 1) < level / m, BH and none
    1 / (B + 1) < level."""
    _, correction = parse_test_name(name)
    family = pairs if correction is not None and CORRECTIONS[correction].scales_smallest else 1
    draws = max(1, int(family / float(level)) - 1)
    while not attainable(name, level, draws, pairs, plus_one=True):  # the exact comparison decides
        draws += 1
    return draws


def unattainable_note(name: str, level: float, draws: int | None, pairs: int, *,
                      plus_one: bool | None = None) -> str:
    """Why ``name`` cannot find a pair significant at ``level`` (one clause, for tables,
    captions and warnings), or "" when it can."""
    if attainable(name, level, draws, pairs, plus_one=plus_one):
        return ""
    _, correction = parse_test_name(name)
    known = CORRECTIONS.get(correction or "")
    floor = f"1/{(draws or 0) + 1} = {smallest_pvalue(True, draws):.3g}"
    if known is not None and known.scales_smallest:
        text = (f"with {draws} draws no p is below {floor}, and {known.title} over {pairs} pairs needs "
                f"p < {level:g}/{pairs} = {level / pairs:.3g}")
    else:
        adjusted = f" (nor {known.title}-adjusted)" if known is not None else ""
        text = f"with {draws} draws no p{adjusted} is below {floor}, which is not below {level:g}"
    return f"{text}: no pair can be significant at {level:g} ({draws_needed(name, level, pairs)} draws could)"
