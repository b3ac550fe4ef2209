"""irmeta.measures.ranges: every measure declares the values its scores can take, scores
irmeta computes always lie there, and a scores file's impossible score (outside its
measure's range, or off its grid, within its printed precision) is refused with its
file and line (issue 40, item 4)."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irmeta
from campaigns import diversity_campaign, write
from irmeta.campaign.judge import judge_runs, relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs
from irmeta.campaign.subtopics import read_subtopic_qrels
from irmeta.measures.averaging import evaluate
from irmeta.measures.diversity import DIVERSITY_FAMILIES
from irmeta.measures.group_averaged import GROUP_FAMILIES
from irmeta.measures.names import parse_measure
from irmeta.measures.plugins import PluginMeasure, register_imported_measure, register_measure
from irmeta.measures.ranges import Grid, Range, measure_range, printed_tolerance, shortest_decimals
from irmeta.measures.registry import MEASURES
from irmeta.measures.score_files import read_score_file, read_score_rows, score_grid, scores_from_table

_EPS = np.finfo(np.float64).eps


@pytest.fixture
def registry():
    """Measures a test registers are gone after it."""
    before = set(MEASURES)
    yield
    for name in set(MEASURES) - before:
        del MEASURES[name]


def test_every_shipped_family_declares_its_range():
    shipped = {name: d for name, d in MEASURES.items() if not isinstance(d, PluginMeasure)}
    assert len(shipped) >= 30
    assert [name for name, d in shipped.items() if d.value_range is None] == []


@pytest.mark.parametrize("name,alpha,want", [
    ("P@10", None, Range(0, 1, Grid("multiples", 10))),
    ("P_10", None, Range(0, 1, Grid("multiples", 10))),  # trec_eval's spelling
    ("P(judged_only=true)@5", None, Range(0, 1, Grid("multiples", 5))),
    ("AP@100", None, Range(0, 1)),
    ("map", None, Range(0, 1)),
    ("nDCG(gains={1:1,2:3})@10", None, Range(0, 1)),
    ("DCG@10", None, Range(0, math.inf)),
    ("RR@10", None, Range(0, 1, Grid("reciprocals", 10))),
    ("recip_rank", None, Range(0, 1, Grid("reciprocals", None))),
    ("Success@10", None, Range(0, 1, Grid("multiples", 1))),
    ("P_rareness(alpha=0.5)@100", None, Range(0, 1.5)),
    ("P_rareness@100", 2, Range(0, 3)),
    ("AP_rareness@100", "1/R", Range(0, 2)),  # 1/N_R is at most 1
    ("P_rareness@100", None, Range(0, math.inf)),  # no alpha known: no upper end known
    ("P_rareness_norm(alpha=0.5)@100", None, Range(0, 1)),
    ("nDCG_rareness(alpha=1)@10", None, Range(0, 2)),
    ("RBP_rareness(alpha=0.25)", None, Range(0, 1.25)),
    ("ASL", None, Range(0, math.inf)),
    ("ASL_g1@10", None, Range(0, math.inf)),
])
def test_a_measures_range_is_resolved_with_its_parameters(name, alpha, want):
    assert measure_range(name, alpha) == want
    assert measure_range(parse_measure(name), alpha) == want


def test_grids_and_ranges_give_the_nearest_score():
    assert Grid("multiples", 3).nearest(np.array([0.3, 0.5, 0.9, 1.2])).tolist() == [1 / 3, 2 / 3, 1.0, 1.0]
    assert Grid("reciprocals", 4).nearest(np.array([0.0, 0.1, 0.2, 0.3, 0.45, 0.8])).tolist() == \
        [0.0, 0.0, 0.25, 1 / 3, 0.5, 1.0]
    assert Grid("reciprocals", None).nearest(np.array([0.01, 0.143])).tolist() == [0.01, 1 / 7]
    assert Range(0, 1, Grid("multiples", 10)).nearest(np.array([-3.0, 0.34, 5.0])).tolist() == [0.0, 0.3, 1.0]
    assert Range(0, 1.5).nearest(np.array([2.0])).tolist() == [1.5] and Range(0, 1.5).bounded
    assert not Range(0, math.inf).bounded and str(Range(0, math.inf)) == "[0, inf)" and str(Range(0, 1.5)) == "[0, 1.5]"


def test_the_printed_precision_is_never_read_as_finer_than_it_was():
    assert shortest_decimals(np.array([0.0333, 0.5, 3.0, 1e-05, 1 / 3, 123.456])).tolist() == [4, 1, 0, 5, 16, 3]
    assert printed_tolerance(np.array([0.33]))[0] == pytest.approx(0.005, rel=1e-5)
    assert printed_tolerance(np.array([0.3333]), np.array([4]))[0] == pytest.approx(5e-5, rel=1e-3)


# ------------------------------------------------------------ computed scores lie in range

_DOC = st.sampled_from([f"d{i}" for i in range(10)] + ["u1", "u2", "u3"])  # u*: never judged


@st.composite
def campaigns(draw):
    """Qrels graded -1..3 (-1: pooled, not judged) and 2-4 runs."""
    qrels = {}
    for t in range(draw(st.integers(1, 3))):
        docs = draw(st.lists(st.sampled_from([f"d{i}" for i in range(10)]), min_size=1, max_size=9, unique=True))
        qrels[str(t + 1)] = {d: draw(st.integers(-1, 3)) for d in docs}
    runs = {}
    for r in range(draw(st.integers(2, 4))):
        topics = draw(st.lists(st.sampled_from(sorted(qrels)), min_size=1, max_size=len(qrels), unique=True))
        runs[f"r{r}"] = {t: draw(st.lists(_DOC, min_size=1, max_size=12, unique=True)) for t in topics}
    return qrels, runs


def matrix_of(root: Path, qrels, runs, *, depth: int, threshold: int):
    q = read_qrels(write(root / "qrels", "".join(f"{t} 0 {d} {g}\n" for t, j in qrels.items() for d, g in j.items())))
    paths = [write(root / "runs" / name, "".join(f"{t} Q0 {d} {i + 1} {len(docs) - i} {name}\n"
                                                 for t, docs in lists.items() for i, d in enumerate(docs))
                   + f"pad Q0 pad 1 1 {name}\n")
             for name, lists in runs.items()]
    return relevance_matrix(read_runs(paths), q, depth=depth, threshold=threshold)


def names_at(cutoff: int | None) -> list[str]:
    """Every shipped family, and settings that move its scores (gains, beta, p, rarity,
    condensed lists), at ``cutoff``."""
    at = "" if cutoff is None else f"@{cutoff}"
    shipped = [f for f, d in MEASURES.items()
               if not isinstance(d, PluginMeasure) and f not in DIVERSITY_FAMILIES and f not in GROUP_FAMILIES]
    names = [f + at for f in shipped if cutoff is not None or f != "ASL_g1"]
    names += [f"{f}(judged_only=true){at}" for f in ("P", "RR", "Success", "nDCG", "AP_rareness")]
    names += [f"nDCG(gains={{0:1,1:2,3:7}}){at}", f"DCG(gains={{1:0.5,2:9}}){at}", f"ERR(gains={{0:2,2:30}}){at}",
              f"Q(beta=0){at}", f"Pplus(beta=4,gains={{0:1,1:3}}){at}", f"RBP(p=0.95,gains={{1:1,3:5}}){at}",
              f"RBP_residual(p=0.3){at}", f"P_rareness(rarity=log){at}", f"AP_rareness(rarity=inverse){at}",
              f"nDCG_rareness(rarity=inverse,gains={{0:1,2:4}}){at}", f"RBP_rareness(rarity=log,p=0.5){at}",
              f"nDCG_rareness_norm(rarity=log){at}", f"ASL(asl_unretrieved=depth){at}"]
    return names


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=campaigns(), cutoff=st.one_of(st.none(), st.integers(1, 12)), depth=st.integers(1, 14),
       threshold=st.sampled_from([1, 2]))
def test_every_score_irmeta_computes_lies_in_its_measures_range_and_on_its_grid(campaign, cutoff, depth, threshold):
    qrels, runs = campaign
    with tempfile.TemporaryDirectory() as tmp:
        matrix = matrix_of(Path(tmp), qrels, runs, depth=depth, threshold=threshold)
    for name in names_at(cutoff):
        m = parse_measure(name)
        alphas = ([0.0, 0.5, 1.0, "1/R"] if m.family.endswith("_norm") else [0.0, 0.5, 2.5, 1e3, "1/R"]) \
            if m.uses_alpha else [None]
        got = evaluate(matrix, [m], alphas=[a for a in alphas if a is not None] or (0.0,))[m]
        for i, alpha in enumerate(alphas):
            values = got[i] if m.uses_alpha else got
            r = measure_range(m, alpha)
            slack = 8 * _EPS * max(1.0, r.high if r.bounded else 1.0)
            assert ((values >= r.low - slack) & (values <= r.high + slack)).all(), (name, alpha, values)
            if r.grid is not None:
                assert np.allclose(r.grid.nearest(values), values, rtol=0, atol=4 * _EPS), (name, values)


@pytest.mark.parametrize("seed", [3, 17])
def test_every_diversity_score_lies_in_its_measures_range(tmp_path, seed):
    """The diversity families read subtopic qrels: a small Web-track-shaped campaign, every
    family at cutoffs 1 (where defined), 5 and 40, and at the alphas and patiences' ends."""
    qrels, runs = diversity_campaign(tmp_path, seed, n_topics=8, n_runs=4, depth=40)
    matrix, _ = judge_runs(runs, read_subtopic_qrels(qrels), depth=40)  # k of those without @k
    names = [f"{f}{at}" for f in DIVERSITY_FAMILIES for at in ("@1", "@5", "@40", "")
             if not (at == "@1" and f in ("alpha_DCG", "ERR_IA")) and not (at and f in ("NRBP", "nNRBP", "AP_IA"))]
    names += ["alpha_DCG(alpha=0)@5", "alpha_nDCG(alpha=1)@10", "ERR_IA(alpha=0.99)@40", "NRBP(alpha=0,patience=0.99)",
              "NRBP(alpha=1,patience=0.01)", "nNRBP(alpha=0.9)"]
    for name, values in evaluate(matrix, names).items():
        r = measure_range(name, None)
        slack = 8 * _EPS * max(1.0, r.high if r.bounded else 1.0)
        assert ((values >= r.low - slack) & (values <= r.high + slack)).all(), (name, values)


