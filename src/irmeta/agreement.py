"""Can my judgments stand in for the official ones? ``irmeta agree`` and ``irmeta.agree``:
for each judgment set against the reference qrels, agreement on labels, on the rankings of
the runs and on the conclusions a paired test draws, with the library's own functions
(:mod:`irmeta.metaeval.label_agreement`, :mod:`irmeta.metaeval.judgment_agreement`,
:mod:`irmeta.metaeval.conclusion_agreement`).

Three tables (:class:`Agreement`, and the dict :func:`agree` returns):

* ``labels``: :func:`~irmeta.metaeval.label_agreement.label_agreement_table` of each set's
  own judgments against the qrels (topic ``all``, then per topic; binary kappa at the
  threshold). With ``unjudged="reference"`` the labels are still the set's own: the
  reference's grades filled into its holes would agree with themselves.
* ``rankings``: per set and measure (rareness measures once per alpha, named
  ``P_rareness(alpha=0.5)@100``), columns :data:`RANKING_COLUMNS`: Kendall's tau-b and
  tau_AP (the qrels' ranking as the reference) between the runs' means under the set and
  under the qrels, and the top of the two rankings (:mod:`irmeta.metaeval.top_ranks`), on
  the topics both judged; with ``ties``, the tie-aware variants after them
  (:mod:`irmeta.metaeval.tied_agreement`: ``a`` tau_a and tau_ap_a, ``b`` tau_ap_b).
* ``conclusions``: per set and measure, columns :data:`CONCLUSION_COLUMNS`: the run pairs
  ``test`` (``paired_t+holm`` by default: a paired test of the registry, ``+`` a
  correction over all pairs) calls significantly different at ``level`` under the qrels
  and under the set (:mod:`irmeta.metaeval.conclusion_agreement`); the randomised tests
  draw ``permutations`` from ``seed`` as ``irmeta compare`` does.

With ``families`` (a ``run<TAB>family`` file with that header, or a mapping run -> family,
naming every run), a fourth table, ``families``:
:func:`~irmeta.metaeval.family_bias.family_bias_table` per set, measure and family (mean
rank change from the qrels to the set, negative = moves up; mean score change; p of a
permutation test of the family labels, ``family_permutations`` draws from ``seed`` plus
the family-bias offset, as the pipeline's ``family_bias.csv``).

Every run is scored under each set as under the qrels (``irmeta score``'s reading
settings; means over every topic, ``average="all"``). A set is a file (named after the file
without its extension: ``llm.txt`` gives ``llm``) or a folder of files, one set each; an
empty set is refused (it has no label to compare). Without runs, ``labels`` alone: a
setting of the runs' scores or conclusions given then is refused, as it would change nothing.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

import irmeta.settings as check
from irmeta.api import DEFAULT_MEASURES, DEFAULT_SEED, score_checked
from irmeta.artefacts.tables import latex_table, markdown_table
from irmeta.campaign.in_memory import to_qrels
from irmeta.campaign.judgment_sets import assessor_files, check_shares_topics, check_unjudged, filled_from_reference
from irmeta.campaign.qrels import Qrels
from irmeta.measures.names import column_labels
from irmeta.measures.typed import spellings_note, typed_labels
from irmeta.metaeval.conclusion_agreement import conclusion_agreement_table
from irmeta.metaeval.family_bias import DEFAULT_PERMUTATIONS as FAMILY_PERMUTATIONS
from irmeta.metaeval.judgment_agreement import judgment_agreement_table
from irmeta.metaeval.label_agreement import ALL_TOPICS, label_agreement_table
from irmeta.metaeval.stats.registry import CORRECTIONS, NO_CORRECTION, TESTS, parse_test_name
from irmeta.metaeval.tied_agreement import TAU_ONLY, tied_columns, tied_variants
from irmeta.support.formats import REPORT_FORMATS, check_tsv_names, markdown_escape
from irmeta.support.names import first_missing

FORMATS = REPORT_FORMATS
#: The reference's name in the tables.
REFERENCE = "qrels"
#: ``kendall_tau`` is tau-b, ``tau_ap`` tau_AP with the qrels' ranking as the reference; the
#: tie-aware variants ``ties`` names follow (:func:`ranking_columns`).
RANKING_COLUMNS = ("judgments", "measure", "runs", "topics", "kendall_tau", "tau_ap", "top1_same", "top5_overlap",
                   "top10_overlap", "largest_rank_change", "largest_rank_change_run")
CONCLUSION_COLUMNS = ("judgments", "measure", "method", "level", "pairs", "same_decision", "significant_reference",
                      "significant_judgments", "both_significant_same_direction", "lost", "gained", "reversed")
#: The label columns the reports show (topic ``all``); the DataFrame holds every column and topic.
REPORT_LABEL_COLUMNS = ("judgments", "shared", "only_reference", "only_judgments", "agreement", "cohen_kappa",
                        "weighted_kappa_linear", "weighted_kappa_quadratic", "krippendorff_alpha_ordinal")


def ranking_columns(ties: Sequence[str] = ()) -> list[str]:
    """The rankings table's columns: :data:`RANKING_COLUMNS`, then those of ``ties``."""
    return [*RANKING_COLUMNS, *tied_columns(ties, with_rbo=False)]


