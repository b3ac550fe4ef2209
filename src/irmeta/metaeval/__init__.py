"""Meta-evaluation, above measures: the statistics (:mod:`.stats`) and one module per
experiment, each with its shard and table functions: :mod:`.kendall_tau`,
:mod:`.discriminative_power`, :mod:`.stability`, :mod:`.system_subsampling`,
:mod:`.synthetic_rare_common`, :mod:`.swap_sensitivity`, :mod:`.asl_analysis`, reading
the score matrices of :mod:`.score_matrices`. Imports nothing of the artefacts or the
workflow glue.

Randomness: trial ``t`` draws from ``numpy.random.default_rng([seed, t])``, so results do
not depend on how the trials are split into shards or blocks.
"""