@pytest.mark.parametrize("seed", [5, 29])
def test_every_judgment_group_score_lies_in_its_measures_range(tmp_path, seed):
    """The *_avgjg families read judgment-group qrels: 1-3 groups per topic grading -1..3."""
    rng = np.random.default_rng(seed)
    qrels_lines, run_lines = [], {f"r{r}": [] for r in range(3)}
    for t in range(1, 6):
        for g in range(int(rng.integers(1, 4))):
            for d in rng.choice(12, size=int(rng.integers(1, 10)), replace=False).tolist():
                qrels_lines.append(f"{t} g{g} d{d} {int(rng.integers(-1, 4))}\n")
        for r, lines in run_lines.items():
            docs = rng.choice(15, size=int(rng.integers(1, 13)), replace=False).tolist()
            lines += [f"{t} Q0 d{d} {i + 1} {len(docs) - i} {r}\n" for i, d in enumerate(docs)]
    qrels = write(tmp_path / "qrels_jg", "".join(qrels_lines))
    runs = [write(tmp_path / "runs" / r, "".join(lines)) for r, lines in run_lines.items()]
    names = [f"{f}{at}" for f in GROUP_FAMILIES for at in ("", "@1", "@5", "@12") if at or f != "P_avgjg"]
    names += ["Rprec_mult_avgjg(multiple=0.2)", "Rprec_mult_avgjg(multiple=3)", "AP_avgjg(judged_only=true)"]
    for threshold in (1, 3):
        got = irmeta.evaluate(qrels, runs, names, qrels_format="qrels_jg", threshold=threshold)
        for name, values in got.groupby("measure").value:
            r = measure_range(name, None)
            assert ((values >= r.low - 8 * _EPS) & (values <= r.high + 8 * _EPS)).all(), (name, values.tolist())


