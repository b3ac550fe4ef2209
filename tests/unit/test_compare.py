"""``irmeta compare`` and ``irmeta.compare`` on real TREC-8 runs: p-values equal scipy's,
adjusted ones statsmodels', one row per ordered pair (or per run against the baseline),
reports that mark the runs a mean is significantly better than, the same bytes for the
same seed, and every failure one line with exit status 2."""

from __future__ import annotations

import gzip
import io
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import irmeta
from irmeta.api import score
from irmeta.cli import main
from irmeta.comparison import COLUMNS, SMALLEST_LEVEL, compare_runs, run_letters
from irmeta.metaeval.stats.tukey_hsd import tukey_hsd_pvalues

RUNS = ("INQ601", "ok8alx", "CL99XT", "Dm8Nbn", "READWARE", "AntHoc1")
TSV_COLUMNS = ["run", "measure", "mean", "baseline", "difference", "p_value", "p_adjusted", "effect_size_dz",
               "ci_low", "ci_high", "significant"]


@pytest.fixture(scope="module")
def trec8(shared_data):
    root = shared_data / "trec8_adhoc"
    return str(root / "qrels.txt"), [str(root / "runs" / f"{r}.gz") for r in RUNS]


@pytest.fixture(scope="module")
def per_topic(trec8):
    """Run -> per-topic AP@100 over every qrels topic, as compare reads them."""
    scored = score(*trec8, ["AP@100"])
    return dict(zip(scored.scores.runs, scored.scores.per_topic[0]))


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def cli_args(trec8, *extra: str) -> list[str]:
    qrels, runs = trec8
    return ["compare", "--qrels", qrels, "--runs", *runs, *extra]


# ------------------------------------------------------------------ the numbers


@pytest.mark.slow
@pytest.mark.parametrize("test,reference", [
    ("paired_t", lambda x, y: stats.ttest_rel(x, y).pvalue),
    ("wilcoxon", lambda x, y: stats.wilcoxon(x, y).pvalue),
    ("sign", lambda x, y: stats.binomtest(int((x > y).sum()), int((x != y).sum()), 0.5).pvalue),
])
def test_pvalues_equal_scipys(trec8, per_topic, test, reference):
    table = irmeta.compare(*trec8, ["AP@100"], test=test, correction="none")
    assert len(table) == len(RUNS) * (len(RUNS) - 1)
    for row in table.itertuples():
        x, y = per_topic[row.run], per_topic[row.baseline]
        assert row.p_value == pytest.approx(reference(x, y), rel=1e-9, abs=1e-15), (row.run, row.baseline)
        assert row.p_adjusted == row.p_value
        assert row.significant == (row.p_value < 0.05)


@pytest.mark.slow
@pytest.mark.parametrize("correction,method", [("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")])
def test_adjusted_pvalues_equal_statsmodels(trec8, correction, method):
    # without a baseline the family is the unordered pairs; with one, the n - 1 comparisons
    table = irmeta.compare(*trec8, ["AP@100", "P@100"], test="paired_t", correction=correction)
    order = {run: i for i, run in enumerate(RUNS)}
    for measure, rows in table.groupby("measure", sort=False):
        once = rows[rows.run.map(order) < rows.baseline.map(order)]
        assert len(once) == len(RUNS) * (len(RUNS) - 1) // 2
        expected = multipletests(once.p_value.to_numpy(), method=method)[1]
        np.testing.assert_allclose(once.p_adjusted.to_numpy(), expected, rtol=1e-12, err_msg=measure)
    against = irmeta.compare(*trec8, ["AP@100"], baseline="ok8alx", correction=correction)
    assert len(against) == len(RUNS) - 1
    np.testing.assert_allclose(against.p_adjusted, multipletests(against.p_value, method=method)[1], rtol=1e-12)


def test_ordered_pairs_mirror_each_other(trec8, per_topic):
    table = irmeta.compare(*trec8, ["AP@100"], level=0.1).set_index(["run", "baseline"])
    for r in RUNS:
        for s in RUNS:
            if r == s:
                continue
            there, back = table.loc[(r, s)], table.loc[(s, r)]
            d = per_topic[r] - per_topic[s]
            assert there.difference == -back.difference
            assert there.difference == pytest.approx(d.mean(), abs=1e-12)
            assert there.p_value == back.p_value and there.p_adjusted == back.p_adjusted
            assert there.effect_size_dz == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
            assert there.effect_size_dz == -back.effect_size_dz
            low, high = stats.ttest_rel(per_topic[r], per_topic[s]).confidence_interval(0.9)
            assert (there.ci_low, there.ci_high) == pytest.approx((low, high), rel=1e-9)
            assert (there.ci_low, there.ci_high) == (-back.ci_high, -back.ci_low)


