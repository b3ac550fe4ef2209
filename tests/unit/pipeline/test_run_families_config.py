"""A collection's run_families checked before any job: each refusal one line naming the
collection's YAML, the key, and the families file's line or run."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
import yaml

from campaigns import REPO
from irmeta.pipeline.collection_config import load_collection
from irmeta.pipeline.config_schema import ConfigError
from irmeta.pipeline.run_families_config import check_run_families, collection_run_names
from irmeta.simulate import simulated_run_names


def _collection(tmp_path: Path, families: str | None, *, run_name: str = "file"):
    runs = tmp_path / "runs"
    runs.mkdir(exist_ok=True)
    for name in ("r1", "r2", "r3"):
        with gzip.open(runs / f"{name}.gz", "wt") as out:
            out.write(f"401 Q0 d1 1 2.0 tag_{name}\n")
    (tmp_path / "qrels.txt").write_text("401 0 d1 1\n")
    data = {"name": "c", "qrels": "qrels.txt", "runs": "runs", "run_name": run_name}
    if families is not None:
        (tmp_path / "families.tsv").write_text(families)
        data["run_families"] = "families.tsv"
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_collection(path, tmp_path, base_dir=tmp_path), path


def test_a_families_file_naming_every_run_passes(tmp_path):
    collection, _ = _collection(tmp_path, "run\tfamily\nr1\tbm25\nr2\tbm25\nr3\tneural\n")
    assert collection.run_families == tmp_path / "families.tsv"
    check_run_families(collection)
    tagged, _ = _collection(tmp_path, "run\tfamily\ntag_r1\ta\ntag_r2\ta\ntag_r3\tb\n", run_name="tag")
    check_run_families(tagged)


@pytest.mark.parametrize(("families", "message"), [
    ("run\tfamily\nr1\tbm25\nr2\tbm25\nr3\tneural\nr4\tneural\n", r"run r4 is not among the collection's runs"),
    ("run\tfamily\nr1\tbm25\nr2\tbm25\n", r"run r3 has no family"),
    ("run\tfamily\nr1\tbm25\nr2\tbm25\nr1\tneural\n", r"families.tsv: line 4: run r1 is listed twice"),
    ("run\tsystem\nr1\tbm25\n", r"families.tsv: line 1: the header must be 'run<TAB>family'"),
])
def test_a_bad_families_file_is_refused_on_one_line_naming_file_and_key(tmp_path, families, message):
    collection, path = _collection(tmp_path, families)
    with pytest.raises(ConfigError, match=message) as caught:
        check_run_families(collection)
    text = str(caught.value)
    assert text.startswith(f"{path}: key 'run_families': ") and "\n" not in text


def test_a_missing_families_file_is_refused(tmp_path):
    collection, path = _collection(tmp_path, None)
    collection = type(collection)(**{**collection.__dict__, "run_families": tmp_path / "nope.tsv"})
    with pytest.raises(ConfigError, match=r"key 'run_families': .*nope.tsv: no such file"):
        check_run_families(collection)


def test_the_demo_families_name_the_simulated_runs():
    demo = load_collection(REPO / "config/collections/demo.yaml", REPO, base_dir=REPO)
    assert collection_run_names(demo) == simulated_run_names(42, 24)
    check_run_families(demo)


def test_families_are_not_allowed_without_runs(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({"name": "c", "scores": {"path": "s.tsv"}, "run_families": "f.tsv"}))
    with pytest.raises(ConfigError, match="run_families"):
        load_collection(path, tmp_path, base_dir=tmp_path)
