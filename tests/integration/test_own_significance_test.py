"""A paired test of one's own, end to end: a plugin module named in ``test_plugins`` (a
copy of the paired t-test under a new name) runs in the pipeline with no change to
irmeta's files, and its numbers equal the paired t-test's in ``discriminative_power.csv``,
``pairwise_tests.parquet`` and the claims."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from test_workflow import _copy_workflow, _ok, _snakemake

PLUGIN = '''"""A copy of the paired t-test under another name."""
import irmeta
from irmeta.metaeval.stats.paired_tests import paired_t


def student_copy(scores):
    """The paired t-test, again."""
    result = paired_t(scores)
    return result.statistic, result.p_value


irmeta.register_test("student_copy", student_copy, title="paired t-test (copy)")
'''

CONFIG = {
    "test_plugins": ["plugins/student_copy.py"],
    "alphas": [0, 1],
    "experiments": {
        "discriminative_power": {"methods": ["tukey_hsd", "paired_t", "student_copy"],
                                 "corrections": ["none", "holm"], "permutations": 50},
        "stability": {"trials": 50},
        "system_subsampling": {"trials": 5, "largest": 6},
        "swap": {"trials": 20},
        "asl": {"enabled": False},
        "reusability": {"enabled": False},
        "judgment_agreement": {"pool_depths": [], "judgment_fractions": []},
    },
}


@pytest.fixture(scope="module")
def own(tmp_path_factory, shared_data):
    work = _copy_workflow(tmp_path_factory.mktemp("own_test"))
    (work / "plugins").mkdir()
    (work / "plugins" / "student_copy.py").write_text(PLUGIN)
    (work / "own.yaml").write_text(yaml.safe_dump(CONFIG, sort_keys=False))
    targets = ["results/demo/tables/discriminative_power.csv", "results/demo/tables/pairwise_tests.parquet",
               "results/claims.csv", "results/demo/figures/p_value_curves.png"]
    _ok(_snakemake(work, *targets, "--cores", "2", "--configfile", "own.yaml", "--config",
                   f"data_root={shared_data}", timeout=600))
    return work / "results"


def test_its_pairs_equal_the_paired_t_tests(own):
    table = pd.read_parquet(own / "demo" / "tables" / "pairwise_tests.parquet")
    assert set(table["method"]) == {"paired_t", "student_copy"}
    mine, theirs = (table[table["method"] == m].drop(columns="method").reset_index(drop=True)
                    for m in ("student_copy", "paired_t"))
    pd.testing.assert_frame_equal(mine, theirs)


def test_its_discriminative_power_equals_the_paired_t_tests(own):
    power = pd.read_csv(own / "demo" / "tables" / "discriminative_power.csv")
    assert set(power["method"]) == {"tukey_hsd", "paired_t", "paired_t+holm", "student_copy", "student_copy+holm"}
    for suffix in ("", "+holm"):
        a = power[power["method"] == f"student_copy{suffix}"].drop(columns="method").reset_index(drop=True)
        b = power[power["method"] == f"paired_t{suffix}"].drop(columns="method").reset_index(drop=True)
        pd.testing.assert_frame_equal(a, b)


def test_the_claims_judge_by_it(own):
    claims = pd.read_csv(own / "claims.csv")
    power = claims[claims["claim"] == "discriminative_power"]
    mine, theirs = (power[power["protocol"] == p].drop(columns="protocol").reset_index(drop=True)
                    for p in ("student_copy+holm", "paired_t+holm"))
    assert len(mine) >= 2  # the comparisons of config/config.yaml
    pd.testing.assert_frame_equal(mine, theirs)


# docs: own-test.md: my_tests.py
# docs: own-test.md: irmeta compare --qrels qrels.txt --runs runs/ --plugin my_tests.py --test student
# docs: own-test.md: make run ARGS="--configfile config/my_tests.yaml"
def test_the_pages_example_runs_as_written(tmp_path, shared_data):
    """docs/own-test.md: the plugin file and irmeta compare with it, and the page's config
    through the discriminative-power table of the demo (what `make run` with it makes)."""
    import io
    import subprocess
    import sys
    from pathlib import Path

    from test_workflow import _copy_workflow, _ok, _snakemake

    from docs_pages import page_block

    (tmp_path / "my_tests.py").write_text(page_block("own-test.md", "# my_tests.py"))
    config = yaml.safe_load(page_block("own-test.md", "# config/my_tests.yaml"))
    assert config["test_plugins"] == ["my_tests.py"] and "student" in config["experiments"][
        "discriminative_power"]["methods"]
    irmeta = Path(sys.executable).parent / "irmeta"
    runs = sorted((shared_data / "trec8_adhoc" / "runs").iterdir())[:5]
    common = [str(irmeta), "compare", "--qrels", str(shared_data / "trec8_adhoc" / "qrels.txt"), "--runs",
              *map(str, runs), "--plugin", "my_tests.py", "--format", "tsv", "--measure", "AP"]
    tables = []
    for test in ("student", "paired_t"):
        proc = subprocess.run([*common, "--test", test], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        tables.append(pd.read_csv(io.StringIO(proc.stdout), sep="\t"))
    student, paired = tables
    assert len(student) == 20
    assert (abs(student["p_value"] - paired["p_value"]) <= 1e-12 * paired["p_value"].abs().clip(lower=1e-300)).all()

    # The page's config, as `make run ARGS="--configfile config/my_tests.yaml"` runs it, up
    # to the table that reads the test: the student rows are there.
    work = _copy_workflow(tmp_path / "work")
    (work / "my_tests.py").write_text(page_block("own-test.md", "# my_tests.py"))
    (work / "config" / "my_tests.yaml").write_text(page_block("own-test.md", "# config/my_tests.yaml"))
    _ok(_snakemake(work, "results/demo/tables/discriminative_power.csv", "--cores", "2",
                   "--configfile", "config/my_tests.yaml", "--config", f"data_root={shared_data}", timeout=600))
    power = pd.read_csv(work / "results" / "demo" / "tables" / "discriminative_power.csv")
    assert "student" in set(power["method"])
