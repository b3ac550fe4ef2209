"""What the workflow's scripts call besides the experiments: typed table reads, shards,
the defaults that depend on the collection, the paper's inputs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from types import SimpleNamespace

import pandas as pd
import pytest

from irmeta.metaeval.stats.swap_trials import draw_topic_pairs
from irmeta.pipeline.experiments import rarity_listing_table, stability_topics_per_trial, swap_topic_set_size
from irmeta.pipeline.paper_inputs import COLLECTION_TABLES, paper_inputs, read_paper_frames, read_swap_tables
from irmeta.pipeline.scripts import Shard, shard_trials
from irmeta.pipeline.stored_scores import merged_shards, read_shards, read_table, write_csv, write_frame


def test_tables_keep_labels_as_text(tmp_path):
    frame = pd.DataFrame({"measure": ["P@100", "P_rareness@100", "P_rareness@100"], "alpha": ["", "1", "1/R"],
                          "qid": ["051", "051", "7"], "topic": ["051", "051", "7"], "value": [0.5, 0.25, 1.0]})
    write_csv(frame, tmp_path / "tables" / "stability.csv")
    back = read_table(tmp_path / "tables" / "stability.csv")
    assert list(back["qid"]) == ["051", "051", "7"] and list(back["topic"]) == ["051", "051", "7"]
    assert back["alpha"].fillna("").tolist() == ["", "1", "1/R"]
    # Figure 1's alpha is a grid of numbers, its topic an id.
    write_csv(frame.assign(alpha=[0, 0.5, 1]), tmp_path / "tables" / "synthetic_rare_common.csv")
    synthetic = read_table(tmp_path / "tables" / "synthetic_rare_common.csv")
    assert synthetic["alpha"].tolist() == [0, 0.5, 1] and synthetic["topic"].tolist() == ["051", "051", "7"]
    # The name can be given when the file is named otherwise.
    write_csv(frame.assign(alpha=[0, 0.5, 1]), tmp_path / "figure1.csv")
    assert read_table(tmp_path / "figure1.csv", "synthetic_rare_common")["alpha"].dtype.kind == "f"


def test_shards_in_order_and_none_without(tmp_path):
    paths = []
    for i in range(3):
        paths.append(tmp_path / f"{i}.parquet")
        write_frame(pd.DataFrame({"trial": [2 * i, 2 * i + 1]}), paths[-1], {"shard": i})
    assert [f["trial"].tolist() for f in read_shards(paths)] == [[0, 1], [2, 3], [4, 5]]
    assert merged_shards(paths)["trial"].tolist() == list(range(6))
    assert merged_shards([]) is None


def test_shard_of_a_rule():
    trials = shard_trials(1000, 3, 1)
    smk = SimpleNamespace(params=SimpleNamespace(trials=[trials.start, trials.stop], seed=20230402))
    shard = Shard.of(smk)
    assert shard.trials == range(333, 666) and shard.seed == 20230402
    # The file records the seed its trials drew from: experiments.seed plus the experiment's offset.
    assert shard.drawn_by(3) == {"trials": [333, 666], "seed": 20230405}
    assert str(shard) == "trials 333..665"


def test_stability_topics_per_trial():
    assert stability_topics_per_trial(None, 45) == 22  # Python's round, as the authors' scripts
    assert stability_topics_per_trial(None, 50) == 25
    assert stability_topics_per_trial(10, 50) == 10


@pytest.mark.parametrize("sampling", ["bootstrap", "disjoint"])
@pytest.mark.parametrize("n_topics", [7, 50])
def test_swap_topic_set_size_is_what_the_trials_draw(sampling, n_topics):
    """The table reports the size the shards drew with: the default of draw_topic_pairs."""
    size = swap_topic_set_size({"topic_set_size": None, "sampling": sampling}, n_topics)
    first, second = draw_topic_pairs(n_topics, [0], 1, sampling)
    assert first.shape[1] == second.shape[1] == size
    assert swap_topic_set_size({"topic_set_size": 3, "sampling": sampling}, n_topics) == 3


def test_rarity_listing_selects_sorts_and_names_missing_topics():
    rarity = pd.DataFrame({"qid": ["2", "1", "1", "1"], "docid": ["a", "b", "c", "d"], "grade": [1] * 4,
                           "depth": [100] * 4, "n_retrieving": [5, 9, 1, 1], "rarity": [0.5, 0.1, 0.9, 0.9],
                           "rarity_prime": [0.5, 0.1, 0.9, 0.9]})
    listed = rarity_listing_table(rarity, ["1"])
    assert listed["docid"].tolist() == ["c", "d", "b"]  # rarest first, ties by docid
    assert rarity_listing_table(rarity, [])["qid"].tolist() == ["1", "1", "1", "2"]
    with pytest.raises(ValueError, match=r"listing_topics not in the qrels .*\['3'\]"):
        rarity_listing_table(rarity, ["1", "3"])


def test_paper_inputs_are_read_back_by_collection_label(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tables = [*COLLECTION_TABLES, "swap_sensitivity"]
    inputs = paper_inputs(["a", "b"], tables)
    assert len(inputs) == 2 * (len(tables) + 1)
    for key, path in inputs.items():
        name = key.split("__")[0]
        if name == "rarity":
            write_frame(pd.DataFrame({"qid": ["051"], "rarity": [0.5]}), path, {})
        else:
            write_csv(pd.DataFrame({"alpha": ["1/R"], "topic": ["051"], "source": [path]}), path)
    frames = read_paper_frames(inputs, {"a": "A", "b": "B"})
    assert list(frames) == ["A", "B"] and list(frames["A"]) == [*COLLECTION_TABLES, "rarity"]
    assert frames["B"]["stability"]["source"].item() == "results/b/tables/stability.csv"
    assert frames["A"]["kendall_tau"]["alpha"].item() == "1/R" and frames["A"]["rarity"]["qid"].item() == "051"
    swap = read_swap_tables(inputs, {"a": "A", "b": "B"})
    assert swap["A"]["source"].item() == "results/a/tables/swap_sensitivity.csv"


_TIMED_JOB = """
from types import SimpleNamespace
from irmeta.pipeline.scripts import run_script

