"""Agreement at the top of two system rankings of the same runs: is the best run the same,
how many of the top 5 and top 10 both rankings share, and which run moves farthest.

Both rankings are the runs' means oriented best first (a lower-is-better measure negated,
as ``judgment_agreement.csv``'s Kendall tau and tau_AP read them), listed by
:func:`~irmeta.metaeval.stats.correlation.ranking`: best mean first, runs of equal means
in ascending order of their names (code points), the one tie rule of every ranking irmeta
lists (rank-biased overlap too). Ranks are 1-based positions in that list.

- ``top1_same``: the first run of both lists is the same run;
- ``top<k>_overlap``: |top_k(reference) & top_k(judgments)| / k, the share of the k best
  runs both lists hold (Voorhees 2000 reads the top of the ranking so); missing (NaN, an
  empty cell in a table) when there are fewer than k runs: no top k to compare;
- ``largest_rank_change``: max over runs of |rank_judgments(r) - rank_reference(r)|;
  ``largest_rank_change_run``: the run that changes most, the one ranked highest by the
  reference among several that change as much; ``""`` when no run moves (the change is 0).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from irmeta.metaeval.stats.correlation import ranking

#: The top-k overlaps ``judgment_agreement.csv`` reports, k each.
TOP_K = (5, 10)

#: The columns :func:`top_agreement` returns, in order.
TOP_COLUMNS = ("top1_same", *(f"top{k}_overlap" for k in TOP_K), "largest_rank_change", "largest_rank_change_run")


def ranks(means: np.ndarray, runs: Sequence[str]) -> np.ndarray:
    """(runs,) int: each run's 1-based rank in :func:`ranking` of ``means`` (best first,
    ties by name), in the order of ``runs``."""
    position = {run: i for i, run in enumerate(ranking(means, list(runs)))}
    return np.array([position[run] + 1 for run in runs], dtype=np.int64)


def top_agreement(reference_means: np.ndarray, judgments_means: np.ndarray, runs: Sequence[str]) -> dict:
    """The :data:`TOP_COLUMNS` of two orientations of the same runs' means (higher better)."""
    runs = [str(r) for r in runs]
    if len(set(runs)) != len(runs):
        raise ValueError("run names must be distinct to rank them")
    reference = ranking(reference_means, runs)
    judgments = ranking(judgments_means, runs)
    row: dict[str, object] = {"top1_same": bool(runs) and reference[0] == judgments[0]}
    for k in TOP_K:
        shared = len(set(reference[:k]) & set(judgments[:k]))
        row[f"top{k}_overlap"] = shared / k if len(runs) >= k else np.nan
    change = np.abs(ranks(judgments_means, runs) - ranks(reference_means, runs))
    largest = int(change.max()) if len(runs) else 0
    row["largest_rank_change"] = largest
    # the first run of the reference's list among those that move most
    moved = {run for run, c in zip(runs, change) if c == largest}
    row["largest_rank_change_run"] = next(run for run in reference if run in moved) if largest else ""
    return row
