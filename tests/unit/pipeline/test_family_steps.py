"""The pipeline's family step: the table only with families, the ranks either way."""

from __future__ import annotations

import numpy as np

from irmeta.measures.averaging import Scores, exact_mean
from irmeta.metaeval.family_bias import FAMILY_BIAS_COLUMNS, RANK_COLUMNS
from irmeta.pipeline.family_steps import NO_FAMILY, FamilyCollector, run_families


def _scores(means) -> Scores:
    per_topic = np.repeat(np.asarray([means], dtype=np.float64)[:, :, None], 2, axis=2)
    return Scores(runs=["a", "b", "c"], topics=["1", "2"], measures=["P@10"], alphas=[None],
                  per_topic=per_topic, means={"all_topics": exact_mean(per_topic)})


def test_without_families_only_ranks_are_collected_in_one_colour():
    collect = FamilyCollector(_scores([0.3, 0.2, 0.1]), run_families(None, ["a", "b", "c"]), permutations=50, seed=1)
    collect("set", _scores([0.1, 0.2, 0.3]))
    assert collect.table().empty and list(collect.table().columns) == list(FAMILY_BIAS_COLUMNS)
    ranks = collect.rank_frame()
    assert list(ranks.columns) == list(RANK_COLUMNS) and set(ranks["family"]) == {NO_FAMILY}
    assert ranks["rank_judgments"].tolist() == [3, 2, 1]


def test_with_families_the_table_has_a_row_per_family(tmp_path):
    path = tmp_path / "f.tsv"
    path.write_text("run\tfamily\na\tx\nb\tx\nc\ty\n")
    collect = FamilyCollector(_scores([0.3, 0.2, 0.1]), run_families(path, ["a", "b", "c"]), permutations=50, seed=1)
    collect("set", _scores([0.3, 0.2, 0.1]))
    assert collect.table()[["family", "runs", "mean_rank_change"]].values.tolist() == [["x", 2, 0.0], ["y", 1, 0.0]]
