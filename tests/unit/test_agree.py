"""``irmeta agree`` and ``irmeta.agree`` on real TREC-8 runs and judgment sets made from
the official qrels here (every other judgment; every seventh relevance flipped): the
tables are the library's (label, judgment and conclusion agreement) on the runs' scores,
the conclusions equal scipy's paired t-test with statsmodels' Holm pair by pair, a set
equal to the qrels agrees on everything, the reports hold three blocks, the same seed
gives the same bytes, and every failure is one line with exit status 2."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import irmeta
from irmeta.agreement import CONCLUSION_COLUMNS, RANKING_COLUMNS, ranking_columns
from irmeta.api import score
from irmeta.campaign.qrels import read_qrels
from irmeta.cli import main
from irmeta.metaeval.label_agreement import LABEL_AGREEMENT_COLUMNS, label_agreement_table
from irmeta.metaeval.stats import tau_a, tau_ap_a, tau_ap_b

RUNS = ("INQ601", "ok8alx", "CL99XT", "Dm8Nbn", "READWARE", "AntHoc1")
MEASURES = ["P@10", "AP@100"]


@pytest.fixture(scope="module")
def trec8(shared_data, tmp_path_factory):
    root = shared_data / "trec8_adhoc"
    folder = tmp_path_factory.mktemp("judgments")
    lines = (root / "qrels.txt").read_text().splitlines()
    (folder / "half.txt").write_text("\n".join(lines[::2]) + "\n")
    noisy = []
    for i, line in enumerate(lines):
        qid, it, doc, grade = line.split()
        if i % 7 == 0:
            grade = "0" if int(grade) > 0 else "1"
        noisy.append(f"{qid} {it} {doc} {grade}")
    (folder / "noisy.txt").write_text("\n".join(noisy) + "\n")
    (folder / "same.txt").write_text("\n".join(lines) + "\n")
    return str(root / "qrels.txt"), [str(root / "runs" / f"{r}.gz") for r in RUNS], folder


@pytest.fixture(scope="module")
def found(trec8):
    qrels, runs, folder = trec8
    return irmeta.agree(qrels, [str(folder / n) for n in ("half.txt", "noisy.txt", "same.txt")], runs, MEASURES)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def cli_args(trec8, *extra: str, sets=("noisy.txt",)) -> list[str]:
    qrels, runs, folder = trec8
    judgments = [a for name in sets for a in ("--judgments", str(folder / name))]
    return ["agree", "--qrels", qrels, *judgments, "--runs", *runs, "--measure", "P@10", *extra]


@pytest.mark.slow
def test_the_tables_and_their_columns(found, trec8):
    assert set(found) == {"labels", "rankings", "conclusions"}
    assert list(found["labels"].columns) == list(LABEL_AGREEMENT_COLUMNS)
    assert list(found["rankings"].columns) == list(RANKING_COLUMNS)
    assert list(found["conclusions"].columns) == list(CONCLUSION_COLUMNS)
    qrels, _, folder = trec8
    expected = label_agreement_table(read_qrels(qrels), {n: read_qrels(folder / f"{n}.txt")
                                                         for n in ("half", "noisy", "same")})
    pd.testing.assert_frame_equal(found["labels"], expected)
    assert list(found["rankings"]["judgments"]) == ["half", "half", "noisy", "noisy", "same", "same"]
    assert (found["conclusions"]["method"] == "paired_t+holm").all() and (found["conclusions"]["pairs"] == 15).all()


def test_a_set_equal_to_the_qrels_agrees_on_everything(found):
    labels = found["labels"]
    overall = labels[(labels["judgments"] == "same") & (labels["topic"] == "all")].iloc[0]
    assert overall["cohen_kappa"] == 1.0 and overall["only_reference"] == 0
    ranks = found["rankings"][found["rankings"]["judgments"] == "same"]
    assert (ranks["kendall_tau"] == 1.0).all() and ranks["top1_same"].all()
    assert (ranks["top5_overlap"] == 1.0).all() and ranks["top10_overlap"].isna().all()  # 6 runs < 10
    assert (ranks["largest_rank_change"] == 0).all() and (ranks["largest_rank_change_run"] == "").all()
    same = found["conclusions"][found["conclusions"]["judgments"] == "same"]
    assert (same["same_decision"] == same["pairs"]).all()
    assert (same[["lost", "gained", "reversed"]] == 0).all().all()


def decisions(qrels, runs, measure: str) -> dict:
    """(run a, run b) -> +1 / -1 / 0 by scipy's paired t-test and statsmodels' Holm."""
    scored = score(qrels, runs, [measure]).scores
    values = dict(zip(scored.runs, scored.per_topic[0]))
    pairs = list(itertools.combinations(sorted(values), 2))
    p = [stats.ttest_rel(values[a], values[b]).pvalue for a, b in pairs]
    adjusted = multipletests(p, method="holm")[1]
    return {pair: int(np.sign(np.mean(values[pair[0]] - values[pair[1]]))) if q < 0.05 else 0
            for pair, q in zip(pairs, adjusted)}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["half", "noisy"])
def test_conclusions_equal_scipy_and_statsmodels_pair_by_pair(found, trec8, name):
    qrels, runs, folder = trec8
    for measure in MEASURES:
        ref, alt = decisions(qrels, runs, measure), decisions(str(folder / f"{name}.txt"), runs, measure)
        row = found["conclusions"].query("judgments == @name and measure == @measure").iloc[0]
        assert row["significant_reference"] == sum(d != 0 for d in ref.values())
        assert row["significant_judgments"] == sum(d != 0 for d in alt.values())
        assert row["same_decision"] == sum(ref[k] == alt[k] for k in ref)
        assert row["lost"] == sum(ref[k] != 0 and alt[k] == 0 for k in ref)
        assert row["gained"] == sum(ref[k] == 0 and alt[k] != 0 for k in ref)
        assert row["reversed"] == sum(ref[k] != 0 and alt[k] == -ref[k] for k in ref)
    assert found["conclusions"]["lost"].sum() > 0  # the sets change some conclusions


def test_unjudged_reference_with_one_judgment_scores_as_the_qrels(trec8, tmp_path):
    qrels, runs, _ = trec8
    first = open(qrels).readline()
    (tmp_path / "one.txt").write_text(first)
    got = irmeta.agree(qrels, str(tmp_path / "one.txt"), runs[:4], ["AP@100"], unjudged="reference")
    assert (got["rankings"]["kendall_tau"] == 1.0).all()
    assert (got["conclusions"]["same_decision"] == got["conclusions"]["pairs"]).all()
    assert got["labels"]["shared"].iloc[0] == 1  # the labels are the set's own


def test_a_folder_gives_one_set_per_file(trec8, tmp_path):
    qrels, runs, folder = trec8
    sets = tmp_path / "assessors"
    sets.mkdir()
    for name in ("b1.txt", "a2.txt"):
        (sets / name).write_text((folder / "half.txt").read_text())
    got = irmeta.agree(qrels, str(sets), runs[:3], ["P@10"])
    assert list(got["rankings"]["judgments"]) == ["a2", "b1"]
    with pytest.raises(ValueError, match="both name the set 'a2'"):
        irmeta.agree(qrels, [str(sets), str(sets / "a2.txt")], runs[:3], ["P@10"])


@pytest.mark.slow
def test_tsv_blocks_hold_the_api_tables(capsys, trec8):
    code, out, err = run_cli(capsys, *cli_args(trec8, "--format", "tsv", sets=("half.txt", "noisy.txt")))
    assert code == 0 and err == ""
    blocks = out.split("\n\n")
    assert len(blocks) == 3 and all(b.startswith("# ") for b in blocks)
    headers = [b.splitlines()[1].split("\t") for b in blocks]
    assert headers[1] == list(RANKING_COLUMNS) and headers[2] == list(CONCLUSION_COLUMNS)
    qrels, runs, folder = trec8
    api = irmeta.agree(qrels, [str(folder / "half.txt"), str(folder / "noisy.txt")], runs, ["P@10"])
    rows = [line.split("\t") for line in blocks[2].splitlines()[2:]]
    assert [[int(x) for x in r[4:]] for r in rows] == api["conclusions"].iloc[:, 4:].astype(int).values.tolist()
    ranks = [line.split("\t") for line in blocks[1].splitlines()[2:]]
    assert [float(r[4]) for r in ranks] == api["rankings"]["kendall_tau"].tolist()  # full precision


@pytest.mark.slow
def test_markdown_latex_output_and_same_seed_same_bytes(capsys, trec8, tmp_path):
    code, out, _ = run_cli(capsys, *cli_args(trec8))
    assert code == 0 and out.count("| judgments |") == 3
    target = tmp_path / "agree.tex"
    code, out, _ = run_cli(capsys, *cli_args(trec8, "--format", "latex", "--output", str(target)))
    assert code == 0 and out == "" and target.read_text().count(r"\begin{table}") == 3
    args = cli_args(trec8, "--test", "randomisation+bh", "--permutations", "200", "--seed", "7", "--format", "tsv")
    first, second = run_cli(capsys, *args), run_cli(capsys, *args)
    assert first[0] == 0 and first == second and "randomisation+bh" in first[1]


@pytest.mark.parametrize("extra,fragment", [
    (["--test", "tukey_hsd"], "decides every pair from all runs at once; agree takes a paired test"),
    (["--test", "nope"], "unknown test 'nope'"),
    (["--test", "paired_t+nope"], "unknown correction 'nope'"),
    (["--unjudged", "bogus"], "argument --unjudged: invalid choice"),
    (["--level", "2"], "argument --level: 2 is not a significance level"),
    (["--seed", "1", "--seed", "2"], "--seed given twice"),
    (["--judgments", "/nonexistent/x.txt"], "/nonexistent/x.txt"),
    (["--measure", "Nope@10"], "unknown measure 'Nope@10'"),
])
def test_errors_are_one_line_exit_2(capsys, trec8, extra, fragment):
    code, out, err = run_cli(capsys, *cli_args(trec8, *extra))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("irmeta") and fragment in err, err


def test_a_set_sharing_no_topic_and_too_few_runs_are_refused(capsys, trec8, tmp_path):
    (tmp_path / "apart.txt").write_text("999 0 doc1 1\n")
    qrels, runs, _ = trec8
    code, out, err = run_cli(capsys, "agree", "--qrels", qrels, "--judgments", str(tmp_path / "apart.txt"),
                             "--runs", *runs)
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and "judges none of the reference's topics" in err
    code, out, err = run_cli(capsys, "agree", "--qrels", qrels, "--judgments", qrels, "--runs", runs[0])
    assert (code, out) == (2, "") and err == "irmeta: error: agree needs at least two runs, got 1\n"


def test_api_refusals(trec8):
    qrels, runs, folder = trec8
    half = str(folder / "half.txt")
    with pytest.raises(TypeError, match=r"agree\(\) got an unknown setting 'treshold'"):
        irmeta.agree(qrels, half, runs, ["P@10"], treshold=2)
    with pytest.raises(ValueError, match="average 'returned'"):
        irmeta.agree(qrels, half, runs, ["P@10"], average="returned")
    with pytest.raises(ValueError, match="unjudged: 'x' is no rule"):
        irmeta.agree(qrels, half, runs, ["P@10"], unjudged="x")
    with pytest.raises(TypeError, match="judgments must be a path"):
        irmeta.agree(qrels, 3, runs, ["P@10"])


FAMILIES = {"INQ601": "inquery", "ok8alx": "okapi", "CL99XT": "clarit", "Dm8Nbn": "okapi", "READWARE": "readware",
            "AntHoc1": "clarit"}


def _families_file(tmp_path) -> str:
    path = tmp_path / "families.tsv"
    path.write_text("run\tfamily\n" + "".join(f"{run}\t{family}\n" for run, family in FAMILIES.items()))
    return str(path)


@pytest.mark.slow
def test_families_give_the_family_bias_of_each_set(trec8, tmp_path):
    from irmeta.metaeval.family_bias import FAMILY_BIAS_COLUMNS, SEED_OFFSET, family_bias_table

    qrels, runs, folder = trec8
    sets = [str(folder / "noisy.txt"), str(folder / "same.txt")]
    tables = irmeta.agree(qrels, sets, runs, MEASURES, families=_families_file(tmp_path), family_permutations=500)
    bias = tables["families"]
    assert list(bias.columns) == [c for c in FAMILY_BIAS_COLUMNS if c != "alpha"]
    # the library's own table on the same scores and draws
    reference = score(qrels, runs, MEASURES, average="all").scores
    under = {name: score(str(folder / f"{name}.txt"), runs, MEASURES, average="all").scores
             for name in ("noisy", "same")}
    expected = family_bias_table(reference, under, FAMILIES, permutations=500, seed=irmeta.api.DEFAULT_SEED
                                 + SEED_OFFSET)
    pd.testing.assert_frame_equal(bias.drop(columns="measure"),
                                  expected.drop(columns=["measure", "alpha"]).reset_index(drop=True))
    same = bias[bias["judgments"] == "same"]
    assert (same["mean_rank_change"] == 0).all() and (same["mean_score_change"] == 0).all()
    assert same.loc[same["runs"] > 1, "p_value"].eq(1).all() and same.loc[same["runs"] == 1, "p_value"].isna().all()
    # a mapping gives the same table; a mapping lacking a run is refused naming it
    mapped = irmeta.agree(qrels, sets, runs, MEASURES, families=FAMILIES, family_permutations=500)
    assert mapped["families"].equals(bias)
    with pytest.raises(ValueError, match="run READWARE has no family"):
        irmeta.agree(qrels, sets, runs, MEASURES, families={r: f for r, f in FAMILIES.items() if r != "READWARE"})
    assert "families" not in irmeta.agree(qrels, sets[:1], runs, MEASURES)


@pytest.mark.slow
def test_families_on_the_command_line_add_a_fourth_block(capsys, trec8, tmp_path):
    code, out, err = run_cli(capsys, *cli_args(trec8, "--format", "tsv", "--families", _families_file(tmp_path),
                                               "--family-permutations", "200"))
    assert code == 0, err
    blocks = [b for b in out.split("\n\n") if b.strip()]
    assert len(blocks) == 4 and blocks[3].startswith("# Bias towards a kind of system")
    assert blocks[3].splitlines()[1].split("\t") == ["judgments", "measure", "family", "runs", "mean_rank_change",
                                                     "mean_score_change", "p_value"]
    bad = tmp_path / "bad.tsv"
    bad.write_text("run\tfamily\nINQ601\tinquery\n")
    code, out, err = run_cli(capsys, *cli_args(trec8, "--families", str(bad)))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "bad.tsv" in err and "has no family" in err


@pytest.mark.slow
def test_ties_add_the_tie_aware_variants_by_name(capsys, trec8, found):
    # issue 42: --ties a / b add ircor's a and b variants beside tau-b and tau_AP, whose
    # columns and values do not change; P@10's means on a grid of 1/500 tie runs
    qrels, runs, folder = trec8
    sets = [str(folder / n) for n in ("half.txt", "noisy.txt", "same.txt")]
    tied = irmeta.agree(qrels, sets, runs, MEASURES, ties=["b", "a"])
    assert list(tied["rankings"].columns) == ranking_columns(["a", "b"]) == [
        *RANKING_COLUMNS, "tau_a", "tau_ap_a", "tau_ap_b"]
    pd.testing.assert_frame_equal(tied["rankings"][list(RANKING_COLUMNS)], found["rankings"])
    reference = score(qrels, runs, MEASURES, average="all").scores.mean_frame()
    for row in tied["rankings"].itertuples():
        under = score(str(folder / f"{row.judgments}.txt"), runs, MEASURES, average="all").scores.mean_frame()
        x, y = reference[(row.measure, "")].to_numpy(), under[(row.measure, "")].to_numpy()
        assert row.tau_ap_b == tau_ap_b(x, y)
        if len(np.unique(x)) == len(x):
            assert row.tau_a == tau_a(x, y) and row.tau_ap_a == tau_ap_a(x, y)
        else:  # the qrels' ranking ties: no true ranking for the a variants
            assert np.isnan(row.tau_a) and np.isnan(row.tau_ap_a)
    same = tied["rankings"][tied["rankings"]["judgments"] == "same"]
    assert (same["tau_ap_b"] == 1.0).all()
    code, out, err = run_cli(capsys, *cli_args(trec8, "--ties", "a", "--ties", "b", "--format", "tsv"))
    assert code == 0, err
    block = out.split("\n\n")[1].splitlines()
    assert block[1].split("\t")[-3:] == ["tau_a", "tau_ap_a", "tau_ap_b"] and "tau_ap_b: their b variant" in block[0]
    code, _, err = run_cli(capsys, *cli_args(trec8, "--ties", "w"))
    assert code == 2 and "--ties: invalid choice: 'w'" in err and err.count("\n") == 1
    with pytest.raises(ValueError, match=r"ties must be some of a, b \(each once\), not \['w'\]"):
        irmeta.agree(qrels, sets[:1], runs, MEASURES, ties=["w"])


# ------------------------------------------------ issue 40: labels alone, an empty set


@pytest.mark.slow
def test_without_runs_the_labels_alone(found, trec8, capsys):
    """An LLM judge's builder has labels and no runs: the label table alone, the same as
    with runs (the labels never depend on them), in Python and on the command line."""
    qrels, runs, folder = trec8
    sets = [str(folder / n) for n in ("half.txt", "noisy.txt", "same.txt")]
    alone = irmeta.agree(qrels, sets)
    assert list(alone) == ["labels"]
    pd.testing.assert_frame_equal(alone["labels"], found["labels"])
    code, out, err = run_cli(capsys, "agree", "--qrels", qrels, *(a for s in sets[:2] for a in ("--judgments", s)),
                             "--format", "tsv")
    assert code == 0 and err == ""
    code, with_runs, _ = run_cli(capsys, *cli_args(trec8, "--format", "tsv", sets=("half.txt", "noisy.txt")))
    assert code == 0 and out == with_runs.split("\n\n")[0] + "\n"  # the first block, and nothing else
    code, out, _ = run_cli(capsys, "agree", "--qrels", qrels, "--judgments", sets[1], "--threshold", "2")
    assert code == 0 and out.startswith("Label agreement with the qrels") and "grade >= 2" in out


@pytest.mark.parametrize("extra, said", [
    (["--measure", "AP"], "--measure apply to the runs' scores"),
    (["--families", "x.tsv", "--seed", "3"], "--seed, --families apply to the runs' scores"),
    (["--score-precision", "float32"], "--score-precision apply"),
    (["--unjudged", "reference"], "--unjudged apply"),
])
def test_without_runs_an_option_of_the_runs_is_refused(capsys, trec8, extra, said):
    qrels, _, folder = trec8
    code, out, err = run_cli(capsys, "agree", "--qrels", qrels, "--judgments", str(folder / "half.txt"), *extra)
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and said in err, err
    assert "no --runs were given" in err


def test_without_runs_the_api_refuses_settings_of_the_runs(trec8):
    qrels, _, folder = trec8
    half = str(folder / "half.txt")
    for given, said in (({"measures": ["AP"]}, "measures apply"), ({"depth": 10}, "depth apply"),
                        ({"families": {"a": "b"}}, "families apply"), ({"unjudged": "reference"}, "unjudged apply")):
        with pytest.raises(ValueError, match=f"{said} to the runs' scores, and no runs were given"):
            irmeta.agree(qrels, half, **given)
    assert list(irmeta.agree(qrels, half, threshold=2)) == ["labels"]


@pytest.mark.parametrize("unjudged", ["nonrelevant", "reference"])
@pytest.mark.parametrize("empty", [{}, pd.DataFrame(columns=["qid", "docid", "grade"])], ids=["dict", "frame"])
def test_an_empty_set_is_refused_under_either_rule_as_protocol_says(trec8, unjudged, empty):
    """PROTOCOL.md: an empty set judges nothing to compare; under ``reference`` it would only
    repeat the qrels. Refused, saying so, as an empty file is."""
    qrels, runs, _ = trec8
    with pytest.raises(ValueError, match=r"judgments llm: the set is empty \(it judges nothing to compare with the "
                                         r"qrels; under unjudged 'reference' it would only repeat them\)"):
        irmeta.agree(qrels, {"llm": empty}, runs[:2], unjudged=unjudged)


@pytest.mark.slow
def test_reports_name_measures_as_typed_and_read_clean(capsys, trec8):
    # Issue 43, item 2: no backslash escapes (cohen_kappa, grade >= 2 as written), the
    # measures as typed (P_10, not P@10) with irmeta's names in a caption; TSV unchanged
    qrels, runs, folder = trec8
    argv = ["agree", "--qrels", qrels, "--judgments", str(folder / "noisy.txt"), "--runs", *runs, "--measure", "P_10"]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and "\\" not in out and "cohen_kappa" in out and "grade >= 1" in out
    assert "| noisy | P_10 |" in out and "| P@10 |" not in out and out.count("irmeta's names: P_10 is P@10") == 1
    code, tsv, _ = run_cli(capsys, *argv, "--format", "tsv")
    code, same, _ = run_cli(capsys, *cli_args(trec8, "--format", "tsv"))
    assert code == 0 and tsv == same
