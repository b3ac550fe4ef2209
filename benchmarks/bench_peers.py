"""Benchmark: irmeta beside its peers, on the same files in one run (issue 30, item 3).

Scoring: ``irmeta score`` against trec_eval, pytrec_eval (pytrec-eval-terrier),
ir_measures and ranx on TREC-8 (129 gzipped runs, 50 topics), P@10, AP and nDCG@10 (means
over the qrels' topics, trec_eval -c). Comparing: ``irmeta compare`` against ranx's
``compare``, every pair of runs, paired t and Fisher's randomisation test (1,000 draws),
on the first 10 runs (file-name order) and on all 129.

Each tool is timed as its user meets it. The command-line tools run as child processes
(wall and CPU = user + system, peak resident memory): ``irmeta score``/``compare`` on the
gzipped files; trec_eval, which reads no gzip, once per run in a shell loop that gunzips
each run first. The Python peers run each in its own process (peer_child.py): import,
read the qrels and runs from the files, evaluate, each part timed; what a first call
compiles (ranx's numba) is reported apart from the warm time, and ranx is run twice,
with an empty numba cache (a user's first session) and with the cache the first left on
disk (later sessions). Ratios are the peer's time over irmeta's (above 1: irmeta faster).

The tools must be doing the same work: every run's means are compared with irmeta's
(|difference| <= 1e-6, or trec_eval's 4 printed decimals), and the compare tests' p-values
pair by pair (paired t to 1e-6; Fisher's test draws differ, so its p-values differ by the
Monte-Carlo error: the decisions at 0.05 that differ are counted). Differences are
printed, never hidden; a tool that cannot be run or does not give every run's figures
fails the benchmark.

trec_eval is the binary $TREC_EVAL or --trec-eval, else `trec_eval` on the PATH, else one
built with make from the source tree --trec-eval-src ($TREC_EVAL_SRC); with none of these
its row says so.

    python benchmarks/bench_peers.py [--data ../shared/data] [--compare-sizes 10,129]
                                     [--permutations 1000] [--trec-eval PATH] [--trec-eval-src DIR]

``--measures all`` (issue 42) times nothing: it scores every name irmeta reads with a
peer's meaning (the alias registry) with irmeta and every peer installed, on the first
``--score-runs`` runs (default 10) of TREC-8 and DL 2020 and on a generated campaign with
subtopic qrels, and prints each peer's mean beside irmeta's, the largest per-topic
difference, and its cause when it is a known one (peer_measures.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from child_process import run_timed

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MEASURES = ("P@10", "AP", "nDCG@10")
TREC_EVAL_NAMES = {"P_10": "P@10", "map": "AP", "ndcg_cut_10": "nDCG@10"}
EXACT = 1e-6
PRINTED_4 = 5e-5 + 1e-9  # trec_eval prints 4 decimals: half a unit of the last one
LEVEL = 0.05
PYTHON_PEERS = ("pytrec_eval", "ir_measures", "ranx")

Means = dict[str, dict[str, float]]  # run -> measure -> mean
PValues = dict[tuple[str, str, str], float]  # (run, run, measure), runs sorted -> p-value


@dataclass
class Row:
    """One tool's timing: wall, CPU, peak MB, and the parts a Python peer reports."""

    tool: str
    wall: float
    cpu: float
    peak: float
    parts: dict[str, list[float]] = field(default_factory=dict)
    note: str = ""


# ------------------------------------------------------------------ parsing the outputs

def irmeta_means(tsv: str) -> Means:
    """``irmeta score``'s TSV (run, measure, qid, value): the rows of qid 'all'."""
    means: Means = {}
    for line in tsv.splitlines()[1:]:
        run, measure, qid, value = line.split("\t")
        if qid == "all":
            means.setdefault(run, {})[measure] = float(value)
    return means


