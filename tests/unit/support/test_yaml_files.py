"""A YAML key named twice is refused naming file, line and key, in every YAML irmeta reads
(issue 40, item 8): one loader (:mod:`irmeta.support.yaml_files`), which every reader
uses; the collection files, configs (Snakemake's too, at parse time), the published
figures; and no other YAML loader anywhere in the sources."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from campaigns import REPO
from irmeta.artefacts.paper.report import load_published
from irmeta.pipeline.collection_config import load_collection
from irmeta.pipeline.config_checks import load_config
from irmeta.pipeline.config_schema import ConfigError
from irmeta.support.yaml_files import DuplicateKeyError, load_yaml, load_yaml_text


@pytest.mark.parametrize("text, line, key, first", [
    ("a: 1\nb: 2\na: 3\n", 3, "'a'", 1),
    ("top:\n  x: 1\n  y: 2\n  x: 1\n", 4, "'x'", 2),  # nested, even with the same value
    ("- {k: 1, k: 2}\n", 1, "'k'", 1),
    ("1: a\n2: b\n1: c\n", 3, "1", 1),
])
def test_a_key_named_twice_is_one_line_naming_file_line_and_key(text, line, key, first):
    with pytest.raises(DuplicateKeyError) as exc:
        load_yaml_text(text, "dir/my file.yaml")
    message = str(exc.value)
    assert message.startswith(f"dir/my file.yaml:{line}: key {key} is given twice in one mapping (first on line "
                              f"{first})") and "\n" not in message


def test_what_yaml_allows_is_read_as_before():
    assert load_yaml_text("base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  x: 3\n", "f") == {
        "base": {"x": 1, "y": 2}, "d": {"x": 3, "y": 2}}  # a merge key overridden: what YAML means
    assert load_yaml_text("a: {b: 1}\nc: {b: 2}\n", "f") == {"a": {"b": 1}, "c": {"b": 2}}  # one key per mapping


def test_every_shipped_yaml_has_unique_keys():
    files = [*REPO.glob("config/**/*.yaml"), *REPO.glob("src/irmeta/**/*.yaml"), *REPO.glob("profiles/**/*.yaml")]
    assert len(files) > 10
    for path in files:
        load_yaml(path)


def test_a_collection_file_naming_a_key_twice_is_refused(tmp_path):
    (tmp_path / "qrels.txt").write_text("1 0 d 1\n")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "r").write_text("1 Q0 d 1 1 r\n")
    path = tmp_path / "c.yaml"
    path.write_text("name: c\nqrels: '{data_root}/qrels.txt'\nruns: '{data_root}/runs'\npool_depth: 10\n"
                    "pool_depth: 100\n")
    with pytest.raises(ConfigError, match=re.escape(f"{path}:5: key 'pool_depth' is given twice in one mapping "
                                                    f"(first on line 4)")):
        load_collection(path, tmp_path)


def test_a_config_and_the_published_figures_naming_a_key_twice_are_refused(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("seed: 1\nexperiments:\n  seed: 2\nseed: 3\n")
    with pytest.raises(ConfigError, match=re.escape(f"{config}:4: key 'seed'")):
        load_config(config)
    published = tmp_path / "published.yaml"
    published.write_text("table1:\n  trec8: 1\n  trec8: 2\n")
    with pytest.raises(DuplicateKeyError, match=re.escape(f"{published}:3: key 'trec8'")):
        load_published(published)


@pytest.mark.slow
def test_snakemake_refuses_a_config_file_naming_a_key_twice_at_parse_time(tmp_path):
    """Snakemake reads --configfile itself and would keep the last value."""
    work = tmp_path / "flow"
    work.mkdir()
    shutil.copy2(REPO / "Snakefile", work / "Snakefile")
    for folder in ("workflow", "config"):
        shutil.copytree(REPO / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (work / "mine.yaml").write_text("collections: [demo]\nalphas: [0.5]\ncollections: [trec8]\n")
    snakemake = Path(sys.executable).with_name("snakemake")
    done = subprocess.run([str(snakemake), "-n", "--quiet", "--configfile", "mine.yaml"], cwd=work,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    said = done.stdout + done.stderr  # Snakemake's log goes to either
    assert "mine.yaml:3: key 'collections' is given twice in one mapping (first on line 1)" in said, said[-2000:]


def test_no_other_yaml_loader_in_the_sources():
    """Every YAML read goes through irmeta.support.yaml_files (writing YAML is free)."""
    loads = re.compile(r"yaml\.(safe_load|load|full_load|unsafe_load|load_all|safe_load_all)\(|SafeLoader|"
                       r"CLoader|FullLoader")
    found = [f"{path.relative_to(REPO)}" for folder in ("src", "workflow", "Snakefile")
             for path in ([REPO / folder] if folder == "Snakefile" else (REPO / folder).rglob("*"))
             if path.is_file() and path.suffix in ("", ".py", ".smk") and loads.search(path.read_text(errors="ignore"))]
    assert found == ["src/irmeta/support/yaml_files.py"]
