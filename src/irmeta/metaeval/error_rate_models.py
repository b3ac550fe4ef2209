"""The error-rate experiment's models, from score matrices (Urbano, Lima and Hanjalic,
SIGIR 2019): what the pipeline's rules, ``irmeta test-errors`` and ``irmeta.test_errors``
share between reading the scores and counting the errors
(:mod:`irmeta.metaeval.test_error_rates`).

- where a measure's scores lie, its declared range and grid:
  :func:`~.simulation.margins.support_of_measure`;
- :func:`checked_matrices`: every refusal a score matrix can meet, before any fitting:
  a NaN, a score outside the measure's range, a run with one distinct score (refused, or
  dropped and reported, as the protocol's ``degenerate_runs`` says), fewer than 2 runs
  after the protocol's drops; one line naming the matrix and the run;
- :func:`fit_models`: a measure's :class:`MeasureModels`, each matrix's
  :class:`~.simulation.models.FittedCollection` (the pseudo-observations' ties broken from
  the seed, the measure and the matrix's place) with the names of the runs it was given,
  saved for later jobs (:meth:`MeasureModels.save`, :meth:`MeasureModels.load`);
- :func:`checked_deltas`: every delta reached by some baseline's margin, else one line
  naming the setting; a line for each delta some baselines do not reach, naming them;
- :func:`rate_counts`: a shard's counts of every measure (the chunks
  :func:`~.test_error_rates.shard_chunks` gives it), seeded with ``seed +
  SEED_OFFSET``; :func:`rate_counts_in`: every shard's, in as many processes;
- :func:`models_table`: ``simulation_models.csv``, per measure the kept runs' margins
  (family, AIC, degrees of freedom, mean), every kept pair's copula (family, rotation,
  AIC, Kendall's tau) and the dropped runs with why (:data:`MODEL_COLUMNS`).
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from irmeta.metaeval import test_error_rates as ter
from irmeta.metaeval.simulation.margins import Support, UnreachableMean
from irmeta.metaeval.simulation.models import FittedCollection, PooledCollections, SimulationProtocol, select_runs

#: The columns of ``simulation_models.csv``: per measure and collection, one row per kept
#: run (``model`` ``margin``: its margin's family, AIC, degrees of freedom and expected
#: value), per kept pair (``copula``: ``run`` and ``other_run``, the family, its rotation,
#: AIC and Kendall's tau) and per dropped run (``dropped``, ``note`` saying why).
MODEL_COLUMNS = ("measure", "collection", "model", "run", "other_run", "family", "rotation", "aic", "df", "mean",
                 "tau", "note")

#: The kinds of row of :data:`MODEL_COLUMNS`, in their order.
MODEL_KINDS = ("margin", "copula", "dropped")


@dataclass(frozen=True)
class ScoreMatrix:
    """One collection's scores of a measure: ``values`` (runs x topics), its ``runs`` and
    ``topics``, ``source`` (the file, or the collection and its file) for the messages
    and ``name`` (default: ``source``) for the tables."""

    source: str
    runs: tuple[str, ...]
    topics: tuple[str, ...]
    values: np.ndarray
    name: str = ""

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=np.float64)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "runs", tuple(str(r) for r in self.runs))
        object.__setattr__(self, "topics", tuple(str(t) for t in self.topics))
        object.__setattr__(self, "name", self.name or self.source)
        if values.ndim != 2 or values.shape != (len(self.runs), len(self.topics)):
            raise ValueError(f"{self.source}: {len(self.runs)} runs x {len(self.topics)} topics expected, not scores "
                             f"of shape {values.shape}")


def checked_matrices(matrices: Sequence[ScoreMatrix], support: Support, protocol: SimulationProtocol,
                     measure: str, drop_hint: str = "degenerate_runs: drop") -> list[str]:
    """Every matrix checked before any fitting, as :meth:`FittedCollection.fit` would meet
    it: at least 2 topics; no NaN or infinite score (naming the run and the topic); every
    score in the measure's range and on its grid; the protocol's drops (duplicates, the
    bottom by mean), then a kept run with one distinct score refused (``degenerate_runs``
    ``refuse``) or dropped; at least 2 runs left. A fault is one ValueError line naming the
    matrix's source (and, for a single score, ``drop_hint``: how to drop such runs);
    returns one line per run dropped for a single distinct score."""
    if not matrices:
        raise ValueError(f"{measure}: no score matrix to fit")
    notes = []
    for matrix in matrices:
        where = f"{matrix.source}: {measure}"
        values = matrix.values
        if len(matrix.topics) < 2:
            raise ValueError(f"{where}: {len(matrix.topics)} topic(s); simulation needs at least 2")
        bad = ~np.isfinite(values)
        if bad.any():
            r, t = np.argwhere(bad)[0]
            raise ValueError(f"{where}: run {matrix.runs[r]} has no number on topic {matrix.topics[t]} "
                             f"({values[r, t]}): simulation needs every run's score on every topic")
        for run, scores in zip(matrix.runs, values):
            support.check(scores, f"{where}: run {run}")
        selection = select_runs(values, matrix.runs, protocol)
        kept = list(selection.kept)
        for r in selection.kept:
            if np.ptp(values[r]) <= 0:
                if protocol.degenerate_runs == "refuse":
                    raise ValueError(f"{where}: run {matrix.runs[r]} scores {values[r, 0]:g} on every topic: there is "
                                     f"no margin to fit (drop such runs with {drop_hint})")
                kept.remove(r)
                notes.append(f"{where}: run {matrix.runs[r]} dropped: it scores {values[r, 0]:g} on every topic")
        if len(kept) < 2:
            raise ValueError(f"{where}: {len(kept)} of its {len(matrix.runs)} runs left after the protocol's drops "
                             f"(duplicates, the bottom {protocol.drop_bottom:.0%} by mean, single scores); "
                             f"simulation needs at least 2")
    return notes


def _text_key(text: str) -> int:
    """A stable integer of a name: its SHA-256's first 8 bytes."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")