def test_means_are_irmeta_scores(trec8):
    measures = ["AP@100", "P_rareness(alpha=0.5)@100"]
    table = irmeta.compare(*trec8, measures)
    scores = irmeta.evaluate(*trec8, measures, per_topic=False).set_index(["run", "measure"])["value"]
    assert set(table.measure) == set(measures)
    for row in table.itertuples():
        assert row.mean == scores[(row.run, row.measure)]
        assert row.difference == scores[(row.run, row.measure)] - scores[(row.baseline, row.measure)]


def test_tukey_hsd_is_the_all_runs_test(trec8, per_topic):
    table = irmeta.compare(*trec8, ["AP@100"], test="tukey_hsd")
    expected = tukey_hsd_pvalues(np.stack([per_topic[r] for r in RUNS]))
    a, b = np.triu_indices(len(RUNS), 1)
    got = table.set_index(["run", "baseline"]).p_value
    np.testing.assert_array_equal([got[(RUNS[i], RUNS[j])] for i, j in zip(a, b)], expected)
    assert (table.p_adjusted == table.p_value).all()
    # with a baseline: the same all-runs p-values, for its pairs only
    against = irmeta.compare(*trec8, ["AP@100"], test="tukey_hsd", baseline="INQ601").set_index("run").p_value
    for run in RUNS[1:]:
        assert against[run] == got[(run, "INQ601")]


# ------------------------------------------------------------------ the command line


@pytest.mark.slow
def test_tsv_has_exactly_the_columns_and_rows(capsys, trec8):
    code, out, _ = run_cli(capsys, *cli_args(trec8, "--measure", "AP@100", "--measure", "P@10", "--format", "tsv"))
    assert code == 0
    assert out.splitlines()[0].split("\t") == TSV_COLUMNS == list(COLUMNS)
    table = pd.read_csv(io.StringIO(out), sep="\t")
    assert table.groupby("measure").size().to_dict() == {"AP@100": 30, "P@10": 30}  # n(n - 1)
    assert table.significant.dtype == bool
    pd.testing.assert_frame_equal(table, irmeta.compare(*trec8, ["AP@100", "P@10"]), check_exact=True)
    code, out, _ = run_cli(capsys, *cli_args(trec8, "--measure", "AP@100", "--measure", "P@10", "--format", "tsv",
                                             "--baseline", "CL99XT"))
    table = pd.read_csv(io.StringIO(out), sep="\t")
    assert table.groupby("measure").size().to_dict() == {"AP@100": 5, "P@10": 5}  # n - 1
    assert set(table.baseline) == {"CL99XT"} and "CL99XT" not in set(table.run)


@pytest.mark.slow
@pytest.mark.parametrize("test", ["randomisation", "paired_bootstrap"])
def test_same_seed_same_bytes(capsys, trec8, test):
    argv = cli_args(trec8, "--measure", "AP@100", "--test", test, "--format", "tsv", "--permutations", "200")
    outputs = [run_cli(capsys, *argv, "--seed", seed)[1] for seed in ("7", "7", "8")]
    assert outputs[0] == outputs[1]
    assert outputs[0] != outputs[2]  # the seed is used: ok8alx against CL99XT is borderline
    p = pd.read_csv(io.StringIO(outputs[0]), sep="\t").p_value
    assert ((p * 201).round(9) % 1 == 0).all()  # (b + 1) / (B + 1) of the 200 draws


def test_markdown_marks_the_runs_a_mean_beats(capsys, trec8):
    code, out, _ = run_cli(capsys, *cli_args(trec8, "--measure", "AP@100", "--measure", "ASL", "--correction",
                                             "none"))
    assert code == 0
    table = irmeta.compare(*trec8, ["AP@100", "ASL"], correction="none")
    letters = dict(zip(RUNS, run_letters(len(RUNS))))
    assert "Paired t-test between every pair of runs, no correction, level 0.05" in out
    assert "lower is better for ASL" in out
    rows = {cells[1]: cells for cells in ([c.strip() for c in line.strip("|").split("|")]
                                          for line in out.splitlines()[4:])}
    for column, (measure, higher) in enumerate((("AP@100", True), ("ASL", False)), start=2):
        for run in RUNS:
            cell = rows[run][column]
            mine = table[(table.run == run) & (table.measure == measure) & table.significant]
            beaten = mine[(mine.difference > 0) == higher].baseline
            marks = re.fullmatch(r"[0-9.]+(?:<sup>([a-z]+)</sup>)?", cell).group(1) or ""
            assert marks == "".join(sorted(letters[b] for b in beaten)), (run, measure, cell)
    assert rows["CL99XT"][2].endswith("</sup>")  # some marks, so the check above bites


