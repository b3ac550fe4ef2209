"""alternative_qrels of any origin (irmeta.pipeline.judgment_config): both YAML forms,
folders expanded into one set per assessor and fused sets, the sets' qrels as
prepare_judgments writes them, and every refusal one line naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from irmeta.campaign.judgment_sets import filled_from_reference, fused_qrels
from irmeta.campaign.qrels import read_qrels
from irmeta.pipeline.collection_config import load_collection
from irmeta.pipeline.config_schema import ConfigError
from irmeta.pipeline.judgment_config import JudgmentSpec, collection_judgment_sets, set_qrels, write_trec_qrels


def _write(path: Path, data: dict | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


def _pairs(qrels) -> dict:
    return {(q, d): int(g) for q, d, g in zip(qrels.qid.to_pylist(), qrels.docid.to_pylist(), qrels.grade)}


@pytest.fixture
def data(tmp_path) -> Path:
    root = tmp_path / "data"
    _write(root / "qrels.txt", "1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 0\n")
    _write(root / "llm.txt", "1 0 a 0\n1 0 z 1\n")
    _write(root / "crowd" / "w1.txt", "1 0 a 1\n2 0 c 0\n")
    _write(root / "crowd" / "w2.txt", "1 0 a 0\n2 0 c 2\n1 0 b 1\n")
    _write(root / "crowd" / "w3.qrels", "1 0 a 1\n2 0 c 1\n")
    return root


def _collection(tmp_path: Path, alternatives: dict):
    conf = _write(tmp_path / "conf" / "c.yaml", {"name": "c", "qrels": "{data_root}/qrels.txt", "runs": "r",
                                                "alternative_qrels": alternatives})
    return load_collection(conf, tmp_path / "data", base_dir=tmp_path)


def test_both_forms_and_a_folder_give_these_sets(tmp_path, data):
    c = _collection(tmp_path, {"llm": "{data_root}/llm.txt",
                               "filled": {"path": "{data_root}/llm.txt", "unjudged": "reference"},
                               "crowd": {"path": "{data_root}/crowd", "fuse": ["majority", "max"]}})
    assert c.alternative_qrels["llm"] == data / "llm.txt" and c.alternative_qrels["crowd"] == data / "crowd"
    assert c.judgment_specs["filled"] == JudgmentSpec(data / "llm.txt", "reference", ())
    sets = collection_judgment_sets(c.judgment_specs, c.qrels, "c.yaml")
    assert list(sets) == ["llm", "filled", "w1", "w2", "w3", "crowd_majority", "crowd_max"]
    assert sets["llm"].read_as_is and sets["w3"].read_as_is and not sets["filled"].read_as_is
    crowd = data / "crowd"
    assert sets["crowd_max"].files == (crowd / "w1.txt", crowd / "w2.txt", crowd / "w3.qrels")
    reference = read_qrels(data / "qrels.txt")
    assert _pairs(set_qrels(sets["filled"], reference)) == _pairs(
        filled_from_reference(reference, read_qrels(data / "llm.txt")))
    assert _pairs(set_qrels(sets["filled"], reference)) == {("1", "a"): 0, ("1", "z"): 1, ("1", "b"): 0,
                                                            ("2", "c"): 2, ("2", "d"): 0}
    fused = set_qrels(sets["crowd_majority"], None)
    assert _pairs(fused) == _pairs(fused_qrels({p.name: read_qrels(p) for p in sets["crowd_max"].files}, "majority"))
    write_trec_qrels(fused, tmp_path / "out" / "qrels.txt")
    assert _pairs(read_qrels(tmp_path / "out" / "qrels.txt")) == _pairs(fused)


@pytest.mark.parametrize(("alternatives", "files", "message"), [
    ({"llm": {"path": "{data_root}/llm.txt", "fuse": ["max"]}}, {},
     "key 'alternative_qrels.llm.fuse': a fused set needs a folder of at least two sets, not 1"),
    ({"far": "{data_root}/far.txt"}, {"far.txt": "9 0 a 1\n"},
     "key 'alternative_qrels.far': {root}/far.txt judges none of the reference's topics"),
    ({"half": "{data_root}/half.txt"}, {"half.txt": "1 0 a 1\n1 0 b 0.5\n"},
     "{root}/half.txt:2: grade '0.5'"),
    ({"crowd": "{data_root}/crowd2"}, {"crowd2/qrels.txt": "1 0 a 1\n"},
     "key 'alternative_qrels.crowd': 'qrels' is the reference judgment set's name"),
    ({"crowd": "{data_root}/crowd3"}, {"crowd3/error_1.txt": "1 0 a 1\n"},
     "key 'alternative_qrels.crowd': 'error_1' starts like a generated judgment set's name"),
    ({"w1": "{data_root}/llm.txt", "crowd": "{data_root}/crowd"}, {},
     "key 'alternative_qrels.crowd': the set 'w1' is named twice (also by 'alternative_qrels.w1')"),
])
def test_sets_refused_on_one_line_before_any_job(tmp_path, data, alternatives, files, message):
    for name, text in files.items():
        _write(data / name, text)
    c = _collection(tmp_path, alternatives)
    with pytest.raises(ValueError) as exc:
        collection_judgment_sets(c.judgment_specs, c.qrels, "c.yaml")
    text = str(exc.value)
    assert "\n" not in text and text.startswith("c.yaml: ") and message.format(root=data) in text, text


def test_a_generated_name_and_bad_rules_are_refused(tmp_path, data):
    c = _collection(tmp_path, {"llm": "{data_root}/llm.txt"})
    with pytest.raises(ValueError, match=r"^c.yaml: alternative_qrels: 'llm' is the name of a generated"):
        collection_judgment_sets(c.judgment_specs, c.qrels, "c.yaml", ["llm"])
    for bad in ({"path": "x", "unjudged": "relevant"}, {"path": "x", "fuse": ["median"]}, {"unjudged": "reference"}):
        with pytest.raises(ConfigError) as exc:
            _collection(tmp_path, {"llm": bad})
        assert "\n" not in str(exc.value) and "alternative_qrels" in str(exc.value)


def test_assessor_folders_are_the_files_of_each_folder(tmp_path, data):
    from irmeta.pipeline.judgment_config import assessor_folders

    c = _collection(tmp_path, {"llm": "{data_root}/llm.txt", "crowd": {"path": "{data_root}/crowd", "fuse": ["max"]}})
    sets = collection_judgment_sets(c.judgment_specs, c.qrels, "c.yaml")
    assert assessor_folders(sets) == {"crowd": ["w1", "w2", "w3"]}
