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
(``irmeta.compare``) and :mod:`irmeta.cli` (``irmeta score``, ``irmeta compare``,
``irmeta simulate``).
"""

__version__ = "0.1.0"

# What `import irmeta` offers, loaded on first use so that it stays light: name -> the
# module that holds it. One table for the attributes (__getattr__) and for dir(irmeta),
# so that tab completion shows them.
_LAZY = {
    **{name: "irmeta.api" for name in ("evaluate", "score", "scores_frame", "score_matrices", "kendall_tau_table",
                                        "discriminative_power_table", "pairwise_tests_table", "stability_table",
                                        "swap_sensitivity_table")},
    "compare": "irmeta.comparison",  # irmeta compare's table
    "agree": "irmeta.agreement",  # irmeta agree's tables
    "repro": "irmeta.reproduction",  # irmeta repro's table
    "register_measure": "irmeta.measures.plugins",
    "register_imported_measure": "irmeta.measures.plugins",
    "register_test": "irmeta.metaeval.stats.own_tests",  # a paired significance test of one's own
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'irmeta' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