# ------------------------------------------------------------ scores files

def trec_eval_file(path: Path, lines: list[tuple[str, str, str]], run: str = "r1") -> Path:
    return write(path, "".join(f"{m}\t{q}\t{v}\n" for m, q, v in lines) + f"runid\tall\t{run}\n")


@pytest.mark.parametrize("value", ["5", "-3", "1.0001", "-0.0001"])
def test_a_score_outside_its_range_is_refused_with_its_file_and_line(tmp_path, value):
    """The issue's case: P@100 of 5 (or -3) for one run and topic."""
    path = trec_eval_file(tmp_path / "scores.txt", [("P_100", "401", "0.3100"), ("map", "401", "0.2"),
                                                    ("P_100", "402", value), ("map", "402", "0.1")])
    with pytest.raises(ValueError, match=rf"^{path}:3: P@100: the score of run r1 on topic 402 is "
                                         rf"{value.rstrip('0').rstrip('.')}, outside P@100's range \[0, 1\]$"):
        read_score_rows(path)
    tsv = write(tmp_path / "scores.tsv", f"run\tmeasure\tqid\tvalue\nr1\tAP\t401\t0.5\nr1\tP@100\t401\t{value}\n")
    with pytest.raises(ValueError, match=rf"^{tsv}:3: P@100: the score of run r1 on topic 401"):
        read_score_file(tsv)