def test_latex_and_baseline_marks(capsys, trec8):
    code, out, _ = run_cli(capsys, *cli_args(trec8, "--measure", "P_rareness(alpha=0.5)@100", "--baseline",
                                             "Dm8Nbn", "--format", "latex", "--digits", "3"))
    assert code == 0
    assert out.startswith("\\begin{table}") and "P\\_rareness(alpha=0.5)@100" in out
    assert "against the baseline Dm8Nbn" in out
    # a run beating the baseline carries its letter d; the baseline, those of the runs it beats
    table = irmeta.compare(*trec8, ["P_rareness(alpha=0.5)@100"], baseline="Dm8Nbn").set_index("run")
    letters = dict(zip(RUNS, run_letters(len(RUNS))))
    cells = {line.split(" & ")[1]: line.split(" & ")[2] for line in out.splitlines() if " & " in line}
    beaten = "".join(letters[r] for r in table.index if table.significant[r] and table.difference[r] < 0)
    assert cells["Dm8Nbn"].endswith(f"$^{{{beaten}}}$ \\\\")
    assert beaten == "f"  # AntHoc1: the baseline's marks are read from the other side of its rows
    for run in table.index:
        wins = bool(table.significant[run] and table.difference[run] > 0)
        assert cells[run].endswith("$^{d}$ \\\\") == wins, run
    assert cells["CL99XT"].endswith("$^{d}$ \\\\")


def test_inputs_as_score_reads_them(capsys, trec8, tmp_path):
    qrels, runs = trec8
    zipped = tmp_path / "qrels.txt.gz"
    zipped.write_bytes(gzip.compress(open(qrels, "rb").read()))
    folder = tmp_path / "runs"
    folder.mkdir()
    for path in runs[:2]:
        (folder / path.rsplit("/", 1)[1]).symlink_to(path)
    glob = runs[2].rsplit("/", 1)[0] + "/CL99X*.gz"
    out_file = tmp_path / "cmp.tsv"
    code, out, err = run_cli(capsys, "compare", "--qrels", str(zipped), "--runs", str(folder), "--runs", glob,
                             "--measure", "AP@100", "--format", "tsv", "--output", str(out_file))
    assert (code, out, err) == (0, "", "")
    table = pd.read_csv(out_file, sep="\t")
    assert set(table.run) == {"INQ601", "ok8alx", "CL99XT", "CL99XTopt"}
    code, _, err = run_cli(capsys, "compare", "--qrels", str(zipped), "--runs", str(folder), "--output", str(zipped))
    assert code == 2 and "is one of the inputs" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("extra,fragment", [
    (["--baseline", "nosuchrun"], "baseline 'nosuchrun' is not one of the runs"),
    (["--test", "student"], "unknown test 'student' for compare; expected one of"),
    (["--correction", "sidak"], "argument --correction: invalid choice: 'sidak'"),
    (["--level", "0"], "argument --level: 0 is not a significance level in [1e-15, 1) (see irmeta compare --help)"),
    (["--level", "1.5"], "argument --level: 1.5 is not a significance level in [1e-15, 1)"),
    (["--level", "1e-300"], "argument --level: 1e-300 is not a significance level in [1e-15, 1) (below it"),
    (["--average", "geometric"], "unrecognized arguments: --average geometric (see irmeta compare --help)"),
    (["--measure", "AP@x"], "cannot read measure 'AP@x'"),
    (["--measure", "Nope@10"], "unknown measure 'Nope@10'"),
    (["--test", "tukey_hsd", "--correction", "holm"], "tukey_hsd accounts for every pair of runs itself"),
    (["--seed", "1", "--seed", "2"], "--seed given twice"),
])
def test_errors_are_one_line_exit_2(capsys, trec8, extra, fragment):
    code, out, err = run_cli(capsys, *cli_args(trec8, *extra))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("irmeta") and fragment in err, err


def test_fewer_than_two_runs(capsys, trec8):
    qrels, runs = trec8
    code, out, err = run_cli(capsys, "compare", "--qrels", qrels, "--runs", runs[0])
    assert (code, out) == (2, "")
    assert err == "irmeta: error: compare needs at least two runs, got 1\n"


