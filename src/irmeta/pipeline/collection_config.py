"""The collections of a workflow config: each one YAML file (``config/collections/<name>.yaml``),
read against ``collection.schema.yaml``, every path resolved, what is missing said on
one line naming the file and the key.

Paths: a collection's ``qrels``, ``runs`` and ``run_groups`` may contain
``{data_root}``, which stands for the configured data root. The data root itself, and
any path that is still relative after the substitution, is resolved against
``base_dir``: the workflow's working directory (the repository root by default), or the
current directory when no ``base_dir`` is given.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from irmeta.campaign.files import resolve_paths
from irmeta.pipeline.collection_paths import check_collection_paths, missing_runs
from irmeta.pipeline.config_checks import config_measures, imported_only
from irmeta.pipeline.config_schema import COLLECTION_SCHEMA, ConfigError, read_yaml, validate
from irmeta.pipeline.judgment_config import JudgmentSpec, judgment_spec

if TYPE_CHECKING:  # names only: the run reader (numpy, pyarrow) is not needed to read a config
    from irmeta.campaign.runs import DuplicatePolicy, RunNameSource, ScorePrecision
    from irmeta.measures.names import Measure

DATA_ROOT = "{data_root}"


_MADE_BY_SIMULATION = ("qrels", "runs", "run_groups")


_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


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
    score_precision: ScorePrecision = "double"
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
    # where pool_depth comes from: "stated" (the key), "simulated" (the simulation's own
    # pools) or "default" (neither): each checked against how deep the runs are judged
    pool_depth_origin: str = "default"
    scores: Path | None = None  # per-topic scores computed elsewhere
    scores_format: str = "auto"
    scores_missing: str = "error"
    alternative_qrels: Mapping[str, Path] = field(default_factory=dict)  # other judgment sets, by name
    reproductions: Path | None = None  # original -> reproduced runs (reproducibility.csv)
    reproductions_collection: str | None = None  # the reproduced runs' collection, None: this one
    judgment_specs: Mapping[str, JudgmentSpec] = field(default_factory=dict)  # the same, with unjudged and fuse
    run_families: Path | None = None  # run -> family of system (family_bias.csv)

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
        options = {"depth": self.depth, "duplicates": self.duplicates, "run_name": self.run_name,
                   "score_precision": self.score_precision}
        if self.qrels_format in ("subtopics", "qrels_jg"):  # ndeval's subtopic qrels (the diversity measures),
            options["qrels_format"] = self.qrels_format  # trec_eval's judgment groups (the *_avgjg measures)
        return options

    def run_files(self) -> list[Path]:
        """The run files (directories and globs expanded), in reading order."""
        return resolve_paths(self.runs)


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
    control = next((c for c in text if not c.isprintable() and c != " "), None)
    if control is not None:  # a newline in a path would split every message and log line naming it
        raise ConfigError(f"{source}: key '{key}': {text!r} holds the control character {control!r}; "
                          f"a collection's paths hold none")
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
    raw = read_yaml(path)
    if isinstance(raw, dict) and "simulate" in raw:
        for key in _MADE_BY_SIMULATION:
            if key in raw:
                raise ConfigError(f"{path}: key '{key}' is not allowed with 'simulate' "
                                  f"(the workflow makes the campaign's qrels, runs and run_groups)")
    data = validate(raw, COLLECTION_SCHEMA, source=path)
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
        score_precision=data["score_precision"],
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
        **_pool_depth(raw, data),
        **_given_scores(data, root, base, path),
        **_alternative_qrels(data, root, base, path),
        **_reproductions(data, root, base, path),
        run_families=(Path(_resolve(data["run_families"], "run_families", root, base, path))
                      if "run_families" in data else None),
    )


def _pool_depth(raw: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """``pool_depth`` and where it comes from: the key as stated; else a simulated
    campaign's own pools (:func:`irmeta.simulate.simulated_pool_depth`); else the schema's
    default, which the workflow checks against the runs' judged depth."""
    if "pool_depth" in raw:
        return {"pool_depth": data["pool_depth"], "pool_depth_origin": "stated"}
    if "simulate" in data:
        from irmeta.simulate import simulated_pool_depth

        return {"pool_depth": simulated_pool_depth(data["simulate"].get("depth")), "pool_depth_origin": "simulated"}
    return {"pool_depth": data["pool_depth"], "pool_depth_origin": "default"}


