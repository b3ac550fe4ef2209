"""Benchmark: what judgment sets of other assessors add to a collection's pipeline (issue 27's cost).

Target (issue 27, Must hold): 40 runs, 45 topics, 10,000 reference judgments and 8 sets
of 5,000 judgments each (a folder of eight assessors: each judges 4,500 of the reference's
documents, 15 % of them with another grade, and 500 the reference never judged), with
every table of issue 27 (judgment_agreement, label_agreement, label_confusion,
assessor_agreement, conclusion_agreement under every paired test and correction of the
config schema's default discriminative_power methods at 2 levels, family_bias with four
run families, their figures, the claims' other_judgments rows) for the paper's six
measures at 2 alphas: at most 20 s added to the collection's pipeline on 2 cores.

The pipeline runs once, end to end (Snakemake, ``--cores 2``), on a campaign drawn here
with a fixed seed; the jobs the sets add are those of the rules of
judgment_agreement.smk, label_agreement.smk and conclusion_agreement.smk. Prints each
added job's wall and CPU seconds (Snakemake's benchmark files: ``s``, ``cpu_time``), their
sums, and the total against the budget. The machine may be shared: the CPU sum is the
figure to compare; the wall sum is what the jobs took one after the other.

    python benchmarks/bench_judgments.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workflow_runs import ROOT, copy_workflow, run_workflow  # noqa: E402

BUDGET_SECONDS = 20.0
RUNS, TOPICS, DEPTH, POOL = 40, 45, 100, 400
REFERENCE_JUDGMENTS, SETS, SET_JUDGMENTS, NEW_PER_SET = 10_000, 8, 5_000, 500
MEASURES = ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100", "P_rareness_norm@100", "AP_rareness_norm@100"]
ALPHAS = [0.5, 1]
FAMILIES = ("bm25", "neural", "llm_reranker", "query_likelihood")
RULE_FILES = ("judgment_agreement.smk", "label_agreement.smk", "conclusion_agreement.smk")


def judgment_rules() -> set[str]:
    """The rules of the judgment-set experiments (the jobs the sets add)."""
    found = set()
    for name in RULE_FILES:
        found |= set(re.findall(r"^(?:local)?rule (\w+):", (ROOT / "workflow" / "rules" / name).read_text(), re.M))
    return found


def write_campaign(data: Path, seed: int = 27) -> None:
    """Runs, qrels (exactly REFERENCE_JUDGMENTS rows), eight assessors and the run families, under ``data``."""
    rng = np.random.default_rng(seed)
    (data / "runs").mkdir(parents=True)
    (data / "assessors").mkdir()
    quality = rng.beta(2, 3, RUNS)
    judged_per_topic = np.full(TOPICS, REFERENCE_JUDGMENTS // TOPICS)
    judged_per_topic[: REFERENCE_JUDGMENTS % TOPICS] += 1
    qrels, runs = [], {r: [] for r in range(RUNS)}
    for t in range(TOPICS):
        docs = rng.permutation(POOL)
        judged = docs[: judged_per_topic[t]]
        grades = rng.choice(3, size=len(judged), p=[0.7, 0.2, 0.1])
        qrels += [(t, int(d), int(g)) for d, g in zip(judged, grades)]
        relevant = judged[grades > 0]
        for r in range(RUNS):
            # a better run puts more relevant documents near its top
            weights = np.ones(POOL)
            weights[relevant] += 4 * quality[r]
            ranked = rng.choice(POOL, size=DEPTH, replace=False, p=weights / weights.sum())
            runs[r] += [(t, int(d)) for d in ranked]
    for r, rows in runs.items():
        lines = [f"{100 + t} Q0 t{t}d{d} {k % DEPTH + 1} {DEPTH - k % DEPTH} run{r:02d}"
                 for k, (t, d) in enumerate(rows)]
        (data / "runs" / f"run{r:02d}").write_text("\n".join(lines) + "\n")
    frame = pd.DataFrame(qrels, columns=["topic", "doc", "grade"])
    (data / "qrels.txt").write_text("".join(f"{100 + t} 0 t{t}d{d} {g}\n" for t, d, g in frame.itertuples(index=False)))
    judged = {(t, d) for t, d, _ in qrels}
    spare = [(t, d) for t in range(TOPICS) for d in range(POOL) if (t, d) not in judged]
    for a in range(SETS):
        keep = frame.iloc[rng.choice(len(frame), size=SET_JUDGMENTS - NEW_PER_SET, replace=False)]
        grades = np.where(rng.random(len(keep)) < 0.15, rng.choice(3, size=len(keep)), keep["grade"].to_numpy())
        extra = [spare[i] for i in rng.choice(len(spare), size=NEW_PER_SET, replace=False)]
        lines = [f"{100 + t} 0 t{t}d{d} {g}\n" for (t, d), g in zip(zip(keep["topic"], keep["doc"]), grades)]
        lines += [f"{100 + t} 0 t{t}d{d} {int(rng.choice(3, p=[0.8, 0.15, 0.05]))}\n" for t, d in extra]
        (data / "assessors" / f"a{a + 1}.txt").write_text("".join(lines))
    families = "".join(f"run{r:02d}\t{FAMILIES[r % len(FAMILIES)]}\n" for r in range(RUNS))
    (data / "families.tsv").write_text("run\tfamily\n" + families)


def configure(work: Path, data: Path) -> Path:
    """The collection's YAML and the run's config in the workflow copy; returns the config."""
    (work / "config" / "collections" / "bench.yaml").write_text(yaml.safe_dump({
        "name": "bench", "label": "Bench", "qrels": str(data / "qrels.txt"), "runs": str(data / "runs"),
        "depth": DEPTH, "relevance_threshold": 1, "duplicates": "error", "run_name": "file",
        "alternative_qrels": {"assessors": {"path": str(data / "assessors")}},
        "run_families": str(data / "families.tsv")}, sort_keys=False))
    config = work / "config" / "bench.yaml"
    config.write_text(yaml.safe_dump({
        "collections": ["bench"], "measures": MEASURES, "alphas": ALPHAS, "averaging": ["all"], "threads": 2,
        "experiments": {
            "seed": 20230402, "shards": 2,
            "comparisons": [{"measure": "P_rareness@100", "baseline": "P@100"},
                            {"measure": "AP_rareness@100", "baseline": "AP@100"}],
            "discriminative_power": {"permutations": 1000, "levels": [0.05, 0.01]},
            "stability": {"trials": 100}, "system_subsampling": {"trials": 20, "largest": 16},
            "swap": {"measures": []}, "reusability": {"enabled": False}, "asl": {"enabled": False},
            # the eight assessors only: no generated sets
            "judgment_agreement": {"pool_depths": [], "judgment_fractions": [], "assessor_errors": []}},
    }, sort_keys=False))
    return config


def added_jobs(work: Path) -> pd.DataFrame:
    """job, wall and CPU seconds of every job of the judgment rules, slowest CPU first."""
    rules, rows = judgment_rules(), []
    for tsv in sorted((work / "results" / "benchmarks").rglob("*.tsv")):
        rule = tsv.parent.name
        if rule in rules:
            bench = pd.read_csv(tsv, sep="\t")
            rows.append({"job": f"{rule}/{tsv.stem}", "rule": rule, "wall": float(bench["s"].iloc[0]),
                         "cpu": float(bench["cpu_time"].iloc[0])})
    return pd.DataFrame(rows).sort_values("cpu", ascending=False, ignore_index=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", default=None, help="run in this folder and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp)
        write_campaign(root / "data")
        work = copy_workflow(root / "work")
        config = configure(work, root / "data")
        wall, _ = run_workflow(work, 2, "--configfile", str(config))
        jobs = added_jobs(work)
        tables = sorted(p.name for p in (work / "results" / "bench" / "tables").glob("*agreement*.csv"))
        claims = pd.read_csv(work / "results" / "claims.csv")
    print(f"{RUNS} runs x {TOPICS} topics, {REFERENCE_JUDGMENTS:,} reference judgments, {SETS} sets of "
          f"{SET_JUDGMENTS:,}; {len(MEASURES)} measures at alphas {ALPHAS}; whole pipeline {wall:.1f} s wall")
    print(f"tables: {', '.join(tables)}, family_bias.csv; "
          f"{int((claims['claim'] == 'other_judgments').sum())} other_judgments claims rows")
    print(f"{'job':<52} {'wall s':>7} {'CPU s':>7}")
    for row in jobs.itertuples():
        print(f"{row.job:<52} {row.wall:7.2f} {row.cpu:7.2f}")
    by_rule = jobs.groupby("rule")[["wall", "cpu"]].sum().sort_values("cpu", ascending=False)
    print("per rule: " + "; ".join(f"{r} {w:.1f} s wall / {c:.1f} s CPU" for r, (w, c) in by_rule.iterrows()))
    wall_sum, cpu_sum = jobs["wall"].sum(), jobs["cpu"].sum()
    ok = cpu_sum / 2 <= BUDGET_SECONDS
    print(f"added: {len(jobs)} jobs, {wall_sum:.1f} s wall one after the other, {cpu_sum:.1f} s CPU "
          f"({cpu_sum / 2:.1f} s on 2 cores); budget {BUDGET_SECONDS:g} s on 2 cores: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
