"""Measures, above campaign data: the name grammar (:mod:`.names`), alpha
(:mod:`.alpha`) and the registry (:mod:`.registry`) at the base, one module per family
(:mod:`.precision`, :mod:`.rareness`, :mod:`.binary`, :mod:`.graded`, :mod:`.asl`,
:mod:`.counts`, :mod:`.interpolated`, :mod:`.gain_trec` (trec_eval's others, issue 42),
:mod:`.group_averaged` (trec_eval's ``*_avgjg``),
:mod:`.graded_rareness`, :mod:`.rank_biased`, :mod:`.incomplete`, :mod:`.diversity`), and
per-topic scores with their means (:mod:`.averaging`).

Importing this package registers every family; the registry itself imports none.
"""

import irmeta.measures.accuracy  # noqa: F401  (ir_measures' Accuracy: issue 42)
import irmeta.measures.compatibility  # noqa: F401  (ir_measures' Compat: issue 42)
import irmeta.measures.cwl  # noqa: F401  (cwl_eval's INST, INSQ, SDCG, NERR8-11, BPM: issue 42)
import irmeta.measures.diversity  # noqa: F401  (ndeval's alpha-nDCG, ERR-IA, NRBP...: issue 42)
import irmeta.measures.hits  # noqa: F401  (ranx's Hits, F1: issue 42)
import irmeta.measures.incomplete  # noqa: F401  (infAP, Judged: issue 19)
from irmeta.measures import (  # noqa: F401  (register the families; nDCG_rareness, RBP, ERR: issue 20)
    asl,
    binary,
    counts,
    gain_trec,
    graded,
    graded_rareness,
    group_averaged,
    interpolated,
    precision,
    rank_biased,
    rareness,
)