@dataclass(frozen=True)
class AgreePlan:
    """The conclusions' test, correction (``none`` or the registry's), level and draws."""

    test: str
    correction: str
    level: float
    permutations: int
    seed: int

    @property
    def method(self) -> str:
        return self.test if self.correction == NO_CORRECTION else f"{self.test}+{self.correction}"


@dataclass(frozen=True)
class Agreement:
    """The three tables (module docstring) and the plan that made the conclusions."""

    labels: pd.DataFrame
    #: None: no runs were given (the labels alone)
    rankings: pd.DataFrame | None
    conclusions: pd.DataFrame | None
    plan: AgreePlan
    threshold: int
    #: family_bias_table's rows with ``families``, else None
    families: pd.DataFrame | None = None
    #: the runs scored under the qrels, with what reading them found (the CLI reports it)
    reference: Any = None


def agree_plan(test: str = "paired_t+holm", level: float = 0.05, permutations: int = 1000,
               seed: int = DEFAULT_SEED) -> AgreePlan:
    """The conclusions' settings checked, one line each refusal: ``test`` a paired test
    of the registry, optionally ``+`` a correction (``paired_t``, ``wilcoxon+bh``...)."""
    if not isinstance(test, str):
        raise TypeError(f"test must be a test name (str), not {type(test).__name__}")
    chosen, correction = parse_test_name(test)
    if not chosen.paired:
        paired = ", ".join(name for name, t in TESTS.items() if t.paired)
        raise ValueError(f"test {test!r} decides every pair from all runs at once; agree takes a paired test "
                         f"({paired}), optionally +{'/+'.join(CORRECTIONS)}")
    level = check.number("level", level, 1e-15, 1.0, open_high=True)
    p = check.experiment_parameters(permutations=permutations, seed=seed)
    return AgreePlan(chosen.name, correction or NO_CORRECTION, level, p["permutations"], p["seed"])


