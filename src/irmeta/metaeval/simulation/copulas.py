"""Dependence between runs: a bivariate copula per pair of runs and a vine copula per group
of runs, fitted with pyvinecopulib (the Python interface of vinecopulib, Nagler and
Vatter) to pseudo-observations and selected by AIC, as Urbano et al. (SIGIR 2019) did
with VineCopula's ``BiCopSelect``.

The candidates are every parametric family of pyvinecopulib with its rotations:
independence, Gaussian, Student t, Clayton, Gumbel, Frank, Joe, BB1, BB6, BB7, BB8 and
Tawn. The asymmetric Tawn matters: with exchangeable copulas only, two runs passed through
one margin have differences symmetric about 0, and the sign and Wilcoxon tests could
never show the type I inflation the paper measured.

Simulation is the inverse Rosenblatt transform of independent uniforms the caller draws
(``transform``): numpy draws every random number, so trials are the same bit for bit
whatever the platform's C++ generator; ``simulate(n, seeds)`` draws them from
``numpy.random.default_rng(seeds)``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

#: Names of the candidate families (pyvinecopulib's parametric families).
PAIR_FAMILIES = ("indep", "gaussian", "student", "clayton", "gumbel", "frank", "joe", "bb1", "bb6", "bb7", "bb8",
                 "tawn")

Seed = int | Sequence[int]


def _pv():
    import pyvinecopulib

    return pyvinecopulib


def _family_set(families: Sequence[str] | None) -> list:
    pv = _pv()
    names = PAIR_FAMILIES if families is None else tuple(families)
    unknown = [f for f in names if f not in PAIR_FAMILIES]
    if unknown or not names:
        raise ValueError(f"copula families {unknown or names} unknown; expected some of {', '.join(PAIR_FAMILIES)}")
    return [getattr(pv.BicopFamily, name) for name in names]


def pseudo_observations(matrix: np.ndarray, seed: Seed) -> np.ndarray:
    """Ranks of each column of ``matrix`` (n, d) divided by n + 1, ties broken at random
    by ``numpy.random.default_rng(seed)`` (R's ``pobs(x, ties.method = "random")``)."""
    values = np.asarray(matrix, dtype=float)
    if values.ndim != 2 or len(values) < 2:
        raise ValueError("pseudo-observations need an (n, d) matrix with n >= 2")
    if not np.all(np.isfinite(values)):
        raise ValueError("pseudo-observations of a matrix with NaN or infinite values")
    rng = np.random.default_rng(seed)
    n, d = values.shape
    keys = rng.random((n, d))
    out = np.empty((n, d))
    for j in range(d):
        order = np.lexsort((keys[:, j], values[:, j]))
        out[order, j] = np.arange(1, n + 1)
    return out / (n + 1)


# ----------------------------------------------------------------------------- pairs


@dataclass(frozen=True)
class PairCopula:
    """A fitted bivariate copula of (first run, second run): its family, rotation (0, 90,
    180, 270), parameters (pyvinecopulib's order), AIC and log-likelihood on the data, and
    Kendall's tau."""

    family: str
    rotation: int
    parameters: tuple[float, ...]
    aic: float
    loglik: float
    tau: float

    @property
    def name(self) -> str:
        """``gumbel``, or ``gumbel 180`` when rotated (for tables)."""
        return self.family if self.rotation == 0 else f"{self.family} {self.rotation}"

    @cached_property
    def _bicop(self):
        pv = _pv()
        family = getattr(pv.BicopFamily, self.family)
        if self.family == "indep":
            return pv.Bicop(family=family)
        params = np.asarray(self.parameters, dtype=float).reshape(-1, 1)
        return pv.Bicop(family=family, rotation=self.rotation, parameters=params)

    def transform(self, w: np.ndarray) -> np.ndarray:
        """(n, 2) independent uniforms to (n, 2) draws of the copula: u1 = w1,
        u2 = h1^-1(w2 | u1), the inverse of C(u2 | u1) (the inverse Rosenblatt transform)."""
        w = np.asarray(w, dtype=float)
        if w.ndim != 2 or w.shape[1] != 2:
            raise ValueError("a pair copula transforms (n, 2) uniforms")
        if self.family == "indep" or len(w) == 0:
            return w.copy()
        out = np.empty_like(w)
        out[:, 0] = w[:, 0]
        out[:, 1] = self._bicop.hinv1(np.asfortranarray(w))
        return out

    def simulate(self, n: int, seeds: Seed) -> np.ndarray:
        """(n, 2) draws, the same for the same ``seeds``."""
        return self.transform(np.random.default_rng(seeds).random((n, 2)))

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_bicop", None)  # pyvinecopulib's object, rebuilt on first use
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def to_record(self) -> tuple:
        return (self.family, self.rotation, self.parameters, self.aic, self.loglik, self.tau)


def _fit_bicop(u: np.ndarray, controls) -> PairCopula:
    pv = _pv()
    bicop = pv.Bicop.from_data(np.asfortranarray(u), controls=controls)
    family = bicop.family.name
    params = tuple(float(v) for v in np.asarray(bicop.parameters).ravel()) if family != "indep" else ()
    return PairCopula(family, int(bicop.rotation) if family != "indep" else 0, params, float(bicop.aic(u)),
                      float(bicop.loglik(u)), float(bicop.tau))


def _controls(families: Sequence[str] | None):
    pv = _pv()
    return pv.FitControlsBicop(family_set=_family_set(families), parametric_method="mle", selection_criterion="aic",
                               allow_rotations=True)


def fit_pair_copula(x: np.ndarray, y: np.ndarray, seed: Seed, *, families: Sequence[str] | None = None) -> PairCopula:
    """The copula of two runs' per-topic scores: pseudo-observations (ties broken from
    ``seed``), every candidate family and rotation fitted by maximum likelihood, the one of
    lowest AIC kept (vinecopulib's selection)."""
    u = pseudo_observations(np.column_stack([np.asarray(x, dtype=float), np.asarray(y, dtype=float)]), seed)
    return _fit_bicop(u, _controls(families))


# a worker's copy of the pseudo-observations and controls (set once per process)
_WORKER: dict = {}


def _init_worker(pobs: np.ndarray, families: Sequence[str] | None) -> None:
    _WORKER["pobs"] = pobs
    _WORKER["controls"] = _controls(families)


def _fit_block(pairs: np.ndarray) -> list[tuple]:
    pobs, controls = _WORKER["pobs"], _WORKER["controls"]
    return [_fit_bicop(np.column_stack([pobs[:, i], pobs[:, j]]), controls).to_record() for i, j in pairs]


def library_version() -> str:
    """pyvinecopulib's version, for the tables' provenance: selections and Kendall's tau of
    some families moved between releases (vinecopulib fixed the tau of BB6-BB8 and Tawn)."""
    return str(getattr(_pv(), "__version__", "unknown"))


def default_workers() -> int:
    """The processors this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def fit_pair_copulas(pobs: np.ndarray, pairs: np.ndarray, *, families: Sequence[str] | None = None,
                     workers: int | None = None, block: int = 64) -> list[PairCopula]:
    """The copula of every pair (i, j) of columns of the pseudo-observations ``pobs``
    (topics x runs), in the order of ``pairs``; fitted in ``workers`` processes (default:
    the processors available), blocks of ``block`` pairs each. The result does not depend
    on ``workers``."""
    pairs = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    workers = default_workers() if workers is None else max(1, int(workers))
    blocks = [pairs[k:k + block] for k in range(0, len(pairs), block)]
    if workers == 1 or len(blocks) <= 1:
        _init_worker(pobs, families)
        try:
            records = [r for b in blocks for r in _fit_block(b)]
        finally:
            _WORKER.clear()
    else:
        import multiprocessing

        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method), initializer=_init_worker,
                                 initargs=(pobs, families)) as pool:
            records = [r for part in pool.map(_fit_block, blocks) for r in part]
    return [PairCopula(*r) for r in records]


# ----------------------------------------------------------------------------- vines


@dataclass(frozen=True, eq=False)
class VineCopula:
    """A fitted vine copula of k runs (pyvinecopulib's ``Vinecop``, structure and pair
    copulas selected by AIC over :data:`PAIR_FAMILIES`)."""

    dim: int
    aic: float
    _vine: object = field(repr=False)

    @property
    def families(self) -> list[str]:
        """The pair copulas' family names, tree by tree."""
        return [pc.family.name for tree in self._vine.pair_copulas for pc in tree]  # type: ignore[attr-defined]

    def transform(self, w: np.ndarray) -> np.ndarray:
        """(n, k) independent uniforms to (n, k) draws of the vine (its inverse Rosenblatt
        transform)."""
        w = np.asarray(w, dtype=float)
        if w.ndim != 2 or w.shape[1] != self.dim:
            raise ValueError(f"a vine of {self.dim} runs transforms (n, {self.dim}) uniforms")
        if len(w) == 0:
            return w.copy()
        return np.asarray(self._vine.inverse_rosenblatt(np.asfortranarray(w)))  # type: ignore[attr-defined]

    def simulate(self, n: int, seeds: Seed) -> np.ndarray:
        """(n, k) draws, the same for the same ``seeds``."""
        return self.transform(np.random.default_rng(seeds).random((n, self.dim)))


def fit_vine_pobs(pobs: np.ndarray, *, families: Sequence[str] | None = None) -> VineCopula:
    """A vine fitted to pseudo-observations (n, k)."""
    pv = _pv()
    pobs = np.asfortranarray(np.asarray(pobs, dtype=float))
    if pobs.ndim != 2 or pobs.shape[1] < 2:
        raise ValueError("a vine needs pseudo-observations of at least 2 runs")
    controls = pv.FitControlsVinecop(family_set=_family_set(families), parametric_method="mle",
                                     selection_criterion="aic", allow_rotations=True)
    vine = pv.Vinecop.from_data(pobs, controls=controls)
    return VineCopula(pobs.shape[1], float(vine.aic(pobs)), vine)


def fit_vine(matrix_topics_by_k: np.ndarray, seed: Seed, *, families: Sequence[str] | None = None) -> VineCopula:
    """The vine copula of k runs' per-topic scores (topics x k): pseudo-observations (ties
    broken from ``seed``), then structure and pair copulas selected by AIC."""
    return fit_vine_pobs(pseudo_observations(matrix_topics_by_k, seed), families=families)