def trec_eval_blocks(text: str) -> list[dict[str, float]]:
    """trec_eval's output of several runs one after another (``measure all value`` lines):
    one dict per run, a run's block ending where a measure comes round again."""
    blocks: list[dict[str, float]] = []
    current: dict[str, float] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, qid, value = line.split()
        if qid != "all" or name not in TREC_EVAL_NAMES:
            continue
        measure = TREC_EVAL_NAMES[name]
        if measure in current:
            blocks.append(current)
            current = {}
        current[measure] = float(value)
    return blocks + [current] if current else blocks


def irmeta_pvalues(tsv: str) -> PValues:
    """``irmeta compare --format tsv``: each pair's p-value (both directions carry it)."""
    lines = tsv.splitlines()
    header = lines[0].split("\t")
    col = {name: header.index(name) for name in ("run", "measure", "baseline", "p_value")}
    out: PValues = {}
    for line in lines[1:]:
        cells = line.split("\t")
        a, b = sorted((cells[col["run"]], cells[col["baseline"]]))
        out.setdefault((a, b, cells[col["measure"]]), float(cells[col["p_value"]]))
    return out


# ------------------------------------------------------------------------ agreement

@dataclass
class Agreement:
    """Per measure: how many values were compared, how many differ by more than the
    tolerance, the largest |difference| and where."""

    measure: str
    compared: int
    above: int
    largest: float
    where: str


def mean_agreement(ours: Means, theirs: Means, tolerance: float) -> list[Agreement]:
    """Each measure's means, run by run; a run or measure the peer lacks is an error."""
    missing = sorted(set(ours) ^ set(theirs))
    if missing:
        raise ValueError(f"the runs differ between the tools: {missing[:5]}")
    out = []
    for measure in MEASURES:
        diffs = {run: abs(ours[run][measure] - theirs[run][measure]) for run in ours}
        worst = max(diffs, key=lambda run: (diffs[run], run))
        out.append(Agreement(measure, len(diffs), sum(d > tolerance for d in diffs.values()), diffs[worst], worst))
    return out


def pvalue_agreement(ours: PValues, theirs: PValues, level: float = LEVEL) -> tuple[int, float, str, int]:
    """(pairs x measures compared, largest |p difference|, where, decisions at ``level`` that differ)."""
    if set(ours) != set(theirs):
        raise ValueError(f"the compared pairs differ: {sorted(set(ours) ^ set(theirs))[:5]}")
    diffs = {key: abs(ours[key] - theirs[key]) for key in ours}
    worst = max(diffs, key=lambda key: (diffs[key], key))
    flips = sum((ours[key] <= level) != (theirs[key] <= level) for key in ours)
    return len(diffs), diffs[worst], " ".join(worst), flips


# ------------------------------------------------------------------------ the tools

def run_files(data: Path) -> list[tuple[str, Path]]:
    """TREC-8's runs, file-name order, named as irmeta names them (file name less .gz)."""
    files = sorted((data / "trec8_adhoc" / "runs").glob("*.gz"))
    if not files:
        raise SystemExit(f"bench_peers: error: no runs under {data / 'trec8_adhoc' / 'runs'}")
    return [(f.name.removesuffix(".gz"), f) for f in files]


def irmeta_bin() -> str:
    return str(Path(sys.executable).parent / "irmeta")


def irmeta_score(qrels: Path, runs: list[tuple[str, Path]], work: Path) -> tuple[Row, Means]:
    out = work / "irmeta_score.tsv"
    command = [irmeta_bin(), "score", "--qrels", str(qrels), "--runs", *[str(p) for _, p in runs],
               "--output", str(out), *[a for m in MEASURES for a in ("--measure", m)]]
    wall, cpu, peak = run_timed(command)
    return Row("irmeta score", wall, cpu, peak), irmeta_means(out.read_text())