def judgment_sets(judgments: Any) -> dict[str, Any]:
    """Name -> a set's judgments (a path, or what :func:`~irmeta.campaign.in_memory.to_qrels`
    reads): a mapping as it is; a path, or a list of paths, each a file (named after it
    without its extension) or a folder (one set per file). A name twice is refused."""
    if isinstance(judgments, Mapping):
        if not judgments:
            raise ValueError("judgments: no judgment set was given (an empty mapping)")
        missing = first_missing(judgments)
        if missing is not None:
            raise ValueError(f"judgments: a set's name is {missing[1]}")
        return {str(name): value for name, value in judgments.items()}
    given = [judgments] if isinstance(judgments, (str, Path)) else judgments
    if not isinstance(given, (list, tuple)) or not given or not all(isinstance(g, (str, Path)) for g in given):
        raise TypeError(f"judgments must be a path, a list of paths or a mapping name -> judgments, "
                        f"not {check.shown(judgments)}")
    named: dict[str, Any] = {}
    for spec in given:
        path = Path(spec)
        if not path.exists():
            raise FileNotFoundError(2, "no such file or folder", str(spec))
        found = assessor_files(path, "judgments") if path.is_dir() else {path.stem: path}
        for name, file in found.items():
            if name in named:
                raise ValueError(f"judgments: {named[name]} and {file} both name the set {name!r}")
            named[name] = file
    return named


_OWN_KEYWORDS = ("unjudged", "test", "level", "permutations", "seed", "families",
                 "family_permutations", "ties")  # beside score's
#: What the labels alone read (no runs): the qrels, the sets and the threshold of the binary kappa.
LABEL_SETTINGS = ("threshold",)


def agree(qrels: Any, judgments: Any, runs: Any = None, measures: Sequence[str] = DEFAULT_MEASURES, *,
          unjudged: str = "nonrelevant", test: str = "paired_t+holm", level: float = 0.05,
          permutations: int = 1000, seed: int = DEFAULT_SEED, families: Any = None,
          family_permutations: int = FAMILY_PERMUTATIONS, ties: Sequence[str] = (),
          **settings: Any) -> dict[str, pd.DataFrame]:
    """``irmeta agree``'s tables as DataFrames: ``{"labels": ..., "rankings": ...,
    "conclusions": ...}``, and ``"families"`` with ``families`` (module docstring); without
    ``runs``, ``{"labels": ...}`` alone (what a judge's labels say before any run is scored).
    ``ties``: tie-aware rank agreement added to ``rankings`` (``a``: ``tau_a``,
    ``tau_ap_a``, the qrels' ranking as the true one, empty where it ties; ``b``: ``tau_ap_b``).
    ``judgments``: see :func:`judgment_sets`; ``unjudged``: ``nonrelevant`` (trec_eval's
    rule) or ``reference`` (a document a set did not judge takes the qrels' grade);
    ``families``: a families file or a mapping run -> family; ``settings``: those of :func:`irmeta.score`
    (``depth``, ``threshold``, ``alphas``...), checked before any file is read."""
    found = agree_runs(qrels, judgments, runs, measures, unjudged=unjudged, test=test, level=level,
                       permutations=permutations, seed=seed, families=families,
                       family_permutations=family_permutations, ties=ties, **settings)
    tables = {"labels": found.labels}
    if found.rankings is not None:
        tables |= {"rankings": found.rankings, "conclusions": found.conclusions}
    if found.families is not None:
        tables["families"] = found.families
    return tables


