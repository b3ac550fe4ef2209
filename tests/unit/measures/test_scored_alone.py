"""A run's score does not depend on the runs scored beside it.

Every registered measure, per topic and averaged, bit for bit: scored from its own file
alone, and with the other runs of a random campaign (whose lists are longer or shorter,
so the matrix depth changes). The rareness measures are the exception by definition:
S_d counts the runs that retrieve a document, so they are left out here (their
dependence on the run set is what the system-subsampling experiment measures).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import write
from irmeta.campaign.judge import relevance_matrix
from irmeta.campaign.qrels import read_qrels
from irmeta.campaign.runs import read_runs
from irmeta.measures.averaging import score_table
from irmeta.measures.diversity import needs_subtopics
from irmeta.measures.group_averaged import GROUP_FAMILIES
from irmeta.measures.registry import MEASURES

# the diversity families read subtopic qrels (tests/unit/measures/test_diversity.py checks them
# alone), the *_avgjg ones judgment groups (test_a_run_scores_the_same_alone_over_judgment_groups)
FAMILIES = sorted(name for name, d in MEASURES.items()
                  if not d.uses_alpha and not needs_subtopics(name) and name not in GROUP_FAMILIES)
NEEDS_CUTOFF = {"ASL_g1"}  # @n is the number of relevant documents, not a depth

_doc = st.sampled_from([f"d{i}" for i in range(12)] + ["u1", "u2", "u3"])


@st.composite
def campaigns(draw):
    qrels = {}
    for t in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(_doc, min_size=1, max_size=10, unique=True))
        qrels[str(t + 1)] = {d: draw(st.integers(-2, 3)) for d in judged}
    runs = {}
    for r in range(draw(st.integers(2, 4))):
        topics = draw(st.lists(st.sampled_from(sorted(qrels) + ["77"]), min_size=1, max_size=5, unique=True))
        runs[f"run{r}"] = {t: draw(st.lists(_doc, min_size=1, max_size=15, unique=True)) for t in topics}
    return qrels, runs


def measures_at(cutoffs: list[int | None]) -> list[str]:
    names = []
    for family in FAMILIES:
        for k in cutoffs:
            if k is None and family in NEEDS_CUTOFF:
                continue
            names.append(family if k is None else f"{family}@{k}")
    return names


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaign=campaigns(), cutoffs=st.lists(st.one_of(st.none(), st.integers(1, 18)), min_size=1, max_size=2,
                                               unique=True),
       depth=st.integers(1, 16), threshold=st.sampled_from([1, 2]),
       gains=st.sampled_from([None, {1: 1, 2: 3, 3: 7}]), beta=st.sampled_from([1.0, 0.5]),
       unretrieved=st.sampled_from(["paper", "plus_one", "depth"]))
def test_alone_equals_together(campaign, cutoffs, depth, threshold, gains, beta, unretrieved):
    qrels, runs = campaign
    measures = measures_at(cutoffs)
    options = {"gains": gains, "beta": beta, "asl_unretrieved": unretrieved}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        q = read_qrels(write(root / "qrels", "".join(f"{t} 0 {d} {g}\n" for t, j in qrels.items()
                                                      for d, g in j.items())))
        paths = {name: write(root / "runs" / name, "".join(f"{t} Q0 {d} {i} {len(docs) - i} {name}\n"
                                                          for t, docs in lists.items() for i, d in enumerate(docs)))
                 for name, lists in runs.items()}
        together = score_table(relevance_matrix(read_runs(list(paths.values()), depth=depth), q,
                                                threshold=threshold), measures, **options)
        for name, path in paths.items():
            alone = score_table(relevance_matrix(read_runs(path, depth=depth), q, threshold=threshold),
                                measures, **options)
            mine = together[together["run"] == name].reset_index(drop=True)
            assert alone[["measure", "qid", "averaging"]].equals(mine[["measure", "qid", "averaging"]])
            same = alone["value"].to_numpy() == mine["value"].to_numpy()
            assert same.all(), alone[~same].assign(together=mine["value"][~same]).head().to_string()


def test_every_family_is_covered():
    assert {"P", "AP", "nDCG", "Recall", "Bpref", "SetF", "Success", "ASL", "Q"} <= set(FAMILIES)
    assert not {"P_rareness", "AP_rareness"} & set(FAMILIES)


def test_uncut_runs_need_a_cutoff_where_k_divides(tmp_path):
    """Without a depth there is no k for P: an error, alone or together, never the depth
    of the deepest list scored alongside (which made P depend on the other runs)."""
    q = read_qrels(write(tmp_path / "qrels", "1 0 a 1\n"))
    runs = read_runs([write(tmp_path / "r1", "1 Q0 a 1 2 r1\n"),
                         write(tmp_path / "r2", "1 Q0 a 1 2 r2\n1 Q0 b 2 1 r2\n")])
    m = relevance_matrix(runs, q)
    with pytest.raises(ValueError, match="depth k the runs were cut to"):
        score_table(m, ["P"])
    with pytest.raises(ValueError, match="ASL padded to the depth"):
        score_table(m, ["ASL"], asl_unretrieved="depth")
    # Measures that need no k are defined on uncut runs.
    table = score_table(m, ["AP", "nDCG", "SetP", "ASL"], averaging=("all",), per_topic=False)
    assert np.isfinite(table["value"]).all()


@pytest.mark.parametrize("seed", [1, 8])
def test_a_run_scores_the_same_alone_over_judgment_groups(tmp_path, seed):
    """The *_avgjg families over judgment-group qrels (1-3 groups a topic, grades -1..3)."""
    import irmeta

    rng = np.random.default_rng(seed)
    qrels = write(tmp_path / "qrels_jg", "".join(f"{t} g{g} d{d} {int(rng.integers(-1, 4))}\n" for t in range(1, 5)
                                                 for g in range(int(rng.integers(1, 4)))
                                                 for d in rng.choice(12, size=int(rng.integers(1, 9)), replace=False)))
    runs = [write(tmp_path / "runs" / f"r{r}", "".join(
        f"{t} Q0 d{d} {i + 1} {20 - i} r{r}\n" for t in range(1, 5)
        for i, d in enumerate(rng.choice(15, size=int(rng.integers(1, 14)), replace=False)))) for r in range(3)]
    names = ["P_avgjg@5", "AP_avgjg", "AP_avgjg@3", "Rprec_mult_avgjg(multiple=0.5)", "AP_avgjg(judged_only=true)"]
    assert set(GROUP_FAMILIES) == {parse.split("(")[0].split("@")[0] for parse in names}
    together = irmeta.evaluate(qrels, runs, names, qrels_format="qrels_jg", depth=14)
    for path in runs:
        alone = irmeta.evaluate(qrels, [path], names, qrels_format="qrels_jg", depth=14).reset_index(drop=True)
        mine = together[together["run"] == path.name].reset_index(drop=True)
        assert alone[["measure", "qid"]].equals(mine[["measure", "qid"]])
        assert (alone["value"].to_numpy() == mine["value"].to_numpy()).all(), path.name