def _alternative_qrels(data: Mapping[str, Any], root: Path, base: Path, source: Path) -> dict[str, Any]:
    """The other judgment sets, by name (``alternative_qrels``: their paths;
    ``judgment_specs``: with their rules); a name the results already use is refused."""
    given = data.get("alternative_qrels") or {}
    try:
        check_alternative_names(given)
        specs = {name: judgment_spec(name, spec, lambda text, key: _resolve(text, key, root, base, source))
                 for name, spec in given.items()}
    except ValueError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    return {"alternative_qrels": {name: spec.path for name, spec in specs.items()}, "judgment_specs": specs}


def _reproductions(data: Mapping[str, Any], root: Path, base: Path, source: Path) -> dict[str, Any]:
    """``reproductions``: a path (this collection's runs) or {path, collection}."""
    given = data.get("reproductions")
    if given is None:
        return {}
    if isinstance(given, str):
        return {"reproductions": Path(_resolve(given, "reproductions", root, base, source))}
    return {"reproductions": Path(_resolve(given["path"], "reproductions.path", root, base, source)),
            "reproductions_collection": given["collection"]}


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
    check_paths: bool = True,
) -> dict[str, Collection]:
    """Every collection the (validated) config lists, by name, paths checked unless told not to.

    With ``config["missing_data"] == "skip"``, a collection whose qrels or runs are absent
    is left out (see :func:`available_collections` for the reasons)."""
    return available_collections(config, config_dir, base_dir=base_dir,
                                 check_paths=check_paths)[0]


def available_collections(
    config: Mapping[str, Any],
    config_dir: str | Path = "config/collections",
    *,
    base_dir: str | Path | None = None,
    check_paths: bool = True,
    source: str | Path | None = None,
) -> tuple[dict[str, Collection], list[str]]:
    """The collections to process and one warning per skipped collection or missing run;
    ``source``, the config's file, is named (with the key) when a collection's file is missing."""
    out: dict[str, Collection] = {}
    warnings: list[str] = []
    skip = config.get("missing_data", "error") == "skip"
    measures = config_measures(config)  # read once for every collection's checks
    for i, name in enumerate(config["collections"]):
        try:
            collection = load_collection(name, config["data_root"], config_dir, base_dir=base_dir)
        except FileNotFoundError as exc:  # the collection's own file: the config names it
            if source is None:
                raise
            raise FileNotFoundError(f"{source}: key 'collections.{i}': {exc}") from None
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
        check_collection_measures(collection, config, measures)
        check_subtopic_qrels(collection, config, measures)
        check_judgment_group_qrels(collection, config, measures)
        if check_paths:
            from irmeta.pipeline.run_families_config import check_run_families

            check_run_families(collection)
        out[collection.name] = collection
    check_reproductions(out, config["collections"])
    return out, warnings


def check_reproductions(collections: Mapping[str, Collection], named: Iterable[str]) -> None:
    """A reproductions file exists, and the collection it names is one of the config's."""
    for c in collections.values():
        source = c.source or c.name
        if c.reproductions is not None and not c.reproductions.is_file():
            raise ConfigError(f"{source}: key 'reproductions': {c.reproductions}: no such file")
        if c.reproductions_collection is not None and c.reproductions_collection not in named:
            raise ConfigError(f"{source}: key 'reproductions.collection': {c.reproductions_collection!r} is not "
                              f"among the config's collections ({', '.join(named)})")