def agree_runs(qrels: Any, judgments: Any, runs: Any = None, measures: Sequence[str] = DEFAULT_MEASURES, *,
               unjudged: str = "nonrelevant", test: str = "paired_t+holm", level: float = 0.05,
               permutations: int = 1000, seed: int = DEFAULT_SEED, families: Any = None,
               family_permutations: int = FAMILY_PERMUTATIONS, ties: Sequence[str] = (),
               **settings: Any) -> Agreement:
    """:func:`agree`, with the plan the reports print (:func:`render`)."""
    plan = agree_plan(test, level, permutations, seed)
    if not isinstance(ties, str):
        check.items("ties", ties, empty=True)
    variants = tied_variants(ties, TAU_ONLY)
    family_permutations = check.experiment_parameters(permutations=family_permutations)["permutations"]
    if families is not None and not isinstance(families, (str, Path, Mapping)):
        raise TypeError(f"families must be a path or a mapping run -> family, not {check.shown(families)}")
    rule = check_unjudged(unjudged)
    s = check.score_settings("agree", measures, settings, own=_OWN_KEYWORDS)
    if s.average != "all":
        raise ValueError(f"agree compares runs on every qrels topic (average 'all'), not average {s.average!r}")
    if runs is None:
        _refuse_run_settings(measures, settings, unjudged=rule, test=test, level=level, permutations=permutations,
                             seed=seed, families=families, family_permutations=family_permutations,
                             ties=tuple(variants))
    named = judgment_sets(judgments)
    reference = to_qrels(qrels, qrels_format=s.qrels_format)
    own = {name: to_qrels(_not_empty(name, value), f"judgments {name}", s.qrels_format)
           for name, value in named.items()}
    for name, labels in own.items():
        check_shares_topics(reference, labels, f"judgments {name}")
    if runs is None:
        return Agreement(label_agreement_table(reference, own, threshold=s.threshold), None, None, plan, s.threshold)
    scored = {name: (filled_from_reference(reference, labels) if rule == "reference" else labels)
              for name, labels in own.items()}
    reference_scored = score_checked(reference, runs, s)
    if len(reference_scored.scores.runs) < 2:
        raise ValueError(f"agree needs at least two runs, got {len(reference_scored.scores.runs)}")
    under = {name: score_checked(labels, runs, s).scores for name, labels in scored.items()}
    found = agreement_of(reference, own, reference_scored.scores, under, plan, s.threshold, variants)
    bias = None
    if families is not None:
        bias = family_rows(reference_scored.scores, under, families, plan.seed, family_permutations)
    return dataclasses.replace(found, reference=reference_scored, families=bias)


_RUN_DEFAULTS = {"unjudged": "nonrelevant", "test": "paired_t+holm", "level": 0.05, "permutations": 1000,
                 "seed": DEFAULT_SEED, "families": None, "family_permutations": FAMILY_PERMUTATIONS, "ties": ()}


def _refuse_run_settings(measures: Sequence[str], settings: Mapping[str, Any], **given: Any) -> None:
    """Without runs only the labels are compared: a setting of the runs' scores or
    conclusions given (other than its default) would change nothing, so it is refused."""
    changed = [name for name, value in given.items() if value != _RUN_DEFAULTS[name]]
    changed += [name for name, value in settings.items()
                if name not in LABEL_SETTINGS and value != check.SCORE_DEFAULTS.get(name)]
    if [str(m) for m in check.measure_names("measures", measures)] != list(DEFAULT_MEASURES):
        changed.insert(0, "measures")
    if changed:
        raise ValueError(f"{', '.join(changed)} apply to the runs' scores, and no runs were given: without runs agree "
                         f"compares the labels alone (threshold is theirs)")


def _not_empty(name: str, value: Any) -> Any:
    """A set in memory that judges nothing is refused, as an empty file is: it has no label to compare, and
    under ``unjudged="reference"`` it would only repeat the qrels."""
    if (isinstance(value, Mapping) and not value) or (hasattr(value, "columns") and len(value) == 0):
        raise ValueError(f"judgments {name}: the set is empty (it judges nothing to compare with the qrels; under "
                         f"unjudged 'reference' it would only repeat them)")
    return value


def family_rows(reference_scores: Any, scores: Mapping[str, Any], families: str | Path | Mapping[str, str],
                seed: int, permutations: int) -> pd.DataFrame:
    """:func:`~irmeta.metaeval.family_bias.family_bias_table` of the sets, the families read
    (a file) or taken (a mapping) for exactly the scored runs, measures labelled as the
    other tables label them; draws from ``seed`` plus the family-bias offset."""
    from irmeta.campaign.run_families import families_for_runs
    from irmeta.campaign.runs import check_same_runs
    from irmeta.metaeval.family_bias import SEED_OFFSET, family_bias_table

    runs = list(reference_scores.runs)
    if isinstance(families, Mapping):
        check_same_runs(families, runs, "families", "family")
        missing = first_missing(families[run] for run in runs)
        if missing is not None:
            raise ValueError(f"families: the family of run {runs[missing[0]]} is {missing[1]}")
        named = {run: str(families[run]) for run in runs}
    else:
        named = families_for_runs(families, runs)
    table = family_bias_table(reference_scores, scores, named, permutations=permutations, seed=seed + SEED_OFFSET)
    labelled = table.assign(measure=column_labels(table["measure"], table["alpha"]))
    return labelled.drop(columns="alpha").reset_index(drop=True)


