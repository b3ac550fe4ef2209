"""The error-rate engine (irmeta.metaeval.test_error_rates) on a test double of the
simulation models: normal margins and Gaussian copulas drawn with numpy. On such scores
the paired differences are normal, so the paired t-test is exact: its type I error must
be alpha within Monte Carlo error. A test of one's own enters every table unchanged,
its p-values from its function trial by trial; shards of chunks give the same bytes."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from irmeta.measures.registry import MEASURES
from irmeta.metaeval import test_error_rates as ter
from irmeta.metaeval.stats.own_tests import register_test
from irmeta.metaeval.stats.paired_tests import paired_t
from irmeta.metaeval.stats.registry import CORRECTIONS, TESTS


class GaussianSource:
    """Runs with normal margins N(mu_r, sigma_r) and a Gaussian copula of correlation rho
    between any two runs (exchangeable among k). A trial draws a run r uniformly; type I
    passes both through r's margin, power moves B's by +delta. Topics are drawn topic by
    topic, as the fitted models draw them: trials of fewer topics are the first topics of
    trials of more."""

    def __init__(self, runs: int = 8, rho: float = 0.5, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.mu, self.sigma, self.rho = rng.uniform(0.2, 0.5, runs), rng.uniform(0.1, 0.25, runs), rho

    def pair_trials(self, n_topics, n_trials, rng, delta):
        r = rng.integers(0, len(self.mu), n_trials)[:, None]
        e = rng.standard_normal((n_topics, n_trials, 2)).transpose(1, 0, 2)
        z, w = e[..., 0], self.rho * e[..., 0] + np.sqrt(1 - self.rho**2) * e[..., 1]
        a, b = self.mu[r] + self.sigma[r] * z, self.mu[r] + self.sigma[r] * w
        return a, b if delta is None else b + delta

    def group_trials(self, k, n_topics, n_trials, rng):
        r = rng.integers(0, len(self.mu), n_trials)[:, None, None]
        e = rng.standard_normal((n_topics, n_trials, k + 1)).transpose(1, 0, 2)
        z = np.sqrt(self.rho) * e[..., :1] + np.sqrt(1 - self.rho) * e[..., 1:]
        return self.mu[r] + self.sigma[r] * z


@pytest.fixture
def registry():
    """Tests a test registers are gone after it."""
    tests, measures, modules = dict(TESTS), dict(MEASURES), set(sys.modules)
    yield
    TESTS.clear()
    TESTS.update(tests)
    MEASURES.clear()
    MEASURES.update(measures)
    for name in set(sys.modules) - modules:
        if name.startswith("irmeta_plugin_"):
            del sys.modules[name]


def _rates(table: pd.DataFrame, **where) -> pd.DataFrame:
    mask = np.ones(len(table), dtype=bool)
    for key, value in where.items():
        mask &= (table[key] == value).to_numpy()
    return table.loc[mask]


def test_the_paired_t_tests_type_1_error_is_alpha_on_normal_scores():
    settings = ter.ErrorRateSettings(tests=("paired_t",), n_topics=(10, 40), trials=20_000, deltas=(),
                                     runs_at_once=(), chunk=5_000)
    table = ter.error_rates(GaussianSource(), "AP", settings, seed=1)
    type_1 = _rates(table, kind="type_1")
    assert len(type_1) == 2 * 2 * len(ter.DEFAULT_ALPHAS)
    assert (type_1["trials"] == 20_000).all()
    deviation = (type_1["rate"] - type_1["alpha"]).abs() / np.sqrt(type_1["alpha"] * (1 - type_1["alpha"]) / 20_000)
    assert deviation.max() < 3, type_1.assign(z=deviation).sort_values("z").tail()
    np.testing.assert_allclose(type_1["mc_se"], np.sqrt(type_1["rate"] * (1 - type_1["rate"]) / 20_000))


def test_power_grows_with_delta_and_type_3_stays_small():
    settings = ter.ErrorRateSettings(tests=("paired_t", "sign", "randomisation"), n_topics=(25,), trials=2_000,
                                     deltas=(0.01, 0.03, 0.06, 0.1), runs_at_once=(), permutations=400, chunk=1_000)
    table = ter.error_rates(GaussianSource(), "AP", settings, seed=2)
    for test in ("paired_t", "sign", "randomisation"):
        for tails in (1, 2):
            power = _rates(table, kind="power", test=test, tails=tails, alpha=0.05).sort_values("delta")["rate"]
            assert (np.diff(power.to_numpy()) > 0).all(), (test, tails, power.tolist())
            assert power.iloc[0] < 0.3 and power.iloc[-1] > 0.5
        type_3 = _rates(table, kind="type_3", test=test)
        assert (type_3["tails"] == 2).all() and len(type_3) == 4 * len(ter.DEFAULT_ALPHAS)
        # at most the type I error's wrong half, alpha / 2, within Monte Carlo error
        assert (type_3["rate"] <= type_3["alpha"] / 2 + 3 * np.sqrt(type_3["alpha"] / 2 / 2_000)).all()
        at_01 = _rates(type_3, delta=0.01, alpha=0.1)["rate"].iloc[0]
        assert 0 < at_01 < 0.05  # at the smallest effect some trials are significant the wrong way
    assert set(table["kind"]) == {"type_1", "power", "type_3"}


def test_a_sizes_rates_do_not_depend_on_the_other_sizes_asked():
    """Every size is counted on the first topics of one set of trials, drawn topic by
    topic: asking for 12 topics alone or beside 30 gives the same rates at 12."""
    tables = []
    for sizes in ((12,), (12, 30)):
        settings = ter.ErrorRateSettings(tests=("paired_t", "randomisation"), n_topics=sizes, trials=300,
                                         deltas=(0.05,), runs_at_once=(3,), permutations=99, chunk=150)
        table = ter.error_rates(GaussianSource(), "AP", settings, seed=13)
        tables.append(table[table["n_topics"] == 12].reset_index(drop=True))
    pd.testing.assert_frame_equal(tables[0], tables[1])
    assert 0 < tables[0]["rate"].max() < 1


def test_every_delta_moves_the_same_trials():
    """Common random numbers across deltas: B is the same draws moved by each delta (B +
    delta here), so a trial the t-test finds significant the right way stays so at a
    larger delta, and the power of two nearly equal deltas is ordered at every alpha
    (with independent trials, their Monte Carlo errors would swamp the difference)."""
    settings = ter.ErrorRateSettings(tests=("paired_t",), n_topics=(20,), trials=3_000, deltas=(0.02, 0.0202),
                                     runs_at_once=(), chunk=1_000)
    table = ter.error_rates(GaussianSource(), "AP", settings, seed=12)
    power = _rates(table, kind="power").pivot_table(index=["tails", "alpha"], columns="delta", values="rate")
    gain = np.diff(power.to_numpy(), axis=1)
    assert (gain >= 0).all() and gain.max() < 0.01


def test_a_test_that_never_rejects_has_no_error_and_no_power_and_enters_every_table(registry):
    def never(scores):
        """Never significant."""
        pairs = len(scores) * (len(scores) - 1) // 2
        return np.zeros(pairs), np.ones(pairs)

    register_test("never", never, claims=None)
    settings = ter.ErrorRateSettings(n_topics=(12,), trials=300, deltas=(0.05, 0.2), runs_at_once=(4,),
                                     permutations=99, chunk=150)
    table = ter.error_rates(GaussianSource(), "P@10", settings, seed=3)
    assert list(table["test"].drop_duplicates()) == ["paired_t", "wilcoxon", "sign", "randomisation",
                                                     "paired_bootstrap", "never"]
    own = _rates(table, test="never")
    assert set(own["kind"]) == set(ter.KINDS)
    assert (own["tails"] == 2).all() and (own["rate"] == 0).all() and (own["mc_se"] == 0).all()
    assert set(_rates(own, kind="familywise_type_1")["correction"]) == set(CORRECTIONS)
    # the shipped tests, on the same trials, do reject
    assert _rates(table, test="paired_t", kind="power", delta=0.2, tails=2, alpha=0.05)["rate"].iloc[0] > 0.5


def test_a_test_without_a_batched_form_gives_the_batched_forms_rates_on_the_same_trials(registry):
    """Common random numbers: a copy of the paired t-test, called trial by trial on each
    2-run (or k-run) matrix, errs on exactly the trials the batched t-test errs on."""
    def copy_of_t(scores):
        """The paired t-test, vectorised over pairs."""
        result = paired_t(scores)
        return result.statistic, result.p_value

    register_test("copy_of_t", copy_of_t)
    settings = ter.ErrorRateSettings(tests=("paired_t", "copy_of_t"), n_topics=(15,), trials=400, deltas=(0.04,),
                                     runs_at_once=(3,), chunk=200)
    table = ter.error_rates(GaussianSource(), "AP", settings, seed=4)
    ours = _rates(table, test="paired_t", tails=2).drop(columns="test").reset_index(drop=True)
    theirs = _rates(table, test="copy_of_t").drop(columns="test").reset_index(drop=True)
    pd.testing.assert_frame_equal(ours, theirs)
    assert set(_rates(table, test="paired_t")["tails"]) == {1, 2}
    assert ours["rate"].max() > 0.1


def test_familywise_error_of_each_correction_on_k_runs_at_equal_means():
    """Holm's and Bonferroni's smallest adjusted p are one product: equal counts; both
    and BH keep the familywise error near alpha under the complete null; uncorrected,
    k = 6 runs (15 pairs) would err far more often."""
    settings = ter.ErrorRateSettings(tests=("paired_t",), n_topics=(20,), trials=4_000, deltas=(),
                                     runs_at_once=(6,), chunk=1_000)
    table = ter.error_rates(GaussianSource(), "AP", settings, seed=5)
    family = _rates(table, kind="familywise_type_1")
    assert (family["runs"] == 6).all() and (family["tails"] == 2).all() and family["delta"].isna().all()
    holm = _rates(family, correction="holm")["rate"].to_numpy()
    np.testing.assert_array_equal(holm, _rates(family, correction="bonferroni")["rate"].to_numpy())
    for correction in CORRECTIONS:
        rows = _rates(family, correction=correction)
        assert ((rows["rate"] - rows["alpha"]) < 3 * np.sqrt(rows["alpha"] * (1 - rows["alpha"]) / 4_000)).all()
    at_05 = _rates(family, correction="bh", alpha=0.05)["rate"].iloc[0]
    single = _rates(table, kind="type_1", tails=2, alpha=0.05)["rate"].iloc[0]
    assert at_05 > 0.02 and single > 0.03


@pytest.mark.parametrize("name", ["randomisation", "paired_bootstrap"])
def test_families_stop_drawing_once_their_decisions_are_known(name):
    """A randomised test stops drawing for a family once its p-values' bounds decide, at
    every alpha, whether each correction's smallest adjusted p is below it: other
    p-values, the same decisions as from all the draws."""
    from irmeta.metaeval.stats.registry import significance_test

    runs = np.ascontiguousarray(GaussianSource().group_trials(5, 12, 200, np.random.default_rng(3)).transpose(0, 2, 1))
    alphas = np.array(ter.DEFAULT_ALPHAS)
    test = significance_test(name)
    full = ter.family_pvalues(test, runs, 2000, 21)
    stopped = ter.family_pvalues(test, runs, 2000, 21, alphas)
    assert (stopped <= full).all() and (stopped < full).mean() > 0.5
    for correction in CORRECTIONS.values():
        expected = correction.family_smallest(full)[:, None] <= alphas
        assert (correction.family_smallest(stopped)[:, None] <= alphas).tolist() == expected.tolist()
        assert 0 < expected[:, -1].mean() < 0.5


def test_any_split_into_shards_gives_the_same_bytes():
    settings = ter.ErrorRateSettings(tests=("paired_t", "wilcoxon", "randomisation", "paired_bootstrap"),
                                     n_topics=(8, 16), trials=250, deltas=(0.05,), runs_at_once=(3,),
                                     permutations=60, chunk=100)
    source = GaussianSource()
    plan = ter.chunk_plan(settings)
    assert len(plan) == 3 * 3 and [c.trials for c in plan[:3]] == [100, 100, 50]  # (type I, power, k = 3) x chunks
    texts = []
    for shards in (1, 2, 3):
        counts = [ter.error_rate_counts(source, "nDCG@20", settings, 6, ter.shard_chunks(settings, s, shards))
                  for s in range(shards)]
        assert sum(len(ter.shard_chunks(settings, s, shards)) for s in range(shards)) == len(plan)
        # each shard its share of every job: the dear familywise chunks are not all one shard's
        assert all({plan[i].job for i in ter.shard_chunks(settings, s, shards)} == {c.job for c in plan}
                   for s in range(shards))
        texts.append(ter.error_rate_table(counts[::-1], settings.trials).to_csv(index=False))
    assert texts[0] == texts[1] == texts[2]
    table = pd.read_csv(pd.io.common.StringIO(texts[0]))
    assert list(table.columns) == list(ter.COLUMNS)
    assert 0 < table["rate"].max() < 1
    with pytest.raises(ValueError, match="a shard is missing or repeated"):
        ter.error_rate_table([ter.error_rate_counts(source, "nDCG@20", settings, 6, range(0, 5))], settings.trials)


def test_the_table_reads_as_the_issue_states_it():
    settings = ter.ErrorRateSettings(tests=("sign",), n_topics=(10,), trials=50, alphas=(0.1, 0.01),
                                     deltas=(0.1,), runs_at_once=(3,), chunk=50)
    table = ter.error_rates(GaussianSource(), "AP", settings, seed=7)
    assert tuple(table.columns) == ter.COLUMNS
    assert list(table["kind"].drop_duplicates()) == list(ter.KINDS)
    pairs = table[table["kind"] != "familywise_type_1"]
    assert (pairs["correction"] == "none").all() and (pairs["runs"] == 2).all()
    assert _rates(table, kind="type_1")["delta"].isna().all()
    assert (_rates(table, kind="power")["delta"] == 0.1).all()
    assert list(_rates(table, kind="type_1", tails=1)["alpha"]) == [0.01, 0.1]
    assert table.dtypes["n_topics"] == np.int64 and table.dtypes["trials"] == np.int64
    # the same inputs and seed: the same bytes; another seed: other trials
    again = ter.error_rates(GaussianSource(), "AP", settings, seed=7)
    assert again.to_csv(index=False) == table.to_csv(index=False)
    other = ter.error_rates(GaussianSource(), "AP", ter.ErrorRateSettings(
        tests=("sign",), n_topics=(10,), trials=400, alphas=(0.1,), deltas=(0.1,), runs_at_once=(), chunk=400), seed=8)
    assert other["rate"].iloc[0] != _rates(table, kind="type_1", tails=1, alpha=0.1)["rate"].iloc[0]


def test_chunks_draw_from_their_own_streams():
    """A chunk's trials depend on the seed, the measure, the size, the job and its index,
    not on which shard runs it; a power chunk serves every delta (one stream, whatever the
    deltas), and a familywise chunk's groups of runs do not depend on the size."""
    settings = ter.ErrorRateSettings(n_topics=(10, 20), trials=4, deltas=(0.01, 0.02), runs_at_once=(3, 4), chunk=2)
    firsts = {}
    for chunk in ter.chunk_plan(settings):
        rng, draws = ter.chunk_streams(11, "AP", chunk)
        firsts[(chunk.job, chunk.index)] = (rng.integers(0, 2**62), draws)
    assert len(set(firsts.values())) == len(firsts) == 4 * 2  # (type I, power, k = 3, 4) x chunks, every size
    assert {c.job.topic_sizes for c in ter.chunk_plan(settings)} == {(10, 20)}
    other = ter.chunk_plan(ter.ErrorRateSettings(n_topics=(30,), trials=4, deltas=(0.05,), runs_at_once=(3,),
                                                 chunk=2))
    assert {(c.job.kind, c.index): ter.chunk_streams(11, "AP", c)[1] for c in other} == {
        (c.job.kind, c.index): ter.chunk_streams(11, "AP", c)[1] for c in ter.chunk_plan(settings)
        if c.job.runs in (2, 3)}  # the streams depend on neither the sizes nor the deltas
    groups = {(c.job.runs, c.index): ter.group_stream(11, "AP", c).integers(0, 2**62)
              for c in ter.chunk_plan(settings) if c.job.kind == "familywise_type_1"}
    assert len(set(groups.values())) == 4
    chunk = ter.chunk_plan(settings)[0]
    assert ter.chunk_streams(11, "AP", chunk)[1] == ter.chunk_streams(11, "AP", chunk)[1]
    assert ter.chunk_streams(11, "P@10", chunk)[1] != ter.chunk_streams(11, "AP", chunk)[1]
    assert ter.chunk_streams(12, "AP", chunk)[1] != ter.chunk_streams(11, "AP", chunk)[1]