def main(smk):
    sum(range(100_000))

run_script(main, SimpleNamespace(config={}, log=["job.log"], output=[], rule="tabulate_x", wildcards=["c", "1"]))
"""


def test_a_job_records_its_start_and_work_only_in_a_benchmark(tmp_path):
    # benchmarks/bench_startup.py reads these; outside it a job writes nothing more
    script = tmp_path / "job.py"
    script.write_text(_TIMED_JOB)
    env = {k: v for k, v in os.environ.items() if k != "IRMETA_JOB_TIMES"}
    subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, check=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.log", "job.py"]
    subprocess.run([sys.executable, str(script)], cwd=tmp_path, env={**env, "IRMETA_JOB_TIMES": "times"}, check=True)
    entry = json.loads((tmp_path / "times" / "tabulate_x.c.1.json").read_text())
    assert entry["rule"] == "tabulate_x" and entry["job"] == "c.1"
    assert entry["start_cpu"] > 0 and entry["work_cpu"] >= 0 and entry["work_wall"] >= 0


_ENDING_JOB = """
import atexit, logging
from pathlib import Path
from types import SimpleNamespace
from irmeta.pipeline.scripts import run_script

def main(smk):
    atexit.register(lambda: Path("torn_down").write_text("teardown ran"))
    logging.getLogger("irmeta").info("the last line of the job")
    print("said on standard output", end="")

run_script(main, SimpleNamespace(config={}, log=["job.log"], output=[]))
print("never reached")
"""


def test_a_finished_job_flushes_its_log_and_skips_the_interpreters_teardown(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(_ENDING_JOB)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "said on standard output"
    last, peak = (tmp_path / "job.log").read_text().rstrip().splitlines()[-2:]
    assert last.endswith("the last line of the job")
    assert re.search(r"INFO irmeta: peak memory \d+ MB \(of its forked processes \d+ MB\)$", peak)  # what it held
    assert not (tmp_path / "torn_down").exists()


def test_a_job_run_in_the_workflows_process_logs_as_a_script_and_fails_with_one_line(tmp_path, monkeypatch):
    from irmeta.pipeline.scripts import run_in_process

    monkeypatch.setenv("IRMETA_JOB_TIMES", str(tmp_path / "times"))
    log = tmp_path / "job.log"
    run_in_process(lambda: "wrote x.csv (2 collections)", rule="tabulate_x", wildcards=["c"], log=log)
    assert log.read_text().rstrip().endswith("INFO irmeta: wrote x.csv (2 collections) (in the workflow's process)")
    entry = json.loads((tmp_path / "times" / "tabulate_x.c.json").read_text())
    assert entry["start_cpu"] == 0.0 and entry["work_cpu"] >= 0

    def faulty():
        raise ValueError("rows.csv, line 3: no collection column")

    with pytest.raises(RuntimeError, match="^irmeta: error: rows.csv, line 3: no collection column$"):
        run_in_process(faulty, rule="tabulate_x", wildcards=["c"], log=log)
    assert log.read_text() == "irmeta: error: rows.csv, line 3: no collection column\n"


def test_a_job_s_peak_is_the_kernel_s_high_water_mark():
    """peak_memory_mb reads the high-water mark: memory touched and freed between two
    samples still counts (a child allocates 600 MB, frees it, then reports)."""
    code = ("import numpy as np\n"
            "from irmeta.pipeline.scripts import peak_memory_mb\n"
            "before = peak_memory_mb()[0]\n"
            "block = np.ones(600 * 2**20 // 8); del block\n"
            "print(before, peak_memory_mb()[0])\n")
    before, after = map(float, subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                              check=True).stdout.split())
    assert after - before > 400  # less than 600: the heap may hand back pages the imports left