@pytest.mark.parametrize("measure,value,fault", [
    ("P_10", "0.3500", r"P@10 cannot give: its scores are 0, 1/10, 2/10, \.\.\., 1 \(the nearest, 4/10, is further "
                       r"from 0\.35 than its 4 printed decimals allow\)"),
    ("P_3", "0.3000", r"P@3 cannot give: .* \(the nearest, 1/3,"),  # four decimals: not 1/3
    ("recip_rank", "0.4000", r"RR cannot give: its scores are 0 and 1/i for i = 1, 2, \.\.\. \(the nearest, 1/3,"),
    ("success_5", "0.5000", r"Success@5 cannot give: its scores are 0 or 1"),
    ("P_rareness(alpha=0.5)@10", "1.6", r"outside P_rareness\(alpha=0\.5\)@10's range \[0, 1\.5\]"),
    ("ndcg_cut_10", "1.2", r"outside nDCG@10's range \[0, 1\]"),
    ("P_10", "0.9", None), ("P_30", "0.0333", None), ("P_3", "0.33", None), ("P_3", "0.3333", None),
    ("P_3", "0.3", None),  # one decimal may print 1/3
    ("P_1000", "0.0120", None), ("P_300", "0.0033", None),
    ("recip_rank", "0.1429", None), ("recip_rank", "0.0012", None),
    ("P_rareness(alpha=0.5)@10", "1.4999", None), ("DCG@10", "1e5", None), ("ASL", "731.5", None),
    ("P_10", "0.30000001192092896", None),  # 0.3 held in single precision on its way
])
def test_a_per_topic_score_off_its_grid_is_refused_within_its_printed_precision(tmp_path, measure, value, fault):
    path = trec_eval_file(tmp_path / "scores.txt", [(measure, "401", value)])
    if fault is None:
        assert read_score_file(path)["value"].tolist() == [float(value)]
    else:
        with pytest.raises(ValueError, match=rf"^{path}:1: .*{fault}"):
            read_score_file(path)


def test_a_mean_is_held_to_the_range_not_the_grid(tmp_path):
    ok = trec_eval_file(tmp_path / "ok.txt", [("P_10", "401", "0.3000"), ("P_10", "402", "0.4000"),
                                              ("P_10", "all", "0.3500")])
    assert len(read_score_file(ok)) == 3
    bad = trec_eval_file(tmp_path / "bad.txt", [("P_10", "401", "0.3000"), ("P_10", "all", "1.3000")])
    with pytest.raises(ValueError, match=rf"^{bad}:2: P@10: the mean of run r1 is 1\.3, outside"):
        read_score_file(bad)


def test_the_fault_is_named_in_whichever_piece_or_file_it_is(tmp_path, monkeypatch):
    import irmeta.measures.score_files.pieces as piece_reader

    folder = tmp_path / "scores"
    trec_eval_file(folder / "a.txt", [("P_10", str(q), "0.5000") for q in range(401, 450)], run="a")
    trec_eval_file(folder / "b.txt", [("P_10", str(q), "0.5000") for q in range(401, 420)]
                   + [("P_10", "420", "0.5500")], run="b")
    monkeypatch.setattr(piece_reader, "PIECE_BYTES", 64)
    with pytest.raises(ValueError, match=rf"^{folder / 'b.txt'}:20: P@10: the score of run b on topic 420 is 0\.55,"):
        read_score_rows(folder)


