"""Campaign data, the lowest layer: TREC qrels and runs read with trec_eval's
semantics (:mod:`.qrels`, :mod:`.runs`), joined into the judged postings every measure
reads (:mod:`.judge`, :mod:`.postings`), stored once (:mod:`.store`), and document
rarity S_d (:mod:`.rarity`). Imports nothing of irmeta but :mod:`irmeta.support`."""
