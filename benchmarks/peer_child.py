"""One Python peer (pytrec_eval, ir_measures, ranx) timed in its own process, as its user
meets it: import, read the qrels and the runs from their files, evaluate; the result
(times and values) written as JSON for bench_peers.py.

    python benchmarks/peer_child.py score TOOL SPEC.json OUT.json
    python benchmarks/peer_child.py compare ranx SPEC.json OUT.json

SPEC holds ``qrels`` (a path) and ``runs`` ([name, path] pairs, gzipped TREC runs); for
``compare`` also ``tests`` (ranx's names: student, fisher), ``permutations`` and ``max_p``.
Every time is a pair [wall, CPU] (time.perf_counter, time.process_time, which counts
every thread of the process: numba's parallel loops included). A first call pays for
what a JIT compiles (ranx's numba); the same call again afterwards does not, so
``compile`` is the first call's time less the repeat's, reported apart from the rest.
"""

from __future__ import annotations

import gzip
import json
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MEASURES = ("P@10", "AP", "nDCG@10")  # irmeta's names; each tool's own below
PYTREC_NAMES = {"P_10": "P@10", "map": "AP", "ndcg_cut_10": "nDCG@10"}
RANX_NAMES = {"precision@10": "P@10", "map": "AP", "ndcg@10": "nDCG@10"}

Clock = list[float]  # [wall, cpu]


def timed(work: Callable[[], Any]) -> tuple[Any, Clock]:
    """(result, [wall s, CPU s]) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return result, [time.perf_counter() - wall, time.process_time() - cpu]


def minus(a: Clock, b: Clock) -> Clock:
    return [max(0.0, x - y) for x, y in zip(a, b)]


def plus(*clocks: Clock) -> Clock:
    return [sum(c[i] for c in clocks) for i in range(2)]


@dataclass
class Tool:
    """A peer as its documentation has users call it."""

    load_qrels: Callable[[str], Any]
    load_run: Callable[[str, str], Any]
    evaluator: Callable[[Any], Any]  # built once from the qrels (pytrec_eval, ir_measures)
    evaluate: Callable[[Any, Any], dict[str, float]]  # -> {irmeta's measure name: mean}


def pytrec_eval_tool() -> Tool:
    import pytrec_eval

    def load_qrels(path: str) -> dict:
        with open(path) as f:
            return pytrec_eval.parse_qrel(f)

    def load_run(path: str, name: str) -> dict:
        with gzip.open(path, "rt") as f:
            return pytrec_eval.parse_run(f)

    def evaluator(qrels: dict) -> tuple[Any, int]:
        return pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC_NAMES)), len(qrels)

    def evaluate(ev: tuple[Any, int], run: dict) -> dict[str, float]:
        per_topic, n_topics = ev[0].evaluate(run), ev[1]  # topics the run misses score 0 (trec_eval -c)
        return {ours: sum(t[theirs] for t in per_topic.values()) / n_topics for theirs, ours in PYTREC_NAMES.items()}

    return Tool(load_qrels, load_run, evaluator, evaluate)


def ir_measures_tool() -> Tool:
    import ir_measures
    from ir_measures import AP, P, nDCG

    measures = [P @ 10, AP, nDCG @ 10]

    def evaluate(ev: Any, run: list) -> dict[str, float]:
        return {str(m): float(v) for m, v in ev.calc_aggregate(run).items()}

    return Tool(lambda path: list(ir_measures.read_trec_qrels(path)),
                lambda path, name: list(ir_measures.read_trec_run(path)),
                lambda qrels: ir_measures.evaluator(measures, qrels), evaluate)


def ranx_tool() -> Tool:
    import ranx

    def evaluate(qrels: Any, run: Any) -> dict[str, float]:
        means = ranx.evaluate(qrels, run, list(RANX_NAMES))
        return {RANX_NAMES[k]: float(v) for k, v in means.items()}

    return Tool(lambda path: ranx.Qrels.from_file(path, kind="trec"),
                lambda path, name: ranx.Run.from_file(path, name=name),
                lambda qrels: qrels, evaluate)


TOOLS: dict[str, Callable[[], Tool]] = {"pytrec_eval": pytrec_eval_tool, "ir_measures": ir_measures_tool,
                                        "ranx": ranx_tool}


def load_all(tool: Tool, spec: dict) -> tuple[Any, list[Any], dict[str, Clock]]:
    """The qrels and the runs read from their files. The qrels and the first run pay for any
    compiling the readers do; both are read again at the end to price it."""
    qrels, t_qrels = timed(lambda: tool.load_qrels(spec["qrels"]))
    (name0, path0), rest = spec["runs"][0], spec["runs"][1:]
    first, t_first = timed(lambda: tool.load_run(path0, name0))
    others, t_others = timed(lambda: [tool.load_run(path, name) for name, path in rest])
    _, t_again = timed(lambda: tool.load_run(path0, name0))
    _, t_qrels_again = timed(lambda: tool.load_qrels(spec["qrels"]))
    compile_ = plus(minus(t_qrels, t_qrels_again), minus(t_first, t_again))
    return qrels, [first, *others], {"load": plus(t_qrels, t_first, t_others), "load_compile": compile_}


def score(tool_name: str, spec: dict) -> dict:
    """Import, load, evaluate every run: times and each run's means."""
    tool, t_import = timed(TOOLS[tool_name])
    qrels, runs, times = load_all(tool, spec)
    ev, t_ev = timed(lambda: tool.evaluator(qrels))
    first, t_first = timed(lambda: tool.evaluate(ev, runs[0]))
    others, t_others = timed(lambda: [tool.evaluate(ev, run) for run in runs[1:]])
    _, t_again = timed(lambda: tool.evaluate(ev, runs[0]))
    names = [name for name, _ in spec["runs"]]
    times.update({"import": t_import, "compute": plus(t_ev, t_first, t_others),
                  "compute_compile": minus(t_first, t_again)})
    return {"times": times, "means": dict(zip(names, [first, *others]))}


