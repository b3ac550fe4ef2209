"""Small TREC campaigns written as real files, for tests that check the library by hand
or against slow oracles. Shared by the test modules (``from campaigns import ...``)."""

from __future__ import annotations

from pathlib import Path

from irmeta.campaign.qrels import Qrels, read_qrels
from irmeta.campaign.runs import Runs, read_runs

#: The repository's root (Snakefile, config/, workflow/), whatever the test's folder.
REPO = Path(__file__).resolve().parents[1]


def write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` (parents created); return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_campaign(root: Path, runs: dict[str, dict[str, list[str]]], qrels: dict[str, dict[str, int]],
                   *, reverse_lines: bool = False, pad_topic: str | None = None) -> tuple[Runs, Qrels]:
    """Write runs (name -> qid -> ranked docids, best first) and qrels as TREC files, read them.

    Scores strictly decrease down each list, so the intended order is the only trec_eval
    order. ``reverse_lines`` writes each file bottom-up (the reader must sort by score).
    ``pad_topic`` adds one line per run for a topic the qrels do not judge, so no run
    file is empty (the reader must ignore that topic).
    """
    run_dir = root / "runs"
    run_dir.mkdir(parents=True, exist_ok=True)
    for name, lists in runs.items():
        lines = []
        for qid, docs in lists.items():
            n = len(docs)
            lines += [f"{qid} Q0 {doc} {i + 1} {n - i} {name}\n" for i, doc in enumerate(docs)]
        if pad_topic is not None:
            lines.append(f"{pad_topic} Q0 PAD 1 1 {name}\n")
        if reverse_lines:
            lines.reverse()
        (run_dir / name).write_text("".join(lines), encoding="utf-8")
    qrels_text = "".join(f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items())
    write(root / "qrels.txt", qrels_text)
    return read_runs(run_dir), read_qrels(root / "qrels.txt")


# ------------------------------------------------------------ the ASL tiny campaign
#
# qrels: topic 1: a 1, b 1, c 2, d 1, x 0   -> relevant a b c d (n_q = 4); at threshold 2: c
#        topic 2: e 1, y 0                  -> relevant e (n_q = 1)
#        topic 3: z 0                       -> no relevant document (n_q = 0)
# Relevant qrels rows, in file order: a b c d e (columns of the per-document array).
#
# run A, topic 1: a x u b y  (R N N R N; u unjudged, y judged only for topic 2: both
#                             irrelevant here)           length 5
#        topic 2: x1 x2 e   (N N R)                      length 3
#        topic 3: z                                      length 1
# run B, topic 1: b a c z1 z2 z3 z4 (R R R N N N N)      length 7
#        topic 2: not returned
#        topic 3: z
# The runs are cut at depth 7, the deepest list: k = 7 (the "depth" alternative pads
# to the depth the runs were cut to).

ASL_QRELS = """1 0 a 1
1 0 b 1
1 0 c 2
1 0 d 1
1 0 x 0
2 0 e 1
2 0 y 0
3 0 z 0
"""
ASL_RUN_A = """1 Q0 a 1 0.9 A
1 Q0 x 2 0.8 A
1 Q0 u 3 0.7 A
1 Q0 b 4 0.6 A
1 Q0 y 5 0.5 A
2 Q0 x1 1 0.9 A
2 Q0 x2 2 0.8 A
2 Q0 e 3 0.7 A
3 Q0 z 1 0.5 A
"""
ASL_RUN_B = """1 Q0 b 1 0.9 B
1 Q0 a 2 0.8 B
1 Q0 c 3 0.7 B
1 Q0 z1 4 0.6 B
1 Q0 z2 5 0.5 B
1 Q0 z3 6 0.4 B
1 Q0 z4 7 0.3 B
3 Q0 z 1 1 B
"""


def asl_campaign(root: Path):
    """The ASL tiny campaign above, written under ``root`` and joined at depth 7."""
    from irmeta.campaign.judge import relevance_matrix

    qrels = read_qrels(write(root / "qrels.txt", ASL_QRELS))
    runs = read_runs([write(root / "runs" / "A", ASL_RUN_A), write(root / "runs" / "B", ASL_RUN_B)], depth=7)
    return relevance_matrix(runs, qrels)


def random_campaign(seed: int, *, min_runs: int = 3, hand_judged: bool = False):
    """(runs, qrels) of a small random campaign: min_runs-7 runs, 1-4 topics, lists of 0-9
    documents from 12 per topic, grades 0-2; with ``hand_judged`` each topic also has a
    judged document no run retrieves, so no topic leaves the qrels when pools shrink."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n_runs, n_topics = int(rng.integers(min_runs, 8)), int(rng.integers(1, 5))
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, list[str]]] = {f"run{s}": {} for s in range(n_runs)}
    for t in range(n_topics):
        qid = str(100 + t)
        pool = [f"q{qid}d{j:02d}" for j in range(12)]
        judged = rng.choice(12, size=int(rng.integers(1, 11)), replace=False)
        qrels[qid] = {pool[j]: int(g) for j, g in zip(judged, rng.integers(0, 3, size=len(judged)))}
        if hand_judged:
            qrels[qid][f"q{qid}hand"] = int(rng.integers(0, 2))
        for s in range(n_runs):
            length = int(rng.integers(0, 10))
            if length:
                runs[f"run{s}"][qid] = [pool[j] for j in rng.choice(12, size=length, replace=False)]
    return runs, qrels


def ranked_matrix(root: Path, qrels: dict[str, dict[str, int]], runs: dict[str, dict[str, list[str]]],
                  *, depth: int | None = None, threshold: int = 1):
    """TREC files for ``qrels`` {topic: {doc: grade}} and ``runs`` {run: {topic: [docs in
    rank order]}} (scores strictly decreasing, so trec_eval's order is the list order),
    read back with irmeta.campaign and joined."""
    from irmeta.campaign.judge import relevance_matrix

    qpath = write(root / "qrels", "".join(f"{t} 0 {d} {g}\n" for t, j in qrels.items() for d, g in j.items()))
    paths = []
    for name, topics in runs.items():
        text = "".join(f"{t} Q0 {d} {i + 1} {len(docs) - i} {name}\n"
                       for t, docs in topics.items() for i, d in enumerate(docs))
        paths.append(write(root / "runs" / name, text))
    return relevance_matrix(read_runs(paths), read_qrels(qpath), depth=depth, threshold=threshold)



# ------------------------------------------------ diversity campaigns (subtopic qrels)


def diversity_campaign(root: Path, seed: int, *, n_topics: int = 50, n_runs: int = 8, depth: int = 60
                       ) -> tuple[Path, list[Path]]:
    """Subtopic qrels (``topic subtopic docid grade``) and runs in the shape of the TREC Web
    track's diversity task, written under ``root``, deterministic from ``seed``: topics
    of 3-8 subtopics, each judged document graded for every subtopic of its topic (0-4,
    now and then -2, spam), so a document is often relevant to several; runs of up to
    ``depth`` documents mixing judged and unjudged ones. Edge cases on purpose: the last
    topic has no relevant document, a subtopic of the first has none either, one document
    of the second is judged for some of its subtopics only, the first run misses a topic,
    and every third run's scores tie in runs of three (so the tie order decides).
    Returns the qrels' path and the runs' paths."""
    import numpy as np

    rng = np.random.default_rng(seed)
    qrels_lines, pools = [], {}
    for t in range(n_topics):
        qid = str(1 + t)
        n_sub = int(rng.integers(3, 9))
        pool = [f"clueweb-{qid}-{j:04d}" for j in rng.choice(10_000, size=int(rng.integers(30, 90)), replace=False)]
        pools[qid] = pool
        for d, doc in enumerate(pool):
            covered = range(1, n_sub + 1) if not (t == 1 and d == 0) else range(1, 3)
            for s in covered:
                grade = int(rng.choice([0, 1, 2, 3, 4, -2], p=[0.72, 0.12, 0.07, 0.04, 0.02, 0.03]))
                if t == n_topics - 1 or (t == 0 and s == n_sub):
                    grade = min(grade, 0)  # no relevant document for the topic, or for the subtopic
                qrels_lines.append(f"{qid} {s} {doc} {grade}\n")
    qrels = write(root / "qrels.subtopics.txt", "".join(qrels_lines))
    paths = []
    for r in range(n_runs):
        name = f"div{r}"
        lines = []
        for qid, pool in pools.items():
            if r == 0 and qid == "2":
                continue  # the run misses a topic
            n = int(rng.integers(5, depth + 1))
            judged = [pool[j] for j in rng.choice(len(pool), size=min(len(pool), n // 2 + 1), replace=False)]
            unjudged = [f"clueweb-{qid}-x{j:04d}" for j in rng.choice(10_000, size=n - len(judged), replace=False)]
            docs = judged + unjudged
            order = rng.permutation(len(docs))
            for rank, i in enumerate(order):
                score = float(n - rank) if r % 3 else float((n - rank) // 3)  # ties in runs of three
                lines.append(f"{qid} Q0 {docs[i]} {rank + 1} {score:g} {name}\n")
        paths.append(write(root / "runs" / name, "".join(lines)))
    return qrels, paths
