"""MkDocs hook: the generated reference pages (filled in later)."""
