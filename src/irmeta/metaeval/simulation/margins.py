"""Margins: each run's distribution of per-topic scores, fitted and selected as simIReff
does (Urbano and Nagler, "Stochastic simulation of test collections: evaluation scores",
SIGIR 2018), written anew.

A margin is fitted on the scores divided by the upper bound of the measure's range (so on
[0, 1]) and its draws multiplied back. On a continuous support the candidates are

* ``norm``: a normal truncated to [0, 1], maximum likelihood with sd >= 0.05 (2 df);
* ``beta``: a beta, maximum likelihood on the scores capped to [1e-6, 1 - 1e-6] (2 df);
* ``nks``: a Gaussian kernel smoothing truncated to [0, 1], Wand and Jones' two-stage
  direct plug-in bandwidth (KernSmooth's ``dpik``, which ``ks::hpi`` calls);
* ``bks``: Chen's (1999) beta kernel smoothing, bandwidth b = n^(-2/5) (the ``bde``
  package's default), on the capped scores, normalised to integrate to 1;

on a finite grid of values (P@k, RR@k, Success@k), on the grid's indices 0..m:

* ``bbinom``: a beta-binomial, maximum likelihood with both shapes >= 1 (2 df);
* ``dks``: Wang and van Ryzin's (1981) ordered kernel, bandwidth by least-squares
  cross-validation (``np::npudensbw(bwmethod = "cv.ls")``), normalised over the grid.

A kernel's degrees of freedom are simIReff's: the trace of the smoother,
df = mean_i K(0) / f_hat(x_i) (for ``dks``, (1 - lambda) / p_hat(x_i)). The selected margin
has the lowest AIC = 2 df - 2 log L (Akaike 1974) over the families that could be fitted.

:meth:`Margin.shifted` is simIReff's ``effTransform``: the distribution function G = B(F),
B the distribution function of a Beta(a, b) with a, b >= 1, so that the expected value
moves to a target within the support; this module solves it with b = 1 (up) or a = 1
(down), the one-parameter paths along which the mean is monotone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
from scipy import optimize, special

from irmeta.measures.names import Measure, as_measure
from irmeta.measures.ranges import measure_range

#: Candidate families by support kind, in the order ties on AIC are broken.
CONTINUOUS_FAMILIES = ("norm", "beta", "nks", "bks")
DISCRETE_FAMILIES = ("bbinom", "dks")

#: simIReff's cap of scores for the beta fits (``cap``: [1e-6, 1 - 1e-6]).
CAP = 1e-6
#: Lower bound of the truncated normal's sd in its fit (simIReff's ``effCont_norm``).
MIN_NORM_SD = 0.05
#: Nodes of the distribution function on [0, 1] (continuous margins): the CDF is exact
#: at NODES + 1 equally spaced points and linear between them.
NODES = 4096
#: Intervals of the quantile table: ``ppf`` interpolates linearly in a table of the
#: quantile function at TABLE + 1 equally spaced probabilities, so 10^7 draws take a
#: fraction of a second; the margin's ``mean`` is that of the tabulated quantile function,
#: so the draws' expectation is exactly ``mean``.
TABLE = 8192
#: Largest Beta shape :meth:`Margin.shifted` uses to reach a target mean.
MAX_SHAPE = 1e6
#: Tolerance, on the unit scale, of scores against [0, 1] and against a grid's values.
TOLERANCE = 1e-9
GRID_TOLERANCE = 1e-6


class DegenerateScores(ValueError):
    """A run's scores have a single distinct value: there is no margin to fit."""


class UnreachableMean(ValueError):
    """No reshaping of a margin within its support reaches the target mean."""


# ----------------------------------------------------------------------------- support


