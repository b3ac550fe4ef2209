"""The paper's own artefacts: its Tables 1 to 3 across collections (:mod:`.tables`),
and every published figure next to the reproduced one
(:mod:`.published_vs_reproduced`, built from :mod:`.published_tables` and
:mod:`.published_figures` on :mod:`.report`)."""
