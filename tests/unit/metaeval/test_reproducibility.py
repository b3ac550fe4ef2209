"""The reproducibility measures against their reference implementation, ``repro_eval``
0.5.0 (Breuer et al.'s own code, a test dependency), run on TREC-8 run files: run pairs
(one run as the original, another as its reproduction), a run against a degraded copy of
itself, and the identity case; then the refusals."""

from __future__ import annotations

import gzip
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from repro_eval.Evaluator import RpdEvaluator, RplEvaluator  # a test dependency: pyproject's test extra

from irmeta.api import score
from irmeta.campaign.rankings import rankings_of
from irmeta.campaign.runs import read_runs
from irmeta.metaeval import reproducibility as rm
from irmeta.metaeval.reproducibility_table import (
    OrderSettings,
    ReproducibilityWarning,
    Reproduction,
    reproducibility_table,
)

DATA = Path("/work/shared/data/trec8_adhoc")
MEASURES = ("AP", "P@10", "nDCG@10")  # irmeta's names are ir_measures' for these three
TOL = 1e-12


def _plain(name: str, folder: Path, keep=None) -> Path:
    """A TREC-8 run decompressed (repro_eval reads plain files), topics filtered by ``keep``."""
    out = folder / name
    with gzip.open(DATA / "runs" / f"{name}.gz", "rt") as f:
        lines = [line for line in f if keep is None or keep(line.split()[0])]
    out.write_text("".join(lines))
    return out


def _degraded(source: Path, out: Path, seed: int) -> Path:
    """``source`` with some adjacent documents swapped per topic, scores rewritten
    descending so that file order and score order agree (repro_eval ranks by file order)."""
    rng = np.random.default_rng(seed)
    by_topic: dict[str, list[str]] = {}
    for line in source.read_text().splitlines():
        qid, _, doc, *_ = line.split()
        by_topic.setdefault(qid, []).append(doc)
    rows = []
    for qid, docs in by_topic.items():
        for i in range(0, len(docs) - 1, 2):
            if rng.random() < 0.3:
                docs[i], docs[i + 1] = docs[i + 1], docs[i]
        rows += [f"{qid} Q0 {d} {r} {len(docs) - r} degraded\n" for r, d in enumerate(docs)]
    out.write_text("".join(rows))
    return out


def _rpd(qrels: Path, b: Path, a: Path, rb: Path, ra: Path) -> RpdEvaluator:
    ev = RpdEvaluator(qrels_orig_path=str(qrels), run_b_orig_path=str(b), run_a_orig_path=str(a),
                      run_b_rep_path=str(rb), run_a_rep_path=str(ra))
    ev.trim()
    ev.evaluate()
    return ev


def _ours(qrels: Path, b: Path, a: Path, rb: Path, ra: Path, order: OrderSettings | None = None):
    paths = list(dict.fromkeys([b, a, rb, ra]))
    scores = score(qrels, paths, MEASURES).scores
    ranks = rankings_of(read_runs(paths))
    base = Reproduction(b.name, rb.name, ranks[b.name], ranks[rb.name])
    adv = Reproduction(a.name, ra.name, ranks[a.name], ranks[ra.name])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no value is undefined on these pairs
        return reproducibility_table(scores, scores, base, adv, order=order or OrderSettings())


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trec8")
    runs = {n: _plain(n, folder) for n in ("CL99SD", "CL99SDopt1", "CL99XT", "CL99XTopt")}
    runs["CL99SD_degraded"] = _degraded(runs["CL99SD"], folder / "CL99SD_degraded", 1)
    runs["CL99XT_degraded"] = _degraded(runs["CL99XT"], folder / "CL99XT_degraded", 2)
    return runs


CASES = {"other runs": ("CL99SDopt1", "CL99XTopt"), "degraded copies": ("CL99SD_degraded", "CL99XT_degraded")}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_same_collection_equals_repro_eval(files, case):
    rb, ra = (files[n] for n in CASES[case])
    qrels = DATA / "qrels.txt"
    ev = _rpd(qrels, files["CL99SD"], files["CL99XT"], rb, ra)
    ours = _ours(qrels, files["CL99SD"], files["CL99XT"], rb, ra)
    ktu, rbo = ev.ktu(), ev.rbo()
    er, dri, rmse, nrmse, p = ev.er(), ev.dri(), ev.rmse(), ev.nrmse(), ev.ttest()
    for row in ours.itertuples():
        m = row.measure
        assert row.er == pytest.approx(er[m], abs=TOL, rel=TOL)
        assert row.delta_ri == pytest.approx(dri[m], abs=TOL, rel=TOL)
        for role in ("baseline", "advanced"):
            assert getattr(row, f"rmse_{role}") == pytest.approx(rmse[role][m], abs=TOL)
            assert getattr(row, f"nrmse_{role}") == pytest.approx(nrmse[role][m], abs=TOL)
            assert getattr(row, f"p_value_{role}") == pytest.approx(_p_of(p[role][m], row, role), abs=TOL)
            assert getattr(row, f"ktu_repro_eval_{role}") == pytest.approx(ktu[role], abs=TOL)
            assert getattr(row, f"rbo_repro_eval_{role}") == pytest.approx(rbo[role], abs=TOL)