def check_subtopic_qrels(collection: Collection, config: Mapping[str, Any],
                         measures: Sequence[Measure] | None = None) -> None:
    """The diversity measures need subtopic qrels (``qrels_format: subtopics``) of a
    collection with runs; judgment sets (TREC qrels, compared with the collection's) do not
    go with them. ``measures``: config's, as read (None: read here)."""
    from irmeta.measures.diversity import needs_subtopics

    source = collection.source or collection.name
    read = config_measures(config) if measures is None else measures
    diversity = [str(m) for m in read if not imported_only(m) and needs_subtopics(m.family)]
    subtopics = collection.qrels_format == "subtopics"
    if diversity and collection.has_runs and not subtopics:
        raise ConfigError(f"{source}: key 'qrels_format': the diversity measures ({', '.join(diversity)}) need "
                          f"subtopic qrels (topic subtopic docid grade), and the collection's are ordinary: set "
                          f"qrels_format: subtopics, or leave them out of this configuration")
    if subtopics and collection.alternative_qrels:
        raise ConfigError(f"{source}: key 'alternative_qrels': judgment sets are compared with the qrels as TREC "
                          f"qrels, which subtopic qrels (qrels_format: subtopics) are not")


def check_judgment_group_qrels(collection: Collection, config: Mapping[str, Any],
                               measures: Sequence[Measure] | None = None) -> None:
    """The *_avgjg measures need judgment-group qrels (``qrels_format: qrels_jg``) and every
    other measure one judgment per document, as trec_eval -R qrels_jg has it; judgment sets
    (TREC qrels, compared with the collection's) do not go with judgment groups.
    ``measures``: config's, as read (None: read here)."""
    from irmeta.measures.group_averaged import GROUP_FAMILIES

    if not collection.has_runs:
        return
    source = collection.source or collection.name
    read = config_measures(config) if measures is None else measures
    computed = [m for m in read if not imported_only(m)]
    grouped = collection.qrels_format == "qrels_jg"
    wrong = [str(m) for m in computed if (m.family in GROUP_FAMILIES) != grouped]
    if wrong and grouped:
        raise ConfigError(f"{source}: key 'qrels_format': the collection's qrels hold judgment groups (qrels_jg), "
                          f"which only {', '.join(GROUP_FAMILIES)} read, not {', '.join(wrong)}: score those "
                          f"over a collection of ordinary qrels")
    if wrong:
        raise ConfigError(f"{source}: key 'qrels_format': {', '.join(wrong)} average over judgment groups, and the "
                          f"collection's qrels are ordinary: set qrels_format: qrels_jg, or leave them out of this "
                          f"configuration")
    if grouped and collection.alternative_qrels:
        raise ConfigError(f"{source}: key 'alternative_qrels': judgment sets are compared with the qrels as TREC "
                          f"qrels, which judgment-group qrels (qrels_format: qrels_jg) are not")


def check_collection_measures(collection: Collection, config: Mapping[str, Any],
                              measures: Sequence[Measure] | None = None) -> None:
    """Measures irmeta cannot compute (``imported_measures``) need the collection's scores
    file; a scores file beside runs gives only those. ``measures``: config's, as read (None:
    read here)."""
    source = collection.source or collection.name
    read = config_measures(config) if measures is None else measures
    imported = [str(m) for m in read if imported_only(m)]
    if imported and collection.scores is None:
        raise ConfigError(f"{source}: measure {imported[0]} comes only from a scores file, and the collection "
                          f"gives none (key 'scores')")
    if collection.scores is not None and collection.has_runs and not imported:
        raise ConfigError(f"{source}: key 'scores': beside runs, a scores file gives the measures config lists "
                          f"under imported_measures, and it lists none")


def check_alternative_names(names: Iterable[str]) -> None:
    """A collection's ``alternative_qrels`` leave the names the results use free: the
    reference's (``qrels``) and the generated sets'
    (:func:`irmeta.metaeval.generated_set_names.check_alternative_name`)."""
    from irmeta.metaeval.generated_set_names import check_alternative_name

    for name in names:
        try:
            check_alternative_name(name)
        except ValueError as exc:
            raise ValueError(f"key 'alternative_qrels.{name}': {exc}") from None
