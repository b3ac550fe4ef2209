"""Generated assessors error_<q>_trial_<t> (irmeta.metaeval.judgment_reduction, Carterette
and Soboroff, SIGIR 2010): the flipped grades against a row-by-row loop over the trial's
uniforms, and the agreement rows against every run judged anew from a qrels file holding
exactly the erring assessor's grades."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_judgment_reduction import ALPHAS, MEASURES, SEED, agreement_rows, qrels_rows, random_campaign

from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs
from irmeta.measures.averaging import score_arrays
from irmeta.metaeval import generated_set_names as set_names
from irmeta.metaeval import judgment_reduction as jr
from irmeta.metaeval.judgment_agreement import judgment_agreement_table


def test_error_names_follow_the_fractions():
    names = set_names.generated_set_names([10], [0.5], 2, [0.1, 0.25])
    assert names[-4:] == ["error_0.1_trial_0", "error_0.1_trial_1", "error_0.25_trial_0", "error_0.25_trial_1"]
    assert set_names.parse_set_name("error_0.3_trial_4") == set_names.GeneratedSet("error", 0.3, 4)
    assert all(set_names.parse_set_name(n).name == n for n in names)
    for bad in ("error_0_trial_0", "error_1.5_trial_0", "error_0.10_trial_0"):
        with pytest.raises(ValueError, match="names no generated judgment set"):
            set_names.parse_set_name(bad)
    with pytest.raises(ValueError, match=r"^assessor_errors: 0.1 listed twice$"):
        set_names.generated_set_names([], [], 1, [0.1, 0.1])
    with pytest.raises(ValueError, match=r"^assessor_errors: an error rate must be a number in \(0, 1\], not 0$"):
        set_names.generated_set_names([], [], 1, [0])
    with pytest.raises(ValueError, match="starts like a generated judgment set's name"):
        set_names.check_alternative_name("error_mine")


@pytest.mark.parametrize("seed", range(5))
def test_error_grades_row_by_row(tmp_path, seed):
    matrix, _, _ = random_campaign(tmp_path, seed)
    for rate, trial in [(0.1, 0), (0.3, 2), (1.0, 1)]:
        uniform = np.random.default_rng([SEED, trial, 1]).random(len(matrix.qrels_grade))
        expected = [(0 if g >= matrix.threshold else matrix.threshold) if u < rate else g
                    for g, u in zip(matrix.qrels_grade.tolist(), uniform.tolist())]
        assert jr.error_grades(matrix, rate, trial, SEED).tolist() == expected
    low, high = (jr.error_grades(matrix, q, 0, SEED) != matrix.qrels_grade for q in (0.1, 0.3))
    assert not (low & ~high).any()  # nested: an error at 0.1 is one at 0.3
    assert not np.array_equal(jr.error_grades(matrix, 0.3, 0, SEED), jr.error_grades(matrix, 0.3, 1, SEED))


@pytest.mark.parametrize("seed", range(3))
def test_error_rows_equal_a_qrels_file_judged_from_scratch(tmp_path, seed):
    matrix, _, _ = random_campaign(tmp_path, seed, n_runs=8, n_topics=6)
    options = {"alphas": ALPHAS, "rarity_depth": 10}
    reference = score_arrays(matrix, MEASURES, averaging=("all", "returned"), **options)
    name = "error_0.3_trial_1"
    got = jr.generated_agreement_rows(matrix, reference, [name], measures=MEASURES, seed=SEED, options=options)
    rows = qrels_rows(matrix)
    grades = jr.error_grades(matrix, 0.3, 1, SEED)
    path = tmp_path / "erring_qrels.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in zip(rows["qid"], rows["docid"], grades)))
    fresh = score_arrays(relevance_matrix(read_runs(tmp_path / "runs"), read_qrels(path)), MEASURES,
                         averaging=("all",), **options)
    pd.testing.assert_frame_equal(got, judgment_agreement_table(reference, {name: fresh}, reference_name="qrels"))
    assert (got["topics_excluded"] == 0).all()


def test_reduction_table_and_figure_have_the_error_kind(tmp_path):
    from irmeta.artefacts.figures.judgment_reduction import plot_judgment_reduction

    names = set_names.generated_set_names([10], [], 3, [0.1, 0.2])
    taus = {n: [0.9 - 0.01 * i, 0.8 - 0.02 * i] for i, n in enumerate(names)}
    table = jr.judgment_reduction_table(agreement_rows(taus), names)
    errors = table[table["kind"] == "error"]
    assert errors["value"].tolist() == [0.1, 0.1, 0.2, 0.2] and (errors["sets"] == 3).all()
    ap = errors[errors["measure"] == "AP@10"]
    assert ap["kendall_tau"].tolist() == pytest.approx([np.mean([0.89, 0.88, 0.87]), np.mean([0.86, 0.85, 0.84])])
    assert ap["kendall_tau_min"].tolist() == pytest.approx([0.87, 0.84])
    means = jr.trial_means(agreement_rows(taus), names)
    assert sorted(set(means["judgments"])) == ["error_0.1", "error_0.2", "pool_depth_10"]
    paths = plot_judgment_reduction(table, tmp_path / "r.png", tmp_path / "r.pdf")
    assert all(p.stat().st_size > 1000 for p in paths)


def test_generated_assessors_labels_are_the_flipped_qrels_rows(tmp_path):
    from irmeta.metaeval.label_agreement import generated_assessors, label_agreement_table, matrix_qrels

    matrix, _, qrels = random_campaign(tmp_path, 4)
    names = set_names.generated_set_names([2], [0.5], 1, [0.3])
    sets = generated_assessors(matrix, names, SEED)
    assert list(sets) == ["error_0.3_trial_0"]  # subsets of the qrels agree with them by construction
    reference = matrix_qrels(matrix)
    pairs = {(q, d): int(g) for q, d, g in zip(reference.qid.to_pylist(), reference.docid.to_pylist(),
                                                reference.grade)}
    assert pairs == {(q, d): g for q, judged in qrels.items() for d, g in judged.items()}
    grades = jr.error_grades(matrix, 0.3, 0, SEED)
    assert sets["error_0.3_trial_0"].grade.tolist() == grades.tolist()
    row = label_agreement_table(reference, sets).iloc[0]
    flipped = int(np.count_nonzero(grades != matrix.qrels_grade))
    assert row["shared"] == len(grades) and row["agreement"] == pytest.approx(1 - flipped / len(grades), abs=1e-12)