def _p_of(theirs: float, row, role: str) -> float:
    """repro_eval's p, or 1 where it says NaN: its t is 0/0 (scores identical on every
    topic, RMSE 0) but another measure differs, so its all-identical rule does not apply;
    irmeta gives such a t-test p = 1 always (documented in PROTOCOL.md)."""
    if math.isnan(theirs):
        assert getattr(row, f"rmse_{role}") == 0.0
        return 1.0
    return theirs


@pytest.mark.slow
def test_rbo_at_other_settings_and_short_depth_equals_repro_eval(files):
    qrels = DATA / "qrels.txt"
    ev = _rpd(qrels, files["CL99SD"], files["CL99XT"], files["CL99SDopt1"], files["CL99XTopt"])
    ours = _ours(qrels, files["CL99SD"], files["CL99XT"], files["CL99SDopt1"], files["CL99XTopt"],
                 OrderSettings(rbo_p=0.8, rbo_depth=20))
    theirs = ev.rbo(p=0.8, depth=20)
    assert ours["rbo_repro_eval_baseline"].iat[0] == pytest.approx(theirs["baseline"], abs=TOL)
    assert ours["rbo_repro_eval_advanced"].iat[0] == pytest.approx(theirs["advanced"], abs=TOL)


def test_per_topic_document_order_equals_repro_eval(files):
    from repro_eval.measure.document_order import KTU, RBO
    from repro_eval.util import load_run

    o, r = load_run(str(files["CL99SD"])), load_run(str(files["CL99SDopt1"]))
    ktu, rbo = KTU(o, r, trim_thresh=50, per_topic=True), RBO(o, r, p=0.9, depth=30, pbar=False, per_topic=True)
    ranks = rankings_of(read_runs([files["CL99SD"], files["CL99SDopt1"]]))
    for topic in ktu:
        ours_o, ours_r = ranks["CL99SD"][topic], ranks["CL99SDopt1"][topic]
        assert rm.ktu_repro_eval(ours_o, ours_r, 50) == pytest.approx(ktu[topic], abs=TOL)
        assert rm.rbo_repro_eval(ours_o, ours_r, 0.9, 30) == pytest.approx(rbo[topic], abs=TOL)


@pytest.mark.slow
def test_other_collection_equals_repro_eval(files, tmp_path):
    """Original on TREC-8's topics 401-425, the replication on 426-450 (another
    collection, fewer topics): ER, Delta RI and the unpaired t-test as RplEvaluator."""
    low, high = (lambda q: int(q) <= 425), (lambda q: int(q) > 430)
    qrels = (DATA / "qrels.txt").read_text().splitlines(keepends=True)
    q_orig, q_rep = tmp_path / "q_orig", tmp_path / "q_rep"
    q_orig.write_text("".join(x for x in qrels if low(x.split()[0])))
    q_rep.write_text("".join(x for x in qrels if high(x.split()[0])))
    (tmp_path / "o").mkdir()
    (tmp_path / "r").mkdir()
    b, a = (_plain(n, tmp_path / "o", low) for n in ("CL99SD", "CL99XT"))
    rb, ra = (_plain(n, tmp_path / "r", high) for n in ("CL99SDopt1", "CL99XTopt"))
    ev = RplEvaluator(qrels_orig_path=str(q_orig), qrels_rpl_path=str(q_rep), run_b_orig_path=str(b),
                      run_a_orig_path=str(a), run_b_rep_path=str(rb), run_a_rep_path=str(ra))
    ev.trim()
    ev.evaluate()
    er, dri, p = ev.er(), ev.dri(), ev.ttest()
    orig = score(q_orig, [b, a], MEASURES).scores
    rep = score(q_rep, [rb, ra], MEASURES).scores
    ours = reproducibility_table(orig, rep, Reproduction(b.name, rb.name), Reproduction(a.name, ra.name),
                                 setting="other_collection")
    for row in ours.itertuples():
        m = row.measure
        assert row.setting == "other_collection"
        assert row.er == pytest.approx(er[m], abs=TOL, rel=TOL)
        assert row.delta_ri == pytest.approx(dri[m], abs=TOL, rel=TOL)
        assert row.p_value_baseline == pytest.approx(p["baseline"][m], abs=TOL)
        assert row.p_value_advanced == pytest.approx(p["advanced"][m], abs=TOL)
        for column in ("ktu_baseline", "rbo_advanced", "rmse_baseline", "nrmse_advanced", "ktu_repro_eval_baseline"):
            assert math.isnan(getattr(row, column))


