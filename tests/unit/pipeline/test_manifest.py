"""The experiment manifest (irmeta.pipeline.manifest) against reality: the schema's
sections, the metaeval modules' seed offsets, the rule files, the report captions, the
plot functions, and what a dry run of the workflow writes."""

from __future__ import annotations

import importlib
import re
from dataclasses import replace

import pytest

from campaigns import REPO
from dry_run import dry_run_outputs
from irmeta.pipeline import manifest
from irmeta.pipeline.experiment_settings import experiment_seed
from irmeta.pipeline.manifest import EXPERIMENTS, INFRASTRUCTURE_RULE_FILES, Facts

RULES = REPO / "workflow" / "rules"
REPORT = REPO / "workflow" / "report"
EVERYTHING_ON = {"swap": {"measures": ["P@100"]}, "asl": {"enabled": True}, "reusability": {"enabled": True},
                 "reproducibility": {"degradations": {"enabled": True}}, "test_error_rates": {"enabled": True}}
RANKED = Facts(has_runs=True, alternative_judgments=False, generated_judgments=True, paired_tests=True,
               reproductions=True, run_families=True)
SCORES_ONLY = Facts(has_runs=False, alternative_judgments=False, generated_judgments=True, paired_tests=True,
                    reproductions=True)


def _outputs(kind: str) -> list[manifest.Output]:
    return [item for entry in EXPERIMENTS for item in getattr(entry, kind)]


def test_names_are_unique():
    for names in ([e.name for e in EXPERIMENTS], [t.name for t in _outputs("tables")],
                  [f.name for f in _outputs("figures")], [s.name for e in EXPERIMENTS for s in e.seeds]):
        assert len(names) == len(set(names)), names


def test_every_section_is_in_the_schema():
    from irmeta.pipeline.config_schema import load_schema

    schema = load_schema("config.schema.yaml")
    sections = schema["properties"]["experiments"]["properties"]
    named = [e.section for e in EXPERIMENTS if e.section is not None]
    assert named and not set(named) - set(sections), set(named) - set(sections)


def test_seed_offsets_are_the_metaeval_modules_own_and_distinct():
    declaring = sorted(
        ".".join(path.relative_to(REPO / "src").with_suffix("").parts)
        for path in (REPO / "src" / "irmeta" / "metaeval").rglob("*.py")
        if re.search(r"^SEED_OFFSET\s*=", path.read_text(), re.M)
    )
    seeds = manifest.seeds()
    # every module that draws is named by exactly one stream, and nothing else is
    assert sorted(seed.module for seed in seeds.values()) == declaring
    offsets = [seed.offset() for seed in seeds.values()]
    assert len(offsets) == len(set(offsets)), offsets
    for name, seed in seeds.items():
        module = importlib.import_module(seed.module)
        assert experiment_seed({"experiments": {"seed": 1000}}, name) == 1000 + module.SEED_OFFSET
    with pytest.raises(ValueError, match="no randomised experiment 'rarity_listing'"):
        experiment_seed({"experiments": {"seed": 1}}, "rarity_listing")


def test_every_rule_file_is_an_experiments_or_infrastructure_and_included():
    on_disk = {path.name for path in RULES.glob("*.smk")}
    experiments = [e.rule_file for e in EXPERIMENTS]
    assert not set(experiments) & set(INFRASTRUCTURE_RULE_FILES)
    assert on_disk == set(experiments) | set(INFRASTRUCTURE_RULE_FILES)
    included = set(re.findall(r'^include: "workflow/rules/(\w+\.smk)"$', (REPO / "Snakefile").read_text(), re.M))
    assert included == on_disk


def test_every_caption_exists_and_every_caption_file_is_used():
    named = {item.caption for item in _outputs("tables") + _outputs("figures") if item.caption is not None}
    on_disk = {path.stem for path in REPORT.glob("*.rst")}
    assert named <= on_disk, named - on_disk
    # the rest caption what is not an experiment's: the workflow, the listing, the claims, the paper
    rules_text = "\n".join(path.read_text() for path in RULES.glob("*.smk")) + (REPO / "Snakefile").read_text()
    for stem in on_disk - named:
        assert f"report/{stem}.rst" in rules_text, stem


def test_every_subcategory_is_given_for_a_captioned_output():
    for item in _outputs("tables") + _outputs("figures"):
        assert (item.caption is None) == (item.subcategory == ""), item.name


def test_every_figure_names_a_plot_function_that_exists():
    for figure in _outputs("figures"):
        module, _, function = figure.plot.partition(":")
        assert module.startswith("irmeta.artefacts.figures."), figure.name
        assert callable(getattr(importlib.import_module(module), function)), figure.plot


def test_every_table_declares_its_columns_in_a_constant_of_the_library():
    """One home for a table's columns: ``module:CONSTANT`` of the module that builds it
    (the writer takes them from there, the documentation's table reference reads them);
    distinct names, some always written; each module's optional columns are its tables'."""
    owners: dict[str, set[str]] = {}
    for table in _outputs("tables"):
        module, _, constant = table.columns.partition(":")
        assert module.startswith(("irmeta.metaeval.", "irmeta.campaign.")) and constant.endswith("COLUMNS"), table.name
        declared = table.declared_columns()
        assert all(isinstance(c, str) and c for c in declared.names), table.name
        assert len(set(declared.names)) == len(declared.names), table.name
        assert declared.written([]), table.name
        owners.setdefault(module, set()).update(declared.names)
    for module, names in owners.items():
        optional = getattr(importlib.import_module(module), "OPTIONAL_COLUMNS", {})
        assert set(optional) <= names, (module, set(optional) - names)
    assert not [f.name for f in _outputs("figures") if f.columns]


