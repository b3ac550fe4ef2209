"""Check against the anchor (issue 41): irmeta's error rates beside Urbano, Lima and
Hanjalic's published ones ("Statistical significance testing in information retrieval:
an empirical analysis of type I, type II and type III errors", SIGIR 2019; repository
julian-urbano/sigir2019-statistical).

Given their input score matrices (``DATA``: ``<collection>_<measure>.csv``, one row per
topic and one column per run, as in their ``data/``) and their published tables
(``OUTPUT``: their ``output/`` folder, or any copy holding ``type_1/type_1_<m>_<n>.csv``,
``type_2_by_delta/alpha0.050/type_2_by_delta_<m>_<n>_alpha0.050.csv`` and
``type_3_by_delta/alpha0.050/...``), this pools each measure's collections as the paper did
(per collection: runs equal to an earlier one within 1e-5 dropped, then the bottom 10% by
mean; a trial draws a collection with probability proportional to its kept runs), fits
irmeta's models (:mod:`irmeta.metaeval.simulation`), runs irmeta's engine
(:mod:`irmeta.metaeval.test_error_rates`) with the paper's settings where irmeta has them
(the paper's power trials: a baseline outside the top 25% by expected value, the second run
one of the 10 runs whose means are nearest its mean + delta, moved to it:
``power_margin = nearest_runs``) and prints, for each measure, topic-set size and test, the
two-tailed type I error at alpha 0.01, 0.05 and 0.1 and, at delta 0.05 and alpha 0.05, the
two-tailed power as the paper counts it (p <= alpha either way: irmeta's power + type III)
and the type III error, each beside the published figure, with irmeta's Monte Carlo
standard error. Nothing is tuned to the published figures; docs/reference/benchmarks.md
explains the differences.

    python benchmarks/check_urbano2019.py DATA OUTPUT [--measures ap,p10] [--topics 25,50,100]
        [--trials 50000] [--permutations 10000] [--shards 2] [--models DIR] [--markdown FILE]
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy: one core a process

import argparse  # noqa: E402
import math  # noqa: E402
import multiprocessing  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from irmeta.metaeval import test_error_rates as ter  # noqa: E402
from irmeta.metaeval.simulation.margins import support_of_measure  # noqa: E402
from irmeta.metaeval.simulation.models import FittedCollection, PooledCollections, SimulationProtocol  # noqa: E402

#: The paper's measures by their file names, as irmeta names them (the support follows).
MEASURES = {"ap": "AP", "p10": "P@10", "rr": "RR", "ndcg20": "nDCG@20", "err20": "ERR@20"}
#: The paper's test columns (t1/t2: one and two tails) and irmeta's tests.
TESTS = {"t": "paired_t", "w": "wilcoxon", "s": "sign", "b": "paired_bootstrap", "p": "randomisation"}
#: The paper's protocol (R/common.R, R/01-margins.R, R/02-margins_transform.R).
PROTOCOL = SimulationProtocol(duplicate_tolerance=1e-5, drop_bottom=0.10, baseline_drop_top=0.25,
                              power_margin="nearest_runs", nearest_runs=10, degenerate_runs="drop")
ALPHAS = (0.01, 0.05, 0.1)
DELTA = 0.05
SEED = 2019


def read_collections(data: Path, measure: str) -> dict[str, tuple[list[str], np.ndarray]]:
    """Every ``<collection>_<measure>.csv`` of ``data``: (run names, runs x topics)."""
    out = {}
    for path in sorted(data.glob(f"*_{measure}.csv")):
        frame = pd.read_csv(path)
        values = frame.to_numpy(dtype=float).T
        if np.isnan(values).any():
            raise SystemExit(f"{path}: a score is missing")
        out[path.name.removesuffix(f"_{measure}.csv")] = ([str(c) for c in frame.columns], values)
    return out


def pooled_models(data: Path, measure: str, models: Path | None, workers: int) -> PooledCollections:
    """The paper's pool of one measure: each collection fitted with :data:`PROTOCOL`."""
    fitted = []
    for name, (runs, values) in read_collections(data, measure).items():
        path = None if models is None else models / f"{name}_{measure}.pkl"
        if path is not None and path.exists():
            collection = FittedCollection.load(path)
        else:
            start = time.perf_counter()
            support = support_of_measure(MEASURES[measure], values)
            collection = FittedCollection.fit(values, runs, support, seed=SEED, protocol=PROTOCOL, name=name,
                                              workers=workers)
            print(f"  {name} {MEASURES[measure]}: {len(runs)} runs, {len(collection)} kept "
                  f"({len(collection.selection.dropped)} dropped), {len(collection.copulas):,} copulas, "
                  f"{time.perf_counter() - start:.0f} s wall", flush=True)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                collection.save(path)
        fitted.append(collection)
    if not fitted:
        raise SystemExit(f"{data}: no *_{measure}.csv score matrix")
    return PooledCollections(fitted)


def _shard(source, measure, settings, shard, shards, queue) -> None:
    chunks = ter.shard_chunks(settings, shard, shards)
    queue.put((shard, ter.error_rate_counts(source, measure, settings, SEED, chunks)))


def irmeta_rates(source: PooledCollections, measure: str, settings: ter.ErrorRateSettings, shards: int) -> pd.DataFrame:
    """The engine's table, its chunks split over ``shards`` processes."""
    if shards <= 1:
        return ter.error_rates(source, measure, settings, SEED)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    workers = [context.Process(target=_shard, args=(source, measure, settings, s, shards, queue))
               for s in range(shards)]
    for worker in workers:
        worker.start()
    parts = [queue.get() for _ in workers]
    for worker in workers:
        worker.join()
    return ter.error_rate_table([p for _, p in sorted(parts, key=lambda x: x[0])], settings.trials)


