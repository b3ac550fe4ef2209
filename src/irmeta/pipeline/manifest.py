"""The experiment manifest: every experiment of the workflow declared once, with its
configuration section and the condition under which it runs, its tables and figures,
what it reads (rankings or scores only), its seeded draws and its report captions.

``workflow/rules/common.smk`` builds from it the targets of each collection, the
experiments a scores-only collection skips (and why), and the report entries of every
table and figure (``collection_table``, ``collection_figure``);
:func:`irmeta.pipeline.experiment_settings.experiment_seed` reads the seeds from it.
``tests/unit/pipeline/test_manifest.py`` checks it against the rules, the schema and the
:mod:`irmeta.metaeval` modules.

Figures follow one convention: an experiment's figures are drawn by its own rules (in
its rule file, ``workflow/rules/<rule_file>``), each by the plot function of
:mod:`irmeta.artefacts.figures` that its entry names.

Seed offsets have one home, the ``SEED_OFFSET`` constant of the :mod:`irmeta.metaeval`
module that draws (metaeval must not import the pipeline); an entry names that module
and :meth:`Seed.offset` reads the constant when asked.

So do a table's columns: the ``*COLUMNS`` constant of the module that builds the table,
which its builder makes the frame from (and ``OPTIONAL_COLUMNS`` there, the columns only
some settings write); a table's entry names it, ``columns="module:CONSTANT"``, and
:meth:`Output.declared_columns` reads it when asked. The documentation's table reference
(``docs/hooks/reference.py``) is written from these.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple


@dataclass(frozen=True)
class Facts:
    """What decides which experiments a collection runs, besides the config."""

    has_runs: bool  #: rankings (runs, or simulated), not only a scores file
    alternative_judgments: bool  #: the collection names alternative_qrels
    generated_judgments: bool  #: experiments.judgment_agreement generates judgment sets
    paired_tests: bool  #: discriminative power's methods include paired tests
    reproductions: bool = False  #: the collection names its reproductions (key reproductions)
    run_families: bool = False  #: the collection names its runs' families (key run_families)
    name: str = ""  #: the collection's name (an experiment may run on some collections only)


#: A condition on ``config["experiments"]`` and a collection's :class:`Facts`.
Condition = Callable[[Mapping[str, Any], Facts], bool]


def always(experiments: Mapping[str, Any], facts: Facts) -> bool:
    """On whatever the settings (the paper's experiments)."""
    return True


@dataclass(frozen=True)
class Output:
    """A table (``results/{c}/tables/<name>.csv``) or figure (``results/{c}/figures/<name>.png``
    and ``.pdf``), with its report entry: ``workflow/report/<caption>.rst`` under the
    collection's category and ``subcategory`` (``caption`` None: not in the report)."""

    name: str
    caption: str | None
    subcategory: str = ""
    plot: str = ""  #: a figure's plot function, ``module:function`` in irmeta.artefacts.figures
    when: Condition = always  #: beyond the experiment's own condition
    columns: str = ""  #: a table's columns, ``module:CONSTANT`` of the module that builds it

    def declared_columns(self) -> Columns:
        """The table's columns, read from its constant when asked (the job imports nothing more)."""
        if not self.columns:
            raise ValueError(f"the manifest's {self.name!r} declares no columns")
        return declared_columns(self.columns)


class Columns(NamedTuple):
    """A table's columns as the module that builds it declares them: ``names`` in order,
    and ``optional``, those of them written only under some setting (the module's
    ``OPTIONAL_COLUMNS``), with when."""

    names: tuple[str, ...]
    optional: dict[str, str]

    def written(self, present: Iterable[str]) -> list[str]:
        """The columns a table with the optional columns ``present`` has, in order."""
        present = set(present)
        return [c for c in self.names if c not in self.optional or c in present]


def declared_columns(where: str) -> Columns:
    """The columns ``module:CONSTANT`` declares, with the module's optional ones among them."""
    module_name, constant = where.split(":")
    module = importlib.import_module(module_name)
    names = tuple(getattr(module, constant))
    optional = getattr(module, "OPTIONAL_COLUMNS", {})
    return Columns(names, {c: optional[c] for c in names if c in optional})


@dataclass(frozen=True)
class Seed:
    """One stream of random draws: ``experiments.seed`` plus ``module.SEED_OFFSET``."""

    name: str  #: the name experiment_seed takes
    module: str  #: the irmeta.metaeval module that owns the offset

    def offset(self) -> int:
        """The module's ``SEED_OFFSET``, read from its source when it is an integer literal
        (:func:`literal_constant`) rather than imported: the workflow's parse needs every
        seed, and importing the experiments' modules would import pandas there (0.3 s of a
        small campaign's serial start)."""
        value = literal_constant(self.module, "SEED_OFFSET")
        return int(importlib.import_module(self.module).SEED_OFFSET if value is None else value)


def literal_constant(module: str, name: str) -> int | None:
    """``module.name`` when the module (not imported yet) assigns it an integer literal at
    its top level (:func:`source_constant`); None otherwise (then only importing it tells)."""
    import importlib.util
    import sys

    if module in sys.modules:
        return getattr(sys.modules[module], name)
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return source_constant(Path(spec.origin), name)


def source_constant(path: Path, name: str) -> int | None:
    """The integer literal a module's source assigns ``name`` at its top level, else None."""
    import ast

    for node in ast.parse(path.read_bytes()).body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            value = node.value
            return value.value if isinstance(value, ast.Constant) and type(value.value) is int else None
    return None


@dataclass(frozen=True)
class Experiment:
    """One experiment: its config section (``experiments.<section>``, None when it has
    none) and the condition under which it is on; ``needs`` ``"rankings"`` (the runs'
    ranked documents; skipped on a scores-only collection, for ``reason``) or ``"scores"``
    (per-topic scores only, every collection); its rule file, tables, figures and seeds;
    ``paper``: published_vs_reproduced reads its tables."""

    name: str
    section: str | None
    rule_file: str
    tables: tuple[Output, ...]
    figures: tuple[Output, ...] = ()
    needs: Literal["rankings", "scores"] = "scores"
    reason: str = ""
    on: Condition = always
    seeds: tuple[Seed, ...] = ()
    paper: bool = False


def _metaeval(name: str) -> str:
    return f"irmeta.metaeval.{name}"


_FIGURES = "irmeta.artefacts.figures"


def _simulates(section: Mapping[str, Any], collection: str) -> bool:
    from irmeta.pipeline.error_rate_config import simulates

    return simulates(section, collection)


def _has_families(experiments: Mapping[str, Any], facts: Facts) -> bool:
    """family_bias.csv: the collection names its runs' families (key run_families)."""
    return facts.run_families

#: Every experiment, in the order experiments.md lists them.
EXPERIMENTS: tuple[Experiment, ...] = (
    Experiment(
        "kendall_tau", "kendall_tau", "kendall_tau.smk",
        tables=(Output("kendall_tau", "kendall_tau_table", "Kendall tau vs alpha",
                       columns="irmeta.metaeval.kendall_tau:COLUMNS"),),
        figures=(Output("kendall_tau", "kendall_tau", "Kendall tau vs alpha",
                        f"{_FIGURES}.collection:plot_kendall_tau"),),
        seeds=(Seed("kendall_tau", _metaeval("kendall_tau")),),  # tau's bootstrap interval
        paper=True,
    ),
    Experiment(
        "discriminative_power", "discriminative_power", "discriminative_power.smk",
        tables=(Output("discriminative_power", "discriminative_power", "Discriminative power",
                       columns="irmeta.metaeval.discriminative_power:COLUMNS"),),
        figures=(
            Output("discriminative_power", "discriminative_power", "Discriminative power",
                   f"{_FIGURES}.collection:plot_discriminative_power"),
            Output("p_value_curves", "p_value_curves", "Discriminative power",
                   f"{_FIGURES}.pairwise:plot_p_value_curves",
                   when=lambda experiments, facts: facts.paired_tests),
        ),
        seeds=(Seed("discriminative_power", _metaeval("discriminative_power")),
               Seed("pairwise_tests", _metaeval("pairwise_tests"))),
        paper=True,
    ),
    Experiment(
        "stability", "stability", "stability.smk",
        tables=(Output("stability", "stability", "Stability", columns="irmeta.metaeval.stability:COLUMNS"),),
        figures=(Output("stability", "stability", "Stability", f"{_FIGURES}.collection:plot_stability"),),
        seeds=(Seed("stability", _metaeval("stability")),),
        paper=True,
    ),
    Experiment(
        "swap_sensitivity", "swap", "swap_sensitivity.smk",
        tables=(Output("swap_sensitivity", "swap_sensitivity", "Swap method",
                       columns="irmeta.metaeval.swap_sensitivity:COLUMNS"),),
        on=lambda experiments, facts: bool(experiments["swap"]["measures"]),
        seeds=(Seed("swap_sensitivity", _metaeval("swap_sensitivity")),),
        paper=True,
    ),
    Experiment(
        "system_subsampling", "system_subsampling", "system_subsampling.smk",
        tables=(Output("system_subsampling", "system_subsampling", "Number of systems",
                       columns="irmeta.metaeval.system_subsampling:COLUMNS"),),
        figures=(Output("system_subsampling", "system_subsampling", "Number of systems",
                        f"{_FIGURES}.collection:plot_system_subsampling"),),
        needs="rankings", reason="it recounts S_d among subsets of the runs and rescores them",
        seeds=(Seed("system_subsampling", _metaeval("system_subsampling")),),
        paper=True,
    ),
    Experiment(
        "synthetic_rare_common", "synthetic", "synthetic_rare_common.smk",
        tables=(Output("synthetic_rare_common", "synthetic_rare_common", "Synthetic rare/common systems",
                       columns="irmeta.metaeval.synthetic_rare_common:COLUMNS"),),
        figures=(Output("synthetic_rare_common", "synthetic_rare_common", "Synthetic rare/common systems",
                        f"{_FIGURES}.collection:plot_synthetic_rare_common"),),
        needs="rankings", reason="it builds new systems from the relevant documents the runs retrieve",
        paper=True,
    ),
    Experiment(
        "rarity_listing", None, "rarity_listing.smk",
        tables=(Output("rarity_listing", "rarity", "Rarity", columns="irmeta.campaign.rarity:LISTING_COLUMNS"),),
        figures=(Output("rarity_distribution", "rarity", "Rarity",
                        f"{_FIGURES}.collection:plot_rarity_distribution"),),
        needs="rankings", reason="it counts S_d, the runs that retrieve each relevant document",
        paper=True,
    ),
    Experiment(
        "asl", "asl", "asl_analysis.smk",
        tables=(Output("asl_reordering", "asl", "Atomized Search Length",
                       columns="irmeta.metaeval.asl_analysis:REORDERING_COLUMNS"),
                Output("asl_rrie", None, columns="irmeta.metaeval.asl_analysis:RRIE_COLUMNS")),
        figures=(Output("asl_histogram", "asl", "Atomized Search Length", f"{_FIGURES}.asl:plot_asl_histogram"),
                 Output("asl_difference", "asl", "Atomized Search Length",
                        f"{_FIGURES}.asl:plot_asl_difference_histogram")),
        needs="rankings", reason="it reads the rank of every relevant document",
        on=lambda experiments, facts: bool(experiments["asl"]["enabled"]),
    ),
    Experiment(
        "reusability", "reusability", "reusability.smk",
        tables=(Output("reusability", "reusability", "Reusability",
                       columns="irmeta.metaeval.reusability_tables:COLUMNS"),
                Output("reusability_summary", "reusability", "Reusability",
                       columns="irmeta.metaeval.reusability_tables:SUMMARY_COLUMNS")),
        figures=(Output("reusability", "reusability", "Reusability", f"{_FIGURES}.reusability:plot_reusability"),),
        needs="rankings", reason="it rebuilds the pools from the runs' rankings and rescores the runs",
        on=lambda experiments, facts: bool(experiments["reusability"]["enabled"]),
    ),
    Experiment(
        "variance", "topic_set_size", "variance.smk",
        tables=(Output("anova", "anova", "Variance components", columns="irmeta.metaeval.variance:ANOVA_TABLE_COLUMNS"),
                Output("topic_set_size", "topic_set_size_table", "Topic set size",
                       columns="irmeta.metaeval.variance:TOPIC_SET_SIZE_COLUMNS"),
                Output("minimum_detectable_difference", "minimum_detectable_difference", "Topic set size",
                       columns="irmeta.metaeval.variance:MDD_COLUMNS")),
        figures=(Output("topic_set_size", "topic_set_size", "Topic set size",
                        f"{_FIGURES}.topic_set_size:plot_topic_set_size"),),
    ),
    Experiment(
        "judgment_agreement", "judgment_agreement", "judgment_agreement.smk",
        tables=(Output("judgment_agreement", "judgment_agreement", "Judgment sets",
                       columns="irmeta.metaeval.judgment_agreement:JUDGMENT_AGREEMENT_COLUMNS"),
                Output("judgment_reduction", "judgment_reduction", "Judgment sets",
                       columns="irmeta.metaeval.judgment_reduction:JUDGMENT_REDUCTION_COLUMNS"),
                Output("family_bias", "family_bias", "Judgment sets", when=_has_families,
                       columns="irmeta.metaeval.family_bias:FAMILY_BIAS_COLUMNS")),
        figures=(Output("judgment_agreement", "judgment_agreement", "Judgment sets",
                        f"{_FIGURES}.judgments:plot_judgment_agreement"),
                 Output("judgment_reduction", "judgment_reduction", "Judgment sets",
                        f"{_FIGURES}.judgment_reduction:plot_judgment_reduction"),
                 Output("family_ranks", "family_ranks", "Judgment sets",
                        f"{_FIGURES}.judgment_sets:plot_family_ranks")),
        needs="rankings", reason="it rescores the runs under other qrels",
        on=lambda experiments, facts: facts.alternative_judgments or facts.generated_judgments,
        seeds=(Seed("judgment_reduction", _metaeval("judgment_reduction")),
               Seed("family_bias", _metaeval("family_bias"))),
    ),
    Experiment(
        "reproducibility", "reproducibility", "reproducibility.smk",
        tables=(Output("reproducibility", "reproducibility", "Reproducibility",
                       columns="irmeta.metaeval.reproducibility_table:COLUMNS"),),
        figures=(Output("reproducibility", "reproducibility", "Reproducibility",
                        f"{_FIGURES}.reproducibility:plot_reproducibility"),),
        needs="rankings", reason="it compares the original and reproduced runs' document orderings",
        on=lambda experiments, facts: facts.reproductions,
    ),
    Experiment(
        "reproducibility_degradation", "reproducibility", "reproducibility.smk",
        tables=(Output("reproducibility_degradation", "reproducibility_degradation", "Reproducibility",
                       columns="irmeta.metaeval.reproducibility_degradation:DEGRADATION_COLUMNS"),
                Output("reproducibility_trust", "reproducibility_degradation", "Reproducibility",
                       columns="irmeta.metaeval.reproducibility_degradation:TRUST_COLUMNS")),
        figures=(Output("reproducibility_degradation", "reproducibility_degradation", "Reproducibility",
                        f"{_FIGURES}.reproducibility:plot_reproducibility_degradation"),),
        needs="rankings", reason="it degrades the runs' rankings",
        on=lambda experiments, facts: bool(
            experiments.get("reproducibility", {}).get("degradations", {}).get("enabled", False)),
        seeds=(Seed("reproducibility_degradation", _metaeval("reproducibility_degradation")),),
    ),
    Experiment(
        "label_agreement", "judgment_agreement", "label_agreement.smk",
        tables=(Output("label_agreement", "label_agreement", "Judgment sets",
                       columns="irmeta.metaeval.label_agreement:LABEL_AGREEMENT_COLUMNS"),
                Output("label_confusion", "label_confusion", "Judgment sets",
                       columns="irmeta.metaeval.label_agreement:LABEL_CONFUSION_COLUMNS"),
                Output("assessor_agreement", "assessor_agreement", "Judgment sets",
                       columns="irmeta.metaeval.label_agreement:ASSESSOR_AGREEMENT_COLUMNS")),
        figures=(Output("label_confusion", "label_confusion_figure", "Judgment sets",
                        f"{_FIGURES}.judgment_sets:plot_label_confusion"),
                 Output("kappa_tau", "kappa_tau", "Judgment sets", f"{_FIGURES}.judgment_sets:plot_kappa_tau")),
        needs="rankings", reason="it compares judgment sets of a collection with qrels",
        on=lambda experiments, facts: facts.alternative_judgments or facts.generated_judgments,
    ),
    Experiment(
        "conclusion_agreement", "judgment_agreement", "conclusion_agreement.smk",
        tables=(Output("conclusion_agreement", "conclusion_agreement", "Judgment sets",
                       columns="irmeta.metaeval.conclusion_agreement:CONCLUSION_AGREEMENT_COLUMNS"),),
        needs="rankings", reason="it rescores the runs under other qrels",
        # discriminative power's paired tests (and seed) on the alternative sets: with
        # generated sets alone (too costly to test, ~0.3 s a matrix each) the header only
        on=lambda experiments, facts: (facts.alternative_judgments or facts.generated_judgments)
        and facts.paired_tests,
    ),
    Experiment(
        "test_error_rates", "test_error_rates", "test_error_rates.smk",
        tables=(Output("test_error_rates", "test_error_rates", "Error rates of the paired tests",
                       columns="irmeta.metaeval.test_error_rates:COLUMNS"),
                Output("simulation_models", "simulation_models", "Error rates of the paired tests",
                       columns="irmeta.metaeval.error_rate_models:MODEL_COLUMNS")),
        figures=(Output("test_error_rates_type_1", "test_error_rates_type_1", "Error rates of the paired tests",
                        f"{_FIGURES}.error_rates:plot_type_1"),
                 Output("test_error_rates_power", "test_error_rates_power", "Error rates of the paired tests",
                        f"{_FIGURES}.error_rates:plot_power"),
                 Output("test_error_rates_familywise", "test_error_rates_familywise",
                        "Error rates of the paired tests", f"{_FIGURES}.error_rates:plot_familywise")),
        # on the section's collections only (null: every one)
        on=lambda experiments, facts: _simulates(experiments.get("test_error_rates", {}), facts.name),
        seeds=(Seed("test_error_rates", _metaeval("test_error_rates")),),
    ),
)

#: Rule files that belong to no one experiment: the steps every experiment reads
#: (campaign, ingest, scores, rarity), the report and the collection properties.
INFRASTRUCTURE_RULE_FILES = ("common.smk", "simulate.smk", "download.smk", "ingest.smk", "score.smk",
                             "report.smk", "collection_properties.smk")


def experiment(name: str) -> Experiment:
    """The manifest entry of an experiment."""
    for entry in EXPERIMENTS:
        if entry.name == name:
            return entry
    raise ValueError(f"no experiment {name!r} in the manifest (one of {', '.join(e.name for e in EXPERIMENTS)})")


def is_on(entry: Experiment, experiments: Mapping[str, Any], facts: Facts) -> bool:
    """Is the experiment configured on (whether or not the collection can run it)?"""
    return entry.on(experiments, facts)


def runs_on(entry: Experiment, experiments: Mapping[str, Any], facts: Facts) -> bool:
    """Does the collection run the experiment: on, and its rankings when it needs them."""
    return is_on(entry, experiments, facts) and (entry.needs == "scores" or facts.has_runs)


def collection_tables(experiments: Mapping[str, Any], facts: Facts, *, paper: bool = False) -> list[str]:
    """The tables a collection gets (``paper``: only those published_vs_reproduced reads), in manifest order."""
    return [table.name for entry in EXPERIMENTS if runs_on(entry, experiments, facts) and (entry.paper or not paper)
            for table in entry.tables if table.when(experiments, facts)]


def collection_figures(experiments: Mapping[str, Any], facts: Facts) -> list[str]:
    """The figures a collection gets, in manifest order."""
    return [figure.name for entry in EXPERIMENTS if runs_on(entry, experiments, facts)
            for figure in entry.figures if figure.when(experiments, facts)]


def skipped(experiments: Mapping[str, Any], facts: Facts) -> dict[str, str]:
    """The experiments configured on that the collection cannot run, with the reason
    (experiments.md, the log and the end-of-run summary say it)."""
    return {entry.name: f"scores only: {entry.reason}" for entry in EXPERIMENTS
            if is_on(entry, experiments, facts) and not runs_on(entry, experiments, facts)}


def output(kind: Literal["tables", "figures"], name: str) -> Output:
    """The manifest's table or figure of that name (its report entry)."""
    for entry in EXPERIMENTS:
        for item in getattr(entry, kind):
            if item.name == name:
                return item
    raise ValueError(f"no {kind[:-1]} {name!r} in the experiment manifest")


def seeds() -> dict[str, Seed]:
    """Every seeded stream of draws, by name."""
    return {seed.name: seed for entry in EXPERIMENTS for seed in entry.seeds}
