"""``irmeta repro`` and ``irmeta.repro``: the wiring of the reproducibility measures
(their values are held to repro_eval in tests/unit/metaeval/test_reproducibility.py)."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pandas as pd
import pytest

import irmeta
from irmeta.cli import main
from irmeta.metaeval.reproducibility_table import ReproducibilityWarning, table_columns

DATA = Path("/work/shared/data/trec8_adhoc")
RUNS = DATA / "runs"
QRELS = {"1": {"d1": 1, "d2": 0, "d3": 1, "d4": 1}, "2": {"d1": 1, "d5": 1, "d6": 0}, "3": {"d2": 1, "d7": 1}}


def _run(order: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    return {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in order.items()}


B = _run({"1": ["d1", "d2", "d3", "d4"], "2": ["d6", "d5", "d1"], "3": ["d2", "d9", "d7"]})
A = _run({"1": ["d3", "d1", "d4", "d2"], "2": ["d1", "d5", "d6"], "3": ["d7", "d2", "d9"]})
B2 = _run({"1": ["d2", "d1", "d3", "d4"], "2": ["d6", "d1", "d5"], "3": ["d2", "d7", "d9"]})
A2 = _run({"1": ["d3", "d4", "d1", "d2"], "2": ["d1", "d6", "d5"], "3": ["d7", "d9", "d2"]})


def test_api_in_memory_gives_the_columns_and_one_row_per_measure():
    table = irmeta.repro(QRELS, B, A, B2, A2, ["AP", "P@2"], ktu_cutoff=3, rbo_p=0.8, rbo_depth=3)
    assert list(table.columns) == table_columns()  # no tie-aware columns unless asked
    assert table["measure"].tolist() == ["AP", "P@2"]
    assert set(table["setting"]) == {"same_collection"} and set(table["baseline"]) == {"run"}
    assert table[["ktu_baseline", "rbo_advanced", "rmse_baseline", "er", "p_value_advanced"]].notna().all().all()


def test_api_a_run_reproduced_by_itself():
    table = irmeta.repro(QRELS, B, A, B, A, ["AP"], rbo_depth=3)
    row = table.iloc[0]
    assert row.ktu_baseline == row.ktu_advanced == row.rbo_baseline == row.rbo_repro_eval_advanced == 1.0
    assert row.rmse_baseline == row.nrmse_advanced == row.delta_ri == 0.0
    assert row.er == 1.0 and row.p_value_baseline == row.p_value_advanced == 1.0


def test_api_other_collection_leaves_order_and_scores_empty():
    other = {"7": {"x1": 1, "x2": 0}, "8": {"x3": 1}}
    b2, a2 = _run({"7": ["x2", "x1"], "8": ["x3"]}), _run({"7": ["x1", "x2"], "8": ["x4", "x3"]})
    table = irmeta.repro(QRELS, B, A, b2, a2, ["AP"], reproduced_qrels=other)
    row = table.iloc[0]
    assert row.setting == "other_collection"
    assert all(math.isnan(row[c]) for c in table_columns() if c.startswith(("ktu", "rbo", "rmse", "nrmse")))
    assert not math.isnan(row.er) and not math.isnan(row.p_value_baseline)


def test_api_refusals():
    elsewhere = _run({"9": ["d1"]})
    with pytest.raises(ValueError, match="reproduced baseline run run shares no topic with the qrels"):
        irmeta.repro(QRELS, B, A, elsewhere, A2, ["AP"])
    topic_3_only = _run({"3": ["d2", "d7"]})
    b_12 = {q: B[q] for q in ("1", "2")}
    with pytest.raises(ValueError, match=r"the reproduced baseline run run shares no topic with the original run run"):
        irmeta.repro(QRELS, b_12, A, topic_3_only, A2, ["AP"])
    with pytest.raises(ValueError, match=r"rbo_p must be a finite number in \(0, 1\), not 1.5"):
        irmeta.repro(QRELS, B, A, B2, A2, ["AP"], rbo_p=1.5)
    with pytest.raises(TypeError, match="ktu_cutoff must be an integer"):
        irmeta.repro(QRELS, B, A, B2, A2, ["AP"], ktu_cutoff="10")
    with pytest.raises(TypeError, match="treshold"):
        irmeta.repro(QRELS, B, A, B2, A2, ["AP"], treshold=2)
    with pytest.raises(ValueError, match="original_baseline: expected one run, got 2"):
        irmeta.repro(QRELS, {"x": B, "y": A}, A, B2, A2, ["AP"])
    with pytest.warns(ReproducibilityWarning, match="ER of AP for baseline run and advanced run is undefined"):
        table = irmeta.repro(QRELS, B, B, B2, A2, ["AP"])
    assert math.isnan(table["er"].iat[0])


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["repro", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _trec8(*names: str) -> list[str]:
    roles = ("--original-baseline", "--original-advanced", "--reproduced-baseline", "--reproduced-advanced")
    out = ["--qrels", str(DATA / "qrels.txt")]
    for role, name in zip(roles, names):
        out += [role, str(RUNS / f"{name}.gz")]
    return out


@pytest.mark.slow
def test_cli_tsv_equals_the_api_at_full_precision(capsys):
    names = ("CL99SD", "CL99XT", "CL99SDopt1", "CL99XTopt")
    code, out, err = _cli(capsys, *_trec8(*names), "--measure", "AP", "--measure", "P@10", "--format", "tsv")
    assert code == 0, err
    printed = pd.read_csv(io.StringIO(out), sep="\t", keep_default_na=False, na_values=[""])
    api = irmeta.repro(DATA / "qrels.txt", *(RUNS / f"{n}.gz" for n in names), ["AP", "P@10"])
    assert list(printed.columns) == table_columns()
    assert printed["baseline"].tolist() == ["CL99SD"] * 2 and printed["advanced"].tolist() == ["CL99XT"] * 2
    numbers = [c for c in table_columns() if c not in ("setting", "baseline", "advanced", "measure", "alpha")]
    pd.testing.assert_frame_equal(printed[numbers], api[numbers].astype(float), check_exact=True)


@pytest.mark.slow
def test_cli_markdown_latex_output_and_errors(capsys, tmp_path):
    args = _trec8("CL99SD", "CL99XT", "CL99SD", "CL99XT")
    code, out, _ = _cli(capsys, *args, "--measure", "AP", "--ktu-cutoff", "100", "--rbo-depth", "50")
    assert code == 0 and "KTU at 100, RBO p 0.95 to depth 50" in out and "| pair | original | reproduced | ktu |" in out
    target = tmp_path / "t.tex"
    code, out, _ = _cli(capsys, *args, "--measure", "AP", "--format", "latex", "--output", str(target), "--digits", "2")
    assert code == 0 and out == "" and "\\begin{tabular}" in target.read_text() and " 1.00 " in target.read_text()
    code, _, err = _cli(capsys, *args[:-1], str(tmp_path / "missing.txt"), "--measure", "AP")
    assert code == 2 and err.count("\n") == 1 and "missing.txt" in err
    with pytest.raises(SystemExit) as usage:  # argparse's usage error
        main(["repro", *args, "--rbo-p", "1"])
    err = capsys.readouterr().err
    assert usage.value.code == 2 and "--rbo-p: '1' is not a persistence in (0, 1)" in err and err.count("\n") == 1


def _markdown_blocks(out: str) -> list[list[list[str]]]:
    """Each Markdown table of ``out`` as rows of cells (header first, the rule left out)."""
    blocks = []
    for part in out.split("\n\n"):
        lines = [line for line in part.splitlines() if line.startswith("| ") and not line.startswith("| :")]
        if lines:
            blocks.append([[c.strip() for c in line.strip("|").split(" | ")] for line in lines])
    return blocks


@pytest.mark.slow
def test_cli_markdown_a_rankings_block_per_pair_named_and_a_scores_block_as_typed(capsys):
    # Issue 43, item 2: KTU and RBO once per run pair, the reproduced runs named; the
    # scores per measure, named as typed (map stays map); the TSV unchanged
    names = ("CL99SD", "CL99XT", "CL99SDopt1", "CL99XTopt")
    code, out, err = _cli(capsys, *_trec8(*names), "--measure", "map", "--measure", "P_10", "--digits", "6")
    assert code == 0, err
    assert "\\" not in out  # nothing escaped: names read as they are
    rankings, scores = _markdown_blocks(out)
    assert rankings[0] == ["pair", "original", "reproduced", "ktu", "rbo", "ktu_repro_eval", "rbo_repro_eval"]
    assert [r[:3] for r in rankings[1:]] == [["baseline", "CL99SD", "CL99SDopt1"], ["advanced", "CL99XT", "CL99XTopt"]]
    assert scores[0] == ["measure", "rmse_baseline", "rmse_advanced", "nrmse_baseline", "nrmse_advanced", "er",
                         "delta_ri", "p_value_baseline", "p_value_advanced"]
    assert [r[0] for r in scores[1:]] == ["map", "P_10"] and "map is AP, P_10 is P@10" in out
    tsv = irmeta.repro(DATA / "qrels.txt", *(RUNS / f"{n}.gz" for n in names), ["AP", "P@10"])
    for row, pair in zip(rankings[1:], ("baseline", "advanced")):
        assert row[3:] == [f"{tsv[f'{c}_{pair}'].iat[0]:.6f}" for c in ("ktu", "rbo", "ktu_repro_eval",
                                                                         "rbo_repro_eval")]
    for row, (_, expected) in zip(scores[1:], tsv.iterrows()):
        assert row[1:] == [f"{expected[c]:.6f}" for c in scores[0][1:]]
    code, canonical, _ = _cli(capsys, *_trec8(*names), "--measure", "map", "--measure", "P_10", "--digits", "6",
                              "--canonical")
    assert [r[0] for r in _markdown_blocks(canonical)[1][1:]] == ["AP", "P@10"] and "irmeta's names" not in canonical
    code, _, err = _cli(capsys, *_trec8(*names), "--measure", "map", "--measure", "AP")
    assert code == 2 and err == "irmeta: error: --measure map and --measure AP are one measure, AP: give it once\n"


def test_a_shorter_reproduction_is_extrapolated_never_negative(tmp_path, capsys):
    # Issue 40, item 5: the original returns 100 documents, the reproduction its ranks
    # 11-20. Cutting both to the shorter compared the reproduction with the original's top
    # 10 and printed -1.1e-16; Webber's eq. 32 extrapolates the shorter list instead:
    # (1 - p)/p sum_{d=11..100} (min(d, 20) - 10)/d p^d + (10/100) p^100 = 0.181074 at p 0.95.
    docs = [f"d{i:03d}" for i in range(1, 101)]
    qrels = {q: {d: int(i % 7 == q) for i, d in enumerate(docs)} for q in (1, 2)}
    original, advanced = _run({q: docs for q in qrels}), _run({q: docs[::-1] for q in qrels})
    short = _run({q: docs[10:20] for q in qrels})
    by_hand = 0.05 / 0.95 * sum((min(d, 20) - 10) / d * 0.95**d for d in range(11, 101)) + 0.1 * 0.95**100
    row = irmeta.repro(qrels, original, advanced, short, advanced, ["AP"]).iloc[0]
    assert row.rbo_baseline == pytest.approx(by_hand, abs=1e-15) and round(row.rbo_baseline, 6) == 0.181074
    assert row.rbo_advanced == 1.0
    # repro_eval's finite-depth form beside it, as before: sum_{d<=1000} X_d / d p^(d-1)
    # over sum_{d=1..1000} p^(d-1), the shorter ranking contributing what it has
    clarke = sum((min(d, 20) - 10) / d * 0.95 ** (d - 1) for d in range(11, 1001)) / sum(
        0.95 ** (d - 1) for d in range(1, 1001))
    assert row.rbo_repro_eval_baseline == pytest.approx(clarke, abs=1e-12)
    # disjoint rankings: 0 exactly, not a rounding below it, in the TSV the CLI prints too
    disjoint = _run({q: [f"x{i}" for i in range(10)] for q in qrels})
    paths = []
    for name, run in (("o", original), ("a", advanced), ("r", disjoint), ("s", advanced)):
        paths += [f"--{name}", str(tmp_path / name)]
        (tmp_path / name).write_text("".join(f"{q} Q0 {d} {i} {s} {name}\n" for q, ranked in run.items()
                                             for i, (d, s) in enumerate(ranked.items())))
    (tmp_path / "q").write_text("".join(f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items()))
    roles = dict(zip(("--o", "--a", "--r", "--s"), ("--original-baseline", "--original-advanced",
                                                   "--reproduced-baseline", "--reproduced-advanced")))
    code, out, err = _cli(capsys, "--qrels", str(tmp_path / "q"), *(roles.get(a, a) for a in paths),
                          "--measure", "AP", "--format", "tsv")
    assert code == 0, err
    printed = pd.read_csv(io.StringIO(out), sep="\t")
    assert printed["rbo_baseline"].iat[0] == 0.0 and printed["rbo_repro_eval_baseline"].iat[0] == 0.0
