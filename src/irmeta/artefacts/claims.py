"""Do the paper's claims hold on these collections? Each claim of Türkmen, Lease and Kutlu
(ECIR 2023) side by side per collection, under the paper's protocol and under the
alternatives the pipeline computes:

- ``rank_agreement``: a rareness measure ranks the runs much as its baseline does
  (Kendall's tau-b and tau_AP, the ``tau``/``tau_ap`` columns of ``kendall_tau``); holds
  when tau >= ``tau_threshold`` (default 0.9, the paper's "highly correlated");
- ``discriminative_power``: it separates more run pairs than its baseline (significant
  pairs at ``level`` minus the baseline's, per ``method`` of ``discriminative_power``
  among :func:`power_protocols`: the paper's three and the paired t-test with Holm's
  correction, Sakai's paired bootstrap and the randomisation test with Holm's);
  holds when the gain is > 0; ``pairs_share`` is the gain as a share of the run pairs
  tested (``total_pairs``), comparable across campaigns of different sizes (the pairs
  grow with the square of the runs: 171 for 19 runs, 8,256 for 129). A method whose
  draws cannot reach the level over all pairs (the table's ``attainable`` False: both
  counts 0 by construction) judges nothing: its rows are left to the list of claims not
  filled, with why;
- ``stability``: it is more stable than its baseline (Buckley-Voorhees stability minus
  the baseline's, per ``fuzziness_mode`` and ``fuzziness`` of ``stability``); holds when
  the gain is > 0;
- ``reusability``: it ranks a run that did not build the pool as fairly as its baseline
  does (leave-one-group-out, Zobel 1998: Kendall's tau-b between the runs' full and
  left-out scores, ``kendall_tau`` of ``reusability_summary``, per rarity rule
  ``frozen``/``joined`` as protocols ``leave_one_out+frozen``/``+joined``); holds when
  the measure's tau is not lower than the baseline's by more than
  :data:`REUSABILITY_TOLERANCE`. Only for collections whose tables include it;
- ``other_judgments``: it ranks the runs under another judgment set as faithfully as its
  baseline does (Kendall's tau-b between the runs' means under the set and under the
  qrels, ``kendall_tau`` of ``judgment_agreement``, per named set and per generated
  assessor error rate, :mod:`irmeta.artefacts.claims_judgments`); holds when the
  measure's tau is not lower than the baseline's by more than
  :data:`~irmeta.artefacts.claims_judgments.JUDGMENTS_TOLERANCE`. Only for collections
  whose tables include it.

Inputs are the per-collection experiment tables as the pipeline writes them (read back
from CSV, alpha as text, empty for a baseline) or as :mod:`irmeta.api` returns them.
Protocols are the methods and fuzziness settings the tables hold: one a collection did
not run is absent from its rows, not an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from irmeta.artefacts import claims_judgments
from irmeta.artefacts.paper.tables import select_rows, single_value, with_keys
from irmeta.artefacts.tables import is_missing, table_texts
from irmeta.measures.alpha import alpha_sort_key, alpha_value
from irmeta.metaeval.discriminative_power import attainable_rows
from irmeta.metaeval.stats.registry import claims_methods
from irmeta.support.atomic import atomic_write_text
from irmeta.support.formats import refuse_infinite_cells

#: The claims, in the order they are listed.
CLAIMS = ("rank_agreement", "discriminative_power", "stability", "reusability", claims_judgments.OTHER_JUDGMENTS)

#: The experiment tables each collection needs, and the columns read from each.
TABLES = {
    "kendall_tau": ("measure", "baseline", "alpha"),
    "discriminative_power": ("measure", "alpha", "method", "level", "significant_pairs"),
    "stability": ("measure", "alpha", "fuzziness_mode", "fuzziness", "stability"),
}

#: Columns read when the table has them: the run pairs behind the discriminative-power gain's share.
SHARE_COLUMN = "total_pairs"

#: Tables a collection may lack (scores only, or the experiment off), with the columns read.
OPTIONAL_TABLES = {"reusability_summary": ("measure", "alpha", "rarity", "kendall_tau"),
                   "judgment_agreement": claims_judgments.JUDGMENT_COLUMNS}

#: How far below its baseline's the rareness measure's leave-one-out tau may fall.
REUSABILITY_TOLERANCE = 0.01

def power_protocols() -> list[str]:
    """Discriminative-power methods the claim is judged under, when the table has them:
    those the test registry marks (``claims``): the paper's three, then one paired test
    per family of evidence, each over the family of all pairs (Sakai 2006 and 2014;
    Smucker, Allan and Carterette 2007), and a plugin's test (Holm-corrected unless it
    says otherwise)."""
    return list(claims_methods())

#: Rank-agreement protocols: column of ``kendall_tau`` -> protocol name.
TAU_PROTOCOLS = {"tau": "kendall_tau", "tau_ap": "tau_ap"}

#: Columns of :func:`claims_table`.
COLUMNS = ["claim", "protocol", "measure", "baseline", "alpha", "collection", "value", "baseline_value",
           "measure_value", "threshold", "criterion", "holds", "pairs_share"]

#: The key columns of :func:`claims_wide`, before one column per collection.
WIDE_KEYS = ["claim", "protocol", "comparison", "alpha", "holds if"]

_FLOATS = ("value", "baseline_value", "measure_value", "threshold", "pairs_share")

AlphaChoice = Literal["largest", "all"]

# What each known protocol is, for the caption; others are named without a description.
_PROTOCOL_NOTES = {
    "kendall_tau": "Kendall's tau-b",
    "tau_ap": "tau_AP, the baseline as reference ranking",
    "leave_one_out+frozen": "rarity over the runs outside the left-out group",
    "leave_one_out+joined": "rarity over those runs and the run scored",
}


def claims_table(
    tables: Mapping[str, Mapping[str, pd.DataFrame]],
    comparisons: Sequence[Mapping[str, str]],
    *,
    level: float = 0.05,
    tau_threshold: float = 0.9,
    alphas: AlphaChoice = "largest",
) -> pd.DataFrame:
    """Every claim per collection, tidy: one row per (claim, protocol, comparison, alpha,
    collection), columns :data:`COLUMNS`.

    ``tables``: collection label -> {"kendall_tau", "discriminative_power", "stability"
    -> DataFrame}; a collection without one of them raises ValueError naming it.
    ``comparisons``: the config's ``experiments.comparisons``, {measure, baseline} each.
    ``alphas``: ``"largest"`` (default) takes each measure's largest numeric alpha in the
    collection's tables (``1/R`` is no number and never the largest); ``"all"`` every
    alpha they hold.

    ``value`` is tau for ``rank_agreement`` (``baseline_value``/``measure_value`` empty)
    and measure minus baseline otherwise (significant pairs at ``level``; stability),
    both terms beside it. ``holds``: value >= ``threshold``, which is ``tau_threshold`` for
    rank agreement (the config's ``experiments.claims.tau_threshold``), and value > 0 for
    the gains (``threshold`` 0); <NA> when the value is undefined (NaN tau).
    ``criterion`` says it in words. Rows are ordered by claim, comparison, protocol (as
    the tables list them), alpha, then collection in the order given.
    """
    for label, frames in tables.items():
        _check_tables(label, frames)
    rows = []
    for label, frames in tables.items():
        for index, comparison in enumerate(comparisons):
            measure, baseline = str(comparison["measure"]), str(comparison["baseline"])
            for key in _alpha_keys(frames, measure, alphas):
                for row in _collection_rows(frames, measure, baseline, key, level, tau_threshold):
                    rows.append({**row, "collection": label, "_comparison": index})
    return _ordered(rows, list(tables))


def _check_tables(label: str, frames: Mapping[str, pd.DataFrame]) -> None:
    """A clear error for a missing table or column, naming the collection."""
    for name, columns in TABLES.items():
        if name not in frames or frames[name] is None:
            raise ValueError(f"collection {label!r} has no {name} table (claims need {', '.join(TABLES)})")
        missing = [c for c in columns if c not in frames[name].columns]
        if missing:
            raise ValueError(f"collection {label!r}: the {name} table has no column {', '.join(missing)}")
    for name, columns in OPTIONAL_TABLES.items():
        missing = [c for c in columns if frames.get(name) is not None and c not in frames[name].columns]
        if missing:
            raise ValueError(f"collection {label!r}: the {name} table has no column {', '.join(missing)}")


def _alpha_keys(frames: Mapping[str, pd.DataFrame], measure: str, alphas: AlphaChoice) -> list[str]:
    """The alpha cells of ``measure`` in a collection's three tables, or the largest number among them."""
    keys = set()
    for name in TABLES:
        frame = with_keys(frames[name])
        keys |= {key for key in frame.loc[frame["measure"] == measure, "_alpha_key"] if key}
    if alphas == "all":
        return sorted(keys, key=alpha_sort_key)
    if alphas != "largest":
        raise ValueError(f"alphas must be 'largest' or 'all', not {alphas!r}")
    numbers = [k for k in keys if alpha_value(k) is not None]
    return [max(numbers, key=alpha_sort_key)] if numbers else []


def _collection_rows(frames: Mapping[str, pd.DataFrame], measure: str, baseline: str, key: str, level: float,
                     threshold: float) -> Iterator[dict]:
    yield from _rank_agreement(frames["kendall_tau"], measure, baseline, key, threshold)
    power = with_keys(frames["discriminative_power"])
    power = power[np.isclose(power["level"].astype(float), float(level)) & power["method"].isin(power_protocols())]
    power = power[attainable_rows(power)]
    yield from _gains("discriminative_power", power, _by_values(power, ["method"], lambda m: str(m[0])),
                      "significant_pairs", measure, baseline, key, f"gain above 0, pairs at p below {level:g}")
    stability = with_keys(frames["stability"])
    yield from _gains("stability", stability,
                      _by_values(stability, ["fuzziness_mode", "fuzziness"], lambda s: f"{s[0]} {float(s[1]):g}"),
                      "stability", measure, baseline, key, "gain above 0")
    if frames.get("reusability_summary") is not None:
        yield from _reusability(frames["reusability_summary"], measure, baseline, key)
    if frames.get("judgment_agreement") is not None:
        yield from _other_judgments(frames["judgment_agreement"], measure, baseline, key)


def _other_judgments(frame: pd.DataFrame, measure: str, baseline: str, key: str) -> Iterator[dict]:
    """The measure's tau under each judgment set minus its baseline's (claims_judgments)."""
    for taus in claims_judgments.judgment_taus(frame, measure, baseline, key):
        yield _row(claims_judgments.OTHER_JUDGMENTS, taus.judgments, measure, baseline, key,
                   taus.measure_tau - taus.baseline_tau, taus.baseline_tau, taus.measure_tau,
                   -claims_judgments.JUDGMENTS_TOLERANCE, claims_judgments.CRITERION,
                   claims_judgments.holds(taus.measure_tau, taus.baseline_tau))


def _reusability(frame: pd.DataFrame, measure: str, baseline: str, key: str) -> Iterator[dict]:
    """The measure's leave-one-out tau minus its baseline's, per rarity rule."""
    rows = with_keys(frame)
    theirs = rows[(rows["measure"] == baseline) & (rows["_alpha_key"] == "")]
    ours = rows[(rows["measure"] == measure) & (rows["_alpha_key"] == key)]
    if theirs.empty:
        return
    base = _number(single_value(theirs, "kendall_tau", f"reusability {baseline}"))
    for rule in dict.fromkeys(ours["rarity"].astype(str)):
        tau = _number(single_value(ours[ours["rarity"].astype(str) == rule], "kendall_tau",
                                   f"reusability {measure} at alpha {key}, {rule} rarity"))
        gain = tau - base
        yield _row("reusability", f"leave_one_out+{rule}", measure, baseline, key, gain, base, tau,
                   -REUSABILITY_TOLERANCE, f"leave-one-out tau at most {REUSABILITY_TOLERANCE:g} below the "
                   f"baseline's", None if np.isnan(gain) else bool(gain >= -REUSABILITY_TOLERANCE))


def _rank_agreement(frame: pd.DataFrame, measure: str, baseline: str, key: str,
                    threshold: float) -> Iterator[dict]:
    rows = select_rows(with_keys(_one_averaging(frame)), measure, key)
    rows = rows[rows["baseline"].astype(str) == baseline]
    for column, protocol in TAU_PROTOCOLS.items():
        if column not in rows.columns or rows.empty:
            continue
        tau = _number(single_value(rows, column, f"{measure} vs {baseline} at alpha {key}"))
        yield _row("rank_agreement", protocol, measure, baseline, key, tau, np.nan, np.nan, threshold,
                   f"tau at least {threshold:g}", None if np.isnan(tau) else bool(tau >= threshold))


def _one_averaging(frame: pd.DataFrame) -> pd.DataFrame:
    """The paper's mean over all qrels topics when a table holds several averagings."""
    if "averaging" in frame.columns and frame["averaging"].nunique() > 1:
        return frame[frame["averaging"].astype(str) == "all_topics"]
    return frame


def _by_values(frame: pd.DataFrame, columns: list[str], name: Callable[[tuple], str]) -> list[tuple[str, pd.Series]]:
    """(protocol name, row mask) per distinct value of ``columns``, in the table's order."""
    settings = list(dict.fromkeys(frame[columns].itertuples(index=False, name=None)))
    return [(name(s), np.logical_and.reduce([frame[c] == v for c, v in zip(columns, s)])) for s in settings]


def _gains(claim: str, frame: pd.DataFrame, protocols: list[tuple[str, pd.Series]], column: str, measure: str,
           baseline: str, key: str, criterion: str) -> Iterator[dict]:
    """Measure minus baseline in ``column`` under each protocol both were computed under."""
    for protocol, mask in protocols:
        rows = frame[mask]
        what = f"{claim} {protocol}"
        ours = single_value(select_rows(rows, measure, key), column, f"{what} {measure} at alpha {key}")
        theirs = single_value(select_rows(rows, baseline, ""), column, f"{what} {baseline}")
        if is_missing(ours) or is_missing(theirs):
            continue
        gain = _number(ours) - _number(theirs)
        yield {**_row(claim, protocol, measure, baseline, key, gain, _number(theirs), _number(ours), 0.0, criterion,
                      None if np.isnan(gain) else bool(gain > 0)),
               "pairs_share": _pairs_share(rows, measure, key, gain)}


def _pairs_share(rows: pd.DataFrame, measure: str, key: str, gain: float) -> float:
    """``gain`` over the run pairs the measure's test counted (``total_pairs``); NaN
    without that column (stability, or a table that does not hold it)."""
    if SHARE_COLUMN not in rows.columns:
        return np.nan
    pairs = _number(single_value(select_rows(rows, measure, key), SHARE_COLUMN, f"{measure} at alpha {key}"))
    return gain / pairs if pairs > 0 else np.nan


def _number(value: object) -> float:
    return np.nan if is_missing(value) else float(value)


def _row(claim: str, protocol: str, measure: str, baseline: str, key: str, value: float, baseline_value: float,
         measure_value: float, threshold: float, criterion: str, holds: bool | None) -> dict:
    return {"claim": claim, "protocol": protocol, "measure": measure, "baseline": baseline, "alpha": key,
            "value": value, "baseline_value": baseline_value, "measure_value": measure_value,
            "threshold": threshold, "criterion": criterion, "holds": holds, "pairs_share": np.nan}


def _ordered(rows: list[dict], collections: list[str]) -> pd.DataFrame:
    """Rows sorted by claim, comparison, protocol (first seen), alpha, collection (given order)."""
    frame = pd.DataFrame(rows, columns=[*COLUMNS, "_comparison"])
    protocols = {p: i for i, p in enumerate(dict.fromkeys(frame["protocol"]))}
    frame = frame.assign(_claim=frame["claim"].map(CLAIMS.index), _protocol=frame["protocol"].map(protocols),
                         _alpha=frame["alpha"].map(alpha_sort_key),
                         _collection=frame["collection"].map(collections.index))
    frame = frame.sort_values(["_claim", "_comparison", "_protocol", "_alpha", "_collection"], kind="stable")
    frame = frame[COLUMNS].reset_index(drop=True).astype({c: float for c in _FLOATS})
    frame["holds"] = pd.array(frame["holds"].tolist(), dtype="boolean")
    return frame


# ------------------------------------------------------------------- side by side


def claims_wide(table: pd.DataFrame, collections: Sequence[str] | None = None) -> pd.DataFrame:
    """The side-by-side view of :func:`claims_table`: one row per (claim, protocol,
    comparison, alpha) with the criterion (``holds if``), then one text column per
    collection, in ``collections``' order (default: as the table lists them).

    A cell is the value and whether the claim holds: ``+160 = +1.94% of pairs (yes)``,
    ``-162 = -1.96% of pairs (no)`` for pairs (the gain and its share of the run pairs;
    the count alone where the share is not known), ``+0.140 (yes)`` for stability
    (``-3.1e-04 (no)`` when three decimals would hide the sign), ``0.971 (yes)`` for
    tau; ``n/a`` for an undefined value; empty where the collection has no such row. ASCII only, for LaTeX.
    """
    order = list(dict.fromkeys(table["collection"])) if collections is None else list(collections)
    cells: dict[tuple, dict[str, str]] = {}
    for row in table.itertuples(index=False):
        key = (row.claim, row.protocol, f"{row.measure} vs {row.baseline}", row.alpha, row.criterion)
        cells.setdefault(key, {})[row.collection] = _cell(row.claim, row.value, row.holds, row.pairs_share)
    out = pd.DataFrame([list(key) for key in cells], columns=WIDE_KEYS)
    for collection in order:
        out[collection] = [by_collection.get(collection, "") for by_collection in cells.values()]
    return out


def _cell(claim: str, value: float, holds: object, share: float = np.nan) -> str:
    if is_missing(holds) or np.isnan(value):
        return "n/a"
    shown = format_value(claim, value) + ("" if np.isnan(share) else f" = {format_share(share)} of pairs")
    return f"{shown} ({'yes' if holds else 'no'})"


def format_share(share: float) -> str:
    """A share of the run pairs as the tables and figures print it: ``+1.94%``."""
    return f"{100 * share:+.2f}%"


def format_value(claim: str, value: float) -> str:
    """A claim's value as the tables and the figure print it: ``+160`` (pairs), ``+0.140``
    (stability; ``-3.1e-04`` when three decimals would hide the sign), ``0.971`` (tau)."""
    if np.isnan(value):
        return "n/a"
    if claim == "discriminative_power":
        return f"{round(value):+d}"
    if claim == "rank_agreement":
        return f"{value:.3f}"
    return f"{value:+.3f}" if value == 0 or round(value, 3) != 0 else f"{value:+.1e}"


def claims_caption(table: pd.DataFrame) -> str:
    """One paragraph: what each claim and protocol of ``table`` is, and when it holds."""
    parts = ["Do the rareness paper's claims (Türkmen, Lease, Kutlu, ECIR 2023) hold? One column per "
             "collection; a cell is the value and whether the claim holds (yes/no), empty when not computed."]
    intro = {"rank_agreement": "Rank agreement: the measure's ranking of the runs against its baseline's",
             "discriminative_power": "Discriminative power: significant run pairs of the measure minus its "
                                     "baseline's, and that gain as a share of the run pairs tested",
             "stability": "Stability (Buckley-Voorhees): the measure's minus its baseline's",
             "reusability": "Reusability (leave one group out): Kendall's tau-b between the runs' full scores "
                            "and their scores without the judgments only their group pooled, the measure's "
                            "minus its baseline's",
             "other_judgments": "Other judgments: Kendall's tau-b between the runs' means under a judgment set "
                                "and under the qrels, the measure's minus its baseline's (error_<q>: generated "
                                "assessors flipping each judgment with probability q, the mean over their "
                                "trials)"}
    for claim in CLAIMS:
        rows = table[table["claim"] == claim]
        if rows.empty:
            continue
        notes = {**claims_methods(), **_PROTOCOL_NOTES}
        protocols = [p + (f" ({notes[p]})" if p in notes else "") for p in dict.fromkeys(rows["protocol"])]
        criteria = " or ".join(dict.fromkeys(rows["criterion"]))
        parts.append(f"{intro[claim]}, by {', '.join(protocols)}; holds if {criteria}.")
    if (table["claim"] == "stability").any():
        parts.append("Fuzziness absolute v is v in the measure's units (the paper's), relative v is v times the "
                     "larger of the two means.")
    parts.append("Alpha: the largest the tables hold for the measure unless several are listed. "
                 "Settings: docs/PROTOCOL.md.")
    return " ".join(parts)


#: The caption of the collection properties under the claims.
PROPERTIES_CAPTION = ("Collection properties: runs, groups, qrels topics, judged and relevant documents per topic, "
                      "and over the relevant documents some run holds in its top rarity depth the share exactly "
                      "one run (one group) finds and their mean rarity R(d) = 1 - S_d/S (eq. 2); the pool depth, "
                      "how deep the runs are wholly judged (median, least) and the share judged to the pool depth; "
                      "empty where not known (no run groups; scores without rankings).")


#: The caption of the list of claims not filled under the claims table.
UNFILLED_CAPTION = "Not filled: the claims these tables could not fill, and why."


def write_claims(table: pd.DataFrame, out: str | Path, collections: Sequence[str] | None = None,
                 properties: pd.DataFrame | None = None, unfilled: pd.DataFrame | None = None) -> list[Path]:
    """Write ``claims.csv`` (``table``, tidy, full precision), ``claims.md`` and
    ``claims.tex`` (:func:`claims_wide` under :func:`claims_caption`, then the collection
    ``properties`` when given, one row per collection); return the paths.

    ``unfilled`` (:func:`irmeta.artefacts.claims_unfilled.unfilled_claims`), when it has
    rows: the CSV gets them after the claims, values empty, with a last column ``note``
    saying why (empty for the filled rows); the Markdown and LaTeX a list after the claims.

    ``out``: an existing directory (the files go in it) or the stem to write. Every file
    is written atomically, and the same table gives the same bytes.
    """
    out = Path(out)
    stem = out / "claims" if out.is_dir() else out
    # the CSV is the tidy table; the Markdown and LaTeX the wide view, then what could not
    # be filled, then the properties
    texts = table_texts(claims_wide(table, collections), claims_caption(table), name="claims")
    extras = []
    if unfilled is not None and len(unfilled):
        extras.append(table_texts(pd.DataFrame({"not filled": unfilled_lines(unfilled)}), UNFILLED_CAPTION,
                                  name="unfilled"))
    if properties is not None:
        extras.append(table_texts(properties, PROPERTIES_CAPTION, name="properties"))
    for extra in extras:
        texts = {ext: text + ("\n" + extra[ext] if ext in ("md", "tex") else "") for ext, text in texts.items()}
    refuse_infinite_cells(table, "claims")
    texts = {".csv": _with_unfilled(table, unfilled).to_csv(index=False, lineterminator="\n"), ".md": texts["md"],
             ".tex": texts["tex"]}
    paths = []
    for suffix in (".csv", ".md", ".tex"):
        path = stem.with_name(stem.name + suffix)
        atomic_write_text(path, texts[suffix])
        paths.append(path)
    return paths


def _with_unfilled(table: pd.DataFrame, unfilled: pd.DataFrame | None) -> pd.DataFrame:
    """The claims, then the unfilled rows with their ``note`` (only when there are some,
    so a complete table keeps its columns)."""
    if unfilled is None or not len(unfilled):
        return table
    notes = unfilled.reindex(columns=[*COLUMNS, "note"])
    return pd.concat([table.assign(note=""), notes.astype({c: float for c in _FLOATS})], ignore_index=True)


def filled_claims(table: pd.DataFrame) -> pd.DataFrame:
    """``claims.csv`` as read back, without the unfilled rows :func:`write_claims` lists
    after the claims (those with a ``note``) and without that column."""
    if "note" not in table.columns:
        return table
    filled = table["note"].isna() | (table["note"].astype(str) == "")
    return table[filled].drop(columns="note").reset_index(drop=True).infer_objects()


def unfilled_lines(unfilled: pd.DataFrame) -> list[str]:
    """One sentence per claim, protocol and reason: the comparisons and collections it
    leaves unfilled, for the list under the claims table."""
    out = []
    for (claim, protocol, note), rows in unfilled.groupby(["claim", "protocol", "note"], sort=False):
        what = claim if not protocol else f"{claim} ({protocol})"
        comparisons = dict.fromkeys(f"{m} vs {b}" for m, b in zip(rows["measure"], rows["baseline"]))
        out.append(f"{what}, {', '.join(comparisons)} on {', '.join(dict.fromkeys(rows['collection']))}: {note}.")
    return out