def agreement_of(reference: Qrels, labels: Mapping[str, Qrels], reference_scores: Any, scores: Mapping[str, Any],
                 plan: AgreePlan, threshold: int, ties: Sequence[str] = ()) -> Agreement:
    """The three tables from the judgments and the runs' scores under each set."""
    ranks = judgment_agreement_table(reference_scores, scores, reference_name=REFERENCE, level=plan.level,
                                     ties=ties)
    ranks = ranks.assign(measure=column_labels(ranks["measure"], ranks["alpha"]))
    conclusions = conclusion_agreement_table(
        reference_scores, scores, methods=[plan.test], corrections=[plan.correction], levels=[plan.level],
        permutations=plan.permutations, seed=plan.seed, reference_name=REFERENCE)
    conclusions = conclusions.assign(measure=column_labels(conclusions["measure"], conclusions["alpha"]))
    return Agreement(label_agreement_table(reference, labels, threshold=threshold),
                     ranks[ranking_columns(ties)].reset_index(drop=True),
                     conclusions[list(CONCLUSION_COLUMNS)].reset_index(drop=True), plan, threshold)


# ------------------------------------------------------------------- reports


def _cell(value: Any, digits: int | None) -> str:
    """A value as the reports write it: empty when missing, integers as they are, floats
    to ``digits`` decimals (None: shortest round trip), booleans True/False."""
    if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
        return str(bool(value))
    if isinstance(value, str):
        return value
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        if math.isnan(value):
            return ""
        return repr(float(value)) if digits is None else f"{float(value):.{digits}f}"
    return str(int(value))


def _blocks(a: Agreement) -> list[tuple[str, pd.DataFrame]]:
    p = a.plan
    draws = f", {p.permutations} draws from seed {p.seed}" if TESTS[p.test].randomised else ""
    correction = "no correction" if p.correction == NO_CORRECTION else CORRECTIONS[p.correction].caption
    labels = a.labels[a.labels["topic"] == ALL_TOPICS][list(REPORT_LABEL_COLUMNS)]
    label_block = (f"Label agreement with the qrels, on the (topic, document) pairs both judged (relevant: grade >= "
                   f"{a.threshold}).", labels)
    if a.rankings is None or a.conclusions is None:  # no runs: the labels alone
        return [label_block]
    return [
        label_block,
        ("Rank agreement with the qrels per measure: Kendall's tau-b (kendall_tau) and tau_AP (tau_ap, the qrels' "
         "ranking as the reference; a tie in either not credited) of the runs' means, the top of the two rankings "
         "(ties by run name; an overlap is empty with fewer runs than its k)" + _tied_caption(a.rankings) + ".",
         a.rankings),
        (f"Conclusion agreement with the qrels: {TESTS[p.test].title}{draws}, {correction} over all pairs, "
         f"level {p.level:g}; a pair's decision is a > b, b > a or none.",
         a.conclusions.assign(level=[f"{v:g}" for v in a.conclusions["level"]])),
    ] + ([] if a.families is None else [
        ("Bias towards a kind of system: per set, measure and family, the mean rank change of the family's runs "
         "from the qrels to the set (negative: moves up), the mean score change, and p of a permutation test of "
         "the family labels (empty for a family of one run).", a.families)])