def fit_seed(seed: int, measure: str, index: int) -> list[int]:
    """The seed of matrix ``index``'s pseudo-observations (ties broken at random): the
    stream's ``seed`` (``experiments.seed`` + :data:`~.test_error_rates.SEED_OFFSET`), the
    measure and the matrix's place among those pooled."""
    return [int(seed), _text_key(measure), int(index)]


@dataclass(frozen=True, eq=False)
class MeasureModels:
    """One measure's models: each pooled matrix's :class:`FittedCollection`, with the
    names of the runs it was given (the protocol's drops count them), and the lines
    :func:`checked_matrices` reported."""

    measure: str
    collections: tuple[FittedCollection, ...]
    input_runs: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()

    def save(self, path: str | Path) -> None:
        """Write the models for later jobs of the same installation (:meth:`load`): a
        pickle with a format tag, a cache between jobs, not an archive."""
        from irmeta.support.atomic import atomic_write_bytes

        atomic_write_bytes(path, pickle.dumps((_FORMAT, self), protocol=pickle.HIGHEST_PROTOCOL))

    @classmethod
    def load(cls, path: str | Path) -> MeasureModels:
        """The models :meth:`save` wrote; one ValueError line naming the file otherwise."""
        try:
            with open(path, "rb") as handle:
                tag, models = pickle.load(handle)
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError) as error:
            raise ValueError(f"{path}: not a file of simulation models ({error}): delete it and run again") from None
        if tag != _FORMAT or not isinstance(models, cls):
            raise ValueError(f"{path}: simulation models of another version ({tag!r}): delete it and run again")
        return models

    def source(self) -> PooledCollections:
        """The trial source: the collections pooled."""
        return PooledCollections(self.collections)


#: Tag of :meth:`MeasureModels.save`'s files; changed whenever the objects change.
_FORMAT = "irmeta.error_rate_models/1"


def fit_models(matrices: Sequence[ScoreMatrix], support: Support, protocol: SimulationProtocol, seed: int,
               measure: str, *, workers: int | None = None, drop_hint: str = "degenerate_runs: drop"
               ) -> MeasureModels:
    """Each matrix's models, fitted after :func:`checked_matrices` (``seed``: the
    experiment's, ``experiments.seed``; the fit adds :data:`~.test_error_rates.SEED_OFFSET`)."""
    notes = checked_matrices(matrices, support, protocol, measure, drop_hint)
    fitted = tuple(FittedCollection.fit(m.values, m.runs, support, fit_seed(int(seed) + ter.SEED_OFFSET, measure, i),
                                        protocol, name=m.name, workers=workers)
                   for i, m in enumerate(matrices))
    return MeasureModels(measure, fitted, tuple(m.runs for m in matrices), tuple(notes))


