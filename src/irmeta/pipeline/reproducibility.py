"""The reproducibility step of the pipeline (rule ``tabulate_reproducibility``): a
collection's ``reproductions`` file read and checked, the runs' scores and rankings
loaded, every baseline against every other original run tabulated
(:mod:`irmeta.metaeval.reproducibility_table`) into ``reproducibility.csv`` and its figure.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from irmeta.campaign.files import resolve_paths, run_name_from_path
from irmeta.campaign.rankings import rankings_of, scored_rankings_of
from irmeta.campaign.runs import read_runs
from irmeta.measures.alpha import Alpha
from irmeta.measures.names import parse_measure
from irmeta.metaeval.reproducibility_table import OrderSettings, Reproduction, reproducibility_table, table_columns
from irmeta.pipeline.config_schema import ConfigError
from irmeta.pipeline.scripts import log
from irmeta.pipeline.stored_scores import load_scores, write_csv

HEADER = ("original", "reproduced")


def read_reproductions(path: str | Path) -> list[tuple[str, str]]:
    """(original, reproduced) per line of a TSV whose first line is ``original<TAB>reproduced``;
    an original named twice, a line without two names, refused on one line with its number."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    if not lines or tuple(lines[0].split("\t")) != HEADER:
        raise ValueError(f"{path}:1: the header must be 'original<TAB>reproduced', not {lines[0] if lines else ''!r}")
    pairs: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2 or not all(f.strip() for f in fields):
            raise ValueError(f"{path}:{number}: expected two run names separated by a tab, not {line!r}")
        original, reproduced = (f.strip() for f in fields)
        if original in pairs:
            raise ValueError(f"{path}:{number}: original run {original!r} is named twice")
        pairs[original] = reproduced
    if len(pairs) < 2:
        raise ValueError(f"{path}: {len(pairs)} reproduced run(s); ER and Delta RI need a baseline and an "
                         "advanced run, so at least two")
    return list(pairs.items())


def check_named_runs(pairs: Sequence[tuple[str, str]], path: str | Path, originals: Sequence[str],
                     reproduced: Sequence[str]) -> None:
    """Every name of the file is a run of its collection, refused on one line otherwise."""
    for number, (o, r) in enumerate(pairs, start=2):
        for name, known, column in ((o, originals, "original"), (r, reproduced, "reproduced")):
            if name not in known:
                raise ValueError(f"{path}: {column} run {name!r} (pair {number - 1}) is not a run of its "
                                 f"collection ({_few(known)})")


def _few(names: Sequence[str]) -> str:
    return ", ".join(list(names)[:5]) + (", ..." if len(names) > 5 else "")


def baselines_of(pairs: Sequence[tuple[str, str]], baselines: Sequence[str], path: str | Path) -> list[str]:
    """The baselines: those configured (each an original of the file), or every original."""
    originals = [o for o, _ in pairs]
    for name in baselines:
        if name not in originals:
            raise ConfigError(f"key 'experiments.reproducibility.baselines': {name!r} is not an original run of "
                              f"{path} ({_few(originals)})")
    return list(baselines) or originals


def rankings_for(run_files: Sequence[str | Path], names: set[str], reading: Mapping[str, Any],
                 with_scores: bool = False):
    """The rankings of the named runs, reading only their files when runs are named by
    file; ``with_scores``: each topic's (documents, scores)
    (:func:`~irmeta.campaign.rankings.scored_rankings_of`), for the tie-aware columns."""
    files = resolve_paths(list(run_files))
    if reading.get("run_name", "file") == "file":
        files = [f for f in files if run_name_from_path(f) in names]
    runs = read_runs(files, depth=reading.get("depth"), duplicates=reading.get("duplicates", "error"),
                     run_name=reading.get("run_name", "file"),
                     score_precision=reading.get("score_precision", "double"))
    return scored_rankings_of(runs) if with_scores else rankings_of(runs)


def tabulate_reproducibility(*, scores: str | Path, reproductions: str | Path, run_files: Sequence[str | Path],
                             other_scores: str | Path | None, measures: Sequence[str], alphas: Sequence[Alpha],
                             baselines: Sequence[str], order: OrderSettings, reading: Mapping[str, Any],
                             table_out: str | Path, figure_stem: str | Path, label: str = "") -> pd.DataFrame:
    """Write ``reproducibility.csv`` (one row per baseline, advanced run, measure and
    alpha, columns :func:`~irmeta.metaeval.reproducibility_table.table_columns` of
    ``order.ties``) and its figure."""
    from irmeta.artefacts.figures.reproducibility import plot_reproducibility

    pairs = read_reproductions(reproductions)
    wanted = [str(parse_measure(m).without_alpha()) for m in measures] or None
    original = load_scores(scores, wanted, alphas)
    reproduced = original if other_scores is None else load_scores(other_scores, wanted, alphas)
    check_named_runs(pairs, reproductions, original.runs, reproduced.runs)
    chosen = baselines_of(pairs, baselines, reproductions)
    of = dict(pairs)
    tied = bool(order.ties)
    ranks = (None if other_scores is not None
             else rankings_for(run_files, {n for p in pairs for n in p}, reading, with_scores=tied))
    setting = "same_collection" if other_scores is None else "other_collection"

    def version(name: str) -> Reproduction:
        if ranks is None:
            return Reproduction(name, of[name])
        o, r = ranks.get(name, {}), ranks.get(of[name], {})
        if not tied:
            return Reproduction(name, of[name], o, r)
        return Reproduction(name, of[name], {t: d for t, (d, _) in o.items()}, {t: d for t, (d, _) in r.items()},
                            {t: s for t, (_, s) in o.items()}, {t: s for t, (_, s) in r.items()})

    frames = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for b in chosen:
            for a in of:
                if a != b:
                    frames.append(reproducibility_table(original, reproduced, version(b), version(a),
                                                        setting=setting, order=order))
    for warning in caught:
        log.warning("%s", warning.message)
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=table_columns(order.ties))
    log.info("reproducibility: %d baselines, %d reproduced runs, %d rows", len(chosen), len(of), len(table))
    write_csv(table, table_out)
    plot_reproducibility(table, figure_stem, title=f"{label}: reproducibility" if label else None)
    return table


