"""The error-rate experiment's settings in the workflow (``experiments.test_error_rates``):
which measures it simulates (each a models file, ``results/{c}/simulation/<file>.models``),
how many shards, and the checks a schema cannot make, run with the config's other checks
before any job (:func:`check_error_rates`). The library's objects
(:class:`~irmeta.metaeval.test_error_rates.ErrorRateSettings`,
:class:`~irmeta.metaeval.simulation.models.SimulationProtocol`) are built in the jobs
(:func:`error_rate_settings`, :func:`simulation_protocol`): the workflow's parse imports
no numpy-heavy module.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irmeta.measures.alpha import alpha_label, alpha_sort_key, alpha_value
from irmeta.measures.names import Measure, parse_measure

log = logging.getLogger("irmeta")

SECTION = "test_error_rates"
KEY = f"experiments.{SECTION}"


def enabled(config: Mapping[str, Any]) -> bool:
    return bool(config["experiments"][SECTION]["enabled"])


def simulates(section: Mapping[str, Any], collection: str) -> bool:
    """Whether the experiment runs on ``collection`` (its name): on, and the section's
    ``collections`` null or naming it."""
    names = section.get("collections")
    return bool(section.get("enabled")) and (names is None or collection in names)


def _processed_names(config: Mapping[str, Any]) -> set[str]:
    """The names the config's collections go by (a path's file stem)."""
    return {Path(str(c)).stem for c in config.get("collections") or []}


def active(config: Mapping[str, Any]) -> bool:
    """Whether the experiment runs on some collection the config processes."""
    section = config["experiments"][SECTION]
    return any(simulates(section, name) for name in _processed_names(config))


def _largest_alpha(alphas: list[Any]) -> str:
    """The largest numeric alpha of the grid (the claims' choice), else its first."""
    labels = [alpha_label(a) for a in alphas]
    numbers = [a for a in labels if alpha_value(a) is not None]
    return max(numbers, key=alpha_sort_key) if numbers else labels[0]


def error_rate_measures(config: Mapping[str, Any]) -> list[str]:
    """The measures simulated, as the table names them (``AP@100``,
    ``AP_rareness(alpha=1)@100``): ``measures`` of the section, else those of
    ``experiments.comparisons``; a measure weighted by alpha without one in its name at
    the largest numeric alpha of ``alphas``."""
    experiments = config["experiments"]
    names = experiments[SECTION]["measures"]
    default = names is None
    if default:
        names = list(dict.fromkeys(c[k] for c in experiments["comparisons"] for k in ("baseline", "measure")))
    out = []
    for name in names:
        m = parse_measure(name)
        labelled = m.with_alpha(_largest_alpha(list(config["alphas"]))) if m.uses_alpha and m.alpha is None else m
        if default and range_fault(labelled) is not None:
            continue
        out.append(str(labelled))
    return list(dict.fromkeys(out))


def unsimulated_measures(config: Mapping[str, Any]) -> list[str]:
    """The comparisons' measures the default ``measures`` leaves out, with why (the log
    says them): each one whose range cannot be simulated."""
    if config["experiments"][SECTION]["measures"] is not None:
        return []
    names = dict.fromkeys(c[k] for c in config["experiments"]["comparisons"] for k in ("baseline", "measure"))
    return [f"{name}: {fault}" for name in names if (fault := range_fault(name)) is not None]


def range_fault(label: str | Measure) -> str | None:
    """Why a measure cannot be simulated from its declared range, None if it can: margins
    are fitted on [0, high], high finite
    (:func:`irmeta.metaeval.simulation.margins.support_of_measure` says the same in the
    jobs); a measure that declares no range is checked against [0, 1] on its scores. A
    rareness measure's range is that of the alpha its label names."""
    from irmeta.measures.ranges import measure_range

    found = measure_range(label)
    if found is not None and not (found.bounded and found.low == 0):
        return f"its scores lie in {found}; simulation needs a range [0, high] with a finite high to fit margins on"
    return None


def range_high(label: str) -> float:
    """The top of the range a measure's scores lie in: its declared one's high, 1 for a
    measure that declares none (its scores are held to [0, 1], as the jobs do)."""
    from irmeta.measures.ranges import measure_range

    found = measure_range(label)
    return 1.0 if found is None else float(found.high)


def measure_file(label: str) -> str:
    """The models file's name of a measure: its label with every character other than
    letters, digits, ``.``, ``-`` and ``_`` an underscore (``AP_rareness_alpha_1_100``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", label).strip("_") or "measure"


def measure_files(config: Mapping[str, Any]) -> dict[str, str]:
    """Models file name -> measure label, in the measures' order."""
    return {measure_file(label): label for label in error_rate_measures(config)}


def scored_block(label: str) -> tuple[str, str | None]:
    """(measure without alpha, alpha label or None): the block of ``scores.npz`` to load."""
    m = parse_measure(label)
    return str(m.without_alpha()), None if m.alpha is None else alpha_label(m.alpha)


def shards(config: Mapping[str, Any]) -> int:
    """Jobs the chunks are split into: the section's ``shards``, else ``experiments.shards``."""
    own = config["experiments"][SECTION]["shards"]
    return int(config["experiments"]["shards"] if own is None else own)


def chunk_count(section: Mapping[str, Any]) -> int:
    """The chunks of :func:`irmeta.metaeval.test_error_rates.chunk_plan`, counted here (it
    is one job per topic-set size and kind, each ceil(trials / chunk) chunks)."""
    jobs_per_size = 1 + len(section["deltas"]) + len(section["runs_at_once"])
    return len(section["n_topics"]) * jobs_per_size * math.ceil(section["trials"] / section["chunk"])


def check_error_rates(config: Mapping[str, Any], source: str = "config") -> None:
    """What the schema cannot say about ``experiments.test_error_rates``, one line naming
    the key: its measures scored (with their alpha among ``alphas``), each with a file name
    of its own; every delta within reach of some margin of each measure's range
    (:func:`~irmeta.metaeval.simulation.reach.delta_fault`); its tests registered and
    paired; no more shards than chunks."""
    from irmeta.metaeval.stats.registry import TESTS, unknown_test
    from irmeta.pipeline.config_schema import ConfigError

    section = config["experiments"][SECTION]
    for i, name in enumerate(section["tests"] or []):
        key = f"key '{KEY}.tests.{i}'"
        if name not in TESTS:
            raise ConfigError(f"{source}: {key}: {unknown_test(name)}")
        if not TESTS[name].paired:
            raise ConfigError(f"{source}: {key}: {name} is not a paired test: it decides every pair from all runs "
                              f"at once")
    if section["tests"] == []:
        raise ConfigError(f"{source}: key '{KEY}.tests': no test (null: every paired test of the registry)")
    if not active(config):  # its measures are checked where it runs: they may be another config's
        return
    scored = {str(parse_measure(m)) for m in config["measures"]}
    alphas = {alpha_label(a) for a in config["alphas"]}
    for i, name in enumerate(section["measures"] or []):
        key = f"key '{KEY}.measures.{i}'"
        try:
            m = parse_measure(name)
        except ValueError as exc:
            raise ConfigError(f"{source}: {key}: {exc}") from None
        if str(m.without_alpha()) not in scored:
            raise ConfigError(f"{source}: {key}: {str(m.without_alpha())!r} is not in measures "
                              f"({', '.join(config['measures'])})")
        if m.alpha is not None and alpha_label(m.alpha) not in alphas:
            raise ConfigError(f"{source}: {key}: alpha {alpha_label(m.alpha)} is not in alphas "
                              f"({', '.join(sorted(alphas, key=alpha_sort_key))}): scores.npz holds those only")
    files: dict[str, str] = {}
    labels = error_rate_measures(config)
    for label in labels:
        fault = range_fault(label)
        if fault is not None:
            raise ConfigError(f"{source}: key '{KEY}.measures': {label}'s {fault.removeprefix('its ')}")
        other = files.setdefault(measure_file(label), label)
        if other != label:
            raise ConfigError(f"{source}: key '{KEY}.measures': {other} and {label} share the models file name "
                              f"{measure_file(label)!r}; simulate one of them in another run")
    from irmeta.metaeval.simulation.reach import delta_fault

    for i, delta in enumerate(section["deltas"]):
        for label in labels:
            fault = delta_fault(delta, range_high(label), label)
            if fault is not None:
                raise ConfigError(f"{source}: key '{KEY}.deltas.{i}': {fault}")
    if not labels:
        raise ConfigError(f"{source}: key '{KEY}.measures': no measure of experiments.comparisons can be simulated "
                          f"({'; '.join(unsimulated_measures(config))}); name the measures to simulate")
    total = chunk_count(section)
    if shards(config) > total:
        which = f"{KEY}.shards" if section["shards"] is not None else "experiments.shards"
        raise ConfigError(f"{source}: key '{which}': {shards(config)} shards of {total} chunks of trials "
                          f"({KEY}: trials / chunk per topic-set size and job) would leave a shard without a chunk; "
                          f"give at most {total}")


def error_rate_settings(section: Mapping[str, Any]):
    """The section as :class:`~irmeta.metaeval.test_error_rates.ErrorRateSettings`."""
    from irmeta.metaeval.test_error_rates import ErrorRateSettings

    return ErrorRateSettings(tests=None if section["tests"] is None else tuple(section["tests"]),
                             n_topics=tuple(section["n_topics"]), trials=section["trials"],
                             alphas=tuple(section["alphas"]), deltas=tuple(section["deltas"]),
                             runs_at_once=tuple(section["runs_at_once"]), permutations=section["permutations"],
                             chunk=section["chunk"])


def simulation_protocol(section: Mapping[str, Any]):
    """The section's ``protocol`` as :class:`~irmeta.metaeval.simulation.models.SimulationProtocol`."""
    from irmeta.metaeval.simulation.models import SimulationProtocol

    settings = dict(section["protocol"])
    for key in ("margin_families", "copula_families"):
        if settings.get(key) is not None:
            settings[key] = tuple(settings[key])
    return SimulationProtocol(**settings)
