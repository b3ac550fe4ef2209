"""The paper rule's inputs: every collection's experiment tables and rarity, named so
that the workflow (which lists them) and the script (which reads them) agree."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the workflow names the inputs at its parse, where pandas costs 0.3 s
    import pandas as pd

#: The experiment tables published_vs_reproduced.md reads of each collection, besides its rarity.
COLLECTION_TABLES = ("kendall_tau", "discriminative_power", "stability", "system_subsampling", "rarity_listing",
                     "synthetic_rare_common")


def paper_input(table: str, collection: str) -> str:
    """The name of a collection's table among the paper rule's inputs."""
    return f"{table}__{collection}"


def paper_inputs(collections: Iterable[str], tables: Iterable[str], *, rarity: bool = True) -> dict[str, str]:
    """Every collection's ``tables/<table>.csv`` (and ``rarity.parquet``), by :func:`paper_input`."""
    tables = list(tables)
    inputs = {}
    for name in collections:
        for table in tables:
            inputs[paper_input(table, name)] = f"results/{name}/tables/{table}.csv"
        if rarity:
            inputs[paper_input("rarity", name)] = f"results/{name}/rarity.parquet"
    return inputs


def read_collection_tables(inputs: Mapping[str, str | Path], collections: Mapping[str, str],
                           tables: Iterable[str]) -> dict[str, dict[str, pd.DataFrame]]:
    """Collection label -> table name -> frame, for the given ``tables`` of each collection."""
    from irmeta.pipeline.stored_scores import read_table

    tables = list(tables)
    return {label: {table: read_table(inputs[paper_input(table, name)], table) for table in tables}
            for name, label in collections.items()}


def read_paper_frames(inputs: Mapping[str, str | Path], collections: Mapping[str, str]
                      ) -> dict[str, dict[str, pd.DataFrame]]:
    """Collection label -> table name -> frame: the :data:`COLLECTION_TABLES` and ``rarity``
    of each collection (``collections``: name -> label)."""
    import pandas as pd

    from irmeta.pipeline.stored_scores import read_table

    frames: dict[str, dict[str, pd.DataFrame]] = {}
    for name, label in collections.items():
        frames[label] = {table: read_table(inputs[paper_input(table, name)], table) for table in COLLECTION_TABLES}
        frames[label]["rarity"] = pd.read_parquet(inputs[paper_input("rarity", name)])
    return frames


def read_swap_tables(inputs: Mapping[str, str | Path], collections: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    """Collection label -> its swap-sensitivity table."""
    from irmeta.pipeline.stored_scores import read_table

    return {label: read_table(inputs[paper_input("swap_sensitivity", name)], "swap_sensitivity")
            for name, label in collections.items()}


def add_collection_tables(tables: dict[str, dict[str, pd.DataFrame]], inputs: Mapping[str, str | Path],
                          collections: Mapping[str, str], table: str) -> dict[str, dict[str, pd.DataFrame]]:
    """``tables`` (collection label -> table name -> frame) with each collection's ``table``
    added where ``inputs`` (named by :func:`paper_input`) hold one; the others keep none."""
    from irmeta.pipeline.stored_scores import read_table

    for name, label in collections.items():
        key = paper_input(table, name)
        if key in inputs:
            tables[label][table] = read_table(inputs[key], table)
    return tables