def _tied_caption(rankings: pd.DataFrame) -> str:
    """What the tie-aware columns of the rankings table are, when it has them."""
    said = {"tau_a": "tau_a", "tau_ap_a": "tau_ap_a", "tau_ap_b": "tau_ap_b"}
    shown = [said[c] for c in rankings.columns if c in said]
    if not shown:
        return ""
    parts = []
    if "tau_a" in shown or "tau_ap_a" in shown:
        parts.append("tau_a, tau_ap_a: Urbano and Marrero's a variants, the qrels' ranking as the true one "
                     "(empty where it ties)")
    if "tau_ap_b" in shown:
        parts.append("tau_ap_b: their b variant (both may tie)")
    return "; " + "; ".join(parts)


def _rows(frame: pd.DataFrame, digits: int | None) -> list[list[str]]:
    return [[_cell(v, digits) for v in row] for row in frame.itertuples(index=False, name=None)]


def agreement_tsv(a: Agreement, digits: int | None = None) -> str:
    """The three tables as TSV blocks, each a ``# `` line with its caption, a header and its
    rows, a blank line between blocks; values at full precision or ``digits`` decimals,
    missing values empty. A name TSV cannot carry (a tab, a newline) is refused."""
    check_tsv_names("judgment set", list(a.labels["judgments"].unique()))
    if a.rankings is not None:
        check_tsv_names("run", [r for r in a.rankings["largest_rank_change_run"] if r])
    blocks = []
    for caption, frame in _blocks(a):
        lines = [f"# {caption}", "\t".join(frame.columns)] + ["\t".join(row) for row in _rows(frame, digits)]
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def _right(frame: pd.DataFrame) -> list[bool]:
    return [c not in ("judgments", "measure", "method", "largest_rank_change_run", "family") for c in frame.columns]


def _shown_blocks(a: Agreement, spellings: Mapping[str, str] | None) -> list[tuple[str, pd.DataFrame]]:
    """The reports' blocks, measures named as typed (``spellings``: canonical -> typed),
    the first table naming them saying which canonical name each stands for."""
    if not spellings:
        return _blocks(a)
    shown, noted = [], False
    for caption, frame in _blocks(a):
        if "measure" in frame.columns:
            frame = frame.assign(measure=typed_labels(frame["measure"], spellings))
            caption, noted = (caption if noted else caption + spellings_note(spellings)), True
        shown.append((caption, frame))
    return shown


def agreement_markdown(a: Agreement, digits: int = 4, spellings: Mapping[str, str] | None = None) -> str:
    """The three tables as GitHub Markdown, each with its caption on the line above;
    measures as typed (:func:`_shown_blocks`)."""
    parts = []
    for caption, frame in _shown_blocks(a, spellings):
        lines = [markdown_escape(caption), ""] + markdown_table(list(frame.columns), _rows(frame, digits),
                                                                 _right(frame))
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def agreement_latex(a: Agreement, digits: int = 4, spellings: Mapping[str, str] | None = None) -> str:
    """The three tables as LaTeX ``table`` environments (names escaped, measures as typed)."""
    parts = []
    for caption, frame in _shown_blocks(a, spellings):
        spec = "".join("r" if right else "l" for right in _right(frame))
        parts.append("\n".join(latex_table(list(frame.columns), _rows(frame, digits), spec, caption)) + "\n")
    return "\n".join(parts)


def render(a: Agreement, fmt: str = "markdown", digits: int | None = None,
           spellings: Mapping[str, str] | None = None) -> str:
    """The agreement in one of :data:`FORMATS`; ``digits`` None: 4 decimals in the
    reports, full precision in the TSV. ``spellings`` (canonical -> typed): the reports
    name the measures as typed; the TSV keeps the canonical names."""
    fmt = check.choice("format", fmt, FORMATS)
    if fmt == "tsv":
        return agreement_tsv(a, digits)
    shown = 4 if digits is None else digits
    if fmt == "markdown":
        return agreement_markdown(a, shown, spellings)
    return agreement_latex(a, shown, spellings)
