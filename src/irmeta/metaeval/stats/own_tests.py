"""Bring your own significance test: one call registers a function as a paired test, and
from then on it runs wherever the shipped ones do: discriminative power
(``discriminative_power.csv``, raw and under every correction), the table of every run
pair (``pairwise_tests.parquet``), the claims and ``irmeta compare --test``.

Two kinds of function:

- vectorised, as the shipped tests are written: ``f(scores)`` takes the (runs, topics)
  matrix of one measure and returns ``(statistic, p_value)``, two arrays with one entry
  per run pair in ``np.triu_indices(runs, 1)`` order (the pair (a, b), a < b, compares
  row a with row b: d = scores[a] - scores[b]);
- per pair, for prototyping (``per_pair=True``): ``f(x, y)`` returns ``(statistic,
  p_value)`` of two runs' per-topic scores (``scipy.stats.ttest_rel(x, y)`` is one);
  irmeta calls it once per pair, a Python loop.

A randomised test (``randomised=True``) takes two more arguments, ``permutations`` and
``seed``: ``f(scores, permutations, seed)`` or ``f(x, y, permutations, seed)``; the seed
is the experiment's (``experiments.seed`` plus the pairwise tests' offset, plus the
test's own ``seed_offset``), the same for every pair, measure and alpha, so that the
same config gives the same bytes.

Every call is guarded as a measure plugin's is: an exception, a result of the wrong
shape, a p-value outside [0, 1] or NaN, a NaN statistic, is one line (a ValueError)
naming the test and the plugin's file, never a traceback nor a wrong table. A
statistic may be +-inf (constant non-zero differences), as the paired t-test's is.
"""

from __future__ import annotations

import inspect
import re
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from irmeta.measures.registry import MEASURES
from irmeta.metaeval.stats.blocks import run_pairs
from irmeta.metaeval.stats.pair_differences import PairFault, PairTest, checked_scores
from irmeta.metaeval.stats.registry import CORRECTIONS, NO_CORRECTION, SHIPPED, TESTS, SignificanceTest
from irmeta.support.plugin_import import import_plugins, loading_file, same_file

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def register_test(name: str, function: Callable[..., Any], *, randomised: bool = False, per_pair: bool = False,
                  title: str = "", description: str = "", seed_offset: int = 0, claims: str | None = "holm",
                  replace: bool = False) -> SignificanceTest:
    """Register ``function`` as the paired test ``name`` (see the module's docstring for
    its arguments). ``title``: its name in figures and reports (default: ``name``);
    ``description``: one sentence for captions (default: the function's docstring's first
    line); ``claims``: the correction under which the claims across collections judge
    discriminative power by it (``holm``, as the paired t-test; ``none`` for raw p-values;
    None keeps it out of the claims). Everything is checked here, one line each: the name (letters, digits and _,
    not a shipped test, not taken unless ``replace``), the flags, the parameters."""
    for key, value in (("randomised", randomised), ("per_pair", per_pair), ("replace", replace)):
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"test {name}: {key} is True or False, not {value!r}")
    _check_name(name, bool(replace))
    if not callable(function):
        raise ValueError(f"test {name}: register_test takes the function that computes it, "
                         f"not {type(function).__name__}")
    for key, text in (("title", title), ("description", description)):
        if not isinstance(text, str) or "\n" in text or "\t" in text:
            raise ValueError(f"test {name}: {key} is one line of text, not {text!r}")
    if isinstance(seed_offset, bool) or not isinstance(seed_offset, (int, np.integer)) or not 0 <= seed_offset < 2**31:
        raise ValueError(f"test {name}: seed_offset is an integer in [0, 2^31), not {seed_offset!r}")
    if claims is not None and claims != NO_CORRECTION and claims not in CORRECTIONS:
        raise ValueError(f"test {name}: claims is None, 'none' or one of {', '.join(CORRECTIONS)}, not {claims!r}")
    _check_parameters(name, function, bool(randomised), bool(per_pair))
    source = _source(function)
    guarded = _Guard(name, source, function, bool(randomised), bool(per_pair))
    text = description or " ".join(((getattr(function, "__doc__", None) or "").strip().split("\n") or [""])[0].split())
    test = SignificanceTest(name, title or name, text or f"the plugin test {name}", guarded,
                            randomised=bool(randomised), seed_offset=int(seed_offset), default=False, claims=claims,
                            source=source)
    TESTS[name] = test
    return test


def load_plugins(modules: Sequence[str], base: str | Path = ".", key: str = "plugins") -> None:
    """Import each module that registers measures or tests (a dotted name or a ``.py``
    file, relative to ``base``; ``key``: the setting naming them, for messages): what
    the config's ``measure_plugins`` and ``test_plugins`` and the CLI's ``--plugin`` name."""
    import_plugins(modules, base, [MEASURES, TESTS], key)


