"""The error-rate experiment's jobs (workflow/rules/test_error_rates.smk), each a step its
thin script calls: fit one measure's models from ``scores.npz``, count one shard's errors,
gather the shards into the tables and draw the figures."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from irmeta.pipeline.error_rate_config import KEY, error_rate_settings, scored_block, simulation_protocol

log = logging.getLogger("irmeta")


def fit_step(scores_path: str | Path, measure: str, collection: str, section: Mapping[str, Any], seed: int,
             out: str | Path, *, workers: int = 1) -> str:
    """One measure's models (:func:`irmeta.metaeval.error_rate_models.fit_models`) of a
    collection's ``scores.npz``, every delta checked reachable (one line naming
    ``experiments.test_error_rates.deltas`` otherwise), saved to ``out``."""
    from irmeta.metaeval.error_rate_models import ScoreMatrix, checked_deltas, fit_models
    from irmeta.metaeval.simulation.margins import support_of_measure
    from irmeta.pipeline.stored_scores import load_scores

    name, alpha = scored_block(measure)
    scores = load_scores(scores_path, [name], None if alpha is None else [alpha])
    if len(scores.measures) != 1:
        raise ValueError(f"{scores_path}: no per-topic scores of {measure} ({KEY}.measures)")
    matrix = ScoreMatrix(f"{collection} ({scores_path})", tuple(scores.runs), tuple(scores.topics),
                         scores.per_topic[0], name=collection)
    protocol = simulation_protocol(section)
    try:
        support = support_of_measure(measure)
    except ValueError as exc:
        raise ValueError(f"{KEY}.measures: {exc}") from None
    models = fit_models([matrix], support, protocol, seed, measure, workers=workers,
                        drop_hint=f"{KEY}.protocol.degenerate_runs: drop")
    for note in models.notes:
        log.warning("%s", note)
    for note in checked_deltas(models, error_rate_settings(section).deltas, f"{KEY}.deltas"):
        log.warning("%s", note)
    models.save(out)
    fitted = models.collections[0]
    return (f"{measure}: {len(fitted)} runs kept of {len(scores.runs)}, {len(fitted.copulas)} pair copulas, "
            f"support {support.kind}")


def shard_step(model_paths: Sequence[str | Path], section: Mapping[str, Any], seed: int, shard: int, shards: int,
               out: str | Path) -> str:
    """Shard ``shard`` of ``shards``: every measure's error counts over its chunks
    (:func:`irmeta.metaeval.error_rate_models.rate_counts`), to Parquet."""
    from irmeta.metaeval.error_rate_models import MeasureModels, rate_counts
    from irmeta.pipeline.stored_scores import write_frame

    settings = error_rate_settings(section)
    models = [MeasureModels.load(path) for path in model_paths]
    counts = rate_counts(models, settings, seed, shard, shards)
    write_frame(counts, out, {"shard": [shard, shards], "seed": seed, "trials": settings.trials})
    return f"shard {shard + 1} of {shards}: {len(counts)} counts of {len(models)} measure(s)"


def tabulate_step(count_paths: Sequence[str | Path], model_paths: Sequence[str | Path], section: Mapping[str, Any],
                  outputs: Mapping[str, str | Path], label: str) -> str:
    """``test_error_rates.csv`` (the shards summed), ``simulation_models.csv`` and the
    three figures (``outputs``: ``table``, ``models``, ``type_1``, ``power``, ``familywise``,
    the figures' PNG paths)."""
    from irmeta.artefacts.figures.error_rates import plot_familywise, plot_power, plot_type_1
    from irmeta.metaeval.error_rate_models import MeasureModels, models_table
    from irmeta.metaeval.test_error_rates import error_rate_table
    from irmeta.pipeline.stored_scores import read_shards, read_table, write_csv

    settings = error_rate_settings(section)
    table = error_rate_table(read_shards(count_paths), settings.trials)
    write_csv(table, outputs["table"])
    models = models_table([MeasureModels.load(path) for path in model_paths])
    write_csv(models, outputs["models"])
    rates = read_table(outputs["table"], "test_error_rates")
    for plot, key in ((plot_type_1, "type_1"), (plot_power, "power"), (plot_familywise, "familywise")):
        plot(rates, Path(outputs[key]).with_suffix(""), label)
    return f"wrote {outputs['table']} ({len(table)} rates) and {outputs['models']} ({len(models)} rows)"
