"""Figure 2 of the paper: Kendall's tau-b and tau_AP between each measure's system
ranking and its baseline's, per alpha.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from irmeta.measures.averaging import Scores
from irmeta.metaeval.score_matrices import mean_table, oriented, sort_by_alpha
from irmeta.metaeval.stats.correlation import kendall_tau, tau_ap


def kendall_tau_table(scores: pd.DataFrame | Scores, comparisons: Sequence[dict],
                      averaging: str = "all_topics") -> pd.DataFrame:
    """Figure 2: for each measure and alpha, tau-b and tau_AP between the runs' means
    and the baseline's (tau_AP with the baseline as the reference ranking). Each
    measure ranks runs in its own direction, so tau is positive when they agree."""
    means = scores.mean_frame(averaging) if isinstance(scores, Scores) else mean_table(scores, averaging)
    rows = []
    for comparison in comparisons:
        measure, baseline = comparison["measure"], comparison["baseline"]
        # Both rankings best first: a lower-is-better measure (ASL) is negated, exactly.
        reference = oriented(means[(baseline, "")].to_numpy(), baseline)
        for (name, alpha), column in means.items():
            if name != measure:
                continue
            x = oriented(column.to_numpy(), measure)
            rows.append({"measure": measure, "baseline": baseline, "alpha": alpha,
                         "tau": kendall_tau(x, reference),
                         "tau_ap": tau_ap(x, reference, higher_is_better=True),
                         "n_runs": len(x), "averaging": averaging})
    return sort_by_alpha(pd.DataFrame(rows), ["measure", "alpha"])
