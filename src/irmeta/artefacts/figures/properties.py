"""The claims against the collections' properties: which property of a campaign orders
where a claim of the rareness paper holds (``figures/claims_vs_properties.png``/``.pdf``).

One panel per claim. For each claim, the property (a numeric column of
``collection_properties.csv`` known on at least three collections, not constant) whose
Spearman rank correlation with the claim's value across collections is the largest in
size, averaged over the claim's comparisons under its first protocol (the paper's): that
property on x, the claim's value (tau, or the gain over the baseline) on y, one point per
collection and comparison, each point labelled with its collection. The
discriminative-power gain is its share of the run pairs (``pairs_share``, where the
claims table has it): the pairs grow with the square of the runs (171 for 19 runs, 8,256
for 129), so a count would order the collections by their size.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from irmeta.artefacts.claims import CLAIMS, COLUMNS
from irmeta.artefacts.figures.claims import CLAIM_TITLES
from irmeta.artefacts.figures.style import (
    ALPHA_COLOURS,
    FALLBACK_COLOURS,
    PAGE_WIDTH,
    legend_below,
    new_figure,
    require_columns,
    save_figure,
    styled,
)
from irmeta.artefacts.labels import protocol_label

_PALETTE = ALPHA_COLOURS + FALLBACK_COLOURS
#: Columns of :func:`best_properties`.
CHOICE_COLUMNS = ["claim", "protocol", "property", "mean_abs_spearman", "tied_with", "collections"]

#: The paper's claims, each set against the collections' properties (the error-rate claims
#: of test_error_rates are about tests, not collections: their own figures show them).
_COMPARED = [c for c in CLAIMS if c in CLAIM_TITLES]


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho (Pearson's r of average ranks) over the pairs where both are known."""
    keep = ~(np.isnan(x) | np.isnan(y))
    if keep.sum() < 3:
        return np.nan
    rx, ry = pd.Series(x[keep]).rank().to_numpy(), pd.Series(y[keep]).rank().to_numpy()
    if rx.std() == 0 or ry.std() == 0:
        return np.nan
    return float(np.corrcoef(rx, ry)[0, 1])


def _candidates(properties: pd.DataFrame) -> list[str]:
    """Numeric properties known on three or more collections that are not constant."""
    out = []
    for column in properties.columns:
        if column == "collection":
            continue
        values = pd.to_numeric(properties[column], errors="coerce")
        if values.notna().sum() >= 3 and values.nunique(dropna=True) > 1:
            out.append(column)
    return out


def _series(claims: pd.DataFrame, claim: str) -> tuple[str, pd.DataFrame]:
    """The claim's first protocol and its rows (every comparison, the alpha the table
    holds), ``value`` the plotted one (:func:`_by_share`)."""
    rows = claims[claims["claim"] == claim]
    protocol = str(rows["protocol"].iloc[0])
    return protocol, _by_share(rows[rows["protocol"] == protocol], claim)


def _by_share(rows: pd.DataFrame, claim: str) -> pd.DataFrame:
    """``rows`` with the discriminative-power gain's share of the run pairs as ``value``
    when every row has it; the value as it is otherwise."""
    if claim == "discriminative_power" and "pairs_share" in rows.columns and rows["pairs_share"].notna().all():
        return rows.assign(value=rows["pairs_share"].astype(float))
    return rows


def _y_label(claim: str, rows: pd.DataFrame) -> str:
    if claim == "rank_agreement":
        return "tau"
    if claim == "discriminative_power" and "pairs_share" in rows.columns and rows["pairs_share"].notna().all():
        return "significant pairs, measure minus baseline\n(share of run pairs)"
    return "measure minus baseline"


def best_properties(claims: pd.DataFrame, properties: pd.DataFrame) -> pd.DataFrame:
    """Per claim of ``claims`` (:func:`irmeta.artefacts.claims.claims_table`): its first
    protocol, the property that best orders its values across collections (largest mean
    |Spearman rho| over its comparisons; ties to the earlier column, the others it ties
    with listed) and that mean; columns :data:`CHOICE_COLUMNS`, no row for a claim
    without a property to compare."""
    require_columns(claims, COLUMNS, "claims table")
    require_columns(properties, ["collection"], "collection properties")
    table = properties.set_index(properties["collection"].astype(str))
    candidates = _candidates(properties)
    rows = []
    for claim in _COMPARED:
        if not (claims["claim"] == claim).any() or not candidates:
            continue
        protocol, series = _series(claims, claim)
        scores = {}
        for column in candidates:
            rhos = []
            for _, one in series.groupby(["measure", "baseline", "alpha"], sort=False):
                x = pd.to_numeric(table[column], errors="coerce").reindex(one["collection"].astype(str))
                rhos.append(abs(_spearman(x.to_numpy(dtype=float), one["value"].to_numpy(dtype=float))))
            known = [r for r in rhos if not np.isnan(r)]
            if known:
                scores[column] = float(np.mean(known))
        if scores:
            best = max(candidates, key=lambda c: scores.get(c, -1.0))
            # with few collections many properties order them alike: say which tie
            tied = [c for c in candidates if c != best and abs(scores.get(c, -1.0) - scores[best]) < 1e-12]
            rows.append([claim, protocol, best, scores[best], " ".join(tied), int(series["collection"].nunique())])
    return pd.DataFrame(rows, columns=CHOICE_COLUMNS)