def test_api_refusals(trec8):
    with pytest.raises(ValueError, match="average 'returned' is refused"):
        irmeta.compare(*trec8, ["AP@100"], average="returned")
    with pytest.raises(TypeError, match=r"compare\(\) got an unknown setting 'treshold'"):
        irmeta.compare(*trec8, ["AP@100"], treshold=2)
    with pytest.raises(ValueError, match="level must be a finite number in"):
        irmeta.compare(*trec8, ["AP@100"], level=1.0)
    with pytest.raises(ValueError, match=r"level must be a finite number in \[1e-15, 1\), not 1e-300"):
        irmeta.compare(*trec8, ["AP@100"], level=1e-300)
    with pytest.raises(TypeError) as unknown:
        irmeta.compare(*trec8, ["AP@100"], bogus=1)
    for keyword in ("baseline", "test", "correction", "level", "permutations", "seed", "threshold", "alphas",
                    "depth", "gains", "beta", "rarity"):
        assert f" {keyword}," in str(unknown.value) or f" {keyword})" in str(unknown.value), keyword
    with pytest.raises(ValueError, match="unknown test .* for compare"):
        irmeta.compare(*trec8, ["AP@100"], test="t")
    with pytest.raises(ValueError, match="permutations must be an integer >= 1"):
        compare_runs(*trec8, ["AP@100"], test="randomisation", permutations=0)


def test_the_smallest_level_gives_a_finite_interval(trec8):
    table = irmeta.compare(*trec8, ["AP@100"], level=SMALLEST_LEVEL)
    assert np.isfinite(table[["ci_low", "ci_high"]].to_numpy()).all()


def test_run_letters():
    assert run_letters(3) == ["a", "b", "c"]
    assert run_letters(28)[25:] == ["z", "aa", "ab"]


@pytest.mark.slow
def test_too_few_draws_for_the_correction_is_one_warning_line(capsys, trec8):
    """6 runs, 15 pairs: Holm needs p < 0.05 / 15, and (b + 1) / (B + 1) >= 1 / 201 is not:
    one line on standard error, the table still written; 300 draws (15/301 < 0.05), no
    correction, or an analytic test: no warning."""
    code, out, err = run_cli(capsys, *cli_args(trec8, "--measure", "AP@100", "--test", "randomisation",
                                               "--permutations", "200", "--format", "tsv"))
    assert code == 0 and len(out.splitlines()) == 1 + 30
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("irmeta: warning: compare randomisation+holm: with 200 draws")
    assert "Holm over 15 comparisons" in lines[0] and "(300 draws could)" in lines[0]
    table = pd.read_csv(io.StringIO(out), sep="\t")
    assert not table["significant"].any()
    for extra in (("--test", "randomisation", "--permutations", "300"),
                  ("--test", "randomisation", "--permutations", "200", "--correction", "none"),
                  ("--test", "randomisation_count", "--permutations", "200"), ("--test", "paired_t")):
        code, _, err = run_cli(capsys, *cli_args(trec8, "--measure", "AP@100", "--format", "tsv", *extra))
        assert code == 0 and err == "", extra


@pytest.mark.slow
def test_reports_name_measures_as_typed_and_tsv_as_irmeta(capsys, trec8):
    # Issue 43, item 2: map stays map in the reports, the caption naming irmeta's AP; the
    # TSV keeps irmeta's names (the same bytes as when AP is typed); --canonical for them
    code, out, _ = run_cli(capsys, *cli_args(trec8, "--measure", "map", "--measure", "P_10"))
    assert code == 0 and out.splitlines()[2] == "| # | run | map | P_10 |"
    assert "irmeta's names: map is AP, P_10 is P@10" in out and "\\" not in out
    code, latex, _ = run_cli(capsys, *cli_args(trec8, "--measure", "map", "--format", "latex"))
    assert code == 0 and " & run & map \\\\" in latex
    code, tsv, _ = run_cli(capsys, *cli_args(trec8, "--measure", "map", "--measure", "P_10", "--format", "tsv"))
    code, same, _ = run_cli(capsys, *cli_args(trec8, "--measure", "AP", "--measure", "P@10", "--format", "tsv"))
    assert tsv == same
    code, canonical, _ = run_cli(capsys, *cli_args(trec8, "--measure", "map", "--measure", "P_10", "--canonical"))
    assert canonical.splitlines()[2] == "| # | run | AP | P@10 |" and "irmeta's names" not in canonical
    code, _, err = run_cli(capsys, *cli_args(trec8, "--measure", "P_10", "--measure", "P@10"))
    assert code == 2 and err == "irmeta: error: --measure P_10 and --measure P@10 are one measure, P@10: give it once\n"
    code, _, err = run_cli(capsys, *cli_args(trec8, "--format", "tsv", "--canonical"))
    assert code == 2 and "tsv always names measures by irmeta's canonical names" in err
