"""The reproducibility table's tie-aware document order (issue 42, item 3): ``ties``
adds ktu_a, ktu_b, rbo_a, rbo_b, rbo_w, the runs' equal scores tied, and leaves the table
as it was without. RBO is held to Corsi and Urbano's definitions summed depth by depth
(test_rank_agreement.py's brute force) and, when ``IRMETA_RBO_REFERENCE`` names a copy of
their reference implementation (julian-urbano/sigir2024-rbo, ``rbo/Python/rbo.py``), to
it; tau to scipy's tau-b and to tau-a by its definition."""

from __future__ import annotations

import importlib.util
import itertools
import math
import os
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

import irmeta
from irmeta.cli import main
from irmeta.metaeval import reproducibility as rm
from irmeta.metaeval.reproducibility_table import COLUMNS, OPTIONAL_COLUMNS, OrderSettings, table_columns
from irmeta.metaeval.stats import tied_ranking

HERE = Path(__file__).parent
#: The columns repro wrote before issue 42, in order: what it still writes without ties.
UNTIED = ["setting", "baseline", "advanced", "measure", "alpha", "ktu_baseline", "ktu_advanced", "rbo_baseline",
          "rbo_advanced", "rmse_baseline", "rmse_advanced", "nrmse_baseline", "nrmse_advanced", "er", "delta_ri",
          "p_value_baseline", "p_value_advanced", "ktu_repro_eval_baseline", "ktu_repro_eval_advanced",
          "rbo_repro_eval_baseline", "rbo_repro_eval_advanced"]


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BRUTE = _module(HERE / "test_rank_agreement.py", "rank_agreement_brute_force")
REFERENCE = (_module(Path(os.environ["IRMETA_RBO_REFERENCE"]), "sigir2024_rbo")
             if os.environ.get("IRMETA_RBO_REFERENCE") else None)


def _tied_run(rng, pool: list[str], length: int, levels: int) -> dict[str, float]:
    """``length`` documents of ``pool`` with scores drawn from ``levels`` values: ties."""
    docs = rng.choice(pool, size=length, replace=False).tolist()
    return {d: float(s) for d, s in zip(docs, rng.integers(0, levels, size=length))}


def _in_trec_order(run: dict[str, float]) -> tuple[list[str], np.ndarray]:
    """trec_eval's order: score descending, equal scores by document id descending."""
    docs = sorted(run, key=lambda d: (-run[d], tuple(-ord(c) for c in d)))
    return docs, np.array([run[d] for d in docs])


def _tau_a_by_definition(x: np.ndarray, y: np.ndarray) -> float:
    pairs = list(itertools.combinations(range(len(x)), 2))
    return sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in pairs) / len(pairs)


def test_without_ties_the_table_is_as_before():
    assert table_columns() == UNTIED and OrderSettings().ties == ()
    assert list(COLUMNS[:len(UNTIED)]) == UNTIED and set(COLUMNS[len(UNTIED):]) == set(OPTIONAL_COLUMNS)
    assert table_columns(["w", "a"])[len(UNTIED):] == ["ktu_a_baseline", "ktu_a_advanced", "rbo_a_baseline",
                                                       "rbo_a_advanced", "rbo_w_baseline", "rbo_w_advanced"]
    with pytest.raises(ValueError, match="reproducibility ties must be some of a, b, w"):
        OrderSettings(ties=("c",))


@pytest.mark.parametrize("trial", range(40))
def test_tied_rbo_and_ktu_per_topic_equal_their_definitions(trial):
    rng = np.random.default_rng(4200 + trial)
    pool = [f"d{i:02d}" for i in range(14)]
    original = _in_trec_order(_tied_run(rng, pool, int(rng.integers(2, 12)), int(rng.integers(2, 6))))
    reproduced = _in_trec_order(_tied_run(rng, pool, int(rng.integers(2, 12)), int(rng.integers(2, 6))))
    p = float(rng.choice([0.5, 0.8, 0.9]))
    ours = rm.tied_document_order(*original, *reproduced, ("a", "b", "w"), cutoff=100, p=p, depth=100)
    x_list, y_list = tied_ranking(original[1], original[0]), tied_ranking(reproduced[1], reproduced[0])
    for ties in "wab":
        expected = BRUTE.rbo_by_definition(x_list, y_list, p, ties)["ext"]
        assert ours[f"rbo_{ties}"] == pytest.approx(expected, abs=1e-12), ties
        if REFERENCE is not None:
            theirs = REFERENCE.rbo(x_list, y_list, p, ties=ties, score="ext")
            theirs = theirs["ext"] if isinstance(theirs, dict) else float(np.ravel(theirs)[0])
            assert ours[f"rbo_{ties}"] == pytest.approx(theirs, abs=1e-12), ties
    union = list(dict.fromkeys([*original[0], *reproduced[0]]))
    o, r = dict(zip(*original)), dict(zip(*reproduced))
    x = np.array([o.get(d, min(o.values()) - 1) for d in union])  # a list's missing documents below its last
    y = np.array([r.get(d, min(r.values()) - 1) for d in union])
    tau_b = scipy_stats.kendalltau(x, y).statistic
    assert ours["ktu_b"] == pytest.approx(tau_b, abs=1e-12) or (math.isnan(tau_b) and math.isnan(ours["ktu_b"]))
    if len(set(x.tolist())) == len(x):
        assert ours["ktu_a"] == pytest.approx(_tau_a_by_definition(x, y), abs=1e-12)
    else:  # the original is the truth: none where it ties
        assert math.isnan(ours["ktu_a"])


