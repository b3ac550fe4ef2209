"""Figures, PNG and PDF, byte for byte deterministic: the shared style
(:mod:`.style`), one collection's figures (:mod:`.collection`), the ASL paper's
histograms (:mod:`.asl`)."""