def find_trec_eval(given: str | None, source: str | None, work: Path) -> tuple[Path | None, str]:
    """trec_eval's binary, or one built from its source tree with make; (None, why) if neither."""
    if given:
        return Path(given), f"{given}"
    if shutil.which("trec_eval"):
        return Path(shutil.which("trec_eval") or ""), "trec_eval on the PATH"
    if not source:
        return None, "no trec_eval binary ($TREC_EVAL, PATH) and no source tree ($TREC_EVAL_SRC) to build one"
    tree = work / "trec_eval_src"
    shutil.copytree(source, tree)
    subprocess.run(["make", "-C", str(tree)], check=True, stdout=subprocess.DEVNULL)
    return tree / "trec_eval", f"built from {source} with make"


TREC_EVAL_LOOP = 'q=$1; te=$2; tmp=$3; shift 3; for f in "$@"; do gzip -dc "$f" > "$tmp"; ' \
                 '"$te" -c -m P.10 -m map -m ndcg_cut.10 "$q" "$tmp"; done'


def trec_eval_score(binary: Path, qrels: Path, runs: list[tuple[str, Path]], work: Path) -> tuple[Row, Means]:
    """trec_eval once per run (it reads one plain run file), each run gunzipped first."""
    out = work / "trec_eval.txt"
    script = f'({TREC_EVAL_LOOP}) > "{out}"'
    command = ["bash", "-c", script, "bash", str(qrels), str(binary), str(work / "run.txt"), *[str(p) for _, p in runs]]
    wall, cpu, peak = run_timed(command)
    blocks = trec_eval_blocks(out.read_text())
    if len(blocks) != len(runs):
        raise SystemExit(f"bench_peers: error: trec_eval printed {len(blocks)} runs' figures for {len(runs)} runs")
    return Row("trec_eval", wall, cpu, peak), dict(zip([n for n, _ in runs], blocks))


def python_peer(mode: str, tool: str, spec: dict, work: Path, numba_cache: Path) -> tuple[dict, Row]:
    """peer_child.py in its own process; its JSON and the process's wall, CPU and peak."""
    stem = f"{mode}_{tool}_{len(spec['runs'])}_{numba_cache.name}"  # one file per call
    spec_path, out = work / f"{stem}_spec.json", work / f"{stem}.json"
    spec_path.write_text(json.dumps(spec))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(numba_cache)}
    wall, cpu, peak = run_timed([sys.executable, str(HERE / "peer_child.py"), mode, tool, str(spec_path), str(out)],
                                env=env)
    return json.loads(out.read_text()), Row(tool, wall, cpu, peak)


def irmeta_compare(qrels: Path, runs: list[tuple[str, Path]], test: str, permutations: int,
                   work: Path) -> tuple[Row, PValues]:
    out = work / f"irmeta_compare_{test}_{len(runs)}.tsv"
    command = [irmeta_bin(), "compare", "--qrels", str(qrels), "--runs", *[str(p) for _, p in runs],
               "--test", test, "--correction", "none", "--level", str(LEVEL), "--permutations", str(permutations),
               "--format", "tsv", "--output", str(out), *[a for m in MEASURES for a in ("--measure", m)]]
    wall, cpu, peak = run_timed(command)
    return Row(f"irmeta compare --test {test}", wall, cpu, peak), irmeta_pvalues(out.read_text())


# ------------------------------------------------------------------------ the tables

def clock(pair: list[float]) -> str:
    """A [wall, CPU] pair as 'wall (CPU)' seconds."""
    return f"{pair[0]:7.2f} ({pair[1]:6.2f})"


def python_row(tool: str, result: dict, process: Row) -> Row:
    """A Python peer's parts: import, compile (load's and compute's first calls less their
    repeats), warm load, warm compute; the total is their sum, what its user waits for."""
    t = result["times"]
    compile_ = [a + b for a, b in zip(t["load_compile"], t["compute_compile"])]
    parts = {"import": t["import"], "compile": compile_,
             "load": [a - b for a, b in zip(t["load"], t["load_compile"])],
             "compute": [a - b for a, b in zip(t["compute"], t["compute_compile"])]}
    parts["total"] = [sum(p[i] for p in parts.values()) for i in range(2)]
    return Row(tool, parts["total"][0], parts["total"][1], process.peak, parts)


