"""The degradation experiment's library (irmeta.metaeval.reproducibility_degradation) on
three TREC-8 runs cut at depth 50: level 0 reproduces exactly, trials are shard-free,
and the summary tables are their definitions computed by brute force."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irmeta.api import score
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.rankings import scored_rankings_of
from irmeta.campaign.runs import read_runs
from irmeta.metaeval.reproducibility_degradation import (
    DEGRADATION_COLUMNS,
    TRIAL_COLUMNS,
    TRUST_COLUMNS,
    degradation_table,
    degradation_trials,
    trust_table,
)
from irmeta.metaeval.reproducibility_table import OrderSettings

DATA = Path("/work/shared/data/trec8_adhoc")
FILES = [DATA / "runs" / f"{n}.gz" for n in ("CL99SD", "CL99XT", "Dm8Nbn")]
ORDER = OrderSettings(ktu_cutoff=50, rbo_p=0.9, rbo_depth=50)


@pytest.fixture(scope="module")
def campaign():
    qrels = read_qrels(DATA / "qrels.txt")
    original = score(qrels, FILES, ["AP", "P@10"], depth=50).scores
    runs = scored_rankings_of(read_runs(FILES, depth=50))
    return qrels, runs, original


def _trials(campaign, **given):
    qrels, runs, original = campaign
    settings = dict(seed=11, kinds=("swap", "replace", "noise"), levels=(0.0, 0.4), trials=range(2),
                    baseline="CL99SD", order=ORDER)
    settings.update(given)
    return degradation_trials(qrels, runs, original, ["AP", "P@10"], **settings)


def test_level_zero_reproduces_exactly_and_degradation_moves_away(campaign):
    t = _trials(campaign)
    assert list(t.columns) == list(TRIAL_COLUMNS)
    zero = t[t["level"] == 0.0].set_index("reproducibility_measure")["value"]
    for name, ideal in (("ktu", 1.0), ("rbo", 1.0), ("ktu_repro_eval", 1.0), ("rbo_repro_eval", 1.0),
                        ("rmse", 0.0), ("nrmse", 0.0), ("p_value", 1.0), ("er", 1.0), ("delta_ri", 0.0)):
        assert (zero.loc[name] == ideal).all(), name
    assert "er" not in set(t[(t["run"] == "CL99SD")]["reproducibility_measure"])  # the baseline has no ER
    worst = t[(t["level"] == 0.4) & (t["reproducibility_measure"] == "ktu")]["value"]
    assert (worst < 1.0).all()


def test_trials_are_independent_of_the_shard(campaign):
    both = _trials(campaign, kinds=("replace",), levels=(0.4,), trials=range(2))
    second = _trials(campaign, kinds=("replace",), levels=(0.4,), trials=range(1, 2))
    pd.testing.assert_frame_equal(both[both["trial"] == 1].reset_index(drop=True), second)
    assert not both[both["trial"] == 0]["value"].equals(both[both["trial"] == 1]["value"].reset_index(drop=True))


def test_the_summaries_are_their_definitions():
    rng = np.random.default_rng(0)
    rows = []
    for kind in ("swap", "noise"):
        for level in (0.0, 0.1, 0.4):
            for trial in range(4):
                for run in ("a", "b"):
                    p = 0.01 if (kind == "swap" and level >= 0.1 and trial < 2) else 0.5
                    rows += [(kind, level, trial, run, "AP", "", "p_value", p),
                             (kind, level, trial, run, "AP", "", "ktu", 1 - level + rng.normal(0, 0.01)),
                             (kind, level, trial, run, "AP", "", "er", math.nan if run == "a" else 1.0 + level)]
    trials = pd.DataFrame(rows, columns=list(TRIAL_COLUMNS))
    summary = degradation_table(trials)
    assert list(summary.columns) == list(DEGRADATION_COLUMNS)
    def noise_ktu(frame):
        return frame[(frame["kind"] == "noise") & (frame["level"] == 0.1) & (frame["reproducibility_measure"] == "ktu")]

    ktu, row = noise_ktu(trials), noise_ktu(summary)
    assert row["mean"].iat[0] == pytest.approx(sum(ktu["value"]) / len(ktu), abs=1e-15)
    assert row["sd"].iat[0] == pytest.approx(np.std(ktu["value"].to_numpy(), ddof=1), abs=1e-15)
    assert summary[summary["reproducibility_measure"] == "er"]["n"].eq(4).all()  # NaN left out
    trust = trust_table(trials)
    assert list(trust.columns) == list(TRUST_COLUMNS)
    swap = trust[trust["kind"] == "swap"].set_index("reproducibility_measure")
    assert (swap["t_test_level"] == 0.1).all()  # half the trials reject from 0.1 on
    assert trust[trust["kind"] == "noise"]["t_test_level"].isna().all()
    from scipy.stats import spearmanr

    part = trials[(trials["kind"] == "swap") & (trials["reproducibility_measure"] == "ktu")]
    assert swap.loc["ktu", "spearman"] == pytest.approx(spearmanr(part["level"], part["value"]).statistic, abs=1e-12)
    assert swap.loc["er", "spearman"] == pytest.approx(1.0)


@pytest.mark.parametrize("chunk", [1, 5_000])  # a run at a time; two runs (2,500 documents each), then one
def test_copies_made_a_range_of_runs_at_a_time_are_those_made_at_once(campaign, chunk):
    """Rareness scores read every run of a copy (S_d), the document-order means each
    run's cells: a copy made, judged and compared in ranges of runs gives the same rows,
    bit for bit, as one made whole; ``original`` None scores the runs' own cells."""
    qrels, runs, _ = campaign
    settings = dict(seed=11, kinds=("swap", "replace", "noise"), levels=(0.0, 0.3), trials=range(1),
                    baseline="CL99SD", order=ORDER, alphas=(0.5,))
    measures = ["AP", "P@10", "P_rareness@10"]
    whole = degradation_trials(qrels, runs, None, measures, **settings)
    chunked = degradation_trials(qrels, runs, None, measures, chunk_documents=chunk, **settings)
    pd.testing.assert_frame_equal(whole, chunked, check_exact=True)
    assert set(whole["measure"]) == set(measures)
