"""irmeta: reproducible meta-evaluation of information retrieval metrics.

Modules, one concern each:

- :mod:`irmeta.io`: TREC qrels and runs, read with trec_eval's semantics, to arrays.
- :mod:`irmeta.ranking`: runs joined to qrels as dense (run, topic, rank) arrays.
- :mod:`irmeta.metrics`: classic measures (P@k, AP@k) vectorised over runs and topics.
- :mod:`irmeta.simulate`: a synthetic campaign, the pipeline's embedded default.
"""

__version__ = "0.1.0"
