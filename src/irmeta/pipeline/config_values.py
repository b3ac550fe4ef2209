"""Checks of config and collection values that the JSON schemas cannot state, each a
ValueError of one line naming the key and the value; :mod:`irmeta.pipeline.config`
puts the file in front (kept here so that module stays small)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def check_alternative_names(names: Iterable[str]) -> None:
    """A collection's ``alternative_qrels`` leave the names the results use free: the
    reference's (``qrels``) and the generated sets'
    (:func:`irmeta.metaeval.judgment_reduction.check_alternative_name`)."""
    from irmeta.metaeval.judgment_reduction import check_alternative_name

    for name in names:
        try:
            check_alternative_name(name)
        except ValueError as exc:
            raise ValueError(f"key 'alternative_qrels.{name}': {exc}") from None


def check_measure_options(config: Mapping[str, Any]) -> None:
    """``measure_options.gains`` is a map of integer grades to finite gains >= 0
    (:func:`irmeta.measures.graded.normalise_gains`), whichever measures read it: a key
    'a' or 1.5 is refused here, not met later as a measure name that does not parse."""
    from irmeta.measures.graded import normalise_gains

    gains = (config.get("measure_options") or {}).get("gains")
    try:
        normalise_gains(gains)
    except ValueError as exc:
        detail = str(exc).removeprefix("gains: ")
        raise ValueError(f"key 'measure_options.gains': {detail}") from None
