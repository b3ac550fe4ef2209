"""Benchmark (issue 42): every trec_eval measure at once on TREC-8's 129 runs, against
today's P@10 + AP + nDCG@10 call; optionally, the live per-topic check against a trec_eval
binary on every run of TREC-8 and DL 2020.

Target: ``irmeta.evaluate`` with every trec_eval measure (trec_eval 10's ``-m all_trec``
names as it prints them, 95: all but runid, the geometric means gm_map and gm_bpref, which
are AP and bpref under irmeta's geometric averaging, and num_nonrel_judged_ret, which
irmeta does not register) within 2x the time of the same call with P@10, AP and nDCG@10,
wall and CPU time of this process both printed (on a loaded machine the CPU ratio is the
steadier).

    python benchmarks/bench_trec_eval_measures.py [--data ../shared/data] [--trec-eval BINARY]

``--trec-eval`` (or $TREC_EVAL): a trec_eval 10.x binary (a full-precision build, printf
%.17g, checks to 1e-9; the stock %6.4f one to its 4 decimals); prints the largest per-topic
difference of each measure on every run of both collections.
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import irmeta
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs
from irmeta.measures.averaging import evaluate
from irmeta.measures.names import parse_measure

ROOT = Path(__file__).resolve().parents[1]
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
LEVELS = ("0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00")
MULTIPLES = ("0.20", "0.40", "0.60", "0.80", "1.00", "1.20", "1.40", "1.60", "1.80", "2.00")
# trec_eval -m all_trec, as it prints the names (runid, relstring, the geometric means
# gm_map/gm_bpref, which are AP/Bpref under irmeta's geometric averaging, and
# num_nonrel_judged_ret, not registered, aside)
ALL_TREC = (["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank"]
            + [f"iprec_at_recall_{x}" for x in LEVELS] + [f"P_{k}" for k in CUTS] + [f"recall_{k}" for k in CUTS]
            + ["unj_5", "unj_10", "unj_20", "rbp", "rbp_resid", "infAP", "utility", "11pt_avg", "ndcg"]
            + [f"relative_P_{k}" for k in CUTS] + [f"Rprec_mult_{x}" for x in MULTIPLES]
            + ["success_1", "success_5", "success_10"] + [f"map_cut_{k}" for k in CUTS]
            + [f"ndcg_cut_{k}" for k in CUTS]
            + ["ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F"])
BASELINE = ["P@10", "AP", "nDCG@10"]
TE_FLAGS = ["-m", "all_trec"]
# trec_eval's parameters beyond all_trec's defaults: gain maps and 11pt_avg's levels, each
# in a trec_eval call of its own (trec_eval frees a measure's parameters once per -m)
WITH_PARAMETERS = ("ndcg.1=0,2=3", "G.1=3,2=5", "ndcg_rel.0=1,3=2", "Rndcg.2=1", "rbp.p=0.95,2=3", "rbp.3=10",
                   "dcg.1=2", "11pt_avg..25,.5,.75", "11pt_avg.0.5,0.25")


def timed(call, repeat: int) -> tuple[float, float]:
    """The best of ``repeat`` calls' (wall, CPU of this process) seconds: on a shared
    machine the wall time is inflated by the load, the CPU time much less."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        call()
        took = (time.perf_counter() - start, time.process_time() - cpu)
        best = (min(best[0], took[0]), min(best[1], took[1]))
    return best


def _canonical(printed: str) -> str:
    """irmeta's name of a measure trec_eval printed with its parameters, else the name as printed."""
    try:
        return str(parse_measure(printed))
    except ValueError:  # runid, relstring, gm_map: not compared
        return printed


def live_check(binary: str, data: Path) -> int:
    """Largest per-topic |irmeta - trec_eval| per measure on every run; 1 if any > 1e-9 (or
    past the printed decimals)."""
    worst: dict[str, float] = {}
    full = False  # a %.17g build prints more than trec_eval's 4 decimals
    for collection in ("trec8_adhoc", "dl2020_passage"):
        root = data / collection
        files = sorted((root / "runs").glob("*.gz"))
        matrix = relevance_matrix(read_runs(files), read_qrels(root / "qrels.txt"), threshold=1)
        scores = evaluate(matrix, ALL_TREC + list(WITH_PARAMETERS))
        keys = {name: parse_measure(name) for name in ALL_TREC + list(WITH_PARAMETERS)}
        keys.update({str(key): key for key in keys.values()})
        with tempfile.TemporaryDirectory() as tmp:
            plain = Path(tmp) / "run"
            for s, path in enumerate(files):
                plain.write_bytes(gzip.decompress(path.read_bytes()))
                out = "".join(subprocess.run([binary, "-q", *flags, str(root / "qrels.txt"), str(plain)],
                                             capture_output=True, text=True, check=True).stdout
                              for flags in [TE_FLAGS, *(["-m", m] for m in WITH_PARAMETERS)])
                for line in out.splitlines():
                    name, qid, value = (x.strip() for x in line.split("\t"))
                    name = name if name in keys else _canonical(name)
                    if qid == "all" or name not in keys:
                        continue
                    full |= len(value.partition(".")[2]) > 4
                    ours = float(scores[keys[name]][s, matrix.topics.index(qid)])
                    worst[name] = max(worst.get(name, 0.0), abs(ours - float(value)))
        print(f"  {collection}: {len(files)} runs checked", flush=True)
    bound = 1e-9 if full else 0.5e-4 + 1e-12  # to the printed decimals
    for name in ALL_TREC + [str(parse_measure(m)) for m in WITH_PARAMETERS]:
        if name in worst:
            print(f"  {name:24s} largest per-topic difference {worst[name]:.3g}")
    bad = [n for n, d in worst.items() if d > bound]
    print(f"  {len(worst)} measures compared; over the bound: {bad or 'none'}")
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL"))
    args = parser.parse_args()
    data = Path(args.data)
    root = data / "trec8_adhoc"
    qrels_path, run_paths = root / "qrels.txt", sorted((root / "runs").glob("*.gz"))

    base = timed(lambda: irmeta.evaluate(qrels_path, run_paths, BASELINE), args.repeat)
    every = timed(lambda: irmeta.evaluate(qrels_path, run_paths, ALL_TREC), args.repeat)
    print(f"TREC-8, {len(run_paths)} runs, irmeta.evaluate end to end (best of {args.repeat}; wall s, CPU s):")
    print(f"  P@10 + AP + nDCG@10:            {base[0]:6.2f} s wall, {base[1]:6.2f} s CPU")
    print(f"  every trec_eval measure ({len(ALL_TREC)}): {every[0]:6.2f} s wall, {every[1]:6.2f} s CPU  "
          f"({every[0] / base[0]:.2f}x wall, {every[1] / base[1]:.2f}x CPU; target <= 2x)")
    matrix = relevance_matrix(read_runs(run_paths), read_qrels(qrels_path), threshold=1)
    base_m = timed(lambda: evaluate(matrix, BASELINE), args.repeat)
    every_m = timed(lambda: evaluate(matrix, ALL_TREC), args.repeat)
    print(f"  scoring only (matrix built):    {base_m[0]:6.2f} s -> {every_m[0]:6.2f} s wall, "
          f"{base_m[1]:6.2f} s -> {every_m[1]:6.2f} s CPU")
    status = 0 if min(every[0] / base[0], every[1] / base[1]) <= 2 else 1
    if args.trec_eval:
        print(f"live check against {args.trec_eval} (-q -m all_trec):")
        status |= live_check(args.trec_eval, data)
    return status


if __name__ == "__main__":
    sys.exit(main())
