"""Scores and tables on disk: ``scores.parquet`` (built block by block), ``scores.npz``
(one block per measure and alpha, which the experiments load), CSV tables.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from irmeta.measures.alpha import Alpha, alpha_label
from irmeta.measures.averaging import Scores
from irmeta.measures.names import Measure
from irmeta.support.atomic import atomic_path, atomic_save_npz, write_parquet
from irmeta.support.checksum import load_npz
from irmeta.support.formats import refuse_infinite_cells, refuse_non_finite_scores

if TYPE_CHECKING:  # pandas where a frame is read: a job that writes arrays never imports it (0.2 s)
    import pandas as pd


def write_scores(scores: Scores, path: str | Path, settings: dict) -> None:
    """``scores.npz``: one array per block of per-topic scores (a job loads the blocks it
    needs), the means, the labels and the settings; atomically."""
    _refuse_non_finite(scores)
    arrays = {f"per_topic_{i}": block for i, block in enumerate(scores.per_topic)}
    arrays |= {f"mean_{name}": means for name, means in scores.means.items()}
    meta = {"runs": scores.runs, "topics": scores.topics, "measures": scores.measures, "alphas": scores.alphas,
            "averaging": list(scores.means), "settings": settings}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    atomic_save_npz(path, arrays)


def _refuse_non_finite(scores: Scores) -> None:
    """A score that is not finite is a bug upstream: the job stops naming measure and run."""
    labels = [str(m) for m in scores.labelled()]
    refuse_non_finite_scores(scores.per_topic, scores.means, scores.runs, scores.topics, labels)


def load_scores(path: str | Path, measures: Sequence[str | Measure] | None = None,
                alphas: Sequence[Alpha] | None = None) -> Scores:
    """Scores written by :func:`write_scores`: every block, or those of ``measures`` (and,
    for measures with one, ``alphas``; by their canonical names); only those blocks are read,
    their names read back once, here."""
    wanted = None if measures is None else {str(m) for m in measures}
    wanted_alphas = None if alphas is None else {alpha_label(a) for a in alphas}
    with load_npz(path) as stored:
        meta = json.loads(stored["meta"].tobytes())
        keep = [i for i, (m, a) in enumerate(zip(meta["measures"], meta["alphas"]))
                if (wanted is None or m in wanted) and (a is None or wanted_alphas is None or a in wanted_alphas)]
        n_runs, n_topics = len(meta["runs"]), len(meta["topics"])
        per_topic = np.stack([stored[f"per_topic_{i}"] for i in keep]) if keep else np.zeros((0, n_runs, n_topics))
        means = {name: stored[f"mean_{name}"][keep] for name in meta["averaging"]}
    return Scores(runs=meta["runs"], topics=meta["topics"], measures=[meta["measures"][i] for i in keep],
                  alphas=[meta["alphas"][i] for i in keep], per_topic=per_topic, means=means)


def scores_arrow_blocks(scores: Scores):
    """The long scores table (as :meth:`Scores.to_frame`) as Arrow tables, one per block,
    with dictionary-encoded names: never the whole table in memory at once."""
    _refuse_non_finite(scores)
    n_runs, n_topics = len(scores.runs), len(scores.topics)
    runs = pa.array(scores.runs, pa.string())
    qids = pa.array(scores.topics + ["all"], pa.string())
    measures = pa.array(list(dict.fromkeys(scores.measures)), pa.string())
    labels = sorted({a for a in scores.alphas if a is not None})
    alphas = pa.array(labels, pa.string())
    averaging = pa.array(list(scores.means), pa.string())
    run_codes = np.repeat(np.arange(n_runs, dtype=np.int32), n_topics)
    qid_codes = np.tile(np.arange(n_topics, dtype=np.int32), n_runs)

    def column(codes, dictionary, valid=True):
        mask = None if valid else np.ones(len(codes), dtype=bool)
        return pa.DictionaryArray.from_arrays(pa.array(codes, pa.int32(), mask=mask), dictionary)

    for i, (measure, alpha) in enumerate(zip(scores.measures, scores.alphas)):
        m_code = measures.index(measure).as_py()
        a_code = labels.index(alpha) if alpha is not None else 0
        parts = [(run_codes, qid_codes, scores.per_topic[i].reshape(-1), None)]
        parts += [(np.arange(n_runs, dtype=np.int32), np.full(n_runs, n_topics, np.int32), means[i], j)
                  for j, means in enumerate(scores.means.values())]
        for r, q, value, mode in parts:
            n = len(value)
            yield pa.table({
                "run": column(r, runs), "qid": column(q, qids),
                "measure": column(np.full(n, m_code, np.int32), measures),
                "alpha": column(np.full(n, a_code, np.int32), alphas, alpha is not None),
                "value": pa.array(value, pa.float64()),
                "averaging": column(np.full(n, mode or 0, np.int32), averaging, mode is not None),
            })


def write_frame(frame: pd.DataFrame, out: str | Path, settings: dict) -> None:
    """A DataFrame to Parquet, atomically, with the settings that produced it as metadata."""
    arrow = pa.Table.from_pandas(frame, preserve_index=False)
    write_parquet(arrow.replace_schema_metadata({"irmeta": json.dumps(settings)}), out)


def write_csv(frame: pd.DataFrame, out: str | Path) -> None:
    """A table as CSV, atomically, with fixed formatting (same inputs, same bytes);
    +-infinity refused, NaN an empty cell (:mod:`irmeta.support.formats`)."""
    refuse_infinite_cells(frame, Path(out).name)
    with atomic_path(out) as tmp:
        frame.to_csv(tmp, index=False, lineterminator="\n")


def write_table_in_blocks(blocks, out: str | Path, settings: dict, schema: pa.Schema | None = None) -> None:
    """Arrow tables of one schema to one Parquet file, block by block, atomically, with
    the settings that produced them as metadata. With ``schema``, blocks are cast to it
    and no block still writes a file (with no rows), so a shard left empty has one."""
    import pyarrow.parquet as pq

    metadata = {"irmeta": json.dumps(settings)}
    with atomic_path(out) as tmp:
        writer = None
        for block in blocks:
            if schema is not None:
                block = block.select(schema.names).cast(schema)
            block = block.replace_schema_metadata(metadata)
            if writer is None:
                writer = pq.ParquetWriter(tmp, block.schema, compression="zstd")
            writer.write_table(block)
        if writer is None and schema is not None:
            writer = pq.ParquetWriter(tmp, schema.with_metadata(metadata), compression="zstd")
        if writer is not None:
            writer.close()


# Read as text: alpha labels as the scores wrote them ("1/R"; "1" and "1.0" must not merge)
# and topic ids ("051" is not 51). Figure 1's alpha is a grid of plain numbers, the error
# rates' a significance level (their measure names carry the rarity weight).
_TEXT_COLUMNS = {"alpha": str, "topic": str, "qid": str}
_TEXT_COLUMNS_OF = {"synthetic_rare_common": {"topic": str}, "test_error_rates": {}}


def read_table(path: str | Path, table: str | None = None) -> pd.DataFrame:
    """An experiment table written by :func:`write_csv`, its label columns as text.
    ``table``: the table's name (default: the file's, ``tables/<table>.csv``)."""
    import pandas as pd

    name = table or Path(path).stem
    return pd.read_csv(path, dtype=_TEXT_COLUMNS_OF.get(name, _TEXT_COLUMNS))


def read_shards(paths: Sequence[str | Path]) -> list[pd.DataFrame]:
    """The Parquet shards of a randomised experiment, in shard order."""
    import pandas as pd

    return [pd.read_parquet(path) for path in paths]


def merged_shards(paths: Sequence[str | Path]) -> pd.DataFrame | None:
    """Every shard's rows in one frame, in shard order; None without shards."""
    import pandas as pd

    return pd.concat(read_shards(paths), ignore_index=True) if len(paths) else None
