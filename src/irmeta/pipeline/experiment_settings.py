"""What the workflow derives from a checked config (:mod:`irmeta.pipeline.config`): the
measures the comparisons test, the paired tests, each randomised experiment's seed and
the settings printed beside the paper's numbers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from irmeta.pipeline.collection_config import Collection

if TYPE_CHECKING:
    from irmeta.measures.names import Measure


def comparison_measures(config: Mapping[str, Any]) -> list[str]:
    """The measures of ``experiments.comparisons``, baselines and compared, each once, in
    the order first named: discriminative power and stability test these."""
    names: list[str] = []
    for comparison in config["experiments"]["comparisons"]:
        for key in ("baseline", "measure"):
            if comparison[key] not in names:
                names.append(comparison[key])
    return names


def paired_tests(config: Mapping[str, Any]) -> list[str]:
    """The paired tests among ``experiments.discriminative_power.methods``, in its order:
    the tests of tables/pairwise_tests.parquet (none: no such table)."""
    from irmeta.metaeval.stats.registry import paired_methods  # no pandas at the workflow's parse

    return paired_methods(config["experiments"]["discriminative_power"]["methods"])


def experiment_seed(config: Mapping[str, Any], experiment: str) -> int:
    """The seed of a randomised experiment's draws (``stability``, ``discriminative_power``,
    ``pairwise_tests``, ...: the seeds of :mod:`irmeta.pipeline.manifest`):
    ``experiments.seed`` plus the ``SEED_OFFSET`` of the :mod:`irmeta.metaeval` module
    the manifest names, which says how its trials draw."""
    from irmeta.pipeline.manifest import seeds

    streams = seeds()
    if experiment not in streams:
        raise ValueError(f"no randomised experiment {experiment!r} (one of {', '.join(streams)})")
    return int(config["experiments"]["seed"]) + streams[experiment].offset()


def paper_settings(config: Mapping[str, Any], collections: Mapping[str, Collection]) -> dict[str, dict]:
    """What produced the numbers, per collection label: the settings that
    published_vs_reproduced.md prints beside them."""
    experiments = config["experiments"]
    return {
        collection.label: {
            "collection": name,
            "depth": collection.depth,
            "relevance_threshold": collection.threshold,
            "duplicates": collection.duplicates,
            "score_precision": collection.score_precision,
            "measures": list(config["measures"]),
            "alphas": [str(a) for a in config["alphas"]],
            "rarity_depth": config["rarity_depth"] or "the cutoff",
            "averaging": "all_topics (every qrels topic; missing ones score 0)",
            "seed": experiments["seed"],
            "permutations": experiments["discriminative_power"]["permutations"],
            "stability_trials": experiments["stability"]["trials"],
            "stability_fuzziness": experiments["stability"]["fuzziness"],
            "subsampling_trials": experiments["system_subsampling"]["trials"],
        }
        for name, collection in collections.items()
    }


def properties_rarity_depth(measures: Sequence[str | Measure], rarity_depth: int | None) -> int | None:
    """The depth rarity is read at for the properties: the configured ``rarity_depth``,
    else the cutoff of the first rareness measure (one weighted by alpha) that has one;
    None (the runs' full depth) when neither does. ``measures``: config's as read (a name
    is read here)."""
    from irmeta.measures.names import as_measure

    if rarity_depth is not None:
        return int(rarity_depth)
    for name in measures:
        measure = as_measure(name)
        if measure.uses_alpha and measure.cutoff is not None:
            return int(measure.cutoff)
    return None