def test_what_a_collection_runs_follows_its_facts_and_the_settings():
    everything = manifest.collection_tables(EVERYTHING_ON, RANKED)
    assert everything == [t.name for t in _outputs("tables")]
    assert manifest.collection_figures(EVERYTHING_ON, RANKED) == [f.name for f in _outputs("figures")]
    assert manifest.skipped(EVERYTHING_ON, RANKED) == {}

    # scores only: the experiments that read rankings are skipped, each with its reason
    skipped = manifest.skipped(EVERYTHING_ON, SCORES_ONLY)
    assert list(skipped) == [e.name for e in EXPERIMENTS if e.needs == "rankings"]
    assert skipped["asl"] == "scores only: it reads the rank of every relevant document"
    assert manifest.collection_tables(EVERYTHING_ON, SCORES_ONLY) == [
        "kendall_tau", "discriminative_power", "stability", "swap_sensitivity",
        "anova", "topic_set_size", "minimum_detectable_difference", "test_error_rates", "simulation_models"]

    # switched off: not run, and not skipped either
    off = {"swap": {"measures": []}, "asl": {"enabled": False}, "reusability": {"enabled": False}}
    quiet = Facts(has_runs=True, alternative_judgments=False, generated_judgments=False, paired_tests=False)
    tables = manifest.collection_tables(off, quiet)
    assert not {"swap_sensitivity", "asl_reordering", "reusability", "judgment_agreement"} & set(tables)
    assert "p_value_curves" not in manifest.collection_figures(off, quiet)
    assert manifest.skipped(off, Facts(False, False, False, False)) == {
        e.name: f"scores only: {e.reason}" for e in EXPERIMENTS
        if e.name in ("system_subsampling", "synthetic_rare_common", "rarity_listing")}
    # alternative judgments alone turn the judgment tables on
    judged = Facts(has_runs=True, alternative_judgments=True, generated_judgments=False, paired_tests=False)
    assert manifest.collection_tables(off, judged)[-5:] == ["judgment_agreement", "judgment_reduction",
                                                          "label_agreement", "label_confusion", "assessor_agreement"]
    # family_bias.csv only with the collection's run_families; the rank figure either way
    assert "family_bias" not in manifest.collection_tables(EVERYTHING_ON, judged)
    assert "family_ranks" in manifest.collection_figures(EVERYTHING_ON, judged)
    # the error rates on the section's collections only
    some = {**EVERYTHING_ON, "test_error_rates": {"enabled": True, "collections": ["demo"]}}
    assert "test_error_rates" in manifest.collection_tables(some, replace(RANKED, name="demo"))
    assert not {"test_error_rates", "simulation_models"} & set(manifest.collection_tables(some, RANKED))
    assert "test_error_rates_power" not in manifest.collection_figures(some, replace(RANKED, name="trec8"))
    assert manifest.collection_tables(EVERYTHING_ON, RANKED, paper=True) == [
        "kendall_tau", "discriminative_power", "stability", "swap_sensitivity", "system_subsampling",
        "synthetic_rare_common", "rarity_listing"]


def test_unknown_names_are_refused_on_one_line():
    with pytest.raises(ValueError, match="no experiment 'nope' in the manifest"):
        manifest.experiment("nope")
    with pytest.raises(ValueError, match="no figure 'nope' in the experiment manifest"):
        manifest.output("figures", "nope")


@pytest.mark.slow
def test_every_table_and_figure_is_written_by_its_experiments_rules(shared_data):
    """The demo config turns every experiment on: each manifest table and figure (PNG and
    PDF) is written by a rule of its experiment's rule file, and no experiment's rule writes
    a table or figure of a collection that the manifest does not declare."""
    defined = {rule: path.name for path in RULES.glob("*.smk")
               for rule in re.findall(r"^rule (\w+):$", path.read_text(), re.M)}
    outputs = dry_run_outputs(REPO, "--config", f"data_root={shared_data}")
    declared = set()
    for entry in EXPERIMENTS:
        files = [f"results/demo/tables/{t.name}.csv" for t in entry.tables]
        files += [f"results/demo/figures/{f.name}.{ext}" for f in entry.figures for ext in ("png", "pdf")]
        for path in files:
            assert path in outputs, path
            assert defined[outputs[path]] == entry.rule_file, (path, outputs[path])
        declared |= set(files)
    # (the collection's properties, tables/collection_properties.csv, are no experiment's)
    written = {path for path, rule in outputs.items() if defined[rule] not in INFRASTRUCTURE_RULE_FILES
               and re.fullmatch(r"results/demo/(tables/\w+\.csv|figures/\w+\.(png|pdf))", path)}
    assert written == declared, written ^ declared


def test_every_seed_offset_read_from_its_source_is_the_imported_constant():
    """The workflow's parse reads the offsets from the modules' sources (no pandas there):
    each equals the module's SEED_OFFSET once imported, and none is left to importing."""
    import importlib
    import importlib.util
    from pathlib import Path

    from irmeta.pipeline.manifest import seeds, source_constant

    for seed in seeds().values():
        read = source_constant(Path(importlib.util.find_spec(seed.module).origin), "SEED_OFFSET")
        assert read is not None, seed.module
        assert read == importlib.import_module(seed.module).SEED_OFFSET == seed.offset()
