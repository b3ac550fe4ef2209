"""Small TREC campaigns written as real files, for tests that check the library by hand
or against slow oracles. Shared by the test modules (``from campaigns import ...``)."""

from __future__ import annotations

from pathlib import Path
from irmeta.campaign.qrels import Qrels, read_qrels
from irmeta.campaign.runs import Runs, read_runs




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