def checked_deltas(models: MeasureModels, deltas: Sequence[float], where: str) -> list[str]:
    """Every delta of power and type III reached by some baseline run's margin moved to its
    mean + delta; else one ValueError line naming ``where`` (the setting) and the delta.
    Returns one line per delta that some baselines do not reach, naming them: the power
    and type III trials at that delta start from the others (a reader of the rates should
    know their baselines are fewer, and higher-scoring runs left out)."""
    source = models.source()
    notes = []
    for delta in deltas:
        try:
            unreached = source.unreached_baselines(float(delta))
        except UnreachableMean as exc:
            raise ValueError(f"{where}: delta {float(delta):g} is out of reach for {models.measure}: {exc}") from None
        if unreached:
            several = len({name for name, _ in unreached}) > 1 or len(models.collections) > 1
            names = [f"{name}: {run}" if several else run for name, run in unreached]
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            total = source.baseline_count()
            starts = ("the power and type III trials of every delta start from the baselines that reach them all "
                      "(power_margin first_run)" if source.common_deltas else
                      f"power and type III trials at this delta start from the other {total - len(unreached)}")
            notes.append(f"{models.measure}: delta {float(delta):g} ({where}): {len(unreached)} of {total} baseline "
                         f"runs ({shown}) have no run whose margin reaches their mean + {float(delta):g}; {starts}")
    return notes


def rate_counts(models: Sequence[MeasureModels], settings: ter.ErrorRateSettings, seed: int,
                shard: int = 0, shards: int = 1) -> pd.DataFrame:
    """Shard ``shard`` of ``shards``: each measure's error counts over its chunks of
    :func:`~.test_error_rates.chunk_plan` (:func:`~.test_error_rates.error_rate_counts`),
    the trials drawn from ``seed`` (``experiments.seed``) + :data:`~.test_error_rates.SEED_OFFSET`,
    from the measure's pooled models."""
    chunks = ter.shard_chunks(settings, shard, shards)
    frames = [ter.error_rate_counts(m.source(), m.measure, settings, int(seed) + ter.SEED_OFFSET, chunks)
              for m in models]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(ter.COUNT_COLUMNS))


# what a worker of :func:`rate_counts_in` counts (set before the fork, inherited)
_SHARED: dict = {}


def _count_shard(shard: int, shards: int) -> pd.DataFrame:
    return rate_counts(_SHARED["models"], _SHARED["settings"], _SHARED["seed"], shard, shards)


def rate_counts_in(models: Sequence[MeasureModels], settings: ter.ErrorRateSettings, seed: int,
                   workers: int | None = None) -> list[pd.DataFrame]:
    """Every chunk's counts (:func:`rate_counts`), as ``workers`` shards in as many forked
    processes (None: the processors this process may run on; 1, or no fork on this
    platform: here, one shard): :func:`~.test_error_rates.error_rate_table` makes the
    same table of them whatever their number, as of the pipeline's shards."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from irmeta.metaeval.simulation.copulas import default_workers

    workers = default_workers() if workers is None else max(1, int(workers))
    workers = min(workers, len(ter.chunk_plan(settings)))
    if workers == 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [rate_counts(models, settings, seed)]
    _SHARED.update(models=models, settings=settings, seed=seed)
    try:  # fork: the workers inherit the models and every test registered here (a --plugin's)
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_count_shard, range(workers), [workers] * workers))
    finally:
        _SHARED.clear()


def models_table(models: Sequence[MeasureModels]) -> pd.DataFrame:
    """``simulation_models.csv`` (:data:`MODEL_COLUMNS`): per measure, in the order
    given, and per collection pooled, its margins, copulas and dropped runs."""
    rows: list[dict[str, object]] = []
    for measure in models:
        for collection, names in zip(measure.collections, measure.input_runs):
            common = {"measure": measure.measure, "collection": collection.name}
            for record in collection.margin_records():
                rows.append({**common, "model": "margin", "run": record["run"], "family": record["family"],
                             "aic": record["aic"], "df": record["df"], "mean": record["mean"]})
            for record in collection.copula_records():
                rows.append({**common, "model": "copula", "run": record["run"], "other_run": record["other_run"],
                             "family": record["family"], "rotation": record["rotation"], "aic": record["aic"],
                             "tau": record["tau"]})
            for r, why in collection.selection.dropped:
                rows.append({**common, "model": "dropped", "run": names[r], "note": why})
    frame = pd.DataFrame(rows, columns=list(MODEL_COLUMNS))
    for column in ("aic", "df", "mean", "tau"):
        frame[column] = frame[column].astype(np.float64)
    frame["rotation"] = pd.array([None if pd.isna(r) else int(r) for r in frame["rotation"]], dtype="Int64")
    return frame
