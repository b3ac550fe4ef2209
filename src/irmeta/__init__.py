"""irmeta: reproducible meta-evaluation of information retrieval metrics.

Packages by layer; each imports only the layers below it (``tests/unit/test_layers.py``):

- :mod:`irmeta.support`: atomic writes, Arrow helpers, progress (used by every layer).
- :mod:`irmeta.campaign`: TREC qrels and runs read with trec_eval's semantics, the
  judged postings every measure reads, stored once, and document rarity S_d.
- :mod:`irmeta.measures`: the name grammar and registry, one module per family (P/AP,
  the rareness measures, trec_eval's binary measures, graded measures, ASL), averaging.
- :mod:`irmeta.metaeval`: statistics (:mod:`irmeta.metaeval.stats`) and one module per
  experiment (Kendall tau, discriminative power, stability, system subsampling,
  synthetic systems, swap sensitivity, the ASL paper's analyses).
- :mod:`irmeta.artefacts`: labels, tables (CSV, Markdown, LaTeX), figures, and the
  paper's own tables and published-versus-reproduced report.

Beside them, importing from any layer: :mod:`irmeta.pipeline` (the workflow's config,
steps and script helpers), :mod:`irmeta.simulate` (a synthetic campaign),
:mod:`irmeta.api` (``irmeta.evaluate``, the Python API), :mod:`irmeta.comparison`
(``irmeta.compare``), :mod:`irmeta.error_rates` (``irmeta.test_errors``) and
:mod:`irmeta.cli` (``irmeta score``, ``irmeta compare``, ``irmeta test-errors``,
``irmeta simulate``).
"""

__version__ = "0.1.0"

# The Python API (irmeta.api), loaded on first use so that `import irmeta` stays light.
_API = ("evaluate", "score", "scores_frame", "score_matrices", "kendall_tau_table", "discriminative_power_table",
        "pairwise_tests_table", "stability_table", "swap_sensitivity_table")


def __getattr__(name: str):
    if name in _API:
        from irmeta import api

        return getattr(api, name)
    if name == "compare":  # irmeta compare's table (irmeta.comparison)
        from irmeta.comparison import compare

        return compare
    if name == "agree":  # irmeta agree's tables (irmeta.agreement)
        from irmeta.agreement import agree

        return agree
    if name == "test_errors":  # irmeta test-errors' tables (irmeta.error_rates)
        from irmeta.error_rates import test_errors

        return test_errors
    if name == "repro":  # irmeta repro's table (irmeta.reproduction)
        from irmeta.reproduction import repro

        return repro
    if name in ("register_measure", "register_imported_measure"):
        from irmeta.measures import plugins

        return getattr(plugins, name)
    if name == "register_test":  # a paired significance test of one's own
        from irmeta.metaeval.stats.own_tests import register_test

        return register_test
    raise AttributeError(f"module 'irmeta' has no attribute {name!r}")