def _check_name(name: Any, replace: bool) -> None:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"test name {name!r}: letters, digits and _, starting with a letter "
                         f"(+ joins a test and its correction)")
    if name in CORRECTIONS or name == NO_CORRECTION:
        raise ValueError(f"test name {name}: that is a correction's name; choose another name")
    known = TESTS.get(name)
    if known is None:
        return
    if any(t.name == name for t in SHIPPED):
        raise ValueError(f"test {name} is one irmeta ships: a plugin cannot register or replace it; "
                         f"choose another name")
    if not replace:
        by = f" (by {Path(known.source).name})" if known.source else ""
        raise ValueError(f"test {name} is already registered{by}; replace=True replaces it")


def _check_parameters(name: str, function: Callable[..., Any], randomised: bool, per_pair: bool) -> None:
    expected = (["x", "y"] if per_pair else ["scores"]) + (["permutations", "seed"] if randomised else [])
    try:
        params = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        raise ValueError(f"test {name}: cannot read the parameters of {function!r}") from None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    takes_any = any(p.kind == p.VAR_POSITIONAL for p in params)
    if len(required) > len(expected) or (len(positional) < len(expected) and not takes_any):
        raise ValueError(f"test {name}: the function takes ({', '.join(expected)})"
                         + ("" if randomised else "; a randomised test sets randomised=True"))


def _source(function: Callable[..., Any]) -> str:
    for candidate in (function, getattr(function, "func", None), type(function)):
        try:
            path = inspect.getsourcefile(candidate)  # type: ignore[arg-type]
        except TypeError:
            continue
        if path:
            return path
    return loading_file()


class _Guard:
    """A plugin's function called as the registry calls a shipped paired test,
    ``(scores, [permutations, seed,] budget=None) -> PairTest``, its faults one line."""

    def __init__(self, name: str, source: str, function: Callable[..., Any], randomised: bool, per_pair: bool):
        self.name, self.source, self.function = name, source, function
        self.randomised, self.per_pair = randomised, per_pair

    def __call__(self, scores: np.ndarray, *draws: int, budget: int | None = None) -> PairTest:
        m = checked_scores(scores)
        a, b = run_pairs(len(m))
        extra = tuple(int(x) for x in draws[:2]) if self.randomised else ()
        if self.per_pair:
            statistic, p = np.empty(len(a)), np.empty(len(a))
            for k, (i, j) in enumerate(zip(a.tolist(), b.tolist())):
                s, pv = self._pair(self._call(m[i].copy(), m[j].copy(), *extra), i, j)
                statistic[k], p[k] = s, pv
        else:
            statistic, p = self._arrays(self._call(m.copy(), *extra), len(a))
        self._check(statistic, p, a, b)
        return PairTest(statistic, p)

    def _call(self, *args: Any) -> Any:
        try:
            return self.function(*args)
        except MemoryError:
            raise
        except (Exception, SystemExit) as exc:
            lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if same_file(f.filename, self.source)]
            raise ValueError(self.fault(f"{type(exc).__name__}: {exc}", lines[-1] if lines else None)) from exc

    def fault(self, what: str, line: int | None = None) -> str:
        where = Path(self.source).name if self.source else "not from a file"
        return f"test {self.name} (plugin {where}{'' if line is None else f':{line}'}): {' '.join(what.split())}"

    def _pair(self, result: Any, a: int, b: int) -> tuple[float, float]:
        values = self._two(result)
        try:
            return float(values[0]), float(values[1])
        except (TypeError, ValueError, OverflowError):
            raise PairFault(self.fault(f"returned {result!r} for") + " ", a, b,
                            ", where (statistic, p_value), two numbers, were expected") from None

    def _arrays(self, result: Any, pairs: int) -> tuple[np.ndarray, np.ndarray]:
        values = self._two(result)
        try:
            arrays = [np.asarray(v, dtype=np.float64) for v in values]
        except (TypeError, ValueError):
            raise ValueError(self.fault("returned values that are not numbers")) from None
        for what, array in zip(("statistic", "p_value"), arrays):
            if array.shape != (pairs,):
                raise ValueError(self.fault(f"returned {what} of shape {array.shape} where ({pairs},), one per run "
                                            f"pair, was expected"))
        return arrays[0], arrays[1]

    def _two(self, result: Any) -> Sequence[Any]:
        if isinstance(result, PairTest) or (isinstance(result, tuple) and len(result) == 2):
            return result
        for a, b in (("statistic", "pvalue"), ("statistic", "p_value")):  # scipy's result objects
            if hasattr(result, a) and hasattr(result, b):
                return getattr(result, a), getattr(result, b)
        raise ValueError(self.fault(f"returned {type(result).__name__} where (statistic, p_value) was expected"))

    def _check(self, statistic: np.ndarray, p: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        bad = np.flatnonzero(np.isnan(statistic) | ~(p >= 0) | ~(p <= 1))
        if len(bad):
            k = int(bad[0])
            value = f"p-value {float(p[k])!r}" if not 0 <= p[k] <= 1 else f"statistic {float(statistic[k])!r}"
            more = f" (and {len(bad) - 1} other pairs)" if len(bad) > 1 else ""
            raise PairFault(self.fault(f"returned {value} for") + " ", int(a[k]), int(b[k]),
                            f"{more}: a p-value is a number in [0, 1], a statistic a number (+-inf allowed), never NaN")
