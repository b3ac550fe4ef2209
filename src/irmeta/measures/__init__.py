"""Measures, above campaign data: the name grammar (:mod:`.names`), alpha
(:mod:`.alpha`) and the registry (:mod:`.registry`) at the base, one module per family
(:mod:`.precision`, :mod:`.rareness`, :mod:`.binary`, :mod:`.graded`, :mod:`.asl`), and
per-topic scores with their means (:mod:`.averaging`).

Importing this package registers every family; the registry itself imports none.
"""

from irmeta.measures import asl, binary, graded, precision, rareness  # noqa: F401  (register the families)
