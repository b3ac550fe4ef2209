"""A collection's simulation models, and several collections pooled, as Urbano, Lima and
Hanjalic (SIGIR 2019) built them: per collection, runs whose per-topic scores equal an
earlier run's (within 1e-5) and the bottom 10% of runs by mean are dropped; every kept
run's margin and every kept pair's copula are fitted; trials draw a collection with
probability proportional to its kept runs, then two of its runs uniformly.

:class:`PooledCollections` is the :class:`~.trials.TrialSource` the error-rate experiment
draws from (a single collection pools as itself). Every random number of a call comes
from the Generator it is given, in a fixed order (collections, runs, then the uniforms),
so the same Generator state gives the same trials bit for bit, whatever else ran before;
the fits it caches (reshaped margins, vines of groups) are functions of the fitted models
alone.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from irmeta.metaeval.simulation.copulas import (
    PairCopula,
    Seed,
    VineCopula,
    fit_pair_copulas,
    fit_vine_pobs,
    pseudo_observations,
)
from irmeta.metaeval.simulation.margins import (
    DegenerateScores,
    Margin,
    MarginStack,
    Support,
    UnreachableMean,
    fit_margin,
)


@dataclass(frozen=True)
class SimulationProtocol:
    """The protocol's named settings (docs/PROTOCOL.md, "Simulated test collections").

    * ``duplicate_tolerance``: a run whose every per-topic score is within this of an
      earlier run's is dropped (the paper's ``removeDuplicates``, 1e-5);
    * ``drop_bottom``: the runs whose mean is below this quantile of the kept runs' means
      are dropped (the paper's ``removeBottom``, 0.10; R's type 7 quantile);
    * ``degenerate_runs``: a kept run with a single distinct score has no margin:
      ``refuse`` (an error naming it) or ``drop`` (dropped, the reason recorded);
    * ``margin_families`` / ``copula_families``: the candidates (None: all);
    * ``baseline_drop_top``: power and type III trials draw their first run (the baseline)
      outside this top share of runs by expected value (the paper's baselines: the bottom
      75%);
    * ``power_margin``: the second run's scores in power trials: ``nearest_runs`` (the
      default, the paper's), the margin of one of the ``nearest_runs`` runs whose means are
      nearest the first run's mean + delta, moved to it; ``first_run``, the first run's own
      margin moved there;
    * ``trials_per_group``: group trials draw one group of runs (and fit its vine) per this
      many trials.
    """

    duplicate_tolerance: float = 1e-5
    drop_bottom: float = 0.10
    degenerate_runs: Literal["refuse", "drop"] = "refuse"
    margin_families: tuple[str, ...] | None = None
    copula_families: tuple[str, ...] | None = None
    baseline_drop_top: float = 0.25
    power_margin: Literal["first_run", "nearest_runs"] = "nearest_runs"
    nearest_runs: int = 10
    trials_per_group: int = 500

    def __post_init__(self) -> None:
        if not (self.duplicate_tolerance >= 0 and math.isfinite(self.duplicate_tolerance)):
            raise ValueError(f"duplicate_tolerance must be >= 0, not {self.duplicate_tolerance}")
        for key in ("drop_bottom", "baseline_drop_top"):
            value = getattr(self, key)
            if not 0 <= value < 1:
                raise ValueError(f"{key} must lie in [0, 1), not {value}")
        if self.degenerate_runs not in ("refuse", "drop"):
            raise ValueError(f"degenerate_runs must be refuse or drop, not {self.degenerate_runs!r}")
        if self.power_margin not in ("first_run", "nearest_runs"):
            raise ValueError(f"power_margin must be first_run or nearest_runs, not {self.power_margin!r}")
        if self.nearest_runs < 1 or self.trials_per_group < 1:
            raise ValueError("nearest_runs and trials_per_group must be positive")

    def settings(self) -> dict[str, object]:
        """The settings by name (for the tables' provenance)."""
        return {key: getattr(self, key) for key in self.__dataclass_fields__}


@dataclass(frozen=True)
class RunSelection:
    """Which runs a collection keeps (indices into the input, in input order) and, for
    each dropped run, why."""

    kept: tuple[int, ...]
    dropped: tuple[tuple[int, str], ...]


def select_runs(scores: np.ndarray, run_names: Sequence[str], protocol: SimulationProtocol = SimulationProtocol()
                ) -> RunSelection:
    """The protocol's drops: each run equal (every topic within the tolerance) to an
    earlier run, then the runs whose mean is below the ``drop_bottom`` quantile of the
    remaining runs' means (R's ``quantile``, type 7)."""
    scores = np.asarray(scores, dtype=float)
    names = list(run_names)
    if scores.ndim != 2 or scores.shape[0] != len(names):
        raise ValueError(f"a score matrix of {len(names)} runs x topics expected, got shape {scores.shape}")
    dropped: list[tuple[int, str]] = []
    duplicate = np.zeros(len(names), dtype=bool)
    for j in range(1, len(names)):
        same = np.all(np.abs(scores[:j] - scores[j]) <= protocol.duplicate_tolerance, axis=1)
        if same.any():
            duplicate[j] = True
            dropped.append((j, f"duplicate of {names[int(np.argmax(same))]}"))
    remaining = np.flatnonzero(~duplicate)
    means = scores[remaining].mean(axis=1)
    if protocol.drop_bottom > 0 and len(remaining):
        cut = float(np.quantile(means, protocol.drop_bottom))
        low = means < cut
        dropped += [(int(r), f"bottom {protocol.drop_bottom:.0%} by mean ({m:.4g} < {cut:.4g})")
                    for r, m in zip(remaining[low], means[low])]
        remaining = remaining[~low]
    return RunSelection(tuple(int(r) for r in remaining), tuple(sorted(dropped)))


def _pair_index(i: np.ndarray | int, j: np.ndarray | int, k: int) -> np.ndarray | int:
    """Position of the pair (i, j), i < j, among the k(k-1)/2 pairs in lexicographic order."""
    return i * k - i * (i + 1) // 2 + (j - i - 1)


#: Tag of :meth:`FittedCollection.save`'s files; changed whenever the objects change.
_FORMAT = "irmeta.simulation.models/1"


@dataclass(frozen=True, eq=False)
class FittedCollection:
    """One collection's models: the kept runs' margins (in input order) and every kept pair's
    copula (pairs (i, j), i < j, in lexicographic order of the kept runs' positions)."""

    name: str
    runs: tuple[str, ...]
    support: Support
    margins: tuple[Margin, ...]
    copulas: tuple[PairCopula, ...]
    pobs: np.ndarray = field(repr=False)  # topics x kept runs
    selection: RunSelection = field(repr=False)
    protocol: SimulationProtocol = field(repr=False)
    seed: Seed = 0

    @classmethod
    def fit(cls, score_matrix: np.ndarray, run_names: Sequence[str], support: Support, seed: Seed,
            protocol: SimulationProtocol = SimulationProtocol(), *, name: str = "",
            workers: int | None = None) -> FittedCollection:
        """Apply the protocol's drops to ``score_matrix`` (runs x topics), then fit every
        kept run's margin and every kept pair's copula (in ``workers`` processes; the fit
        does not depend on their number). Ties in the pseudo-observations are broken once
        for the collection from ``seed``. Raises ValueError (naming the run, or the
        collection ``name``) for NaN scores, scores outside the support, a run with one
        distinct score (unless the protocol drops them) or fewer than 2 runs kept."""
        scores = np.asarray(score_matrix, dtype=float)
        names = [str(r) for r in run_names]
        where = f"{name}: " if name else ""
        if scores.ndim != 2 or scores.shape[0] != len(names):
            raise ValueError(f"{where}a score matrix of {len(names)} runs x topics expected, got shape {scores.shape}")
        if scores.shape[1] < 2:
            raise ValueError(f"{where}a collection needs at least 2 topics to fit models")
        bad = ~np.isfinite(scores)
        if bad.any():
            r, t = np.argwhere(bad)[0]
            raise ValueError(f"{where}run {names[r]} has a NaN or infinite score (topic {t + 1})")
        selection = select_runs(scores, names, protocol)
        margins: list[Margin] = []
        kept: list[int] = []
        dropped = list(selection.dropped)
        for r in selection.kept:
            try:
                margins.append(fit_margin(scores[r], support, families=protocol.margin_families,
                                          run=f"{where}{names[r]}"))
                kept.append(r)
            except DegenerateScores:
                if protocol.degenerate_runs == "refuse":
                    raise
                dropped.append((r, "a single distinct score"))
        if len(kept) < 2:
            raise ValueError(f"{where}{len(kept)} run(s) left after the protocol's drops ({len(dropped)} dropped); "
                             "simulation needs at least 2")
        pobs = pseudo_observations(scores[kept].T, seed)
        k = len(kept)
        pairs = np.array([(i, j) for i in range(k) for j in range(i + 1, k)], dtype=np.intp)
        copulas = fit_pair_copulas(pobs, pairs, families=protocol.copula_families, workers=workers)
        selection = RunSelection(tuple(kept), tuple(sorted(dropped)))
        return cls(name, tuple(names[r] for r in kept), support, tuple(margins), tuple(copulas), pobs, selection,
                   protocol, seed)

    def __len__(self) -> int:
        return len(self.runs)

    def save(self, path: str | Path) -> None:
        """Write the fitted models for later jobs of the same installation to read with
        :meth:`load` (a pickle with a format tag: a cache between jobs, not an archive)."""
        with open(path, "wb") as handle:
            pickle.dump((_FORMAT, self), handle, protocol=pickle.HIGHEST_PROTOCOL)

    @classmethod
    def load(cls, path: str | Path) -> FittedCollection:
        """The models :meth:`save` wrote; a ValueError naming the file if it holds
        anything else."""
        with open(path, "rb") as handle:
            try:
                tag, fitted = pickle.load(handle)
            except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError) as error:
                raise ValueError(f"{path}: not a file of fitted simulation models ({error})") from None
        if tag != _FORMAT or not isinstance(fitted, cls):
            raise ValueError(f"{path}: not a file of fitted simulation models of this version ({tag!r})")
        return fitted

    @property
    def means(self) -> np.ndarray:
        """Each kept run's expected value under its margin."""
        return np.array([m.mean for m in self.margins])

    def copula(self, i: int, j: int) -> tuple[PairCopula, bool]:
        """The copula of kept runs i and j (positions), and whether it is fitted the other
        way round ((j, i): its first column is run j)."""
        if i == j:
            raise ValueError("a pair copula needs two different runs")
        lo, hi = (i, j) if i < j else (j, i)
        return self.copulas[int(_pair_index(lo, hi, len(self)))], i > j

    def simulate_pair(self, i: int, j: int, n_topics: int, rng: np.random.Generator) -> np.ndarray:
        """(n_topics, 2) new topics of kept runs i and j, each through its own margin."""
        copula, swapped = self.copula(i, j)
        u = copula.transform(rng.random((n_topics, 2)))
        if swapped:
            u = u[:, ::-1]
        return np.column_stack([self.margins[i].ppf(u[:, 0]), self.margins[j].ppf(u[:, 1])])

    def vine(self, group: Sequence[int]) -> VineCopula:
        """The vine copula of kept runs ``group`` (in that column order), fitted to the
        collection's pseudo-observations."""
        return fit_vine_pobs(self.pobs[:, list(group)], families=self.protocol.copula_families)

    def margin_records(self) -> list[dict[str, object]]:
        """One record per kept run: its margin's family, AIC, degrees of freedom and mean."""
        return [{"collection": self.name, "run": run, "family": m.family, "aic": m.aic, "df": m.df, "mean": m.mean}
                for run, m in zip(self.runs, self.margins)]

    def copula_records(self) -> list[dict[str, object]]:
        """One record per kept pair: its copula's family, rotation, AIC and Kendall's tau."""
        k = len(self)
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        out = []
        for (i, j), c in zip(pairs, self.copulas):
            out.append({"collection": self.name, "run": self.runs[i], "other_run": self.runs[j], "family": c.family,
                        "rotation": c.rotation, "aic": c.aic, "tau": c.tau})
        return out