def published(output: Path, measure: str, n: int) -> dict[str, pd.Series]:
    """Their type I rows (alpha 0.01, 0.05, 0.1) and their delta 0.05 rows at alpha 0.05."""
    type_1 = pd.read_csv(output / "type_1" / f"type_1_{measure}_{n}.csv")
    alpha = "alpha0.050"
    power = pd.read_csv(output / "type_2_by_delta" / alpha / f"type_2_by_delta_{measure}_{n}_{alpha}.csv")
    wrong = pd.read_csv(output / "type_3_by_delta" / alpha / f"type_3_by_delta_{measure}_{n}_{alpha}.csv")
    pick = {f"type_1 {a:g}": type_1.loc[np.isclose(type_1["alpha"], a)].iloc[0] for a in ALPHAS}
    pick["power"] = power.loc[np.isclose(power["delta"], DELTA)].iloc[0]
    pick["type_3"] = wrong.loc[np.isclose(wrong["delta"], DELTA)].iloc[0]
    return pick


def comparison(ours: pd.DataFrame, theirs: dict[str, pd.Series], measure: str, n: int) -> pd.DataFrame:
    """One row per test and figure: published, irmeta, irmeta's Monte Carlo SE."""
    rows = []
    for letter, test in TESTS.items():
        mine = ours[(ours["test"] == test) & (ours["tails"] == 2) & (ours["n_topics"] == n)]
        for alpha in ALPHAS:
            hit = mine[(mine["kind"] == "type_1") & np.isclose(mine["alpha"], alpha)].iloc[0]
            rows.append((measure, n, test, f"type I, alpha {alpha:g}", theirs[f"type_1 {alpha:g}"][f"{letter}2"],
                         hit["rate"], hit["mc_se"], int(hit["trials"])))
        at = mine[np.isclose(mine["alpha"], 0.05) & np.isclose(mine["delta"], DELTA)]
        right, wrong = (at[at["kind"] == kind].iloc[0] for kind in ("power", "type_3"))
        either = right["rate"] + wrong["rate"]
        trials = int(right["trials"])
        rows.append((measure, n, test, "power (either way), delta 0.05, alpha 0.05", theirs["power"][f"{letter}2"],
                     either, math.sqrt(either * (1 - either) / trials), trials))
        rows.append((measure, n, test, "type III, delta 0.05, alpha 0.05", theirs["type_3"][f"{letter}2"],
                     wrong["rate"], wrong["mc_se"], trials))
    return pd.DataFrame(rows, columns=["measure", "n_topics", "test", "figure", "published", "irmeta", "mc_se",
                                       "trials"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, help="their data/ folder: <collection>_<measure>.csv")
    parser.add_argument("output", type=Path, help="their output/ folder")
    parser.add_argument("--measures", default="ap,p10", help=f"some of {', '.join(MEASURES)}")
    parser.add_argument("--topics", default="25,50,100")
    parser.add_argument("--trials", type=int, default=50_000, help="trials per measure, size and job")
    parser.add_argument("--permutations", type=int, default=ter.DEFAULT_PERMUTATIONS)
    parser.add_argument("--shards", type=int, default=2, help="processes running the chunks")
    parser.add_argument("--models", type=Path, default=None, help="folder to save fitted models in and read them from")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the comparison as a Markdown table")
    args = parser.parse_args()
    sizes = tuple(int(x) for x in args.topics.split(","))
    frames = []
    for measure in [m.strip() for m in args.measures.split(",") if m.strip()]:
        if measure not in MEASURES:
            raise SystemExit(f"--measures: {measure!r} is not one of {', '.join(MEASURES)}")
        start = time.perf_counter()
        source = pooled_models(args.data, measure, args.models, args.shards)
        kept = ", ".join(f"{c.name} {len(c)}" for c in source.collections)
        print(f"{MEASURES[measure]}: runs kept {kept}; models ready in {time.perf_counter() - start:.0f} s", flush=True)
        settings = ter.ErrorRateSettings(tests=tuple(TESTS.values()), n_topics=sizes, trials=args.trials,
                                         alphas=ALPHAS, deltas=(DELTA,), runs_at_once=(),
                                         permutations=args.permutations)
        start = time.perf_counter()
        ours = irmeta_rates(source, MEASURES[measure], settings, args.shards)
        print(f"{MEASURES[measure]}: {args.trials:,} trials a size and job in {time.perf_counter() - start:.0f} s wall",
              flush=True)
        for n in sizes:
            frames.append(comparison(ours, published(args.output, measure, n), MEASURES[measure], n))
    table = pd.concat(frames, ignore_index=True)
    table["z"] = (table["irmeta"] - table["published"]) / table["mc_se"].where(table["mc_se"] > 0)
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    if args.markdown is not None:
        args.markdown.write_text(markdown(table))
    return 0


def markdown(table: pd.DataFrame) -> str:
    """The comparison as Markdown: a row per measure, size and figure, a column per test."""
    lines = []
    for (measure, figure), part in table.groupby(["measure", "figure"], sort=False):
        lines.append(f"\n{measure}, {figure}: published / irmeta (Monte Carlo SE)\n")
        lines.append("| topics | " + " | ".join(TESTS.values()) + " |")
        lines.append("|---" * (len(TESTS) + 1) + "|")
        for n, rows in part.groupby("n_topics"):
            cells = [f"{r.published:.4f} / {r.irmeta:.4f} ({r.mc_se:.4f})"
                     for r in rows.set_index("test").loc[list(TESTS.values())].itertuples()]
            lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


if __name__ == "__main__":
    sys.exit(main())