@dataclass(frozen=True)
class Support:
    """Where a measure's scores lie: [0, upper], continuous, or a finite grid of values in
    [0, upper] (``grid``, increasing, on the measure's scale). ``declared``: the range is
    the measure's own (False: [0, 1] assumed for a measure that declares none)."""

    upper: float = 1.0
    grid: tuple[float, ...] | None = None
    declared: bool = True

    def __post_init__(self) -> None:
        if not (math.isfinite(self.upper) and self.upper > 0):
            raise ValueError(f"the upper bound of a measure's range must be positive and finite, not {self.upper}")
        if self.grid is not None:
            values = np.asarray(self.grid, dtype=float)
            if len(values) < 2 or np.any(np.diff(values) <= 0):
                raise ValueError("a grid support needs at least two increasing values")
            if values[0] < -TOLERANCE * self.upper or values[-1] > self.upper * (1 + TOLERANCE):
                raise ValueError(f"a grid support's values must lie in [0, {self.upper:g}]")

    @property
    def discrete(self) -> bool:
        return self.grid is not None

    @property
    def kind(self) -> str:
        """``continuous``, or ``discrete`` with the grid's size (for tables)."""
        return "continuous" if self.grid is None else f"discrete({len(self.grid)})"

    @classmethod
    def continuous(cls, upper: float = 1.0) -> Support:
        return cls(float(upper))

    @classmethod
    def equispaced(cls, steps: int, upper: float = 1.0) -> Support:
        """The grid {0, 1/steps, ..., 1} x upper (P@k: steps = k)."""
        if int(steps) != steps or steps < 1:
            raise ValueError(f"a grid needs a positive whole number of steps, not {steps}")
        return cls(float(upper), tuple(float(v) for v in np.arange(steps + 1) / steps * upper))

    @classmethod
    def reciprocal_ranks(cls, depth: int, upper: float = 1.0) -> Support:
        """RR@k's values {0} U {1/r : r = 1..depth} (simIReff's ``support("rr")``)."""
        if int(depth) != depth or depth < 1:
            raise ValueError(f"reciprocal ranks need a positive depth, not {depth}")
        values = np.concatenate([[0.0], 1.0 / np.arange(depth, 0, -1)]) * upper
        return cls(float(upper), tuple(float(v) for v in values))

    def unit_grid(self) -> np.ndarray:
        assert self.grid is not None
        return np.asarray(self.grid, dtype=float) / self.upper

    def check(self, scores: np.ndarray, name: str = "the scores") -> np.ndarray:
        """The scores on the unit scale (divided by ``upper``); a one-line ValueError if
        any is NaN, leaves [0, upper] or, on a grid, is off it."""
        scores = np.asarray(scores, dtype=float)
        if scores.ndim != 1 or scores.size == 0:
            raise ValueError(f"{name}: a margin needs a non-empty vector of scores")
        if not np.all(np.isfinite(scores)):
            raise ValueError(f"{name}: a score is NaN or infinite")
        unit = scores / self.upper
        bad = (unit < -TOLERANCE) | (unit > 1 + TOLERANCE)
        if bad.any():
            if not self.declared:
                raise ValueError(f"{name}: score {scores[bad][0]:g} lies outside [0, 1] and the measure declares no "
                                 "range (its MeasureDefinition's value_range): it cannot be simulated")
            raise ValueError(f"{name}: score {scores[bad][0]:g} lies outside the measure's range [0, {self.upper:g}]")
        unit = np.clip(unit, 0.0, 1.0)
        if self.grid is not None:
            _grid_indices(unit, self.unit_grid(), name)
        return unit


