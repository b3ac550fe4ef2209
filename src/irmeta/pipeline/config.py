"""The workflow's configuration: load and validate ``config.yaml`` and collection YAMLs.

The JSON schemas are the workflow's own (``workflow/schemas/*.schema.yaml``), so that
Snakemake, the CLI and the tests accept and reject exactly the same files, and fill in
the same defaults. Every fault is reported on one line that names the file and the key
or path at fault.

Paths: a collection's ``qrels``, ``runs`` and ``run_groups`` may contain
``{data_root}``, which stands for the configured data root. The data root itself, and
any path that is still relative after the substitution, is resolved against
``base_dir``: the workflow's working directory (the repository root by default), or the
current directory when no ``base_dir`` is given.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from irmeta.campaign.files import resolve_paths
from irmeta.campaign.runs import DuplicatePolicy, RunNameSource
from irmeta.measures.names import parse_measure
from irmeta.metaeval.stats.own_tests import load_plugins
from irmeta.metaeval.stats.registry import TESTS, correction_names, registered_tests, unknown_test
from irmeta.pipeline.collection_paths import check_collection_paths, missing_runs
from irmeta.pipeline.config_values import check_alternative_names, check_measure_options

#: Where the schemas live: ``workflow/schemas`` of the source tree (``IRMETA_SCHEMA_DIR``
#: overrides it, for an installation without the workflow beside it).
SCHEMA_DIR = Path(os.environ.get("IRMETA_SCHEMA_DIR", Path(__file__).resolve().parents[3] / "workflow" / "schemas"))


CONFIG_SCHEMA = "config.schema.yaml"


COLLECTION_SCHEMA = "collection.schema.yaml"


DATA_ROOT = "{data_root}"


_MADE_BY_SIMULATION = ("qrels", "runs", "run_groups")


_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


class ConfigError(ValueError):
    """A configuration file breaks its schema; the message is one line naming the file and key."""


@dataclass(frozen=True)
class Collection:
    """A collection as the workflow reads it, every path resolved.

    For a simulated collection (``simulate`` set), ``qrels`` and ``run_groups`` are None
    and ``runs`` is empty: the workflow makes the campaign itself.
    """

    name: str
    qrels: Path | None
    runs: tuple[str, ...]  # files, directories or globs, absolute
    depth: int | None = None
    threshold: int = 1
    duplicates: DuplicatePolicy = "error"
    run_name: RunNameSource = "file"
    run_groups: Path | None = None
    simulate: Mapping[str, Any] | None = None
    description: str = ""
    source: Path | None = None  # the YAML file it was read from
    label: str = ""  # the name in tables and figures (the paper's TREC-8, ...)
    qrels_url: str | None = None
    qrels_sha256: str | None = None
    qrels_format: str = "plain"
    runs_archive: str | None = None
    expected_runs: Path | None = None
    synthetic_topic: str | None = None
    listing_topics: tuple[str, ...] = ()
    pool_depth: int = 100  # each run's top pool_depth was pooled for judging
    scores: Path | None = None  # per-topic scores computed elsewhere
    scores_format: str = "auto"
    scores_missing: str = "error"
    alternative_qrels: Mapping[str, Path] = field(default_factory=dict)  # other judgment sets, by name

    @property
    def simulated(self) -> bool:
        return self.simulate is not None

    @property
    def has_runs(self) -> bool:
        """Rankings to read: runs, or a simulated campaign; without them only scores are given."""
        return self.simulated or bool(self.runs)

    def scores_options(self) -> dict[str, Any]:
        """How :func:`irmeta.pipeline.steps.score_collection` reads the scores file."""
        return {"format": self.scores_format, "missing": self.scores_missing}

    def ingest_options(self) -> dict[str, Any]:
        """Keyword arguments of :func:`irmeta.pipeline.steps.ingest_collection` and
        :func:`irmeta.campaign.runs.read_runs`."""
        return {"depth": self.depth, "duplicates": self.duplicates, "run_name": self.run_name}

    def run_files(self) -> list[Path]:
        """The run files (directories and globs expanded), in reading order."""
        return resolve_paths(self.runs)


@cache
def _load_schema(path: Path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def load_schema(name: str, schema_dir: str | Path | None = None) -> dict:
    """A schema of ``workflow/schemas`` by file name (a fresh copy)."""
    path = Path(schema_dir or SCHEMA_DIR) / name
    if not path.is_file():
        raise FileNotFoundError(f"{path}: schema not found (set IRMETA_SCHEMA_DIR to the workflow/schemas folder)")
    return copy.deepcopy(_load_schema(path.resolve()))


def _validator_with_defaults(schema: dict):
    """A Draft 2020-12 validator that also fills in defaults, as ``snakemake.utils.validate`` does."""
    from jsonschema import Draft202012Validator, validators

    properties = Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator, props, instance, sub_schema):
        if isinstance(instance, dict):
            for key, sub in props.items():
                if isinstance(sub, dict) and "default" in sub:
                    instance.setdefault(key, copy.deepcopy(sub["default"]))
        yield from properties(validator, props, instance, sub_schema)

    cls = validators.extend(Draft202012Validator, {"properties": set_defaults})
    return cls(schema)


def _describe(error) -> str:
    """One line for a jsonschema error: which key, what is wrong."""
    path = ".".join(str(p) for p in error.absolute_path)
    where = f"key '{path}'" if path else "top level"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted((error.schema.get("properties") or {}).keys())
        unknown = sorted(k for k in error.instance if k not in allowed)
        inside = f" in '{path}'" if path else ""
        return (f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(repr(k) for k in unknown)}{inside} "
                f"(allowed: {', '.join(allowed)})")
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        inside = f" in '{path}'" if path else ""
        return f"missing key '{missing}'{inside}"
    if error.validator is None and error.schema is False:  # jsonschema gives no path here
        return f"the value {error.instance!r} is not allowed where it is"
    if error.validator == "oneOf" and path == "runs":
        return f"key 'runs': {error.instance!r} is neither a path nor a list of paths"
    item_of = str(error.absolute_path[0]) if len(error.absolute_path) == 2 else ""
    hint = _VALUE_HINTS.get(item_of)
    if hint and error.validator in ("oneOf", "pattern", "minimum", "maximum", "type"):
        return f"{where}: {error.instance!r} is not {hint}"
    return f"{where}: {' '.join(error.message.split())}"


# What an item of a list key must be, for errors that jsonschema words as regexes.
_VALUE_HINTS = {"alphas": "an alpha: a number >= 0, or 1/R"}


def validate(data: Any, schema_name: str, *, source: str | Path, schema_dir: str | Path | None = None) -> dict:
    """``data`` checked against a schema, defaults filled in (a copy); ConfigError if invalid."""
    from jsonschema.exceptions import best_match

    if data is None:
        data = {}
    if isinstance(data, Mapping):
        data = dict(data)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping of keys to values, found {type(data).__name__}")
    data = copy.deepcopy(data)
    validator = _validator_with_defaults(load_schema(schema_name, schema_dir))
    error = best_match(validator.iter_errors(data))
    if error is not None:
        raise ConfigError(f"{source}: {_describe(error)}")
    return data


def _read_yaml(path: Path) -> Any:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        with open(path, encoding="utf-8") as fh:
            return yaml.safe_load(fh)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({' '.join(str(exc).split())})") from None


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


def imported_only(measure: str) -> bool:
    """Whether irmeta has no implementation of ``measure``: its scores come from a scores file."""
    from irmeta.measures.plugins import ImportedMeasure

    return isinstance(parse_measure(measure).definition, ImportedMeasure)


def check_measures(measures: Iterable[str], source: str | Path = "config") -> None:
    """Every measure name is one :func:`irmeta.measures.names.parse_measure` knows."""
    for measure in measures:
        try:
            parse_measure(measure)
        except ValueError as exc:
            raise ConfigError(f"{source}: key 'measures': {exc}") from None


def check_alphas(alphas: Iterable[Any], measures: Iterable[str], source: str | Path = "config") -> None:
    """Every alpha is one :func:`irmeta.measures.alpha.parse_alpha` accepts (>= 0, or 1/R), and in
    [0, 1] when a [0, 1] form of eq. 4 is among the measures."""
    from irmeta.measures.alpha import check_unit_alphas, parse_alpha

    alphas = list(alphas)
    try:
        for alpha in alphas:
            parse_alpha(alpha)
        for measure in measures:
            # nDCG_rareness_norm divides by its own ideal: in [0, 1] for any alpha
            if parse_measure(measure).family in ("P_rareness_norm", "AP_rareness_norm"):
                check_unit_alphas(alphas, measure)
    except ValueError as exc:
        raise ConfigError(f"{source}: key 'alphas': {exc}") from None


def check_experiment_measures(config: Mapping[str, Any], source: str | Path = "config") -> None:
    """Every measure the experiments compare or test is among the scored ``measures``:
    they read their scores from scores.npz, which holds those measures only."""
    scored = list(config["measures"])
    experiments = config["experiments"]
    named = [(f"experiments.comparisons.{i}.{key}", comparison[key])
             for i, comparison in enumerate(experiments["comparisons"]) for key in ("measure", "baseline")]
    named += [(f"experiments.swap.measures.{i}", name) for i, name in enumerate(experiments["swap"]["measures"])]
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


def load_config_plugins(config: Mapping[str, Any]) -> None:
    """Import the config's ``measure_plugins``, then its ``test_plugins`` (from the working
    directory, as every job does)."""
    for key in ("measure_plugins", "test_plugins"):
        load_plugins(config.get(key) or [], Path.cwd(), key)


def check_tests(config: Mapping[str, Any], source: str | Path = "config") -> None:
    """``experiments.discriminative_power``'s methods and corrections against the test
    registry (its plugins' tests are in by now); the schema names none of them."""
    settings = config["experiments"]["discriminative_power"]
    for i, method in enumerate(settings.get("methods", [])):
        if method not in TESTS:  # the schema lets any name through: a plugin's test is known only now
            raise ConfigError(f"{source}: key 'experiments.discriminative_power.methods.{i}': {unknown_test(method)}")
    known = correction_names(none=True)
    for i, correction in enumerate(settings["corrections"]):
        if correction not in known:
            raise ConfigError(f"{source}: key 'experiments.discriminative_power.corrections.{i}': unknown correction "
                              f"{correction!r}; expected one of {', '.join(known)}")


def validate_config(config: Mapping[str, Any], source: str | Path = "config",
                    schema_dir: str | Path | None = None) -> dict:
    """The workflow configuration checked, defaults filled in (a copy): the schema, as
    ``snakemake.utils.validate`` reads it, then :func:`check_config`."""
    return check_config(validate(config, CONFIG_SCHEMA, source=source, schema_dir=schema_dir), source)


def check_config(config: Mapping[str, Any], source: str | Path = "config") -> dict:
    """What a schema cannot say (measure names, alphas, experiments on unscored measures),
    on a configuration the schema has passed; returns it with :func:`with_measure_options`."""
    load_config_plugins(config)
    register_imported_measures(config.get("imported_measures") or {}, source)
    check_tests(config, source)
    check_measures(config["measures"], source)
    check_alphas(config["alphas"], config["measures"], source)
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
    return out


def load_config(path: str | Path, *, schema_dir: str | Path | None = None) -> dict:
    """Read ``config.yaml``, check it against ``config.schema.yaml``, fill in defaults."""
    path = Path(path)
    return validate_config(_read_yaml(path), path, schema_dir)


def resolve_data_root(data_root: str | Path, base_dir: str | Path | None = None) -> Path:
    """The data root as an absolute path; a relative one is taken from ``base_dir`` (default: cwd)."""
    root = Path(os.path.expanduser(str(data_root)))
    if not root.is_absolute():
        root = Path(base_dir or Path.cwd()) / root
    return Path(os.path.normpath(root.absolute()))


def collection_file(name_or_path: str | Path, config_dir: str | Path = "config/collections") -> Path:
    """``config_dir/<name>.yaml`` for a bare name; a path (``.yaml``/``.yml`` or with a slash) as is."""
    text = str(name_or_path)
    if text.endswith((".yaml", ".yml")) or "/" in text or os.sep in text:
        return Path(text)
    return Path(config_dir) / f"{text}.yaml"


def _resolve(text: str, key: str, data_root: Path, base_dir: Path, source: Path) -> str:
    unknown = [m for m in _PLACEHOLDER.findall(text) if m != DATA_ROOT]
    if unknown:
        raise ConfigError(f"{source}: key '{key}': unknown placeholder {unknown[0]} in {text!r} (only {DATA_ROOT})")
    expanded = os.path.expanduser(text.replace(DATA_ROOT, str(data_root)))
    if not os.path.isabs(expanded):
        expanded = str(base_dir / expanded)
    return os.path.normpath(expanded)


def load_collection(
    name_or_path: str | Path,
    data_root: str | Path,
    config_dir: str | Path = "config/collections",
    *,
    base_dir: str | Path | None = None,
    schema_dir: str | Path | None = None,
) -> Collection:
    """Read and check a collection YAML; resolve ``{data_root}`` and relative paths.

    ``name_or_path`` is a name (``config_dir/<name>.yaml``) or a YAML file. The file's
    ``name`` must equal its file name without ``.yaml`` (it names ``results/<name>/``).
    Paths are resolved, not checked: see :func:`check_collection_paths`.
    """
    base = Path(base_dir or Path.cwd()).absolute()
    path = collection_file(name_or_path, config_dir)
    if not path.is_absolute():
        path = base / path
    if not path.is_file():
        raise FileNotFoundError(f"collection '{name_or_path}': {path}: no such file")
    raw = _read_yaml(path)
    if isinstance(raw, dict) and "simulate" in raw:
        for key in _MADE_BY_SIMULATION:
            if key in raw:
                raise ConfigError(f"{path}: key '{key}' is not allowed with 'simulate' "
                                  f"(the workflow makes the campaign's qrels, runs and run_groups)")
    data = validate(raw, COLLECTION_SCHEMA, source=path, schema_dir=schema_dir)
    stem = path.name.rsplit(".", 1)[0]
    if data["name"] != stem:
        raise ConfigError(f"{path}: key 'name': {data['name']!r} differs from the file name {stem!r}")
    root = resolve_data_root(data_root, base)
    runs = data.get("runs", [])
    runs = [runs] if isinstance(runs, str) else list(runs)
    return Collection(
        name=data["name"],
        qrels=Path(_resolve(data["qrels"], "qrels", root, base, path)) if "qrels" in data else None,
        runs=tuple(_resolve(spec, "runs", root, base, path) for spec in runs),
        depth=data["depth"],
        threshold=data["relevance_threshold"],
        duplicates=data["duplicates"],
        run_name=data["run_name"],
        run_groups=(Path(_resolve(data["run_groups"], "run_groups", root, base, path))
                    if "run_groups" in data else None),
        simulate=dict(data["simulate"]) if "simulate" in data else None,
        description=data.get("description", ""),
        source=path,
        label=data.get("label") or data["name"],
        qrels_url=data.get("qrels_url"),
        qrels_sha256=data.get("qrels_sha256"),
        qrels_format=data["qrels_format"],
        runs_archive=(data["runs_archive"].replace(DATA_ROOT, str(root)).strip() if "runs_archive" in data else None),
        expected_runs=(Path(_resolve(data["expected_runs"], "expected_runs", root, base, path))
                       if "expected_runs" in data else None),
        synthetic_topic=data["synthetic_topic"],
        listing_topics=tuple(data["listing_topics"]),
        pool_depth=data["pool_depth"],
        **_given_scores(data, root, base, path),
        alternative_qrels=_alternative_qrels(data, root, base, path),
    )


def _alternative_qrels(data: Mapping[str, Any], root: Path, base: Path, source: Path) -> dict[str, Path]:
    """The other judgment sets, by name; a name the results already use is refused."""
    given = data.get("alternative_qrels") or {}
    try:
        check_alternative_names(given)
    except ValueError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    return {name: Path(_resolve(spec, f"alternative_qrels.{name}", root, base, source)) for name, spec in given.items()}


def _given_scores(data: Mapping[str, Any], root: Path, base: Path, source: Path) -> dict[str, Any]:
    if "scores" not in data:
        return {}
    given = data["scores"]
    return {"scores": Path(_resolve(given["path"], "scores.path", root, base, source)),
            "scores_format": given["format"], "scores_missing": given["missing"]}


def load_collections(
    config: Mapping[str, Any],
    config_dir: str | Path = "config/collections",
    *,
    base_dir: str | Path | None = None,
    schema_dir: str | Path | None = None,
    check_paths: bool = True,
) -> dict[str, Collection]:
    """Every collection the (validated) config lists, by name, paths checked unless told not to.

    With ``config["missing_data"] == "skip"``, a collection whose qrels or runs are absent
    is left out (see :func:`available_collections` for the reasons)."""
    return available_collections(config, config_dir, base_dir=base_dir, schema_dir=schema_dir,
                                 check_paths=check_paths)[0]


def available_collections(
    config: Mapping[str, Any],
    config_dir: str | Path = "config/collections",
    *,
    base_dir: str | Path | None = None,
    schema_dir: str | Path | None = None,
    check_paths: bool = True,
) -> tuple[dict[str, Collection], list[str]]:
    """The collections to process and one warning per skipped collection or missing run."""
    out: dict[str, Collection] = {}
    warnings: list[str] = []
    skip = config.get("missing_data", "error") == "skip"
    for name in config["collections"]:
        collection = load_collection(name, config["data_root"], config_dir, base_dir=base_dir, schema_dir=schema_dir)
        if check_paths:
            try:
                files = check_collection_paths(collection)
            except FileNotFoundError as exc:
                if not skip:
                    raise
                warnings.append(f"skipping collection {name}: {exc}")
                continue
            absent = missing_runs(collection, files)
            if absent:
                warnings.append(f"collection {name}: {len(absent)} official run(s) missing: {', '.join(absent)}")
        check_collection_measures(collection, config)
        out[collection.name] = collection
    return out, warnings


def check_collection_measures(collection: Collection, config: Mapping[str, Any]) -> None:
    """Measures irmeta cannot compute (``imported_measures``) need the collection's scores
    file; a scores file beside runs gives only those."""
    source = collection.source or collection.name
    imported = [m for m in config["measures"] if imported_only(m)]
    if imported and collection.scores is None:
        raise ConfigError(f"{source}: measure {imported[0]} comes only from a scores file, and the collection "
                          f"gives none (key 'scores')")
    if collection.scores is not None and collection.has_runs and not imported:
        raise ConfigError(f"{source}: key 'scores': beside runs, a scores file gives the measures config lists "
                          f"under imported_measures, and it lists none")
