"""The statistics of meta-evaluation, on (runs, topics) score matrices: rank
correlation (:mod:`.correlation`; with ties, Kendall's tau and tau_AP in Urbano and
Marrero's a and b variants, :mod:`.rank_agreement`, and Corsi and Urbano's tie-aware
rank-biased overlap, :mod:`.overlap`, importable from here), Tukey HSD three ways (:mod:`.tukey_hsd`),
Buckley-Voorhees stability (:mod:`.stability_trials`), the swap method
(:mod:`.swap_trials`), the paired tests over every run pair (:mod:`.paired_tests`,
Wilcoxon's in :mod:`.signed_rank`, the randomised ones in :mod:`.resampling_tests`, their
blocks of pairs in :mod:`.pair_differences`), and what the randomised ones share
(:mod:`.blocks`).

Run pairs are always listed in ``np.triu_indices(runs, 1)`` order (:func:`.blocks.run_pairs`).
Run means are exact means (a sorted sum, :func:`irmeta.measures.averaging.exact_mean`),
so runs with the same multiset of scores get bit-identical means and identical runs a
difference of exactly 0 (docs/PROTOCOL.md, Numerical care). Two statistics compare
means only against thresholds padded by a tolerance (1e-12, far above rounding, far
below any real difference), and there cheaper sums are used, the verdicts being the
same: the permutation null and the stability trials' means. The randomised paired tests
likewise take their per-draw sums from products shared by all pairs, and a pair whose
verdict the products' rounding bound could change is recomputed from its own differences.
"""

import importlib
from typing import Any

#: The names importable from here, each from its module, loaded when first asked for: a
#: job importing one statistic does not pay for the others.
_EXPORTS = {"rbo": "overlap", "tied_ranking": "overlap", "tau_a": "rank_agreement", "tau_ap_a": "rank_agreement",
            "tau_ap_b": "rank_agreement", "tau_b": "rank_agreement"}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
