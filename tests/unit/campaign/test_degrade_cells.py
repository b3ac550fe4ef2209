"""Every run degraded at once (irmeta.campaign.degrade_cells) equals the per-topic
functions of irmeta.campaign.degrade document for document, from the same streams; a
copy judged by indexing is the matrix ingestion builds from the same rankings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irmeta.campaign.degrade import degradation_rng, degrade_run, topic_pools
from irmeta.campaign.degrade_cells import degrade_cells, judged_copy, pool_judgments, ranked_cells
from irmeta.campaign.judge import judge_runs
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.rankings import scored_rankings_of
from irmeta.campaign.runs import read_runs

DATA = Path("/work/shared/data/trec8_adhoc")
FILES = [DATA / "runs" / f"{n}.gz" for n in ("CL99SD", "CL99XT", "Dm8Nbn", "1")]


@pytest.fixture(scope="module")
def runs():
    return scored_rankings_of(read_runs(FILES, depth=60))


@pytest.mark.parametrize("kind", ["swap", "replace", "noise"])
@pytest.mark.parametrize("level", [0.0, 0.05, 0.4, 1.0])
def test_cells_degrade_as_the_per_topic_functions(runs, kind, level):
    cells = ranked_cells(runs)
    pools = topic_pools(runs)
    for trial in (0, 7):
        copy = cells.rankings(degrade_cells(cells, kind, level, 11, trial))
        want = {name: degrade_run(run, kind, level, degradation_rng(11, kind, name, level, trial), pools)
                for name, run in runs.items()}
        assert copy == want


def test_pool_places_sort_as_docids(runs):
    cells = ranked_cells(runs)
    for t in range(len(cells.topics)):
        pool = cells.docids[cells.pool_start[t]:cells.pool_start[t + 1]].tolist()
        assert pool == sorted(pool) == topic_pools(runs)[cells.topics[t]]
    assert cells.rankings() == {name: {t: docs for t, (docs, _) in run.items()} for name, run in runs.items()}


@pytest.mark.parametrize("threshold", [1, 2])
def test_a_copy_is_judged_as_ingestion_judges_it(runs, tmp_path, threshold):
    # graded qrels (every tenth relevant document graded 2), so the threshold matters
    lines = (DATA / "qrels.txt").read_text().splitlines()
    graded = [" ".join([*f[:3], "2" if f[3] == "1" and i % 10 == 0 else f[3]])
              for i, f in enumerate(line.split() for line in lines)]
    (tmp_path / "qrels.txt").write_text("\n".join(graded) + "\n")
    qrels = read_qrels(tmp_path / "qrels.txt")
    cells = ranked_cells(runs)
    got = judged_copy(cells, cells.doc, qrels, pool_judgments(cells, qrels), threshold=threshold)
    want, _ = judge_runs(FILES, qrels, depth=60, threshold=threshold)
    assert got.runs == want.runs and got.topics == want.topics
    assert np.array_equal(got.length, want.length)
    for side in ("hits", "misses"):
        a, b = getattr(got, side), getattr(want, side)
        for field in ("start", "rank", "judgment"):
            assert np.array_equal(getattr(a, field), getattr(b, field)), (side, field)
            assert getattr(a, field).dtype == getattr(b, field).dtype
