"""Benchmark: a scores file read and laid out as the pipeline's scores (bring your own scores).

A synthetic campaign of ``--runs`` runs x ``--topics`` topics scored with config's measures
and alphas (P@100, AP@100 and the rareness measures at five alphas: 22 blocks, 22 M rows at
1,000 x 1,000), written as ``irmeta score --per-topic`` writes it (irmeta's TSV), as
``irmeta score --format trec_eval`` writes it (trec_eval -q's output, the runs' blocks
concatenated in one file) and as a folder of one trec_eval file per run. Each goes through
the job the pipeline runs for a scores-only collection
(:func:`irmeta.pipeline.steps.score_collection`: read, check, lay out, write
``scores.npz`` and ``scores.parquet``) in a child process; prints its wall time and peak
memory (the child's maximum resident set size). Targets at 1,000 x 1,000 x 22: under 60 s
and under 2 GB per format on a 2-core machine.

    python benchmarks/bench_score_files.py [--runs 1000] [--topics 1000] [--formats irmeta,trec_eval,folder]
                                           [--measure P@100 --measure AP@100 ...] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from irmeta.cli import scores_trec_eval, scores_tsv
from irmeta.measures.alpha import alpha_label
from irmeta.measures.averaging import Scores, exact_mean
from irmeta.measures.names import parse_measure
from irmeta.measures.ranges import measure_range

TARGET_SECONDS, TARGET_MB = 60, 2048
MEASURES = ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100", "P_rareness_norm@100", "AP_rareness_norm@100"]
ALPHAS = [0.0, 0.25, 0.5, 0.75, 1.0]
FORMATS = {"irmeta": "irmeta", "trec_eval": "trec_eval", "folder": "trec_eval"}

CHILD = r"""
import json, sys
from irmeta.pipeline.steps import score_collection

args = json.loads(sys.argv[1])
score_collection(matrix=None, out=args["out"], arrays_out=args["arrays_out"], measures=args["measures"],
                 alphas=args["alphas"], imported=args["imported"], imported_options={"format": args["format"]})
"""


def synthetic_scores(n_runs: int, n_topics: int, measures: list[str], alphas: list[float], seed: int = 0) -> Scores:
    """Random per-topic scores laid out as the pipeline lays out config's measures and alphas,
    each a score its measure can give (P@100's on j/100: the reader refuses any other)."""
    names, labels = [], []
    for item in measures:
        m = parse_measure(item)
        for a in (alphas if m.uses_alpha else [None]):
            names.append(str(m))
            labels.append(None if a is None else alpha_label(a))
    per_topic = np.random.default_rng(seed).random((len(names), n_runs, n_topics))
    for i, (name, alpha) in enumerate(zip(names, labels)):
        possible = measure_range(name, alpha)
        if possible is not None:
            per_topic[i] = possible.nearest(per_topic[i])
    return Scores(runs=[f"run{i:04d}" for i in range(n_runs)], topics=[str(401 + t) for t in range(n_topics)],
                  measures=names, alphas=labels, per_topic=per_topic, means={"all_topics": exact_mean(per_topic)})


def one_block(scores: Scores, i: int) -> Scores:
    return Scores(scores.runs, scores.topics, scores.measures[i:i + 1], scores.alphas[i:i + 1],
                  scores.per_topic[i:i + 1], {k: v[i:i + 1] for k, v in scores.means.items()})


def one_run(scores: Scores, r: int) -> Scores:
    return Scores(scores.runs[r:r + 1], scores.topics, scores.measures, scores.alphas, scores.per_topic[:, r:r + 1],
                  {k: v[:, r:r + 1] for k, v in scores.means.items()})


def write_files(scores: Scores, folder: Path, formats: list[str]) -> dict[str, Path]:
    """The scores in each format, written by irmeta's own writers a block (or a run) at a time."""
    paths: dict[str, Path] = {}
    if "irmeta" in formats:
        paths["irmeta"] = folder / "per_topic.tsv"
        with open(paths["irmeta"], "wb") as out:
            for i in range(len(scores.measures)):
                text = scores_tsv(one_block(scores, i), per_topic=True, digits=None)
                out.write(text if i == 0 else text[text.index(b"\n") + 1:])
    if "trec_eval" in formats or "folder" in formats:
        paths["trec_eval"] = folder / "per_topic.trec_eval"
        paths["folder"] = folder / "trec_eval_runs"
        paths["folder"].mkdir(exist_ok=True)
        with open(paths["trec_eval"], "wb") as out:
            for r, run in enumerate(scores.runs):
                text = scores_trec_eval(one_run(scores, r), per_topic=True)
                out.write(text)
                (paths["folder"] / f"{run}.txt").write_bytes(text)
    return {name: paths[name] for name in formats}


def run_job(path: Path, fmt: str, measures: list[str], alphas: list[float], out: Path) -> tuple[float, float]:
    """(wall seconds, peak MB) of score_collection on the scores file, in a child process."""
    args = {"out": str(out / "scores.parquet"), "arrays_out": str(out / "scores.npz"), "measures": measures,
            "alphas": alphas, "imported": str(path), "format": FORMATS[fmt]}
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(args)])
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"score_collection on {path} failed with status {status}")
    return wall, usage.ru_maxrss / 1024  # Linux reports KB


def size_of(path: Path) -> int:
    return sum(p.stat().st_size for p in path.iterdir()) if path.is_dir() else path.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--measure", action="append", help="repeatable; default: config's six measures")
    parser.add_argument("--formats", default="irmeta,trec_eval,folder")
    parser.add_argument("--dir", help="write the files here and keep them (default: a temporary folder)")
    args = parser.parse_args()
    measures = args.measure or MEASURES
    formats = [f for f in args.formats.split(",") if f]
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        parser.error(f"unknown format {unknown[0]} (irmeta, trec_eval, folder)")
    folder = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench_score_files_"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        start = time.perf_counter()
        scores = synthetic_scores(args.runs, args.topics, measures, ALPHAS)
        paths = write_files(scores, folder, formats)
        rows = scores.per_topic.size
        del scores
        print(f"scores files: {args.runs} runs x {args.topics} topics x {rows // (args.runs * args.topics)} blocks "
              f"({rows / 1e6:.1f} M per-topic rows), written in {time.perf_counter() - start:.0f} s")
        missed = False
        for fmt in formats:
            with tempfile.TemporaryDirectory(dir=folder) as out:
                wall, peak = run_job(paths[fmt], fmt, measures, ALPHAS, Path(out))
            print(f"  {fmt:<9} ({size_of(paths[fmt]) / 1e6:,.0f} MB): read and lay out {wall:.1f} s, "
                  f"peak {peak:,.0f} MB (targets < {TARGET_SECONDS} s, < {TARGET_MB:,} MB)", flush=True)
            missed |= wall >= TARGET_SECONDS or peak >= TARGET_MB
    finally:
        if not args.dir:
            shutil.rmtree(folder, ignore_errors=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
