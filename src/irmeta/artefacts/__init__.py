"""Artefacts, the top of the library: labels (:mod:`.labels`), tables in CSV, Markdown
and LaTeX (:mod:`.tables`), figures (:mod:`.figures`), and the paper's own tables and
published-versus-reproduced report (:mod:`.paper`)."""
