"""The README's Python examples run as written (doctest over README.md)."""

from __future__ import annotations

import doctest

from campaigns import REPO


def test_readme_examples_run():
    failures, tried = doctest.testfile(str(REPO / "README.md"), module_relative=False,
                                       optionflags=doctest.ELLIPSIS)
    assert tried >= 5 and failures == 0
