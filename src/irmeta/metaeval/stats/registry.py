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
    shipped test."""

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
    column ``p_adjusted_<name>`` of the pairwise tests."""

    name: str
    title: str
    caption: str
    function: str

    @property
    def column(self) -> str:
        return f"p_adjusted_{self.name}"

    def adjust(self, pvalues: Any) -> Any:
        return resolve(self.function)(pvalues)


def resolve(function: str | Callable[..., Any]) -> Callable[..., Any]:
    """A callable, or ``"module:function"`` imported now."""
    if callable(function):
        return function
    module, _, name = function.partition(":")
    return getattr(importlib.import_module(module), name)


_STATS = "irmeta.metaeval.stats"
_POWER = "irmeta.metaeval.discriminative_power"

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
                     claims_note="the paired t-test on each pair, Holm-corrected over all pairs"),
    SignificanceTest("wilcoxon", "Wilcoxon signed-rank test", "Wilcoxon's two-sided signed-rank test",
                     f"{_STATS}.signed_rank:wilcoxon"),
    SignificanceTest("sign", "sign test", "the two-sided sign test", f"{_STATS}.paired_tests:sign"),
    SignificanceTest("randomisation", "paired randomisation test",
                     "Fisher's paired randomisation test on the mean difference",
                     f"{_STATS}.resampling_tests:randomisation", randomised=True, claims="holm",
                     claims_note="Fisher's paired randomisation test, Holm-corrected over all pairs"),
    SignificanceTest("paired_bootstrap", "paired bootstrap test", "Sakai's studentised paired bootstrap test",
                     f"{_STATS}.resampling_tests:paired_bootstrap", randomised=True, claims="none"),
)

#: Every known test by name: the shipped ones, then those plugins register.
TESTS: dict[str, SignificanceTest] = {t.name: t for t in SHIPPED}

#: The corrections, in their order in tables and figures.
CORRECTIONS: dict[str, Correction] = {c.name: c for c in (
    Correction("holm", "Holm", "Holm's correction", f"{_STATS}.multiple_testing:holm"),
    Correction("bh", "BH", "Benjamini-Hochberg correction", f"{_STATS}.multiple_testing:benjamini_hochberg"),
    Correction("bonferroni", "Bonferroni", "Bonferroni correction", f"{_STATS}.multiple_testing:bonferroni"),
)}

#: A paired test's raw p-values, as ``experiments.discriminative_power.corrections`` names them.
NO_CORRECTION = "none"


def registered_tests(*, kind: Kind | None = None, default_only: bool = False) -> list[str]:
    """The registered tests' names in registry order, of one kind or all."""
    return [t.name for t in TESTS.values()
            if (kind is None or t.kind == kind) and (t.default or not default_only)]


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