def print_score_table(rows: list[Row], base: Row, runs: int) -> None:
    print(f"\nScoring TREC-8 ({runs} runs, P@10 AP nDCG@10): seconds, wall (CPU); ratio = tool / irmeta score")
    head = f"{'tool':<28}{'import':>16}{'compile':>16}{'load':>16}{'compute':>16}{'total':>16}"
    print(head + f"{'peak MB':>9}{'ratio wall':>12}{'ratio CPU':>11}{'warm ratio':>12}")
    for row in rows:
        cells = [clock(row.parts[k]) if k in row.parts else f"{'-':>15}" for k in ("import", "compile", "load",
                                                                                   "compute")]
        warm = row.wall - row.parts["compile"][0] if "compile" in row.parts else row.wall
        print(f"{row.tool:<28}" + " ".join(cells) + f" {clock([row.wall, row.cpu])}{row.peak:9.0f}"
              f"{row.wall / base.wall:12.2f}{row.cpu / base.cpu:11.2f}{warm / base.wall:12.2f}"
              + (f"  {row.note}" if row.note else ""))


def print_mean_agreement(tool: str, agreement: list[Agreement], tolerance: float) -> None:
    for a in agreement:
        print(f"  {tool:<28}{a.measure:<9} {a.compared:4d} runs, {a.above:3d} differ by > {tolerance:.0e}; "
              f"largest |difference| {a.largest:.2e} ({a.where})")


def print_compare_row(size: int, test: str, ours: Row, ranx_times: dict, ranx_load: dict, ranx_import: list) -> Row:
    """irmeta compare's time beside ranx.compare's (import, load, compile, warm compare)."""
    load = [a - b for a, b in zip(ranx_load["load"], ranx_load["load_compile"])]
    compile_ = [a + b + c for a, b, c in zip(ranx_load["load_compile"], ranx_load["evaluate_compile"],
                                             ranx_times["compile"])]
    total = [a + b + c + d for a, b, c, d in zip(ranx_import, load, compile_, ranx_times["compare"])]
    warm = load[0] + ranx_times["compare"][0]
    print(f"{size:>5} {test:<14}{clock([ours.wall, ours.cpu])}{ours.peak:8.0f}  {clock(ranx_import)} "
          f"{clock(compile_)} {clock(load)} {clock(ranx_times['compare'])} {clock(total)}"
          f"{total[0] / ours.wall:8.2f}{total[1] / ours.cpu:8.2f}{warm / ours.wall:8.2f}")
    return Row("ranx", total[0], total[1], 0.0)


# ------------------------------------------------------------------------ main

def bench_score(data: Path, work: Path, args: argparse.Namespace) -> bool:
    qrels, runs = data / "trec8_adhoc" / "qrels.txt", run_files(data)[:args.score_runs]
    base, ours = irmeta_score(qrels, runs, work)
    rows, agreements = [base], []
    binary, how = find_trec_eval(args.trec_eval, args.trec_eval_src, work)
    if binary is None:
        print(f"trec_eval: not run: {how}")
    else:
        row, theirs = trec_eval_score(binary, qrels, runs, work)
        row.note = f"({how}; gunzips each run)"
        rows.append(row)
        agreements.append(("trec_eval", mean_agreement(ours, theirs, PRINTED_4), PRINTED_4))
    spec = {"qrels": str(qrels), "runs": [[name, str(path)] for name, path in runs]}
    cache = work / "numba_cache"
    for tool, label in (("pytrec_eval", "pytrec_eval"), ("ir_measures", "ir_measures"),
                        ("ranx", "ranx, empty numba cache"), ("ranx", "ranx, numba cache on disk")):
        result, process = python_peer("score", tool, spec, work, cache)
        rows.append(python_row(label, result, process))
        if label != "ranx, numba cache on disk":
            agreements.append((tool, mean_agreement(ours, result["means"], EXACT), EXACT))
    print_score_table(rows, base, len(runs))
    print("\nSame work: each run's means against irmeta score's")
    for tool, agreement, tolerance in agreements:
        print_mean_agreement(tool, agreement, tolerance)
    return binary is not None


