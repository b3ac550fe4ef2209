"""What a schema cannot say about the workflow's config, checked once it has passed its
schema (:mod:`.config_schema`): the plugins imported, measure names and their
parameters, alphas, tests, corrections, duplicates after canonical spelling, the
experiments' measures. Each refusal is one line naming the file, the key and the value.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from irmeta.measures.names import Measure, as_measure, parse_measure
from irmeta.metaeval.stats.own_tests import load_plugins
from irmeta.metaeval.stats.registry import TESTS, correction_names, registered_tests, unknown_test
from irmeta.pipeline.config_schema import CONFIG_SCHEMA, ConfigError, read_yaml, validate
from irmeta.pipeline.error_rate_config import check_error_rates


def register_imported_measures(imported: Mapping[str, str], source: str | Path = "config") -> None:
    """Register config's ``imported_measures`` (name -> ``higher`` or ``lower``): measures whose
    scores only a scores file gives. A name irmeta computes itself is refused."""
    if not imported:
        return
    from irmeta.measures.plugins import ImportedMeasure, register_imported_measure
    from irmeta.measures.registry import MEASURES

    for name, direction in imported.items():
        known = MEASURES.get(name)
        if known is not None and not isinstance(known, ImportedMeasure):
            raise ConfigError(f"{source}: key 'imported_measures.{name}': irmeta computes {name} itself; "
                              f"give a scores file's own measure another name")
        register_imported_measure(name, higher_is_better=direction == "higher", replace=True)


def imported_only(measure: str | Measure) -> bool:
    """Whether irmeta has no implementation of ``measure``: its scores come from a scores file."""
    from irmeta.measures.plugins import ImportedMeasure

    return isinstance(as_measure(measure).definition, ImportedMeasure)


def check_measures(measures: Iterable[str], source: str | Path = "config") -> list[Measure]:
    """Every measure name is one :func:`irmeta.measures.names.parse_measure` knows; the
    names as read (each once, here, where the config enters)."""
    read = []
    for i, measure in enumerate(measures):
        try:
            read.append(parse_measure(measure))
        except ValueError as exc:
            raise ConfigError(f"{source}: key 'measures.{i}': {exc}") from None
    return read


def config_measures(config: Mapping[str, Any]) -> list[Measure]:
    """A checked config's ``measures`` (:func:`check_config`'s canonical names) as read:
    once per caller, which passes them on to what it checks or runs."""
    return [parse_measure(name) for name in config.get("measures", [])]


def check_alphas(alphas: Iterable[Any], measures: Iterable[str], source: str | Path = "config",
                 read: Iterable[Measure] | None = None) -> None:
    """Every alpha is one :func:`irmeta.measures.alpha.parse_alpha` accepts (>= 0, or 1/R), and in
    [0, 1] when a [0, 1] form of eq. 4 is among the measures."""
    from irmeta.measures.alpha import check_unit_alphas, parse_alpha

    alphas = list(alphas)
    try:
        for alpha in alphas:
            parse_alpha(alpha)
        measures = list(measures)
        for measure, m in zip(measures, read if read is not None else map(parse_measure, measures)):
            # nDCG_rareness_norm divides by its own ideal: in [0, 1] for any alpha
            if m.family in ("P_rareness_norm", "AP_rareness_norm"):
                check_unit_alphas(alphas, measure)
    except ValueError as exc:
        raise ConfigError(f"{source}: key 'alphas': {exc}") from None


def check_repeats(config: Mapping[str, Any], source: str | Path = "config",
                  read: Mapping[str, Measure] | None = None) -> None:
    """No list of measures, alphas or comparisons names one twice, however spelled (the
    schema's uniqueItems compares spellings: ``P_10`` and ``P@10``, 0.5 and ``"0.50"``, are
    one each); ``read``: names already read (config's ``measures``), not read again."""
    from irmeta.measures.alpha import alpha_label, parse_alpha
    from irmeta.settings import refuse_repeats

    known = dict(read or {})

    def measure(m: Any) -> str:
        if isinstance(m, str) and m in known:
            return str(known[m])
        return str(parse_measure(m))

    def alpha(a: Any) -> str:
        return alpha_label(parse_alpha(a))

    experiments = config["experiments"]
    lists = [("measures", config["measures"], measure), ("alphas", config["alphas"], alpha),
             ("experiments.comparisons", experiments["comparisons"],
              lambda c: (measure(c["measure"]), measure(c["baseline"])))]
    for section in ("swap", "system_subsampling", "synthetic"):
        for key, canonical in (("measures", measure), ("alphas", alpha)):
            values = (experiments.get(section) or {}).get(key)
            if isinstance(values, list):
                lists.append((f"experiments.{section}.{key}", values, canonical))
    for key, values, canonical in lists:
        for i, value in enumerate(values):  # a value that does not parse, named by its own key
            try:
                canonical(value)
            except ValueError as exc:
                raise ConfigError(f"{source}: key '{key}.{i}': {exc}") from None
        try:
            refuse_repeats(key, values, canonical, config=True)
        except ValueError as exc:
            raise ConfigError(f"{source}: {exc}") from None


def check_shards(config: Mapping[str, Any], source: str | Path = "config") -> None:
    """``experiments.shards`` no more than the trials of any experiment split into shards
    of trials: a shard would draw none."""
    experiments = config["experiments"]
    shards = experiments["shards"]
    counts = [("experiments.stability.trials", experiments["stability"]["trials"]),
              ("experiments.system_subsampling.trials", experiments["system_subsampling"]["trials"])]
    if "randomised_tukey_hsd" in experiments["discriminative_power"].get("methods", []):
        counts.append(("experiments.discriminative_power.permutations",
                       experiments["discriminative_power"]["permutations"]))
    if experiments["swap"]["measures"]:
        counts.append(("experiments.swap.trials", experiments["swap"]["trials"]))
    for key, trials in counts:
        if shards > trials:
            raise ConfigError(f"{source}: key 'experiments.shards': {shards} shards of {trials} trials ({key}) would "
                              f"leave a shard without a trial; give at most {trials}")


def check_experiment_measures(config: Mapping[str, Any], source: str | Path = "config") -> None:
    """Every measure the experiments compare or test is among the scored ``measures``:
    they read their scores from scores.npz, which holds those measures only."""
    scored = list(config["measures"])
    experiments = config["experiments"]
    named = [(f"experiments.comparisons.{i}.{key}", comparison[key])
             for i, comparison in enumerate(experiments["comparisons"]) for key in ("measure", "baseline")]
    named += [(f"experiments.swap.measures.{i}", name) for i, name in enumerate(experiments["swap"]["measures"])]
    named += [(f"experiments.reproducibility.measures.{i}", name)
              for i, name in enumerate(experiments.get("reproducibility", {}).get("measures", []))]
    for key, name in named:
        if name not in scored:
            raise ConfigError(f"{source}: key '{key}': {name!r} is not in measures ({', '.join(scored)})")


def check_topic_set_size(config: Mapping[str, Any], source: str | Path = "config") -> None:
    """Power 1 - beta above alpha_level: the paired t-test's power at no difference is
    alpha_level, so otherwise every difference, even none, is "detectable" (Sakai 2016)."""
    design = config["experiments"]["topic_set_size"]
    if design["alpha_level"] >= 1 - design["beta"]:
        raise ConfigError(f"{source}: key 'experiments.topic_set_size': the power 1 - beta = {1 - design['beta']:g} "
                          f"must exceed alpha_level = {design['alpha_level']:g}")


def check_generated_sets(config: Mapping[str, Any], source: str | Path = "config") -> None:
    """``experiments.judgment_agreement``'s generated judgment sets can be listed: no pool
    depth or fraction twice (0.1 and 0.10000000000001 name one set), trials bounded."""
    from irmeta.metaeval.generated_set_names import generated_set_names

    settings = config["experiments"]["judgment_agreement"]
    try:
        generated_set_names(settings["pool_depths"], settings["judgment_fractions"], settings["trials"])
    except ValueError as exc:
        key, _, detail = str(exc).partition(": ")
        raise ConfigError(f"{source}: key 'experiments.judgment_agreement.{key}': {detail}") from None


def load_config_plugins(config: Mapping[str, Any], source: str | Path | None = None) -> None:
    """Import the config's ``measure_plugins``, then its ``test_plugins`` (from the working
    directory, as every job does); with ``source``, a plugin that fails names the config's
    file and key too."""
    for key in ("measure_plugins", "test_plugins"):
        try:
            load_plugins(config.get(key) or [], Path.cwd(), key)
        except (ValueError, FileNotFoundError) as exc:
            if source is None:
                raise
            detail = str(exc).removeprefix(f"{key}: ")
            raise ConfigError(f"{source}: key '{key}': {detail}") from None


def check_tests(config: Mapping[str, Any], source: str | Path = "config") -> None:
    """``experiments.discriminative_power``'s methods and corrections against the test
    registry (its plugins' tests are in by now); the schema names none of them."""
    settings = config["experiments"]["discriminative_power"]
    for i, method in enumerate(settings.get("methods", [])):
        key = f"key 'experiments.discriminative_power.methods.{i}'"
        test, plus, correction = str(method).partition("+")
        if plus and test in TESTS:
            raise ConfigError(f"{source}: {key}: {method!r}: name the test ({test}) here and its correction "
                              f"({correction}) in experiments.discriminative_power.corrections")
        if method not in TESTS:  # the schema lets any name through: a plugin's test is known only now
            raise ConfigError(f"{source}: {key}: {unknown_test(method)}")
    known = correction_names(none=True)
    for i, correction in enumerate(settings["corrections"]):
        if correction not in known:
            raise ConfigError(f"{source}: key 'experiments.discriminative_power.corrections.{i}': unknown correction "
                              f"{correction!r}; expected one of {', '.join(known)}")


def validate_config(config: Mapping[str, Any], source: str | Path = "config") -> dict:
    """The workflow configuration checked, defaults filled in (a copy): the schema, as
    ``snakemake.utils.validate`` reads it, then :func:`check_config`."""
    return check_config(validate(config, CONFIG_SCHEMA, source=source), source)


def check_config(config: Mapping[str, Any], source: str | Path = "config") -> dict:
    """What a schema cannot say (measure names, alphas, experiments on unscored measures),
    on a configuration the schema has passed; returns it with :func:`with_measure_options`."""
    load_config_plugins(config, source)
    register_imported_measures(config.get("imported_measures") or {}, source)
    check_tests(config, source)
    read = check_measures(config["measures"], source)  # each name read once; the checks below take them
    check_alphas(config["alphas"], config["measures"], source, read)
    check_repeats(config, source, dict(zip(config["measures"], read)))
    if "all" not in config["averaging"]:
        raise ConfigError(f"{source}: key 'averaging': {list(config['averaging'])} lacks 'all': the experiments "
                          f"compare means over every qrels topic (the paper's); 'returned' and 'geometric' only add "
                          f"trec_eval's default and gm_map means to scores.parquet")
    try:
        check_measure_options(config)
    except ValueError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    named = with_measure_options(config)
    # the registry's default: every shipped test (the schema names none)
    named["experiments"]["discriminative_power"].setdefault("methods", registered_tests(default_only=True))
    check_experiment_measures(named, source)
    check_topic_set_size(config, source)
    check_generated_sets(config, source)
    check_shards(named, source)
    check_error_rates(named, source)
    return named


def with_measure_options(config: Mapping[str, Any]) -> dict:
    """A copy whose measure names carry ``measure_options`` as parameters, canonical
    (trec_eval spellings read as irmeta's), so each table names the setting it was
    computed with: with ``gains: {1: 1, 2: 3}``, ``nDCG@10`` becomes
    ``nDCG(gains={1:1,2:3})@10``. Only settings that differ from a family's default
    appear, and a parameter a name sets itself wins. Comparisons and swap measures are
    renamed alike, so they still name scored measures."""
    options = {key: value for key, value in (config.get("measure_options") or {}).items() if value is not None}

    def name(text: str) -> str:
        return str(parse_measure(text, options))

    out = copy.deepcopy(dict(config))
    out["measures"] = [name(m) for m in out["measures"]]
    experiments = out.get("experiments") or {}
    for comparison in experiments.get("comparisons", []):
        comparison["measure"], comparison["baseline"] = name(comparison["measure"]), name(comparison["baseline"])
    if "swap" in experiments:
        experiments["swap"]["measures"] = [name(m) for m in experiments["swap"]["measures"]]
    if "reproducibility" in experiments:
        experiments["reproducibility"]["measures"] = [name(m) for m in experiments["reproducibility"]["measures"]]
    if (experiments.get("test_error_rates") or {}).get("measures"):
        experiments["test_error_rates"]["measures"] = [name(m) for m in experiments["test_error_rates"]["measures"]]
    return out




def load_config(path: str | Path) -> dict:
    """Read ``config.yaml``, check it against ``config.schema.yaml``, fill in defaults."""
    path = Path(path)
    return validate_config(read_yaml(path), path)


def check_measure_options(config: Mapping[str, Any]) -> None:
    """Each of ``measure_options`` checked by the option's own check (the measure
    registry's: ``gains`` a map of integer grades to finite gains >= 0, ``beta`` >= 0, RBP's
    ``p`` in (0, 1), ...), whichever measures read it: ``gains: {a: 1}`` is refused here,
    naming the key, not met later as a measure name that does not parse."""
    from irmeta.measures.registry import checked_option

    for key, value in (config.get("measure_options") or {}).items():
        if value is None:
            continue
        try:
            checked_option(key, value)
        except (TypeError, ValueError) as exc:
            detail = str(exc).removeprefix(f"{key}: ")
            raise ValueError(f"key 'measure_options.{key}': {detail}") from None
