"""No table sized by a value a user wrote (issue 40, item 7): a grade of 100,000 makes
kappa's table over the grades given (not 74.5 GiB), with the kappa of grade differences
the brute-force formula gives; a confusion table of grades far apart counts right; a
plugin test's NaN names the runs, not their 0-based rows; ``rbo_depth`` 10^9 sums RBO's
finite-depth form as far as its terms count, with the deeper sum's value."""

from __future__ import annotations

import gzip
import math
import tracemalloc
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import irmeta
from campaigns import write
from irmeta.campaign.qrels import Qrels
from irmeta.cli import main
from irmeta.metaeval import reproducibility as rm
from irmeta.metaeval.label_agreement import DENSE_GRADES, kappa, label_agreement_table, label_confusion_table
from irmeta.metaeval.stats.registry import TESTS


def _brute_kappa(a: list[int], b: list[int], weights: str) -> float:
    """Cohen's weighted kappa with w = |g - h| / (max - min) (or its square), exactly."""
    grades = sorted(set(a) | set(b))
    span = grades[-1] - grades[0]

    def w(g: int, h: int) -> Fraction:
        d = Fraction(abs(g - h), span)
        return d if weights == "linear" else d * d

    n = len(a)
    row, col = Counter(a), Counter(b)
    observed = sum(w(g, h) for g, h in zip(a, b)) / n
    expected = sum(w(g, h) * row[g] * col[h] for g in row for h in col) / (n * n)
    return float(1 - observed / expected)


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_a_grade_of_100000_gives_a_table_of_the_grades_given(weights):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, 400)
    b = np.where(rng.random(400) < 0.7, a, rng.integers(0, 4, 400))
    a[:3] = 100_000
    b[5] = 100_000
    b[9] = -7
    tracemalloc.start()
    got = kappa(a, b, weights)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20  # the dense table would be 74.5 GiB
    assert got == pytest.approx(_brute_kappa(a.tolist(), b.tolist(), weights), abs=1e-12)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_past_the_dense_span_kappa_is_statsmodels_on_every_integer_grade(weights):
    import warnings

    from statsmodels.stats.inter_rater import cohens_kappa

    rng = np.random.default_rng(3)
    a = rng.choice([0, 1, 2, 5, DENSE_GRADES + 40], 300)
    b = np.where(rng.random(300) < 0.6, a, rng.choice([0, 1, 2, 5, DENSE_GRADES + 40], 300))
    span = int(max(a.max(), b.max())) + 1
    table = np.bincount(a * span + b, minlength=span * span).reshape(span, span).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = float(cohens_kappa(table, wt=weights, return_results=False))
    assert kappa(a, b, weights) == pytest.approx(expected, abs=1e-12)


def _qrels(rows: list[tuple[str, str, int]]) -> Qrels:
    return Qrels(pa.array([q for q, _, _ in rows], pa.large_string()), pa.array([d for _, d, _ in rows],
                 pa.large_string()), np.array([g for _, _, g in rows], dtype=np.int64))