def ranx_compare(spec: dict) -> dict:
    """ranx.compare over every pair of the runs, per test: times and the p-values."""
    ranx, t_import = timed(lambda: __import__("ranx"))
    tool = ranx_tool()
    qrels, runs, times = load_all(tool, spec)
    _, t_eval = timed(lambda: tool.evaluate(qrels, runs[0]))  # compare evaluates each run: its compiling
    _, t_eval_again = timed(lambda: tool.evaluate(qrels, runs[0]))
    times.update({"import": t_import, "evaluate_compile": minus(t_eval, t_eval_again)})
    out: dict[str, Any] = {"times": times, "tests": {}}
    for test in spec["tests"]:
        def call(some: list, test: str = test) -> Any:
            return ranx.compare(qrels, some, list(RANX_NAMES), stat_test=test, n_permutations=spec["permutations"],
                                max_p=spec["max_p"])
        _, t_probe = timed(lambda: call(runs[:2]))  # the first call compiles; a repeat prices the compiling
        _, t_probe_again = timed(lambda: call(runs[:2]))
        report, t_compare = timed(lambda: call(runs))
        pvalues = [[*sorted(pair), RANX_NAMES[m], float(v["p_value"])]
                   for pair, per_measure in report.comparisons.items() for m, v in per_measure.items()]
        out["tests"][test] = {"compare": t_compare, "compile": minus(t_probe, t_probe_again), "p_values": pvalues}
    return out


def main(argv: list[str]) -> int:
    # ranx's precision casts uint64 to int64 (harmless here): numba warns once per process
    warnings.filterwarnings("ignore", message=".*unsafe cast from uint64 to int64")
    mode, tool_name, spec_path, out_path = argv
    with open(spec_path) as f:
        spec = json.load(f)
    result = score(tool_name, spec) if mode == "score" else ranx_compare(spec)
    with open(out_path, "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