@dataclass
class PairTrials:
    """Pair trials with where they came from: scores (n_trials, n_topics) of runs A and B,
    and per trial the collection and the two runs' kept positions in it."""

    a: np.ndarray
    b: np.ndarray
    collection: np.ndarray
    first: np.ndarray
    second: np.ndarray


class PooledCollections:
    """Several fitted collections pooled as the paper pooled them (a collection drawn with
    probability proportional to its kept runs, then two of its runs uniformly): the
    :class:`~.trials.TrialSource` of the error-rate experiment."""

    def __init__(self, collections: Sequence[FittedCollection]):
        if not collections:
            raise ValueError("pooling needs at least one fitted collection")
        self.collections = tuple(collections)
        self.protocol = self.collections[0].protocol
        differing = [c.name or str(i) for i, c in enumerate(self.collections) if c.protocol != self.protocol]
        if differing:
            raise ValueError(f"pooled collections share one protocol; {', '.join(differing)} differ from the first's")
        self._stacks = [MarginStack.of(c.margins) for c in self.collections]
        self._shifted: dict[float, list[tuple[np.ndarray, list[np.ndarray], MarginStack | None]]] = {}
        self._vines: dict[tuple[int, tuple[int, ...]], VineCopula] = {}

    def __len__(self) -> int:
        return sum(len(c) for c in self.collections)

    # -- the runs a trial may start from
    def _baselines(self, c: FittedCollection) -> np.ndarray:
        """Kept positions outside the top ``baseline_drop_top`` by expected value."""
        order = np.argsort(-c.means, kind="stable")
        top = round(len(c) * self.protocol.baseline_drop_top)  # R's round: halves to even, as Python's
        return np.sort(order[top:])

    def _power_models(self, delta: float) -> list[tuple[np.ndarray, list[np.ndarray], MarginStack | None]]:
        """Per collection: the eligible baselines, for each the candidate second runs, and a
        stack of the second runs' reshaped margins (row of baseline b's candidate s:
        offset of b + s)."""
        delta = float(delta)
        if delta in self._shifted:
            return self._shifted[delta]
        models = []
        for c in self.collections:
            eligible, candidates, shifted = [], [], []
            for b in self._baselines(c):
                target = c.margins[b].mean + delta
                if self.protocol.power_margin == "first_run":
                    others = [b]
                else:
                    distance = np.abs(c.means - target)
                    distance[b] = np.inf
                    others = list(np.argsort(distance, kind="stable")[:self.protocol.nearest_runs])
                    others = [j for j in others if j != b]
                reached = []
                for j in others:
                    try:
                        shifted.append(c.margins[j].shifted_to(target))
                        reached.append(j)
                    except UnreachableMean:
                        continue
                if reached:
                    eligible.append(b)
                    candidates.append(np.array(reached, dtype=np.intp))
            stack = MarginStack.of(shifted) if shifted else None
            models.append((np.array(eligible, dtype=np.intp), candidates, stack))
        if not any(len(e) for e, _, _ in models):
            raise UnreachableMean(f"delta {delta:g}: no baseline run's margin can be reshaped to its mean + {delta:g}")
        self._shifted[delta] = models
        return models

    def unreached_baselines(self, delta: float) -> list[tuple[str, str]]:
        """The baselines (collection name, run) whose power trials at ``delta`` cannot
        start from them: no candidate second run's margin reaches their mean + delta (the
        trials draw among the others; :class:`UnreachableMean` when none is left)."""
        models = self._power_models(delta)
        out = []
        for c, (eligible, _, _) in zip(self.collections, models):
            out += [(c.name, c.runs[b]) for b in np.setdiff1d(self._baselines(c), eligible)]
        return out

    def baseline_count(self) -> int:
        """The baselines of every collection (:meth:`_baselines`)."""
        return sum(len(self._baselines(c)) for c in self.collections)

    # -- the trial source
    def pair_trials(self, n_topics: int, n_trials: int, rng: np.random.Generator, delta: float | None
                    ) -> tuple[np.ndarray, np.ndarray]:
        """(n_trials, n_topics) scores of runs A and B. Each trial draws a collection (with
        probability proportional to its kept runs; for power, to its eligible baselines),
        a first run uniformly, then a second run uniformly among the others, and n_topics
        topics from the pair's copula. ``delta`` None (type I): both columns through the
        first run's margin, so their true means are equal. Otherwise (power, type III): A
        through the first run's margin, B through a margin moved to that mean + delta (the
        protocol's ``power_margin``), the first run drawn among the baselines whose margin
        reaches it."""
        trials = self.pair_trials_detailed(n_topics, n_trials, rng, delta)
        return trials.a, trials.b

    def pair_trials_detailed(self, n_topics: int, n_trials: int, rng: np.random.Generator, delta: float | None
                             ) -> PairTrials:
        """:meth:`pair_trials` with each trial's collection and runs."""
        _check_sizes(n_topics, n_trials)
        power = None if delta is None else self._power_models(delta)
        if power is None:
            counts = np.array([len(c) for c in self.collections], dtype=float)
        else:
            counts = np.array([len(e) for e, _, _ in power], dtype=float)
        which = _draw_collections(rng, counts, n_trials)
        pick_first, pick_second = rng.random(n_trials), rng.random(n_trials)
        w = _topic_uniforms(rng, n_trials, n_topics, 2)
        a = np.empty((n_trials, n_topics))
        b = np.empty((n_trials, n_topics))
        first = np.empty(n_trials, dtype=np.intp)
        second = np.empty(n_trials, dtype=np.intp)
        for ci, c in enumerate(self.collections):
            rows = np.flatnonzero(which == ci)
            if not len(rows):
                continue
            k = len(c)
            if power is None:
                f = _uniform_index(pick_first[rows], k)
                s = _uniform_index(pick_second[rows], k - 1)
                s = s + (s >= f)
                slot = None
            else:
                eligible, candidates, stack = power[ci]
                pos = _uniform_index(pick_first[rows], len(eligible))
                f = eligible[pos]
                offsets = np.cumsum([0] + [len(x) for x in candidates])
                if self.protocol.power_margin == "first_run":
                    s = _uniform_index(pick_second[rows], k - 1)
                    s = s + (s >= f)
                    slot = offsets[pos]
                else:
                    sizes = np.array([len(x) for x in candidates])[pos]
                    within = _uniform_index(pick_second[rows], sizes)
                    s = np.array([candidates[p][q] for p, q in zip(pos, within)], dtype=np.intp)
                    slot = offsets[pos] + within
            u_first, u_second = self._copula_draws(c, f, s, w[rows])
            a[rows] = self._stacks[ci].ppf(u_first, f[:, None])
            if power is None:
                b[rows] = self._stacks[ci].ppf(u_second, f[:, None])
            else:
                b[rows] = power[ci][2].ppf(u_second, slot[:, None])  # type: ignore[union-attr,index]
            first[rows], second[rows] = f, s
        return PairTrials(a, b, which, first, second)

    @property
    def common_deltas(self) -> bool:
        """Whether :meth:`pair_trials_by_delta` can draw every delta's power trials from the
        same pairs and copula draws (the protocol's ``power_margin`` is ``first_run``)."""
        return self.protocol.power_margin == "first_run"

    def pair_trials_by_delta(self, n_topics: int, n_trials: int, rng: np.random.Generator,
                             deltas: Sequence[float]) -> tuple[np.ndarray, dict[float, np.ndarray]]:
        """Power trials for several deltas on common random numbers: the same pairs and
        copula draws for every delta (first run's margin moved, ``power_margin`` =
        ``first_run``), the first run drawn among the baselines that reach every delta.
        Returns A (n_trials, n_topics) and B by delta; cheaper than one call per delta,
        whose copula draws dominate."""
        _check_sizes(n_topics, n_trials)
        if self.protocol.power_margin != "first_run":
            raise ValueError("common random numbers across deltas need power_margin = first_run")
        deltas = [float(d) for d in deltas]
        if not deltas:
            raise ValueError("no delta given")
        models = {d: self._power_models(d) for d in deltas}
        eligible_sets = []
        for ci in range(len(self.collections)):
            sets = [set(models[d][ci][0].tolist()) for d in deltas]
            eligible_sets.append(np.array(sorted(set.intersection(*sets)), dtype=np.intp))
        counts = np.array([len(e) for e in eligible_sets], dtype=float)
        if not counts.sum():
            raise UnreachableMean(f"no baseline run's margin can be reshaped to its mean + each of {deltas}")
        which = _draw_collections(rng, counts, n_trials)
        pick_first, pick_second = rng.random(n_trials), rng.random(n_trials)
        w = _topic_uniforms(rng, n_trials, n_topics, 2)
        a = np.empty((n_trials, n_topics))
        bs = {d: np.empty((n_trials, n_topics)) for d in deltas}
        for ci, c in enumerate(self.collections):
            rows = np.flatnonzero(which == ci)
            if not len(rows):
                continue
            f = eligible_sets[ci][_uniform_index(pick_first[rows], len(eligible_sets[ci]))]
            s = _uniform_index(pick_second[rows], len(c) - 1)
            s = s + (s >= f)
            u_first, u_second = self._copula_draws(c, f, s, w[rows])
            a[rows] = self._stacks[ci].ppf(u_first, f[:, None])
            for d in deltas:
                eligible, _, stack = models[d][ci]
                slot = np.searchsorted(eligible, f)
                bs[d][rows] = stack.ppf(u_second, slot[:, None])  # type: ignore[union-attr]
        return a, bs

    def group_trials(self, k: int, n_topics: int, n_trials: int, rng: np.random.Generator,
                     groups: np.random.Generator | None = None) -> np.ndarray:
        """(n_trials, n_topics, k): k runs of one collection at equal true means. Trials come
        in groups of the protocol's ``trials_per_group``: each group draws a collection
        (with probability proportional to its kept runs, among those with at least k), k
        distinct runs uniformly, and its trials from the vine copula fitted to those runs'
        pseudo-observations, every column through the first drawn run's margin.

        ``groups``: the Generator the groups (collections and runs) are drawn from, the
        topics' uniforms then coming from ``rng`` alone (None: both from ``rng``, groups
        first). A caller that draws the groups of every topic-set size from one stream gets
        the same groups, and so fits each group's vine once (:meth:`_vine` caches them)."""
        _check_sizes(n_topics, n_trials)
        if int(k) != k or k < 2:
            raise ValueError(f"group trials need k >= 2 runs, not {k}")
        k = int(k)
        counts = np.array([len(c) if len(c) >= k else 0 for c in self.collections], dtype=float)
        if not counts.sum():
            raise ValueError(f"no collection keeps {k} runs for group trials")
        per = self.protocol.trials_per_group
        n_groups = -(-n_trials // per)
        chooser = rng if groups is None else groups
        which = _draw_collections(chooser, counts, n_groups)
        members = [chooser.choice(len(self.collections[ci]), size=k, replace=False) for ci in which]
        w = _topic_uniforms(rng, n_trials, n_topics, k)
        out = np.empty((n_trials, n_topics, k))
        for g, (ci, group) in enumerate(zip(which, members)):
            rows = slice(g * per, min((g + 1) * per, n_trials))
            canonical = tuple(sorted(int(r) for r in group))
            vine = self._vine(int(ci), canonical)
            u = _transform_by_topic(vine.transform, w[rows])
            first = int(group[0])
            out[rows] = self._stacks[ci].ppf(u, np.full(u.shape, first))
        return out

    def _vine(self, ci: int, group: tuple[int, ...]) -> VineCopula:
        key = (ci, group)
        vine = self._vines.get(key)
        if vine is None:
            if len(self._vines) >= 4096:  # bounded memory; fits are pure, so dropping is safe
                self._vines.pop(next(iter(self._vines)))
            vine = self._vines[key] = self.collections[ci].vine(group)
        return vine

    def _copula_draws(self, c: FittedCollection, first: np.ndarray, second: np.ndarray, w: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
        """Copula uniforms of each trial's (first, second) pair from its independent
        uniforms ``w`` (trials, topics, 2), one transform per distinct pair."""
        k = len(c)
        lo, hi = np.minimum(first, second), np.maximum(first, second)
        key = _pair_index(lo, hi, k)
        order = np.argsort(key, kind="stable")
        bounds = np.flatnonzero(np.diff(key[order])) + 1
        u_lo = np.empty(w.shape[:2])
        u_hi = np.empty(w.shape[:2])
        for rows in np.split(order, bounds):
            copula = c.copulas[int(key[rows[0]])]
            u = _transform_by_topic(copula.transform, w[rows])
            u_lo[rows], u_hi[rows] = u[..., 0], u[..., 1]
        swapped = (first > second)[:, None]
        return np.where(swapped, u_hi, u_lo), np.where(swapped, u_lo, u_hi)

    def true_mean(self, collection: int, run: int, delta: float | None = None) -> float:
        """The expected value of kept run ``run`` of collection ``collection``'s margin,
        moved by ``delta`` when given."""
        margin = self.collections[collection].margins[run]
        return margin.mean if delta is None else margin.shifted(delta).mean


def _check_sizes(n_topics: int, n_trials: int) -> None:
    if int(n_topics) != n_topics or n_topics < 1 or int(n_trials) != n_trials or n_trials < 0:
        raise ValueError(f"trials need a positive number of topics and a number of trials >= 0, "
                         f"not {n_topics} and {n_trials}")


def _topic_uniforms(rng: np.random.Generator, n_trials: int, n_topics: int, width: int) -> np.ndarray:
    """(n_trials, n_topics, width) independent uniforms, drawn topic by topic: the first t
    topics of every trial are the same whatever n_topics >= t, so trials of fewer topics
    are the first topics of trials of more (the experiment counts every topic-set size on
    one set of trials)."""
    return rng.random((n_topics, n_trials, width)).transpose(1, 0, 2)


# pyvinecopulib evaluates some families (Clayton's h-inverse among them) in SIMD lanes of
# up to 8 doubles and the remainder one by one, which can differ in the last bit: an
# input padded to a multiple of this many rows puts every uniform through the lanes.
_LANES = 8


def _transform_by_topic(transform: Callable[[np.ndarray], np.ndarray], w: np.ndarray) -> np.ndarray:
    """``transform`` ((rows, width) uniforms to copula draws, row by row) applied to w
    (trials, topics, width), topic by topic and padded to a multiple of :data:`_LANES`
    rows: each uniform's position in the call, and so its draw to the last bit, is the same
    whatever the number of topics, so trials of fewer topics are the first topics of trials
    of more (:func:`_topic_uniforms`)."""
    trials, topics, width = w.shape
    flat = w.transpose(1, 0, 2).reshape(-1, width)
    n = len(flat)
    pad = -n % _LANES
    if pad:
        flat = np.concatenate([flat, np.full((pad, width), 0.5)])
    return transform(flat)[:n].reshape(topics, trials, width).transpose(1, 0, 2)


def _draw_collections(rng: np.random.Generator, counts: np.ndarray, n: int) -> np.ndarray:
    """n collection indices, each with probability proportional to ``counts`` (one draw
    per index, even from a single collection, so the stream does not depend on how many
    collections are pooled)."""
    cumulative = np.cumsum(counts) / counts.sum()
    return np.minimum(np.searchsorted(cumulative, rng.random(n), side="right"), len(counts) - 1)


def _uniform_index(u: np.ndarray, size: np.ndarray | int) -> np.ndarray:
    """floor(u x size), an index uniform on 0..size-1 for u uniform on [0, 1)."""
    return np.minimum((u * size).astype(np.intp), np.asarray(size) - 1)
