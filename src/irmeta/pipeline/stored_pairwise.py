"""``tables/pairwise_tests.parquet`` read one family at a time: a 500-run campaign's table
holds millions of rows (every pair of every measure, alpha and test), and counting its
significant pairs needs only one (measure, alpha) block in memory at once."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pandas as pd
import pyarrow as pa

from irmeta.metaeval.pairwise_tests import COLUMNS

Key = tuple[str, str, str]

_TEXT = ("measure", "alpha", "run_a", "run_b", "method")
_LABELS = ("measure", "alpha", "method")
#: The Arrow schema of the table: labels as text, the rest float64.
PAIRWISE_SCHEMA = pa.schema([(c, pa.string() if c in _TEXT else pa.float64()) for c in COLUMNS])


class StoredFamilies(Mapping[Key, pd.DataFrame]):
    """The rows of one (measure, alpha, method) family of a stored pairwise tests table,
    read on demand: each (measure, alpha) block once (row-group statistics skip the rest),
    split by method, and kept until another block is asked for."""

    def __init__(self, path: str | Path, columns: list[str] | None = None):
        self.path = Path(path)
        self.columns = list(columns or COLUMNS)
        self._keys = stored_keys(self.path)
        self._block: tuple[tuple[str, str], dict[str, pd.DataFrame]] | None = None

    def __iter__(self) -> Iterator[Key]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, key: Key) -> pd.DataFrame:
        measure, alpha, method = key
        if self._block is None or self._block[0] != (measure, alpha):
            import pyarrow.parquet as pq

            rows = pq.read_table(self.path, columns=self.columns,
                                 filters=[("measure", "=", measure), ("alpha", "=", alpha)]).to_pandas()
            self._block = ((measure, alpha), dict(list(rows.groupby("method", sort=False))))
        found = self._block[1].get(method)
        if found is None:
            raise KeyError(key)
        return found


def stored_keys(path: str | Path) -> list[Key]:
    """The (measure, alpha, method) families of a stored table, in order of their first row,
    read one row group at a time (a 1,000-run campaign's table has 55 M rows; finding its
    families in one go took 3.9 GB)."""
    import pyarrow.parquet as pq

    found: dict[Key, None] = {}
    with pq.ParquetFile(path, read_dictionary=list(_LABELS)) as stored:
        for group in range(stored.num_row_groups):
            labels = stored.read_row_group(group, columns=list(_LABELS)).to_pandas().drop_duplicates()
            found.update(dict.fromkeys(labels.itertuples(index=False, name=None)))
    return list(found)


def read_p_values(path: str | Path, blocks: Iterable[tuple[str, str]] | None = None) -> pd.DataFrame:
    """measure, alpha, method (categorical: a few labels over millions of rows) and
    p_value of every row of a stored pairwise tests table, or of the (measure, alpha)
    ``blocks`` given (only their row groups are read)."""
    import pyarrow.parquet as pq

    wanted = None if blocks is None else [[("measure", "=", m), ("alpha", "=", a)] for m, a in blocks]
    if wanted == []:
        return pd.DataFrame({c: pd.Series(dtype="category" if c != "p_value" else float)
                             for c in [*_LABELS, "p_value"]})
    return pq.read_table(path, columns=[*_LABELS, "p_value"], read_dictionary=list(_LABELS),
                         filters=wanted).to_pandas()
