"""irmeta: reproducible meta-evaluation of information retrieval metrics.

Modules, one concern each:

- :mod:`irmeta.io`: TREC qrels and runs, read with trec_eval's semantics, to arrays.
- :mod:`irmeta.ranking`: runs joined to qrels as dense (run, topic, rank) arrays.
- :mod:`irmeta.metrics`: the measure registry; P@k, AP@k and the rareness measures.
- :mod:`irmeta.rarity`: document rarity S_d, R(d), R'(d) from any subset of runs.
- :mod:`irmeta.graded`: RR, DCG/nDCG, Sakai's Q-, O-, P- and P+-measures.
- :mod:`irmeta.asl`: Atomized Search Length and the analyses of its paper.
- :mod:`irmeta.statistics`: Kendall tau, tau_AP, Tukey HSD (three ways), stability, swap method.
- :mod:`irmeta.experiments`: the paper's experiments as array computations, shardable.
- :mod:`irmeta.plots`, :mod:`irmeta.tables`: figures and the paper's tables.
- :mod:`irmeta.config`, :mod:`irmeta.download`, :mod:`irmeta.pipeline`: the workflow's steps.
- :mod:`irmeta.simulate`: a synthetic campaign, the pipeline's embedded default.
- :mod:`irmeta.cli`: ``irmeta score`` and ``irmeta simulate``.
"""

__version__ = "0.1.0"
