"""What the experiment rules need around their :mod:`irmeta.metaeval` calls: the settings
whose default depends on the collection (resolved once the collection is read), and the
tables the workflow assembles from several calls. Which experiments a collection runs or
skips, and why, is the manifest's (:mod:`irmeta.pipeline.manifest`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from irmeta.campaign.postings import RelevanceMatrix
from irmeta.campaign.rarity import listing_columns
from irmeta.metaeval.stats.stability_trials import topics_per_trial_default
from irmeta.support.formats import markdown_escape


def experiments_listing(collection: str, ran: Mapping[str, str], skipped: Mapping[str, str]) -> str:
    """``experiments.md``: what ran on a collection (with its table) and what was skipped and
    why; names escaped as every Markdown irmeta writes (:mod:`irmeta.support.formats`)."""
    e = markdown_escape
    lines = [f"# Experiments on {e(collection)}", "", "| experiment | status | table or reason |", "|---|---|---|"]
    lines += [f"| {e(name)} | ran | {e(table)} |" for name, table in ran.items()]
    lines += [f"| {e(name)} | skipped | {e(reason)} |" for name, reason in skipped.items()]
    return "\n".join(lines) + "\n"


def stability_topics_per_trial(configured: int | None, n_topics: int) -> int:
    """T, the topics of a stability trial: ``experiments.stability.topics_per_trial``, or
    when null round(n_topics / 2) as the paper (:func:`topics_per_trial_default`)."""
    return configured or topics_per_trial_default(n_topics)


def swap_topic_set_size(settings: Mapping[str, Any], n_topics: int) -> int:
    """c, the topics of each of a swap trial's two sets: ``experiments.swap.topic_set_size``,
    or when null what :func:`irmeta.metaeval.stats.swap_trials.draw_topic_pairs` draws:
    n (bootstrap) or n // 2 (disjoint halves)."""
    if settings["topic_set_size"]:
        return settings["topic_set_size"]
    return n_topics if settings["sampling"] == "bootstrap" else n_topics // 2


def check_swap_topic_set_size(settings: Mapping[str, Any], n_topics: int, collection: str) -> None:
    """``experiments.swap.topic_set_size`` within what ``sampling`` can draw from the
    collection's ``n_topics`` topics; a ValueError naming the key, the range and the
    collection otherwise (the config cannot know the topics before the collection is read)."""
    from irmeta.metaeval.stats.swap_trials import topic_set_limit

    c, sampling = settings["topic_set_size"], settings["sampling"]
    limit, why = topic_set_limit(n_topics, sampling)
    if c is not None and not 1 <= c <= limit:
        raise ValueError(f"experiments.swap.topic_set_size must be at most {limit} ({why} of {collection}) "
                         f"with sampling {sampling}, not {c}: lower it, or set null for "
                         f"{'n' if sampling == 'bootstrap' else 'n // 2'}")


def synthetic_topic(matrix: RelevanceMatrix, configured: str | None) -> str:
    """Figure 1's topic: the collection's ``synthetic_topic``, or the topic with the most
    relevant documents (the first such in topic order)."""
    return configured or matrix.topics[int(np.argmax(matrix.n_relevant))]


def rarity_listing_table(rarity: pd.DataFrame, topics: Sequence[str]) -> pd.DataFrame:
    """Table 4: ``rarity.parquet``'s rows of ``topics`` (every topic when empty), the
    rarest first within each topic and depth, with the columns of
    :data:`irmeta.campaign.rarity.LISTING_COLUMNS`. A topic without relevant documents, or
    not in the qrels, is an error: the listing would silently lack it."""
    topics = list(topics)
    if topics:
        missing = sorted(set(topics) - set(rarity["qid"]))
        if missing:
            raise ValueError(f"listing_topics not in the qrels (or without relevant documents): {missing}")
        rarity = rarity[rarity["qid"].isin(topics)]
    return listing_columns(rarity).sort_values(["qid", "depth", "rarity", "docid"],
                                               ascending=[True, True, False, True], kind="stable")


def write_experiments_listing(out: str | Path, label: str, tables: Sequence[str | Path],
                              skipped: Mapping[str, str]) -> str:
    """``experiments.md`` of a collection (:func:`experiments_listing`; ``tables``: the
    tables that ran), atomically; returns what its log says."""
    from irmeta.support.atomic import atomic_write_text

    ran = {Path(path).stem: str(path) for path in tables}
    atomic_write_text(out, experiments_listing(label, ran, dict(skipped)))
    return f"wrote {out}: {len(ran)} ran, {len(skipped)} skipped"