@pytest.mark.slow
def test_a_run_reproduced_by_itself(files):
    qrels = DATA / "qrels.txt"
    b, a = files["CL99SD"], files["CL99XT"]
    ours = _ours(qrels, b, a, b, a)
    for column in ("ktu", "rbo", "ktu_repro_eval", "rbo_repro_eval"):
        assert (ours[[f"{column}_baseline", f"{column}_advanced"]].to_numpy() == 1.0).all(), column
    assert (ours[["rmse_baseline", "rmse_advanced", "nrmse_baseline", "nrmse_advanced", "delta_ri"]] == 0).all().all()
    assert (ours["er"] == 1.0).all()
    assert (ours[["p_value_baseline", "p_value_advanced"]] == 1.0).all().all()
    ev = _rpd(qrels, b, a, b, a)
    assert ev.ttest()["baseline"]["AP"] == 1.0  # repro_eval's value for identical scores too


def test_unpaired_t_equals_scipy_and_degenerate_cases():
    from scipy.stats import ttest_ind

    rng = np.random.default_rng(3)
    x, y = rng.random(17), rng.random(11)
    assert rm.unpaired_t_p(x, y) == pytest.approx(ttest_ind(x, y).pvalue, abs=TOL)
    assert rm.unpaired_t_p(np.full(4, 0.5), np.full(3, 0.5)) == 1.0
    assert rm.unpaired_t_p(np.full(4, 0.5), np.full(3, 0.25)) == 0.0


def test_ktu_paper_form_by_brute_force():
    """tau-b over the union, missing documents tied after the last: count pairs by hand."""
    o, r = ["a", "b", "c", "d"], ["b", "a", "e", "c"]
    union = ["a", "b", "c", "d", "e"]
    x = {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4}
    y = {"b": 0, "a": 1, "e": 2, "c": 3, "d": 4}
    conc = disc = tx = ty = 0
    for i in range(5):
        for j in range(i + 1, 5):
            dx, dy = x[union[i]] - x[union[j]], y[union[i]] - y[union[j]]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tx += 1
            elif dy == 0:
                ty += 1
            elif dx * dy > 0:
                conc += 1
            else:
                disc += 1
    expected = (conc - disc) / math.sqrt((conc + disc + tx) * (conc + disc + ty))
    assert rm.ktu(o, r) == pytest.approx(expected, abs=TOL)
    assert rm.ktu(o, o) == 1.0


def _toy_scores(per_topic: np.ndarray, runs, measures=("AP",)):
    from irmeta.measures.averaging import Scores

    return Scores(list(runs), [f"t{i}" for i in range(per_topic.shape[-1])], list(measures), [None] * len(measures),
                  per_topic, {"all_topics": per_topic.mean(axis=-1)})


def test_refusals_and_undefined_values():
    s = _toy_scores(np.array([[[0.2, 0.4, 0.6], [0.3, 0.5, 0.1]]]), ["b", "b2"])
    apart = Reproduction("b", "b2", {"t0": ["d1"]}, {"t1": ["d1"]})
    with pytest.raises(ValueError, match="reproduced run b2 shares no topic with the original run b"):
        reproducibility_table(s, s, apart, apart)
    with pytest.raises(ValueError, match="original baseline run 'x' is not among the scored runs"):
        reproducibility_table(s, s, Reproduction("x", "b2"), Reproduction("b", "b2"), setting="other_collection")
    with pytest.warns(ReproducibilityWarning, match="ER of AP for baseline b and advanced b is undefined"):
        same = reproducibility_table(s, s, Reproduction("b", "b2"), Reproduction("b", "b2"),
                                     setting="other_collection")
    assert math.isnan(same["er"].iat[0])
    asl = _toy_scores(np.array([[[2.0, 4.0, 6.0], [3.0, 5.0, 1.0], [1.0, 2.0, 3.0]]]), ["b", "b2", "a"], ("ASL",))
    pair = Reproduction("b", "b2", {"t0": ["d1", "d2"]}, {"t0": ["d2", "d1"]})
    outside = r"nRMSE of ASL is undefined \(an original score is outside \[0, 1\]\)"
    with pytest.warns(ReproducibilityWarning, match=outside):
        table = reproducibility_table(asl, asl, pair, Reproduction("a", "a", {"t0": ["d1"]}, {"t0": ["d1"]}))
    assert math.isnan(table["nrmse_baseline"].iat[0]) and table["rmse_baseline"].iat[0] > 0
    with pytest.raises(ValueError, match="setting must be one of"):
        reproducibility_table(s, s, pair, pair, setting="elsewhere")


@pytest.mark.parametrize("seed", range(6))
def test_kendall_tau_b_equals_scipy_with_ties(seed):
    from scipy.stats import kendalltau

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    x, y = rng.integers(0, 1 + n // (1 + seed), n), rng.integers(0, n, n)
    expected = kendalltau(x, y).statistic
    ours = rm.kendall_tau_b(x, y)
    assert (math.isnan(ours) and math.isnan(expected)) or ours == pytest.approx(expected, abs=TOL)
    assert math.isnan(rm.kendall_tau_b(np.zeros(5, dtype=np.int64), y[:5]))