def _collection_ticks(ax, values: pd.Series, collections: list[str]) -> None:
    """x ticks at the collections' property values, labelled with the collection and the value."""
    at: dict[float, list[str]] = {}
    for name in collections:
        value = float(values.get(name, np.nan))
        if not np.isnan(value):
            at.setdefault(value, []).append(name)
    ax.set_xticks(list(at))
    ax.set_xticklabels([f"{' / '.join(names)}\n{value:.3g}" for value, names in at.items()], fontsize=7)


def plot_claims_vs_properties(claims: pd.DataFrame, properties: pd.DataFrame, png: str | Path,
                              pdf: str | Path | None = None) -> pd.DataFrame:
    """Draw each claim against its :func:`best_properties` property; write ``png`` and
    ``pdf`` (``png`` with ``.pdf``); return the choices. A claim without one is a panel
    saying so."""
    png = Path(png)
    pdf = png.with_suffix(".pdf") if pdf is None else Path(pdf)
    if png.suffix != ".png" or pdf != png.with_suffix(".pdf"):
        raise ValueError(f"plot_claims_vs_properties writes <stem>.png and <stem>.pdf, not {png} and {pdf}")
    choices = best_properties(claims, properties)
    table = properties.set_index(properties["collection"].astype(str))
    claims_shown = [c for c in _COMPARED if (claims["claim"] == c).any()] or list(_COMPARED)
    comparisons = list(dict.fromkeys(f"{m} vs {b}" for m, b in zip(claims["measure"], claims["baseline"])))
    colours = {c: _PALETTE[i % len(_PALETTE)] for i, c in enumerate(comparisons)}

    def draw() -> Figure:
        fig, axes, ncol = new_figure(len(claims_shown), panel_width=PAGE_WIDTH / 2, height=2.85,
                                     n_legend=len(comparisons), column_width=2.6, sharey=False)
        for ax, claim in zip(axes, claims_shown):
            chosen = choices[choices["claim"] == claim]
            if chosen.empty:
                ax.text(0.5, 0.5, "no property to compare", ha="center", va="center", transform=ax.transAxes,
                        color="#777777")
                ax.set_title(CLAIM_TITLES[claim])
                continue
            choice = chosen.iloc[0]
            _, series = _series(claims, claim)
            x_of = pd.to_numeric(table[choice["property"]], errors="coerce")
            for (measure, baseline, _alpha), one in series.groupby(["measure", "baseline", "alpha"], sort=False):
                x = x_of.reindex(one["collection"].astype(str)).to_numpy(dtype=float)
                y = one["value"].to_numpy(dtype=float)
                order = np.argsort(x, kind="stable")
                colour = colours[f"{measure} vs {baseline}"]
                ax.plot(x[order], y[order], "o-", color=colour, linewidth=0.8, markersize=4, zorder=3)
            _collection_ticks(ax, x_of, list(dict.fromkeys(series["collection"].astype(str))))
            line = float(series["threshold"].iloc[0])
            ax.axhline(line, color="#333333", linewidth=0.8, linestyle="--" if claim == "rank_agreement" else "-")
            ties = len(choice["tied_with"].split())
            ax.set_title(f"{CLAIM_TITLES[claim]}, {protocol_label(choice['protocol'])}\nmean |Spearman rho| "
                         f"{choice['mean_abs_spearman']:.2f}" + (f", tied with {ties} more" if ties else ""))
            ax.set_xlabel(str(choice["property"]).replace("_", " "))
            ax.set_ylabel(_y_label(claim, series))
            if "share" in ax.get_ylabel():
                ax.yaxis.set_major_formatter(lambda v, _pos: f"{100 * v:g}%")
            ax.margins(x=0.15, y=0.15)
        handles = [Line2D([], [], color=colours[c], marker="o", label=c) for c in comparisons]
        legend_below(fig, handles, ncol)
        return fig

    save_figure(styled(draw), png.with_suffix(""))
    return choices