@pytest.mark.parametrize("settings, message", [
    (dict(alphas=(0.05, 1.0)), "alphas: 1.0 is outside"),
    (dict(alphas=(0.0,)), "alphas: 0.0 is outside"),
    (dict(deltas=(-0.01,)), "deltas: -0.01 is outside"),
    (dict(n_topics=(1,)), "n_topics: 1 is not an integer >= 2"),
    (dict(trials=0), "trials: 0 is not an integer >= 1"),
    (dict(permutations=2.5), "permutations: 2.5 is not an integer"),
    (dict(runs_at_once=(1,)), "runs_at_once: 1 is not an integer >= 2"),
    (dict(tests=("student",)), "unknown test 'student'"),
    (dict(tests=("tukey_hsd",)), "tukey_hsd is not a paired test"),
])
def test_bad_settings_are_one_line_naming_the_setting(settings, message):
    with pytest.raises(ValueError, match=message):
        ter.ErrorRateSettings(**settings)


def test_a_source_giving_bad_scores_is_named():
    class Broken(GaussianSource):
        def pair_trials(self, n_topics, n_trials, rng, delta):
            a, b = super().pair_trials(n_topics, n_trials, rng, delta)
            b[0, 0] = np.nan
            return a, b

    settings = ter.ErrorRateSettings(tests=("paired_t",), n_topics=(5,), trials=10, deltas=(), runs_at_once=())
    with pytest.raises(ValueError, match="AP: the simulation gave scores"):
        ter.error_rates(Broken(), "AP", settings, seed=0)


def test_seed_offset_is_the_modules_own():
    import re
    from pathlib import Path

    import irmeta.metaeval

    others = {}
    for path in Path(irmeta.metaeval.__file__).parent.rglob("*.py"):
        found = re.search(r"^SEED_OFFSET\s*=\s*(\d+)", path.read_text(), re.M)
        if found and path.stem != "test_error_rates":
            others[path.stem] = int(found.group(1))
    assert ter.SEED_OFFSET not in others.values(), others
