"""KTU and RBO for every cell at once (irmeta.metaeval.document_order) equal the
per-topic functions of irmeta.metaeval.reproducibility to the last bit, on TREC-8 runs
against copies degraded by each kind, at cutoffs and depths below, at and above the
rankings' length; the bit-set count of discordant pairs is brute force's."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from irmeta.campaign.degrade_cells import degrade_cells, ranked_cells
from irmeta.campaign.rankings import scored_rankings_of
from irmeta.campaign.runs import read_runs
from irmeta.metaeval import reproducibility as rm
from irmeta.metaeval.document_order import discordant_pairs, order_measures

DATA = Path("/work/shared/data/trec8_adhoc")
FILES = [DATA / "runs" / f"{n}.gz" for n in ("CL99SD", "CL99XT", "Dm8Nbn")]


@pytest.fixture(scope="module")
def cells():
    return ranked_cells(scored_rankings_of(read_runs(FILES, depth=80)))


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["swap", "replace", "noise"])
@pytest.mark.parametrize(("cutoff", "p", "depth"), [(80, 0.95, 80), (1000, 0.95, 1000), (25, 0.8, 15)])
def test_every_cell_equals_the_per_topic_functions(cells, kind, cutoff, p, depth):
    for level in (0.0, 0.1, 0.4):
        copy = degrade_cells(cells, kind, level, 5, 2)
        got = order_measures(cells, copy, ktu_cutoff=cutoff, rbo_p=p, rbo_depth=depth)
        original, copied = cells.rankings(), cells.rankings(copy)
        c = 0
        for name in cells.runs:
            for topic, o in original[name].items():
                r = copied[name][topic]
                want = {"ktu": rm.ktu(o, r, cutoff), "rbo": rm.rbo(o, r, p, depth),
                        "ktu_repro_eval": rm.ktu_repro_eval(o, r, cutoff),
                        "rbo_repro_eval": rm.rbo_repro_eval(o, r, p, depth)}
                for measure, value in want.items():
                    assert _same(float(got[measure][c]), value), (kind, level, name, topic, measure)
                c += 1


def test_discordant_pairs_by_brute_force():
    rng = np.random.default_rng(4)
    rows = []
    for n in (0, 1, 2, 5, 64, 65, 130):
        values = rng.permutation(140)[:n]
        row = np.full(150, -1)
        row[np.sort(rng.permutation(150)[:n])] = values
        rows.append(row)
    got = discordant_pairs(np.array(rows), 140)
    for row, count in zip(rows, got):
        kept = row[row >= 0]
        assert count == sum(int(kept[i] > kept[j]) for i in range(len(kept)) for j in range(i + 1, len(kept)))


def test_rbo_of_disjoint_copies_is_zero_not_a_rounding_below():
    # Issue 40, item 5: a copy sharing no document with its run rounded RBO's 1 minus a
    # shortfall of 1 to -7.19e-17 in the degradation table; now 0, as the per-topic function.
    runs = {"a": {"1": ([f"a{i}" for i in range(40)], np.arange(40.0, 0, -1))},
            "b": {"1": ([f"b{i}" for i in range(40)], np.arange(40.0, 0, -1))}}
    two = ranked_cells(runs)
    swapped = np.concatenate([two.doc[40:], two.doc[:40]])  # each run's cell gets the other's documents
    for p in (0.5, 0.9, 0.95, 0.99):
        got = order_measures(two, swapped, ktu_cutoff=1000, rbo_p=p, rbo_depth=1000)
        assert got["rbo"].tolist() == [0.0, 0.0] == [rm.rbo(runs["a"]["1"][0], runs["b"]["1"][0], p, 1000)] * 2
        assert got["rbo_repro_eval"].tolist() == [0.0, 0.0]