def _nearest(grid: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Index of the grid value nearest each of ``unit``."""
    idx = np.clip(np.searchsorted(grid, unit), 1, len(grid) - 1)
    return np.where(np.abs(unit - grid[idx - 1]) <= np.abs(grid[idx] - unit), idx - 1, idx)


def _grid_indices(unit: np.ndarray, grid: np.ndarray, name: str) -> np.ndarray:
    """Index in ``grid`` of each unit-scale score (simIReff's ``matchTol``)."""
    idx = _nearest(grid, unit)
    off = np.abs(grid[idx] - unit) > GRID_TOLERANCE
    if off.any():
        raise ValueError(f"{name}: score {unit[off][0]:g} (on the unit scale) is not on the measure's grid of "
                         f"{len(grid)} values")
    return idx


def support_from_kind(kind: str, scores: np.ndarray | None = None, *, upper: float = 1.0,
                      max_steps: int = 1000) -> Support:
    """The support a user declares: ``continuous``; ``discrete:K`` (the grid {0, 1/K, ..., 1}
    x upper); or ``discrete``, the coarsest such grid (K <= ``max_steps``) every score lies
    on, found from ``scores``."""
    text = kind.strip().lower()
    if text == "continuous":
        return Support.continuous(upper)
    if text.startswith("discrete:"):
        steps = text.split(":", 1)[1]
        if not steps.isdigit() or int(steps) < 1:
            raise ValueError(f"measure kind {kind!r}: discrete:K needs K, the grid's number of steps (discrete:10 "
                             "for P@10)")
        return Support.equispaced(int(steps), upper)
    if text == "discrete":
        if scores is None:
            raise ValueError("measure kind 'discrete' without a grid needs the scores to find it")
        unit = Support.continuous(upper).check(np.asarray(scores, dtype=float).ravel())
        for steps in range(1, max_steps + 1):
            if np.all(np.abs(unit * steps - np.round(unit * steps)) <= GRID_TOLERANCE * steps):
                return Support.equispaced(steps, upper)
        raise ValueError(f"measure kind 'discrete': the scores lie on no grid {{0, 1/K, ..., 1}} with "
                         f"K <= {max_steps}; give discrete:K or continuous")
    raise ValueError(f"measure kind {kind!r}: expected continuous, discrete or discrete:K")


def support_of_measure(measure: str | Measure, scores: np.ndarray | None = None, *, depth: int = 1000) -> Support:
    """A measure's support from the range it declares
    (:func:`irmeta.measures.ranges.measure_range`): [0, high] (the rareness forms' 1 +
    alpha, the normalised forms' 1), on the grid its per-topic scores lie on (P@k's
    multiples of 1/k, Success@k's 0 or 1, RR@k's reciprocal ranks; ``depth`` stands for
    RR's k without a cutoff), else continuous. A measure that declares no range (a
    user's may not) is taken on [0, 1], and scores leaving it are refused naming it
    (:meth:`Support.check`). One ValueError line naming the measure: a rareness form
    without its alpha, a range unbounded above (DCG) or not starting at 0. With
    ``scores``, they are checked against it."""
    parsed = as_measure(measure)  # read where it enters, unless it arrives read
    name = str(parsed)
    declared = parsed.definition.value_range
    value_range = measure_range(parsed)
    if declared is None or value_range is None:
        support = Support(1.0, declared=False)
    elif declared.per_alpha and parsed.alpha is None:
        raise ValueError(f"{name}: name the rarity weight it was scored with ({parsed.family}(alpha=1)@...): its "
                         f"range, [0, 1 + alpha], depends on it")
    elif not (value_range.low == 0 and math.isfinite(value_range.high) and value_range.high > 0):
        raise ValueError(f"{name}: its scores lie in {value_range}; simulation needs a range [0, high] with a finite "
                         f"high to fit margins on")
    elif value_range.grid is None:
        support = Support.continuous(value_range.high)
    elif value_range.grid.kind == "multiples":
        support = Support.equispaced(int(value_range.grid.n or 1), value_range.high)
    else:
        support = Support.reciprocal_ranks(value_range.grid.n or depth, value_range.high)
    if scores is not None:
        support.check(np.asarray(scores, dtype=float).ravel(), name)
    return support


# ----------------------------------------------------------------------------- the margin


@dataclass(frozen=True, eq=False)
class Margin:
    """A fitted margin. ``pdf``, ``cdf`` and ``ppf`` take and give values on the measure's
    scale (for a grid, ``pdf`` is the probability of each grid value); ``mean`` is the
    expected value there. ``shape`` is (a, b) of the Beta reshaping (1, 1 unreshaped)."""

    family: str
    aic: float
    mean: float
    support: Support
    run: str = ""
    df: float = 2.0
    loglik: float = float("nan")
    shape: tuple[float, float] = (1.0, 1.0)
    params: tuple[tuple[str, float], ...] = ()
    # continuous: the base CDF at the nodes and the quantile table (unit scale);
    # discrete: the base CDF at the grid's values and the reshaped one
    _base_cdf: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    _table: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    _density: tuple = field(repr=False, default=())

    # -- values on the measure's scale
    def cdf(self, x: np.ndarray | float) -> np.ndarray:
        unit = np.asarray(x, dtype=float) / self.support.upper
        if self.support.discrete:
            grid = self.support.unit_grid()
            idx = np.searchsorted(grid, unit + GRID_TOLERANCE, side="right") - 1
            return np.where(idx < 0, 0.0, self._table[np.clip(idx, 0, len(grid) - 1)])
        base = np.interp(np.clip(unit, 0.0, 1.0), _NODE_X, self._base_cdf)
        return np.where(unit < 0, 0.0, np.where(unit >= 1, 1.0, _reshape(base, self.shape)))

    def pdf(self, x: np.ndarray | float) -> np.ndarray:
        unit = np.asarray(x, dtype=float) / self.support.upper
        if self.support.discrete:
            grid = self.support.unit_grid()
            probs = np.diff(self._table, prepend=0.0)
            idx = _nearest(grid, unit)
            return np.where(np.abs(grid[idx] - unit) <= GRID_TOLERANCE, probs[idx], 0.0)
        inside = (unit >= 0) & (unit <= 1)
        u = np.clip(unit, 0.0, 1.0)
        dens = _density(self.family, self._density, u)
        a, b = self.shape
        if (a, b) != (1.0, 1.0):
            f = np.clip(np.interp(u, _NODE_X, self._base_cdf), 0.0, 1.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                dens = dens * np.exp((a - 1) * np.log(f) + (b - 1) * np.log1p(-f) - special.betaln(a, b))
            dens = np.nan_to_num(dens, nan=0.0, posinf=0.0)
        return np.where(inside, dens, 0.0) / self.support.upper

    def ppf(self, u: np.ndarray | float) -> np.ndarray:
        """Quantiles of probabilities ``u`` in [0, 1], vectorised (a table lookup)."""
        u = np.asarray(u, dtype=float)
        if self.support.discrete:
            return self.support.unit_grid()[_discrete_index(self._table, u)] * self.support.upper
        return _table_ppf(self._table, u) * self.support.upper

    # -- reshaping (simIReff's effTransform)
    def shifted(self, delta: float) -> Margin:
        """This margin reshaped so that its expected value is ``mean + delta``, within the
        support: G = F^a (a >= 1) to raise the mean, 1 - (1 - F)^b (b >= 1) to lower it.
        Raises :class:`UnreachableMean`, naming the run, when no a or b up to
        :data:`MAX_SHAPE` reaches it (a target at or beyond the support's top or bottom)."""
        return self.shifted_to(self.mean + float(delta))

    def shifted_to(self, target: float) -> Margin:
        """This margin reshaped to the expected value ``target`` (see :meth:`shifted`)."""
        if self.shape != (1.0, 1.0):
            raise ValueError("a reshaped margin is reshaped again from the margin it came from")
        upper = self.support.upper
        goal = float(target) / upper
        current = self.mean / upper
        who = self.run or "the run"
        if not math.isfinite(goal):
            raise UnreachableMean(f"{who}: target mean {target} is not a number")
        if abs(goal - current) <= 1e-12:
            return self
        up = goal > current
        mean_at = (lambda s: self._unit_mean((s, 1.0))) if up else (lambda s: self._unit_mean((1.0, s)))
        extreme = mean_at(MAX_SHAPE)
        if (up and extreme < goal) or (not up and extreme > goal):
            raise UnreachableMean(
                f"{who}: its {self.family} margin (mean {self.mean:.4g}) cannot be reshaped to mean {target:.4g} "
                f"within [0, {upper:g}]")
        # the mean is monotone in the shape: bracket in log scale, then Brent
        lo, hi = 0.0, math.log(MAX_SHAPE)
        log_s = optimize.brentq(lambda t: mean_at(math.exp(t)) - goal, lo, hi, xtol=1e-12, rtol=1e-12, maxiter=500)
        s = math.exp(log_s)
        shape = (s, 1.0) if up else (1.0, s)
        return self._reshaped(shape)

    def _reshaped(self, shape: tuple[float, float]) -> Margin:
        if self.support.discrete:
            cdf = _reshape(self._base_cdf, shape)
            cdf[-1] = 1.0
            mean = float(np.dot(self.support.unit_grid(), np.diff(cdf, prepend=0.0)))
            return replace(self, shape=shape, _table=cdf, mean=mean * self.support.upper)
        table = _quantile_table(_reshape(self._base_cdf, shape))
        return replace(self, shape=shape, _table=table, mean=_table_mean(table) * self.support.upper)

    def _unit_mean(self, shape: tuple[float, float]) -> float:
        if self.support.discrete:
            cdf = _reshape(self._base_cdf, shape)
            cdf[-1] = 1.0
            return float(np.dot(self.support.unit_grid(), np.diff(cdf, prepend=0.0)))
        # the expectation of the draws: that of the reshaped quantile table
        return _table_mean(_quantile_table(_reshape(self._base_cdf, shape)))

    def can_reach(self, target: float) -> bool:
        try:
            self.shifted_to(target)
        except UnreachableMean:
            return False
        return True


_NODE_X = np.linspace(0.0, 1.0, NODES + 1)
#: The maximum-likelihood fits' optimiser: bounded truncated Newton (TNC), tolerances tight
#: enough to agree with L-BFGS-B to 1e-4 in log-likelihood; L-BFGS-B itself calls BLAS on
#: 2-vectors, which a multithreaded BLAS on a busy machine slows a hundredfold.
_TNC = {"ftol": 1e-12, "gtol": 1e-10, "xtol": 1e-12, "maxfun": 1000}
_TABLE_U = np.linspace(0.0, 1.0, TABLE + 1)


def _reshape(f: np.ndarray, shape: tuple[float, float]) -> np.ndarray:
    """B(F) for the Beta(a, 1) (F^a) or Beta(1, b) (1 - (1 - F)^b) distribution function."""
    a, b = shape
    f = np.clip(np.asarray(f, dtype=float), 0.0, 1.0)
    if a == 1.0 and b == 1.0:
        return f.copy()
    if b == 1.0:
        with np.errstate(divide="ignore"):
            return np.exp(a * np.log(f))
    if a == 1.0:
        with np.errstate(divide="ignore"):
            return -np.expm1(b * np.log1p(-f))
    return special.betainc(a, b, f)


def _quantile_table(cdf_nodes: np.ndarray) -> np.ndarray:
    """The quantile function at :data:`TABLE` + 1 equally spaced probabilities of the
    distribution whose CDF is ``cdf_nodes`` at the nodes and linear between them."""
    g = np.maximum.accumulate(np.clip(cdf_nodes, 0.0, 1.0))
    g[0], g[-1] = 0.0, 1.0
    table = np.interp(_TABLE_U, g, _NODE_X)
    # the ends: the support's edges where the mass starts and stops
    table[0] = _NODE_X[np.searchsorted(g, 0.0, side="right") - 1]
    table[-1] = _NODE_X[np.searchsorted(g, 1.0, side="left")]
    return np.maximum.accumulate(table)


def _table_mean(table: np.ndarray) -> float:
    """Expected value of the linearly interpolated quantile table (trapezoid rule, exact)."""
    return float((table[:-1] + table[1:]).sum() / (2 * (len(table) - 1)))


def _table_ppf(table: np.ndarray, u: np.ndarray) -> np.ndarray:
    m = len(table) - 1
    pos = np.clip(u, 0.0, 1.0) * m
    i = np.minimum(pos.astype(np.intp), m - 1)
    frac = pos - i
    return table[i] + frac * (table[i + 1] - table[i])


def _discrete_index(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Smallest k with cdf[k] >= u (the quantile's index)."""
    return np.minimum(np.searchsorted(cdf, np.clip(u, 0.0, 1.0), side="left"), len(cdf) - 1)


# ----------------------------------------------------------------------------- fitting


@dataclass(frozen=True)
class _Fit:
    family: str
    loglik: float
    df: float
    params: tuple[tuple[str, float], ...]
    cdf_nodes: np.ndarray  # continuous: CDF at _NODE_X; discrete: CDF at the grid
    density: tuple = ()  # continuous: the arguments of :func:`_density` for this family

    @property
    def aic(self) -> float:
        return 2.0 * self.df - 2.0 * self.loglik


def fit_margin(scores: np.ndarray, support: Support, *, families: Sequence[str] | None = None,
               run: str = "") -> Margin:
    """The margin of one run's per-topic ``scores``: every candidate family of the
    support's kind (or ``families``) fitted on scores / upper, the one of lowest AIC kept.
    Raises :class:`DegenerateScores` (naming ``run``) for a single distinct score, and a
    ValueError for scores that leave [0, upper] or, on a grid, are off it."""
    who = run or "the run"
    unit = support.check(scores, who)
    if np.ptp(unit) <= (GRID_TOLERANCE if support.discrete else 0.0):
        raise DegenerateScores(f"{who}: every topic has the same score ({float(np.asarray(scores).ravel()[0]):g}); "
                               "there is no margin to fit")
    allowed = DISCRETE_FAMILIES if support.discrete else CONTINUOUS_FAMILIES
    wanted = tuple(allowed if families is None else families)
    unknown = [f for f in wanted if f not in allowed]
    if unknown or not wanted:
        raise ValueError(f"margin families {unknown or wanted} unknown for a {support.kind} support; "
                         f"expected some of {', '.join(allowed)}")
    fits: list[_Fit] = []
    for family in wanted:
        fitted = _FITTERS[family](unit, support)
        if fitted is not None and math.isfinite(fitted.aic):
            fits.append(fitted)
    if not fits:
        raise ValueError(f"{who}: no margin family ({', '.join(wanted)}) could be fitted to its scores")
    best = min(fits, key=lambda f: f.aic)  # min keeps the first of equal AICs
    return _margin_of(best, support, run)


def candidate_margins(scores: np.ndarray, support: Support, *, run: str = "") -> dict[str, Margin]:
    """Every candidate family's margin (those that could be fitted), by family: what
    :func:`fit_margin` chooses from."""
    unit = support.check(scores, run or "the run")
    out = {}
    for family in (DISCRETE_FAMILIES if support.discrete else CONTINUOUS_FAMILIES):
        fitted = _FITTERS[family](unit, support)
        if fitted is not None and math.isfinite(fitted.aic):
            out[family] = _margin_of(fitted, support, run)
    return out


def _margin_of(fit: _Fit, support: Support, run: str) -> Margin:
    common = dict(family=fit.family, aic=fit.aic, support=support, run=run, df=fit.df, loglik=fit.loglik,
                  params=fit.params)
    if support.discrete:
        cdf = np.maximum.accumulate(np.clip(fit.cdf_nodes, 0.0, 1.0))
        cdf[-1] = 1.0
        mean = float(np.dot(support.unit_grid(), np.diff(cdf, prepend=0.0)))
        return Margin(mean=mean * support.upper, _base_cdf=cdf, _table=cdf.copy(), **common)  # type: ignore[arg-type]
    base = np.maximum.accumulate(np.clip(fit.cdf_nodes, 0.0, 1.0))
    base[0], base[-1] = 0.0, 1.0
    table = _quantile_table(base)
    return Margin(mean=_table_mean(table) * support.upper, _base_cdf=base, _table=table,  # type: ignore[arg-type]
                  _density=fit.density, **common)


# -- truncated normal


def _log_mass(mu: float, sigma: float) -> float:
    """log(Phi(beta) - Phi(alpha)), alpha = -mu/sigma, beta = (1 - mu)/sigma, in the tail
    that keeps its precision."""
    lo, hi = -mu / sigma, (1.0 - mu) / sigma
    if lo > 0:  # both in the upper tail
        return float(special.log_ndtr(-lo) + np.log1p(-np.exp(special.log_ndtr(-hi) - special.log_ndtr(-lo))))
    if hi < 0:  # both in the lower tail
        return float(special.log_ndtr(hi) + np.log1p(-np.exp(special.log_ndtr(lo) - special.log_ndtr(hi))))
    return float(np.log(special.ndtr(hi) - special.ndtr(lo)))


def _truncnorm_cdf(x: np.ndarray, mu: float, sigma: float) -> np.ndarray:
    lo, hi = -mu / sigma, (1.0 - mu) / sigma
    z = (np.asarray(x, dtype=float) - mu) / sigma
    if lo > 0:
        top = special.log_ndtr(-lo)
        return -np.expm1(special.log_ndtr(-z) - top) / -np.expm1(special.log_ndtr(-hi) - top)
    if hi < 0:
        top = special.log_ndtr(hi)
        low = np.exp(special.log_ndtr(lo) - top)
        return (np.exp(special.log_ndtr(z) - top) - low) / (1.0 - low)
    return (special.ndtr(z) - special.ndtr(lo)) / (special.ndtr(hi) - special.ndtr(lo))


def _truncnorm_logpdf(x: np.ndarray, mu: float, sigma: float) -> np.ndarray:
    z = (x - mu) / sigma
    return -0.5 * z * z - 0.5 * math.log(2 * math.pi) - math.log(sigma) - _log_mass(mu, sigma)


def _fit_norm(x: np.ndarray, support: Support) -> _Fit | None:
    n = len(x)
    log_root = 0.5 * math.log(2 * math.pi)

    def nll(p: np.ndarray) -> tuple[float, np.ndarray]:
        mu, sigma = float(p[0]), float(p[1])
        z = (x - mu) / sigma
        lo, hi = -mu / sigma, (1.0 - mu) / sigma
        log_z = _log_mass(mu, sigma)
        # phi(lo) / Z and phi(hi) / Z, from logs so that far tails keep their precision
        r_lo = math.exp(-0.5 * lo * lo - log_root - log_z)
        r_hi = math.exp(-0.5 * hi * hi - log_root - log_z)
        value = 0.5 * float(z @ z) + n * (log_root + math.log(sigma) + log_z)
        d_mu = -float(z.sum()) / sigma + n * (r_lo - r_hi) / sigma
        d_sigma = -float(z @ z) / sigma + n / sigma + n * (lo * r_lo - hi * r_hi) / sigma
        return value, np.array([d_mu, d_sigma])

    start = np.array([float(np.mean(x)), max(float(np.std(x, ddof=1)), MIN_NORM_SD)])
    bounds = [(-20.0, 21.0), (MIN_NORM_SD, 20.0)]
    result = optimize.minimize(nll, start, jac=True, method="TNC", options=_TNC, bounds=bounds)
    if not np.all(np.isfinite(result.x)) or not math.isfinite(result.fun):
        return None
    mu, sigma = (float(v) for v in result.x)
    return _Fit("norm", -float(result.fun), 2.0, (("mean", mu), ("sd", sigma)),
                _truncnorm_cdf(_NODE_X, mu, sigma), (mu, sigma))


# -- beta


def _beta_logpdf(y: np.ndarray, a: float | np.ndarray, b: float | np.ndarray) -> np.ndarray:
    return (a - 1) * np.log(y) + (b - 1) * np.log1p(-y) - special.betaln(a, b)


def _fit_beta(x: np.ndarray, support: Support) -> _Fit | None:
    y = np.clip(x, CAP, 1 - CAP)
    n = len(y)
    sum_log, sum_log1m = float(np.log(y).sum()), float(np.log1p(-y).sum())
    m, v = float(y.mean()), float(y.var(ddof=1))
    common = m * (1 - m) / v - 1 if v > 0 else 1.0
    start = np.log(np.clip([m * common, (1 - m) * common], 0.05, 1e3)) if common > 0 else np.zeros(2)

    def nll(p: np.ndarray) -> tuple[float, np.ndarray]:
        a, b = np.exp(p)
        value = -((a - 1) * sum_log + (b - 1) * sum_log1m - n * special.betaln(a, b))
        dab = special.digamma(a + b)
        grad = -np.array([a * (sum_log - n * (special.digamma(a) - dab)),
                          b * (sum_log1m - n * (special.digamma(b) - dab))])
        return float(value), grad

    bounds = [(math.log(1e-3), math.log(1e5))] * 2
    result = optimize.minimize(nll, start, jac=True, method="TNC", options=_TNC, bounds=bounds)
    if not np.all(np.isfinite(result.x)) or not math.isfinite(result.fun):
        return None
    a, b = (float(v) for v in np.exp(result.x))
    return _Fit("beta", -float(result.fun), 2.0, (("shape1", a), ("shape2", b)),
                special.betainc(a, b, _NODE_X), (a, b))


# -- Gaussian kernel, truncated to [0, 1]


def _hermite_density(u: np.ndarray, order: int) -> np.ndarray:
    """phi^(r)(u), the r-th derivative of the standard normal density (r = 4 or 6)."""
    u2 = u * u
    phi = np.exp(-0.5 * u2) / math.sqrt(2 * math.pi)
    if order == 4:
        return (u2 * u2 - 6 * u2 + 3) * phi
    if order == 6:
        return (u2 * u2 * u2 - 15 * u2 * u2 + 45 * u2 - 15) * phi
    raise ValueError(order)


def _functional(x: np.ndarray, order: int, g: float) -> float:
    """psi_r(g) = n^-2 sum_i sum_j phi_g^(r)(x_i - x_j), phi_g^(r)(u) = g^(-r-1) phi^(r)(u/g)
    (Wand and Jones 1995, eq. 3.7), summed exactly rather than on KernSmooth's binned grid."""
    d = (x[:, None] - x[None, :]) / g
    return float(_hermite_density(d, order).sum() / (len(x) ** 2 * g ** (order + 1)))


def plug_in_bandwidth(x: np.ndarray) -> float:
    """Wand and Jones' two-stage direct plug-in bandwidth of a Gaussian kernel (KernSmooth's
    ``dpik(level = 2, scalest = "minim")``, which ``ks::hpi`` returns): on the data scaled
    by s = min(sd, IQR / 1.349), psi_8 from the normal reference 105 / (32 sqrt(pi)),
    g1 = (2 sqrt(2)^9 / (7n))^(1/9), psi_6(g1), g2 = (-3 sqrt(2/pi) / (psi_6 n))^(1/7),
    psi_4(g2), h = s (4 pi)^(-1/10) (psi_4 n)^(-1/5)."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    q75, q25 = np.quantile(x, [0.75, 0.25])
    iqr_scale = (q75 - q25) / (special.ndtri(0.75) - special.ndtri(0.25))
    sd = float(np.std(x, ddof=1))
    scale = min(sd, iqr_scale) if iqr_scale > 0 else sd
    if not scale > 0:
        return float("nan")
    z = (x - x.mean()) / scale
    g1 = (2 * math.sqrt(2) ** 9 / (7 * n)) ** (1 / 9)
    psi6 = _functional(z, 6, g1)
    if not psi6 < 0:
        return float("nan")
    g2 = (-3 * math.sqrt(2 / math.pi) / (psi6 * n)) ** (1 / 7)
    psi4 = _functional(z, 4, g2)
    if not psi4 > 0:
        return float("nan")
    return float(scale * (4 * math.pi) ** (-1 / 10) * (psi4 * n) ** (-1 / 5))


def _gauss_kde(points: np.ndarray, x: np.ndarray, h: float) -> np.ndarray:
    d = (np.asarray(points, dtype=float)[:, None] - x[None, :]) / h
    return np.exp(-0.5 * d * d).sum(axis=1) / (len(x) * h * math.sqrt(2 * math.pi))


def _fit_nks(x: np.ndarray, support: Support) -> _Fit | None:
    h = plug_in_bandwidth(x)
    if not (math.isfinite(h) and h > 0):
        return None
    # untruncated kernel CDF at the nodes, then truncated to [0, 1]
    raw = special.ndtr((_NODE_X[:, None] - x[None, :]) / h).mean(axis=1)
    mass = raw[-1] - raw[0]
    if not mass > 0:
        return None
    cdf = (raw - raw[0]) / mass
    at_data = _gauss_kde(x, x, h)
    loglik = float(np.log(at_data / mass).sum())
    df = float(np.mean((1 / (h * math.sqrt(2 * math.pi))) / at_data))
    return _Fit("nks", loglik, df, (("bandwidth", h),), cdf, (x.copy(), h, mass))


# -- beta kernel (Chen 1999)


def _beta_kernel(points: np.ndarray, y: np.ndarray, b: float) -> np.ndarray:
    """f(p) = n^-1 sum_i Beta(y_i; p/b + 1, (1 - p)/b + 1) (Chen 1999, eq. 2), unnormalised."""
    p = np.asarray(points, dtype=float)[:, None]
    s1, s2 = p / b + 1, (1 - p) / b + 1
    logk = (s1 - 1) * np.log(y)[None, :] + (s2 - 1) * np.log1p(-y)[None, :] - special.betaln(s1, s2)
    return np.exp(logk).mean(axis=1)


def _fit_bks(x: np.ndarray, support: Support) -> _Fit | None:
    y = np.clip(x, CAP, 1 - CAP)
    n = len(y)
    b = n ** (-2 / 5)
    dens_nodes = np.concatenate([_beta_kernel(_NODE_X[i:i + 1024], y, b) for i in range(0, NODES + 1, 1024)])
    # cumulative Simpson-free trapezoid on the fine nodes; the density is smooth in p
    cum = np.concatenate([[0.0], np.cumsum((dens_nodes[:-1] + dens_nodes[1:]) / (2 * NODES))])
    total = cum[-1]
    if not total > 0:
        return None
    loglik = float(np.log(_beta_kernel(x, y, b) / total).sum())
    # K(0): each capped score's own kernel at itself, Beta(y_i; y_i/b + 1, (1 - y_i)/b + 1)
    own = np.exp(_beta_logpdf(y, y / b + 1, (1 - y) / b + 1))
    df = float(np.mean(own / _beta_kernel(y, y, b)))
    return _Fit("bks", loglik, df, (("bandwidth", b),), cum / total, (y, b, total))


# -- beta-binomial on the grid's indices


def _fit_bbinom(x: np.ndarray, support: Support) -> _Fit | None:
    grid = support.unit_grid()
    idx = _grid_indices(x, grid, "scores")
    m = len(grid) - 1
    levels, counts = np.unique(idx, return_counts=True)
    k, w = levels.astype(float), counts.astype(float)
    n = w.sum()
    log_choose = float(w @ (special.gammaln(m + 1) - special.gammaln(k + 1) - special.gammaln(m - k + 1)))
    mean = float(w @ k / n)
    var = float(w @ (k - mean) ** 2 / (n - 1))
    denom = m * (var / mean - mean - 1) + mean if mean > 0 else 0.0
    start = np.array([(m * mean - var) / denom, (m - mean) * (m - var / mean) / denom]) if denom else np.ones(2)
    start = np.clip(np.where(np.isfinite(start), start, 1.0), 1.0, 1e4)

    def nll(p: np.ndarray) -> tuple[float, np.ndarray]:
        a, b = float(p[0]), float(p[1])
        value = -(log_choose + float(w @ special.betaln(k + a, m - k + b)) - n * special.betaln(a, b))
        dab, dmab = special.digamma(a + b), special.digamma(m + a + b)
        ga = float(w @ special.digamma(k + a)) - n * (dmab + special.digamma(a) - dab)
        gb = float(w @ special.digamma(m - k + b)) - n * (dmab + special.digamma(b) - dab)
        return float(value), -np.array([ga, gb])

    result = optimize.minimize(nll, start, jac=True, method="TNC", options=_TNC, bounds=[(1.0, 1e6), (1.0, 1e6)])
    if not np.all(np.isfinite(result.x)) or not math.isfinite(result.fun):
        return None
    a, b = (float(v) for v in result.x)
    ks = np.arange(m + 1, dtype=float)
    logp = special.gammaln(m + 1) - special.gammaln(ks + 1) - special.gammaln(m - ks + 1) \
        + special.betaln(ks + a, m - ks + b) - special.betaln(a, b)
    probs = np.exp(logp)
    probs /= probs.sum()
    return _Fit("bbinom", -float(result.fun), 2.0, (("shape1", a), ("shape2", b)), np.cumsum(probs))


# -- Wang and van Ryzin's ordered kernel on the grid's indices


def _wvr(distance: np.ndarray, lam: float) -> np.ndarray:
    """l(d) = 1 - lambda at d = 0, (1 - lambda)/2 lambda^|d| otherwise (Wang and van Ryzin 1981)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        off = 0.5 * (1 - lam) * np.power(lam, np.abs(distance))
    return np.where(distance == 0, 1 - lam, off)


def _lscv(lam: float, levels: np.ndarray, counts: np.ndarray, m: int) -> float:
    """Least-squares cross-validation of the (unnormalised) kernel estimate on the grid,
    sum_x f(x)^2 - 2/n sum_i f_-i(x_i) (np's ``cv.ls`` for an ordered variable), from the
    observed ``levels`` and their ``counts``."""
    n = counts.sum()
    kern = _wvr(np.arange(m + 1)[:, None] - levels[None, :], lam)  # (grid value, observed level)
    f = kern @ counts / n
    loo = (kern[levels] @ counts - (1 - lam)) / (n - 1)  # at each observed level, itself left out
    return float((f * f).sum() - 2.0 / n * (counts * loo).sum())


def _fit_dks(x: np.ndarray, support: Support) -> _Fit | None:
    grid = support.unit_grid()
    idx = _grid_indices(x, grid, "scores")
    m = len(grid) - 1
    levels, counts = np.unique(idx, return_counts=True)
    counts = counts.astype(float)
    candidates = np.linspace(0.0, 0.995, 200)
    scores = np.array([_lscv(lam, levels, counts, m) for lam in candidates])
    i = int(np.argmin(scores))
    lam = float(candidates[i])
    lo, hi = candidates[max(i - 1, 0)], candidates[min(i + 1, len(candidates) - 1)]
    refined = optimize.minimize_scalar(lambda t: _lscv(t, levels, counts, m), bounds=(lo, hi), method="bounded",
                                       options={"xatol": 1e-8})
    if refined.success and refined.fun <= scores[i]:
        lam = float(refined.x)
    dens = _wvr(np.arange(m + 1)[:, None] - levels[None, :], lam) @ counts
    probs = dens / dens.sum()
    at_data = probs[idx]
    if np.any(at_data <= 0):
        return None
    df = float(np.mean((1 - lam) / at_data))
    return _Fit("dks", float(np.log(at_data).sum()), df, (("bandwidth", lam),), np.cumsum(probs))


def _density(family: str, args: tuple, u: np.ndarray) -> np.ndarray:
    """The fitted density on [0, 1] of a continuous family, from its stored arguments."""
    u = np.asarray(u, dtype=float)
    if family == "norm":
        return np.exp(_truncnorm_logpdf(u, *args))
    if family == "beta":
        return np.exp(_beta_logpdf(np.clip(u, CAP, 1 - CAP), *args))
    flat, out = u.ravel(), []
    if family == "nks":
        x, h, mass = args
        out = [_gauss_kde(flat[i:i + 2048], x, h) / mass for i in range(0, flat.size, 2048)]
    elif family == "bks":
        y, b, total = args
        out = [_beta_kernel(flat[i:i + 1024], y, b) / total for i in range(0, flat.size, 1024)]
    else:
        raise ValueError(f"no density for family {family!r}")
    return (np.concatenate(out) if out else np.zeros(0)).reshape(u.shape)


_FITTERS = {"norm": _fit_norm, "beta": _fit_beta, "nks": _fit_nks, "bks": _fit_bks,
            "bbinom": _fit_bbinom, "dks": _fit_dks}


# ----------------------------------------------------------------------------- many margins at once


@dataclass(frozen=True, eq=False)
class MarginStack:
    """Several margins of one support, for vectorised quantiles: ``ppf(u, which)`` passes
    each ``u[i]`` through margin ``which[i]`` in one call."""

    support: Support
    _tables: np.ndarray
    kind: Literal["continuous", "discrete"] = "continuous"
    _flat: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))

    @classmethod
    def of(cls, margins: Sequence[Margin]) -> MarginStack:
        if not margins:
            raise ValueError("a stack needs at least one margin")
        support = margins[0].support
        if any(m.support != support for m in margins):
            raise ValueError("the margins of a stack share one support")
        tables = np.stack([m._table for m in margins])
        if not support.discrete:
            return cls(support, tables, "continuous")
        # every margin's CDF shifted by 2 x its row: one sorted array, one search
        flat = (tables + 2.0 * np.arange(len(tables))[:, None]).ravel()
        return cls(support, tables, "discrete", flat)

    def __len__(self) -> int:
        return len(self._tables)

    def ppf(self, u: np.ndarray, which: np.ndarray) -> np.ndarray:
        u = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        which = np.broadcast_to(np.asarray(which, dtype=np.intp), u.shape)
        if self.kind == "discrete":
            width = self._tables.shape[1]
            pos = np.searchsorted(self._flat, u + 2.0 * which, side="left") - which * width
            return self.support.unit_grid()[np.clip(pos, 0, width - 1)] * self.support.upper
        m = self._tables.shape[1] - 1
        pos = u * m
        i = np.minimum(pos.astype(np.intp), m - 1)
        frac = pos - i
        lo = self._tables[which, i]
        return (lo + frac * (self._tables[which, i + 1] - lo)) * self.support.upper