def bench_compare(data: Path, work: Path, size: int, permutations: int) -> None:
    qrels, runs = data / "trec8_adhoc" / "qrels.txt", run_files(data)[:size]
    spec = {"qrels": str(qrels), "runs": [[n, str(p)] for n, p in runs], "tests": ["student", "fisher"],
            "permutations": permutations, "max_p": LEVEL}
    cache = work / f"numba_cache_compare_{size}"  # empty: the compile a first session pays
    result, _ = python_peer("compare", "ranx", spec, work, cache)
    times = result["times"]
    for test, theirs in (("paired_t", "student"), ("randomisation", "fisher")):
        ours, our_p = irmeta_compare(qrels, runs, test, permutations, work)
        print_compare_row(size, test, ours, result["tests"][theirs], times, times["import"])
        ranx_p = {(a, b, m): p for a, b, m, p in result["tests"][theirs]["p_values"]}
        compared, largest, where, flips = pvalue_agreement(our_p, ranx_p)
        tolerance = "" if test == "randomisation" else f", {'within' if largest <= EXACT else 'NOT within'} 1e-6"
        print(f"{'':>6}same work: {compared} pair-measures, largest |p difference| {largest:.2e} ({where}){tolerance}; "
              f"{flips} decisions at {LEVEL} differ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--compare-sizes", default="10,129", help="numbers of runs compared, comma-separated")
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--score-runs", type=int, default=None, help="score the first N runs only (default all)")
    parser.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"), help="trec_eval's binary")
    parser.add_argument("--trec-eval-src", default=os.environ.get("TREC_EVAL_SRC"),
                        help="trec_eval's source tree, built with make when no binary is given")
    parser.add_argument("--measures", choices=["timed", "all"], default="timed",
                        help="timed: P@10, AP, nDCG@10 timed against the peers (default); all: every peer name "
                        "irmeta registers, irmeta's values beside every installed peer's")
    args = parser.parse_args()
    data = Path(args.data)
    if args.measures == "all":
        from peer_measures import bench_measures

        with tempfile.TemporaryDirectory(prefix="bench_peers_") as tmp:
            binary, how = find_trec_eval(args.trec_eval, args.trec_eval_src, Path(tmp))
            print(f"trec_eval: {how}" if binary else f"trec_eval: not run: {how}")
            return bench_measures(data, args.score_runs or 10, binary)
    with tempfile.TemporaryDirectory(prefix="bench_peers_") as tmp:
        work = Path(tmp)
        with_trec_eval = bench_score(data, work, args)
        print("\nComparing every pair, P@10 AP nDCG@10, no correction: seconds, wall (CPU); ratio = ranx / irmeta")
        print(f"{'runs':>5} {'irmeta test':<14}{'irmeta compare':>15}{'peak MB':>8}  {'ranx import':>15} "
              f"{'compile':>15} {'load':>15} {'compare':>15} {'total':>15}{'wall':>8}{'CPU':>8}{'warm':>8}")
        for size in (int(s) for s in args.compare_sizes.split(",")):
            bench_compare(data, work, size, args.permutations)
    if not with_trec_eval:
        print("bench_peers: trec_eval was not run (set TREC_EVAL or TREC_EVAL_SRC): incomplete")
    return 0 if with_trec_eval else 1


if __name__ == "__main__":
    sys.exit(main())
