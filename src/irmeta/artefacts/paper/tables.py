"""The paper's Tables 1 to 3 and Sakai's swap table across collections, in the
paper's layout, from the per-collection experiment tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from irmeta.artefacts.labels import alpha_display, paper_label
from irmeta.artefacts.tables import is_missing
from irmeta.measures.alpha import alpha_cell, alpha_sort_key

#: Keys of one collection's entry in ``reproduced`` (the pipeline's table names).
REPRODUCED_KEYS = ("kendall_tau", "discriminative_power", "stability", "system_subsampling",
                   "synthetic_rare_common", "rarity")


TABLE_ALIASES = {"rarity_all": "rarity", "rarity_listing": "rarity", "synthetic": "synthetic_rare_common"}


#: What the paper states about its own protocol and is not a table entry of
#: published.yaml (section 4.4 and Algorithm 1: R = 1000 trials; section 3: the topic).
PAPER_TRIALS = 1000


FIGURE1_COLLECTION = "DLT20"


FIGURE1_TOPIC = "1127540"


TABLE3_COLLECTION = "TREC-8"


TABLE4_COLLECTION = "TREC-8"


def with_keys(frame: pd.DataFrame) -> pd.DataFrame:
    if "alpha" not in frame.columns or "measure" not in frame.columns:
        raise ValueError("table needs the columns measure and alpha")
    return frame.assign(_alpha_key=frame["alpha"].map(alpha_cell))


def select_rows(frame: pd.DataFrame, measure: str, key: str) -> pd.DataFrame:
    return frame[(frame["measure"] == measure) & (frame["_alpha_key"] == key)]


def _paper_rows(frames: Iterable[pd.DataFrame], alphas: Sequence[str] | None, include_norm: bool,
                cutoff: int) -> list[tuple[str, str, str, str]]:
    """(Metric label, alpha as printed, measure, alpha key) in the paper's row order."""
    frames = list(frames)
    rows = []
    for family in ("P", "AP"):
        base = f"{family}@{cutoff}"
        rows.append((paper_label(base), "0.0", base, ""))
        for norm in (False, True) if include_norm else (False,):
            measure = f"{family}_rareness{'_norm' if norm else ''}@{cutoff}"
            if alphas is None:
                keys = sorted({k for f in frames for k in f.loc[f["measure"] == measure, "_alpha_key"] if k},
                              key=alpha_sort_key)
            else:
                keys = [alpha_cell(a) for a in alphas]
            rows += [(paper_label(measure), alpha_display(k), measure, k) for k in keys]
    return rows


def single_value(rows: pd.DataFrame, column: str, what: str) -> object:
    if rows.empty:
        return pd.NA
    values = rows[column].unique()
    if len(values) > 1:
        raise ValueError(f"{what}: {len(rows)} rows with different {column} ({sorted(map(str, values))}); "
                         "select the setting first")
    return values[0]


def level_label(level: float) -> str:
    return f"{100 * (1 - float(level)):g}%"


def paper_table1(
    dp: Mapping[str, pd.DataFrame],
    method: str = "paper_pairwise",
    alphas: Sequence[str] | None = ("0.5", "1"),
    *,
    levels: Sequence[float] = (0.05, 0.01),
    include_norm: bool = False,
    cutoff: int = 100,
) -> pd.DataFrame:
    """Table 1: significantly different pairs, the paper's layout.

    ``dp`` maps a collection label to its ``discriminative_power`` table. Rows: P@100
    (alpha shown as 0.0), P@100_rareness at each of ``alphas``, AP, AP_rareness at each
    of ``alphas`` (``alphas=None``: every alpha present, ``1/R`` last; ``include_norm``
    adds the [0, 1] forms, P'@100_rareness and AP'_rareness). Columns: ``Metric``,
    ``alpha``, then ``"<label> 95%"`` and ``"<label> 99%"`` per collection (one per
    level). Counts are integers, missing ones <NA>.
    """
    frames = {label: with_keys(frame[frame["method"] == method]) for label, frame in dp.items()}
    spec = _paper_rows(frames.values(), alphas, include_norm, cutoff)
    out = pd.DataFrame({"Metric": [r[0] for r in spec], "alpha": [r[1] for r in spec]})
    for label, frame in frames.items():
        for level in levels:
            values = []
            for _, _, measure, key in spec:
                rows = select_rows(frame, measure, key)
                rows = rows[np.isclose(rows["level"].astype(float), float(level))]
                values.append(single_value(rows, "significant_pairs", f"{label} {measure} {key} {level}"))
            out[f"{label} {level_label(level)}"] = pd.array(values, dtype="Int64")
    return out