def test_a_table_in_memory_is_held_to_the_range_naming_its_row(tmp_path):
    """A table given to the API: a value outside its measure's range is refused; its grid
    is not asked of it (a synthetic or rescaled table may be anyone's numbers)."""
    table = pd.DataFrame({"run": ["a", "a", "b", "b"], "measure": ["P@10", "P@10", "P@10", "P@10"],
                          "qid": ["1", "all", "1", "2"], "value": [0.5, 0.5, 0.2, 5.0]})
    with pytest.raises(ValueError, match=r"^mine, row 3: P@10: the score of run b on topic 2 is 5, outside"):
        score_grid(table, source="mine", missing="zero")
    table.loc[3, "value"] = -0.25
    with pytest.raises(ValueError, match=r"^scores, row 3: P@10: .* is -0\.25, outside P@10's range \[0, 1\]"):
        scores_from_table(table, ["P@10"], [], missing="zero")
    table.loc[3, "value"] = 0.25
    assert scores_from_table(table, ["P@10"], [], missing="zero", check_means=False).per_topic[0].tolist() == \
        [[0.5, 0.0], [0.2, 0.25]]


def test_the_issues_scores_only_collection_is_refused_before_any_tau(tmp_path):
    """The pipeline's scores-only step reads the file through the same reader: P@100 = 5
    for one run and topic stops it with the file and line, no scores written."""
    from irmeta.pipeline.steps import score_collection

    lines = [(m, str(q), "0.2500" if m == "map" else "0.3100") for q in (401, 402) for m in ("P_100", "map")]
    for run in ("r1", "r2", "r3"):
        trec_eval_file(tmp_path / "scores" / run, lines, run=run)
    bad = tmp_path / "scores" / "r2"
    bad.write_text(bad.read_text().replace("P_100\t402\t0.3100", "P_100\t402\t5"))
    with pytest.raises(ValueError, match=rf"^{bad}:3: P@100: the score of run r2 on topic 402 is 5"):
        score_collection(matrix=None, out=tmp_path / "scores.parquet", arrays_out=tmp_path / "scores.npz",
                         measures=["P@100", "AP"], imported=tmp_path / "scores")
    assert not (tmp_path / "scores.npz").exists() and not (tmp_path / "scores.parquet").exists()


# ------------------------------------------------------------ measures of one's own

def test_a_plugin_declares_its_range_and_is_held_to_it(registry, tmp_path, trec8_matrix):
    def share(matrix, cutoff, *, scale=1.0):
        """Relevant share of the top k, scaled."""
        return scale * matrix.cell_counts(matrix.hits.top(cutoff)) / float(cutoff or 1)

    register_measure("Share", share, value_range=(0, 1))
    register_imported_measure("Stars", value_range=(1, 5))
    register_measure("Open", share, value_range=(0, None))
    assert measure_range("Share@10") == Range(0, 1) and measure_range("Stars") == Range(1, 5)
    assert measure_range("Open@10") == Range(0, math.inf)
    m = trec8_matrix.subset(range(3))
    assert evaluate(m, ["Share@10"])[parse_measure("Share@10")].max() <= 1
    with pytest.raises(ValueError, match=r"measure Share\(scale=3\)@10 \(plugin test_ranges\.py\): returned 3\.0 "
                                         r"for run \S+ topic \d+, outside its declared value_range \(0, 1\)"):
        evaluate(m, ["Share(scale=3)@10"])
    path = trec_eval_file(tmp_path / "stars.txt", [("Stars", "1", "4"), ("Stars", "2", "0.5")])
    with pytest.raises(ValueError, match=rf"^{path}:2: Stars: the score of run r1 on topic 2 is 0\.5, outside "
                                         r"Stars's range \[1, 5\]"):
        read_score_file(path)
    register_measure("Free", share)  # declaring is optional: nothing is checked
    assert measure_range("Free@10") is None
    assert read_score_file(trec_eval_file(tmp_path / "free.txt", [("Free@10", "1", "7")]))["value"].tolist() == [7]


@pytest.mark.parametrize("value_range,fault", [
    ((1, 0), r"value_range \(1, 0\) has its low end above its high end"),
    ((0, math.inf), r"value_range is \(low, high\), finite numbers or None"),
    ((0,), r"value_range is \(low, high\)"),
    ("0-1", r"value_range is \(low, high\)"),
    ((0, True), r"value_range is \(low, high\)"),
])
def test_a_bad_declared_range_is_refused(registry, value_range, fault):
    with pytest.raises(ValueError, match=rf"^measure Bad: {fault}"):
        register_measure("Bad", lambda matrix, cutoff: None, value_range=value_range)
    assert "Bad" not in MEASURES
