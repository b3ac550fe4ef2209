"""Benchmark: the cost of issue 20's measures in ``irmeta score`` on TREC-8.

Two commands on all 129 gzipped runs, 5 alphas (0, 0.25, 0.5, 0.75, 1), means over every
qrels topic:

- the paper's measures: P@100, AP@100, P_rareness@100, AP_rareness@100 and their [0, 1]
  forms (config/paper.yaml);
- the same plus issue 20's: every rareness family of them under the three rarity
  functions (linear, log, inverse), nDCG@10, nDCG_rareness@10 and nDCG_rareness_norm@10
  under each function, RBP, RBP_residual, RBP_rareness under each function, and ERR@20.

Target (issue 20): the second at most 2x the first. Prints both wall times (best of
``--repeat``), their ratio and the peak memory of each.

    python benchmarks/bench_innovation.py [--data ../shared/data] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from child_process import run_once

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 2.0
ALPHAS = ["0", "0.25", "0.5", "0.75", "1"]
PAPER = ["P@100", "AP@100", "P_rareness@100", "AP_rareness@100", "P_rareness_norm@100", "AP_rareness_norm@100"]
FUNCTIONS = ["linear", "log", "inverse"]


def innovation_measures() -> list[str]:
    """The paper's measures plus issue 20's, each rareness family under every rarity function."""
    rareness = [m for m in PAPER if "_rareness" in m] + ["nDCG_rareness@10", "nDCG_rareness_norm@10",
                                                         "RBP_rareness"]
    named = [m for m in PAPER if "_rareness" not in m] + ["nDCG@10", "RBP", "RBP_residual", "ERR@20"]
    for measure in rareness:
        family, _, cutoff = measure.partition("@")
        for function in FUNCTIONS:
            inner = "" if function == "linear" else f"(rarity={function})"
            named.append(family + inner + (f"@{cutoff}" if cutoff else ""))
    return named


def best_of(command: list[str], repeat: int) -> tuple[float, float]:
    times = [run_once(command) for _ in range(max(1, repeat))]
    return min(t for t, _ in times), max(m for _, m in times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    trec8 = Path(args.data) / "trec8_adhoc"
    base = [str(Path(sys.executable).parent / "irmeta"), "score", "--qrels", str(trec8 / "qrels.txt"),
            "--runs", str(trec8 / "runs")] + [arg for a in ALPHAS for arg in ("--alpha", a)]
    paper = base + [arg for m in PAPER for arg in ("--measure", m)]
    extended = innovation_measures()
    more = base + [arg for m in extended for arg in ("--measure", m)]
    paper_s, paper_mb = best_of(paper, args.repeat)
    more_s, more_mb = best_of(more, args.repeat)
    ratio = more_s / paper_s
    print(f"irmeta score, TREC-8 (129 runs, 5 alphas), best of {max(1, args.repeat)}:")
    print(f"  paper's {len(PAPER)} measures:                 {paper_s:.2f} s wall, peak {paper_mb:.0f} MB")
    print(f"  with issue 20's ({len(extended)} measures, 3 rarities): {more_s:.2f} s wall, peak {more_mb:.0f} MB")
    print(f"  ratio {ratio:.2f} (target <= {TARGET_RATIO})")
    scoring_only(trec8, extended)
    return 0 if ratio <= TARGET_RATIO else 1


def scoring_only(trec8: Path, extended: list[str]) -> None:
    """For information: the scoring alone (per-topic scores and means, in this process, on
    the joined matrix at depth 1000), where the new measures' own cost shows."""
    from irmeta.campaign.judge import relevance_matrix
    from irmeta.campaign.qrels import read_qrels
    from irmeta.campaign.runs import read_runs
    from irmeta.measures.averaging import score_arrays

    matrix = relevance_matrix(read_runs(trec8 / "runs", depth=1000), read_qrels(trec8 / "qrels.txt"), depth=1000)
    matrix.judged  # noqa: B018  (join the non-relevant postings outside the clock, as both need them)
    for label, measures in (("paper's", PAPER), ("with issue 20's", extended)):
        start = time.perf_counter()
        score_arrays(matrix, measures, averaging=("all",), alphas=[float(a) for a in ALPHAS])
        print(f"  scoring only, {label} measures: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    sys.exit(main())
