"""Figure 2 of the paper: Kendall's tau-b and tau_AP between each measure's system
ranking and its baseline's, per alpha.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from irmeta.measures.averaging import Scores
from irmeta.metaeval.score_matrices import mean_table, oriented, sort_by_alpha
from irmeta.metaeval.stats.correlation import kendall_tau, tau_ap, tau_ap_symmetric

#: The forms of tau_AP (``experiments.kendall_tau.tau_ap``) and the column each fills:
#: ``reference``, Yilmaz et al.'s, the baseline as the reference ranking (the default);
#: ``symmetric``, the mean of both one-sided coefficients (Urbano and Marrero's tau_AP-b).
TAU_AP_FORMS = {"reference": "tau_ap", "symmetric": "tau_ap_symmetric"}
_TAU_AP = {"reference": tau_ap, "symmetric": tau_ap_symmetric}


def kendall_tau_table(scores: pd.DataFrame | Scores, comparisons: Sequence[dict],
                      averaging: str = "all_topics", tau_ap_forms: Sequence[str] = ("reference",)) -> pd.DataFrame:
    """Figure 2: for each measure and alpha, tau-b and tau_AP between the runs' means
    and the baseline's: a column per form of ``tau_ap_forms`` (:data:`TAU_AP_FORMS`;
    by default only ``tau_ap``, the baseline as the reference ranking). Each measure
    ranks runs in its own direction, so tau is positive when they agree."""
    unknown = [form for form in tau_ap_forms if form not in TAU_AP_FORMS]
    if unknown or not tau_ap_forms:
        raise ValueError(f"tau_ap forms must be some of {', '.join(TAU_AP_FORMS)}, not {list(tau_ap_forms)}")
    forms = [form for form in TAU_AP_FORMS if form in tau_ap_forms]  # columns in a fixed order
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
                         **{TAU_AP_FORMS[form]: _TAU_AP[form](x, reference, higher_is_better=True)
                            for form in forms},
                         "n_runs": len(x), "averaging": averaging})
    return sort_by_alpha(pd.DataFrame(rows), ["measure", "alpha"])
