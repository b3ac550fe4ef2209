"""``tables/pairwise_tests.parquet`` read one family at a time: a 500-run campaign's table
holds millions of rows (every pair of every measure, alpha and test), and counting its
significant pairs needs only one (measure, alpha) block in memory at once."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import pandas as pd
import pyarrow as pa

from irmeta.metaeval.pairwise_tests import COLUMNS
from irmeta.support.atomic import atomic_path

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


#: A shard's metadata key: per block written, the index of its score matrix and its rows.
_BLOCKS = b"irmeta.blocks"


def write_pairwise_shard(blocks: Iterable[tuple[int, pd.DataFrame]], out: str | Path, settings: dict) -> None:
    """One shard of the pairwise tests (``blocks``: each score matrix's index and rows, as
    :func:`~irmeta.metaeval.pairwise_tests.pairwise_test_blocks` yields them), atomically:
    each block one row group, and which matrix it is in the metadata, so that
    :func:`gather_pairwise_shards` orders the blocks by matrix whatever the shards."""
    import pyarrow.parquet as pq

    schema = PAIRWISE_SCHEMA.with_metadata({"irmeta": json.dumps(settings)})
    written: list[tuple[int, int]] = []
    with atomic_path(out) as tmp:
        with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
            for index, block in blocks:
                table = pa.Table.from_pandas(block, preserve_index=False).select(schema.names).cast(schema)
                if table.num_rows:
                    writer.write_table(table, row_group_size=table.num_rows)
                written.append((int(index), table.num_rows))
            writer.add_key_value_metadata({_BLOCKS: json.dumps(written)})


def gather_pairwise_shards(inputs: Sequence[str | Path], out: str | Path) -> int:
    """The shards of :func:`write_pairwise_shard` in one file, atomically: the blocks in the
    order of their score matrices (the same bytes whatever the shards), each one row group,
    one in memory at a time; the settings of the first shard. Returns the rows."""
    import pyarrow.parquet as pq

    sources = [pq.ParquetFile(path) for path in inputs]
    if not sources:
        raise ValueError("no pairwise test shards to gather")
    placed: dict[int, tuple[int, int, int]] = {}  # matrix -> (source, first row, rows)
    for s, (path, source) in enumerate(zip(inputs, sources)):
        if source.schema_arrow.remove_metadata() != PAIRWISE_SCHEMA:
            raise ValueError(f"{path}: its columns are not those of the pairwise tests")
        stored = (source.metadata.metadata or {}).get(_BLOCKS)
        if stored is None:
            raise ValueError(f"{path}: not a shard of the pairwise tests (no {_BLOCKS.decode()} metadata)")
        first = 0
        for index, rows in json.loads(stored):
            if index in placed:
                raise ValueError(f"{path}: score matrix {index} is in two shards")
            placed[index] = (s, first, rows)
            first += rows
    metadata = {k: v for k, v in (sources[0].schema_arrow.metadata or {}).items() if k != _BLOCKS}
    total = 0
    with atomic_path(out) as tmp:
        with pq.ParquetWriter(tmp, PAIRWISE_SCHEMA.with_metadata(metadata), compression="zstd") as writer:
            for index in sorted(placed):
                s, first, rows = placed[index]
                if rows:
                    writer.write_table(_row_range(sources[s], first, rows).replace_schema_metadata(metadata),
                                       row_group_size=rows)
                total += rows
    return total


def _row_range(source, first: int, rows: int) -> pa.Table:
    """Rows [first, first + rows) of a Parquet file, reading only the row groups they span."""
    groups, offsets, start = [], [], 0
    for g in range(source.num_row_groups):
        n = source.metadata.row_group(g).num_rows
        if start < first + rows and start + n > first:
            groups.append(g)
            offsets.append(start)
        start += n
    if not groups:
        raise ValueError(f"rows {first}..{first + rows} are past the end of the shard")
    table = source.read_row_groups(groups)
    return table.slice(first - offsets[0], rows)