def test_grades_at_int64s_ends_are_counted_and_weighted_without_overflow():
    low, high = -(2**62) * 2, 2**63 - 1  # their difference passes int64
    reference = _qrels([("1", f"d{i}", g) for i, g in enumerate([0, 1, high, low, 1, 0])])
    judged = _qrels([("1", f"d{i}", g) for i, g in enumerate([0, high, high, low, 1, 1])])
    confusion = label_confusion_table(reference, {"set": judged})
    want = Counter(zip(reference.grade.tolist(), judged.grade.tolist()))
    assert {(r.reference_grade, r.judgments_grade): r.count for r in confusion.itertuples()} == dict(want)
    assert confusion["reference_grade"].tolist() == sorted(confusion["reference_grade"].tolist())
    table = label_agreement_table(reference, {"set": judged})
    assert -1 <= table["weighted_kappa_quadratic"].iat[0] <= 1  # distances from the lowest grade, unsigned


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> tuple[Path, Path, Path]:
    """Six small runs of three topics, the qrels, and a judgment set grading one document 100,000."""
    where = tmp_path_factory.mktemp("bounded")
    rng = np.random.default_rng(11)
    qrels, judged = [], []
    for q in range(1, 4):
        for d in range(30):
            grade = int(rng.integers(0, 3))
            qrels.append(f"{q} 0 d{d} {grade}")
            judged.append(f"{q} 0 d{d} {100_000 if (q, d) == (1, 4) else (grade + (d % 5 == 0)) % 3}")
    write(where / "qrels.txt", "\n".join(qrels) + "\n")
    write(where / "llm.txt", "\n".join(judged) + "\n")
    for r in range(6):
        lines = [f"{q} Q0 d{d} {i + 1} {30 - i} run{r}" for q in range(1, 4)
                 for i, d in enumerate(rng.permutation(30))]
        (where / "runs").mkdir(exist_ok=True)
        (where / "runs" / f"run{r}.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return where / "qrels.txt", where / "llm.txt", where / "runs"


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_agree_with_a_grade_of_100000(capsys, campaign):
    qrels, llm, runs = campaign
    code, out, err = _cli(capsys, "agree", "--qrels", qrels, "--judgments", llm, "--runs", runs, "--format", "tsv")
    assert code == 0, err
    labels = irmeta.agree(str(qrels), [str(llm)], [str(runs)])["labels"]
    overall = labels[labels["topic"] == "all"].iloc[0]
    pairs = [line.split() for line in qrels.read_text().splitlines()]
    mine = {(q, d): int(g) for q, _, d, g in (line.split() for line in llm.read_text().splitlines())}
    a = [int(g) for _, _, _, g in pairs]
    b = [mine[(q, d)] for q, _, d, _ in pairs]
    assert overall["weighted_kappa_linear"] == pytest.approx(_brute_kappa(a, b, "linear"), abs=1e-12)
    assert overall["weighted_kappa_quadratic"] == pytest.approx(_brute_kappa(a, b, "quadratic"), abs=1e-12)


PLUGIN = """import numpy as np
import irmeta


def nan_on_rows_0_and_2(scores):
    n = len(scores) * (len(scores) - 1) // 2
    p = np.full(n, 0.5)
    p[1] = np.nan  # the pair (0, 2) of np.triu_indices: the first and third runs in byte order
    return np.zeros(n), p


irmeta.register_test("nan_pair", nan_on_rows_0_and_2)
"""


@pytest.fixture
def plugin(tmp_path):
    tests = dict(TESTS)
    yield write(tmp_path / "nan_plugin.py", PLUGIN)
    TESTS.clear()
    TESTS.update(tests)


@pytest.mark.parametrize("command", ["agree", "compare"])
def test_a_plugin_tests_nan_names_the_runs(capsys, campaign, plugin, command):
    qrels, llm, runs = campaign
    extra = ["--judgments", llm] if command == "agree" else []
    code, out, err = _cli(capsys, command, "--qrels", qrels, *extra, "--runs", runs, "--plugin", plugin,
                          "--test", "nan_pair")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "returned p-value nan for runs 'run0' and 'run2'" in err and "runs 0 and 2" not in err, err


def test_a_plugin_tests_nan_in_the_pipelines_pairwise_tests_names_the_runs(plugin):
    from irmeta.metaeval.stats.own_tests import load_plugins
    from irmeta.metaeval.stats.paired_tests import pairwise_tests

    load_plugins([str(plugin)])
    scores = np.random.default_rng(0).random((4, 6))
    with pytest.raises(ValueError, match=r"for runs 'a' and 'c' \(and 0 other|for runs 'a' and 'c':"):
        pairwise_tests(scores, ["d", "c", "b", "a"], ["nan_pair"])


ORIGINAL = {"1": {f"d{i}": 100.0 - i for i in range(100)}, "2": {f"d{i}": 50.0 - i for i in range(0, 100, 2)}}
REPRODUCED = {"1": {f"d{i}": 100.0 - i for i in range(10, 20)}, "2": {f"d{i}": 50.0 - i for i in range(40)}}
QRELS = {"1": {"d1": 1, "d12": 1, "d50": 0}, "2": {"d2": 1, "d3": 1}}


@pytest.mark.parametrize("p", [0.9, rm.RBO_P, 0.999])
def test_an_rbo_depth_of_10_to_the_9_is_the_deeper_sums_value(p):
    kwargs = {"measures": ["P@10"], "rbo_p": p}
    deep = irmeta.repro(QRELS, ORIGINAL, ORIGINAL, REPRODUCED, REPRODUCED, rbo_depth=10**9, **kwargs)
    # 2^22: every term summed, as before (the arrays of 10^9 would be 8 GB each)
    summed = irmeta.repro(QRELS, ORIGINAL, ORIGINAL, REPRODUCED, REPRODUCED, rbo_depth=1 << 22, **kwargs)
    assert deep["rbo_baseline"].iat[0] == summed["rbo_baseline"].iat[0]  # Webber's: cut at the rankings
    for column in ("rbo_repro_eval_baseline", "rbo_repro_eval_advanced"):
        assert deep[column].iat[0] == pytest.approx(summed[column].iat[0], rel=1e-15)
    for topic in ORIGINAL:
        o, r = list(ORIGINAL[topic]), list(REPRODUCED[topic])
        assert rm.rbo_terms(p, 10**9, 100) < 50_000
        assert rm.rbo_repro_eval(o, r, p, 10**9) == pytest.approx(_rbo_summed(o, r, p, 1 << 22), rel=1e-15)


def _rbo_summed(o: list[str], r: list[str], p: float, depth: int) -> float:
    """The finite-depth form with every term to ``depth`` (repro_eval's loop, vectorised)."""
    place = {d: i for i, d in enumerate(r)}
    joins = [max(i, place[d]) for i, d in enumerate(o) if d in place]
    overlap = np.cumsum(np.bincount(np.asarray(joins, dtype=np.int64), minlength=depth)[:depth])
    weight = np.cumprod(np.concatenate([[1.0], np.full(depth - 1, p)]))
    return float(np.sum(weight * overlap / np.arange(1, depth + 1)) / np.sum(weight))


def test_rbo_depth_10_to_the_9_on_the_command_line(capsys, campaign, tmp_path):
    qrels, _, runs = campaign
    files = [runs / f"run{i}.gz" for i in range(4)]
    roles = ["--original-baseline", "--original-advanced", "--reproduced-baseline", "--reproduced-advanced"]
    args = ["repro", "--qrels", qrels, *[x for pair in zip(roles, files) for x in pair], "--format", "tsv"]
    code, out, err = _cli(capsys, *args, "--rbo-depth", "1000000000")
    assert code == 0, err
    code, shallow, err = _cli(capsys, *args, "--rbo-depth", "30")  # the runs' 30 documents: RBO_ext the same
    assert code == 0, err
    deep = pd.read_csv(pd.io.common.StringIO(out), sep="\t", comment="#")
    cut = pd.read_csv(pd.io.common.StringIO(shallow), sep="\t", comment="#")
    assert deep["rbo_baseline"].tolist() == cut["rbo_baseline"].tolist()
    code, out, err = _cli(capsys, *args, "--rbo-depth", "1000000000", "--rbo-p", "0.999999")
    assert code == 2 and out == "" and "rbo_depth 1000000000 at rbo_p 0.999999" in err, err
    assert len(err.strip().splitlines()) == 1


def test_the_degradations_rbo_at_depth_10_to_the_9_is_the_per_topic_functions(tmp_path):
    from irmeta.campaign.degrade_cells import degrade_cells, ranked_cells
    from irmeta.campaign.rankings import scored_rankings_of
    from irmeta.campaign.runs import read_runs
    from irmeta.metaeval.document_order import order_measures

    for r in range(3):
        lines = [f"{q} Q0 d{(7 * i + r) % 40} {i + 1} {40 - i} run{r}" for q in (1, 2) for i in range(25)]
        write(tmp_path / f"run{r}", "\n".join(lines) + "\n")
    cells = ranked_cells(scored_rankings_of(read_runs(sorted(tmp_path.glob("run*")), depth=25)))
    copy = degrade_cells(cells, "swap", 0.4, 5, 1)
    got = order_measures(cells, copy, ktu_cutoff=25, rbo_p=0.95, rbo_depth=10**9)
    original, copied = cells.rankings(), cells.rankings(copy)
    c = 0
    for name in cells.runs:
        for topic, o in original[name].items():
            want, value = rm.rbo_repro_eval(o, copied[name][topic], 0.95, 10**9), float(got["rbo_repro_eval"][c])
            assert value == want or (math.isnan(want) and math.isnan(value))
            c += 1