def paper_table2(
    stability: Mapping[str, pd.DataFrame],
    mode: str = "absolute",
    fuzziness: float = 0.05,
    alphas: Sequence[str] | None = ("0.5", "1"),
    *,
    include_norm: bool = False,
    cutoff: int = 100,
) -> pd.DataFrame:
    """Table 2: Buckley-Voorhees stability, the paper's layout.

    ``stability`` maps a collection label to its ``stability`` table; the rows with
    ``fuzziness_mode == mode`` and ``fuzziness == fuzziness`` are used (several
    settings left after that raise an error). Rows as :func:`paper_table1`; one column
    per collection.
    """
    frames = {}
    for label, frame in stability.items():
        frame = with_keys(frame)
        frames[label] = frame[(frame["fuzziness_mode"].astype(str) == mode)
                              & np.isclose(frame["fuzziness"].astype(float), float(fuzziness))]
    spec = _paper_rows(frames.values(), alphas, include_norm, cutoff)
    out = pd.DataFrame({"Metric": [r[0] for r in spec], "alpha": [r[1] for r in spec]})
    for label, frame in frames.items():
        values = [single_value(select_rows(frame, measure, key), "stability", f"{label} {measure} {key}")
                  for _, _, measure, key in spec]
        out[label] = pd.array([np.nan if is_missing(v) else float(v) for v in values], dtype="float64")
    return out


def paper_table3(
    subsampling: Mapping[str, pd.DataFrame],
    collection: str,
    alpha: str = "1",
    *,
    cutoff: int = 100,
) -> pd.DataFrame:
    """Table 3: mean Kendall tau versus the number of sampled systems, one collection.

    Rows P@100_rareness and AP_rareness at ``alpha`` (the paper: 1); columns ``Metric``,
    ``alpha`` and ``N=<n>`` for every n_systems in the table, ascending.
    """
    frame = with_keys(subsampling[collection])
    key = alpha_cell(alpha)
    sizes = sorted(int(n) for n in frame["n_systems"].dropna().unique())
    measures = [f"P_rareness@{cutoff}", f"AP_rareness@{cutoff}"]
    out = pd.DataFrame({"Metric": [paper_label(m) for m in measures],
                        "alpha": [alpha_display(key)] * len(measures)})
    for n in sizes:
        values = []
        for measure in measures:
            rows = select_rows(frame, measure, key)
            rows = rows[rows["n_systems"].astype(int) == n]
            values.append(single_value(rows, "mean_tau", f"{collection} {measure} N={n}"))
        out[f"N={n}"] = pd.array([np.nan if is_missing(v) else float(v) for v in values], dtype="float64")
    return out


def paper_swap_table(swap: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Sakai's Table 1 (2006) per collection: for each measure (and alpha), the absolute
    difference required for a sure comparison and the share of comparisons discriminated,
    measures ordered by sensitivity, most sensitive first, as Sakai lays it out."""
    rows = []
    for collection, frame in swap.items():
        frame = with_keys(frame).sort_values("sensitivity", ascending=False, kind="stable")
        for _, row in frame.iterrows():
            rows.append({"collection": collection, "Metric": paper_label(row["measure"]),
                         "alpha": alpha_display(row["_alpha_key"]) if row["_alpha_key"] else "",
                         "absolute diff. required": row["required_difference"],
                         "sensitivity": row["sensitivity"],
                         "comparisons": int(row["comparisons"]), "sampling": row["sampling"],
                         "confidence": row["confidence"]})
    return pd.DataFrame(rows)