def test_untied_scores_give_the_untied_columns():
    rng = np.random.default_rng(7)
    pool = [f"d{i:03d}" for i in range(60)]
    for _ in range(10):
        o = _in_trec_order({d: float(s) for d, s in zip(rng.choice(pool, 40, replace=False), rng.permutation(40))})
        r = _in_trec_order({d: float(s) for d, s in zip(rng.choice(pool, 25, replace=False), rng.permutation(25))})
        tied = rm.tied_document_order(*o, *r, ("a", "b", "w"), cutoff=30, p=0.9, depth=20)
        assert tied["ktu_b"] == pytest.approx(rm.ktu(o[0], r[0], 30), abs=1e-15)
        for ties in "wab":
            assert tied[f"rbo_{ties}"] == pytest.approx(rm.rbo(o[0], r[0], 0.9, 20), abs=1e-12)


def test_a_tie_group_crossing_the_cut_is_kept_whole():
    scores = np.array([5.0, 4.0, 4.0, 4.0, 1.0])
    assert rm.tied_cut(scores, 2) == 4 and rm.tied_cut(scores, 4) == 4 and rm.tied_cut(scores, 9) == 5
    # the reproduction ties d2..d4 at the cut: RBO^w sees the whole group, not d4 alone
    docs = ["d1", "d4", "d3", "d2", "d5"]
    tied = rm.tied_document_order(docs, scores, docs, scores, ("w",), cutoff=2, p=0.5, depth=2)
    assert tied["rbo_w"] == 1.0


QRELS = {"1": {"d01": 1, "d02": 0, "d03": 1, "d04": 1}, "2": {"d01": 1, "d05": 1}}
B = {"1": {"d01": 3.0, "d02": 3.0, "d03": 2.0, "d04": 1.0}, "2": {"d05": 2.0, "d01": 1.0, "d06": 1.0}}
A = {"1": {"d03": 3.0, "d01": 2.0, "d04": 1.0}, "2": {"d01": 2.0, "d05": 1.0}}
B2 = {"1": {"d02": 3.0, "d01": 3.0, "d03": 3.0, "d04": 1.0}, "2": {"d05": 2.0, "d06": 2.0, "d01": 1.0}}
A2 = {"1": {"d03": 3.0, "d04": 2.0, "d01": 2.0}, "2": {"d01": 2.0, "d05": 2.0}}


def test_api_adds_the_tied_columns_and_keeps_the_others():
    plain = irmeta.repro(QRELS, B, A, B2, A2, ["AP"], rbo_depth=3)
    tied = irmeta.repro(QRELS, B, A, B2, A2, ["AP"], rbo_depth=3, ties=["b", "w", "a"])
    assert list(plain.columns) == UNTIED
    assert list(tied.columns) == table_columns(["a", "b", "w"])
    assert tied[UNTIED].equals(plain)
    per_topic = [rm.tied_document_order(*_in_trec_order(B[q]), *_in_trec_order(B2[q]), ("a", "b", "w"),
                                        rm.KTU_CUTOFF, rm.RBO_P, 3) for q in ("1", "2")]
    for column in ("ktu_b", "rbo_a", "rbo_b", "rbo_w"):
        assert tied[f"{column}_baseline"].iat[0] == pytest.approx(np.mean([t[column] for t in per_topic]), abs=1e-15)
    assert tied["rbo_w_advanced"].iat[0] < 1.0 and tied["ktu_b_baseline"].iat[0] != tied["ktu_baseline"].iat[0]
    with pytest.raises(ValueError, match="must be some of a, b, w"):
        irmeta.repro(QRELS, B, A, B2, A2, ["AP"], ties=["x"])


def _write(run: dict, name: str, folder: Path) -> Path:
    path = folder / name
    path.write_text("".join(f"{q} Q0 {d} 0 {s} {name}\n" for q, docs in run.items() for d, s in docs.items()))
    return path


def test_cli_ties_adds_the_columns_named_in_tsv_and_markdown(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    runs = [str(_write(r, n, tmp_path)) for r, n in ((B, "b"), (A, "a"), (B2, "b2"), (A2, "a2"))]
    common = ["repro", "--qrels", str(qrels), "--original-baseline", runs[0], "--original-advanced", runs[1],
              "--reproduced-baseline", runs[2], "--reproduced-advanced", runs[3], "--measure", "AP"]
    assert main([*common, "--format", "tsv"]) == 0
    assert capsys.readouterr().out.splitlines()[0].split("\t") == UNTIED
    assert main([*common, "--format", "tsv", "--ties", "w", "--ties", "a"]) == 0
    assert capsys.readouterr().out.splitlines()[0].split("\t") == table_columns(["a", "w"])
    assert main([*common, "--ties", "b"]) == 0
    out = capsys.readouterr().out
    assert "ktu_b tau-b over the union with score ties" in out
    header = next(line for line in out.splitlines() if line.startswith("| pair"))
    assert [c.strip() for c in header.strip("|").split("|")][-2:] == ["ktu_b", "rbo_b"]