def ingested_qrels(judged: str | Path):
    """The qrels as the collection's ingestion read them (``judged.npz``): whatever the
    file's format and grades, every step judges with the same rows."""
    import pyarrow as pa

    from irmeta.campaign.qrels import Qrels
    from irmeta.campaign.store import load_matrix

    matrix = load_matrix(judged)
    qid = pa.array(matrix.topics, pa.large_string()).take(pa.array(matrix.qrels_topic))
    return Qrels(qid, matrix.docids.cast(pa.large_string()), matrix.qrels_grade.astype("int64"), str(judged),
                 subtopics=matrix.subtopics, judgment_groups=matrix.judgment_groups)


def tabulate_degradation(*, qrels: str | Path, runs: str | Path | Sequence[str | Path] | None = None,
                         ranked: str | Path | None = None, measures: Sequence[str], alphas: Sequence[Alpha],
                         rarity_depth: int | None, measure_options: Mapping[str, Any] | None,
                         baselines: Sequence[str], degradations: Mapping[str, Any], order: OrderSettings, seed: int,
                         threshold: int, reading: Mapping[str, Any], table_out: str | Path, trust_out: str | Path,
                         figure_stem: str | Path, label: str = "", processes: int = 1,
                         memory_mb: float | None = None) -> pd.DataFrame:
    """Every run of the collection against degraded copies of itself (``qrels``: a qrels
    file, or the collection's ``judged.npz``, the qrels as ingestion read them), its rankings cut
    at ``degradations["depth"]`` (the originals too): ``ranked``, the collection's
    ``ranked.npz`` (kept by ingestion at that depth), or ``runs``, the run files read
    again; writes the degradation and trust tables and the figure; returns the trials'
    long table. ``processes``: the copies made in that many processes (the job's threads),
    fewer when ``memory_mb`` (the job's memory) holds fewer."""
    from irmeta.artefacts.figures.reproducibility import plot_reproducibility_degradation
    from irmeta.campaign.qrels import read_qrels
    from irmeta.metaeval.reproducibility_degradation import degradation_table, degradation_trials, trust_table

    depth = min(d for d in (reading.get("depth"), int(degradations["depth"])) if d is not None)
    judgments = ingested_qrels(qrels) if str(qrels).endswith(".npz") else read_qrels(qrels)
    cells = ranked_cells_at(depth, ranked=ranked, runs=runs, reading=reading)
    options = {k: v for k, v in (measure_options or {}).items() if v is not None}
    common = dict(threshold=threshold, alphas=alphas, rarity_depth=rarity_depth, options=options)
    baseline = baselines[0] if baselines else None
    if baseline is not None and baseline not in cells.runs:
        raise ConfigError(f"key 'experiments.reproducibility.baselines': {baseline!r} is not a run of the "
                          f"collection ({_few(cells.runs)})")
    log.info("degradations: %d runs at depth %d, kinds %s, levels %s, %d trials", len(cells.runs), depth,
             list(degradations["kinds"]), list(degradations["levels"]), degradations["trials"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an undefined value is an empty cell, counted in n
        trials = degradation_trials(judgments, None, None, measures, seed=seed, kinds=degradations["kinds"],
                                    levels=sorted(degradations["levels"]), trials=range(degradations["trials"]),
                                    baseline=baseline, order=order, cells=cells, processes=processes,
                                    memory_mb=memory_mb, **common)
    write_csv(degradation_table(trials), table_out)
    write_csv(trust_table(trials), trust_out)
    plot_reproducibility_degradation(degradation_table(trials), figure_stem,
                                     title=f"{label}: degraded reproductions" if label else None)
    return trials


def ranked_cells_at(depth: int, *, ranked: str | Path | None, runs: str | Path | Sequence[str | Path] | None,
                    reading: Mapping[str, Any]):
    """The runs' rankings down to ``depth`` as cells: from ``ranked.npz`` (refused when
    kept at another depth or read otherwise), or from the run files read again."""
    from irmeta.campaign.degrade_cells import load_ranked, ranked_cells
    from irmeta.campaign.ranked_store import ranked_settings
    from irmeta.campaign.rankings import scored_rankings_of

    if ranked is not None:
        kept = ranked_settings(ranked)
        wanted = {"depth": depth, "duplicates": reading.get("duplicates", "error"),
                  "run_name": reading.get("run_name", "file"),
                  "score_precision": reading.get("score_precision", "double")}
        if kept != wanted:
            raise ValueError(f"{ranked}: the rankings were kept with {json.dumps(kept)}, the degradations need "
                             f"{json.dumps(wanted)}; ingest the collection again")
        return load_ranked(ranked, lazy=True)
    if runs is None:
        raise ValueError("the degradations need the runs' rankings: ranked.npz or the run files")
    files = resolve_paths([runs] if isinstance(runs, (str, Path)) else list(runs))
    return ranked_cells(scored_rankings_of(read_runs(files, depth=depth, duplicates=reading.get("duplicates", "error"),
                                                     run_name=reading.get("run_name", "file"),
                                                     score_precision=reading.get("score_precision", "double"))))
