"""benchmarks/bench_peers.py's own logic (no timing): reading each tool's output back and
the checks that the tools did the same work, on hand-written outputs."""

from __future__ import annotations

import sys

import pytest

from campaigns import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import bench_peers  # noqa: E402  (benchmarks/ is a folder of scripts, not a package)


def test_trec_eval_output_of_several_runs_splits_into_one_block_per_run():
    text = ("P_10                  \tall\t0.0240\nmap                   \tall\t0.0043\n"
            "ndcg_cut_10           \tall\t0.0226\n"
            "P_10                  \tall\t0.6520\nmap                   \tall\t0.3346\n"
            "ndcg_cut_10           \tall\t0.6959\n")
    blocks = bench_peers.trec_eval_blocks(text)
    assert blocks == [{"P@10": 0.024, "AP": 0.0043, "nDCG@10": 0.0226},
                      {"P@10": 0.652, "AP": 0.3346, "nDCG@10": 0.6959}]


def test_trec_eval_per_topic_rows_and_other_measures_are_not_means():
    text = "runid\tall\tx\nP_10\t401\t0.1000\nP_10\tall\t0.2000\nnum_q\tall\t50\n"
    assert bench_peers.trec_eval_blocks(text) == [{"P@10": 0.2}]


def test_irmeta_means_keep_the_all_rows():
    tsv = "run\tmeasure\tqid\tvalue\nr1\tAP\t401\t0.5\nr1\tAP\tall\t0.25\nr2\tAP\tall\t0.125\n"
    assert bench_peers.irmeta_means(tsv) == {"r1": {"AP": 0.25}, "r2": {"AP": 0.125}}


def _means(ap_b: float) -> dict:
    return {"a": {"P@10": 0.5, "AP": 0.25, "nDCG@10": 0.4}, "b": {"P@10": 0.1, "AP": ap_b, "nDCG@10": 0.2}}


def test_mean_agreement_counts_and_names_the_differences_above_the_tolerance():
    rows = {a.measure: a for a in bench_peers.mean_agreement(_means(0.3), _means(0.3 + 4e-6), 1e-6)}
    assert (rows["AP"].above, rows["AP"].where, rows["AP"].compared) == (1, "b", 2)
    assert rows["AP"].largest == pytest.approx(4e-6)
    assert rows["P@10"].above == rows["nDCG@10"].above == 0 and rows["P@10"].largest == 0


def test_mean_agreement_refuses_runs_one_tool_lacks():
    theirs = _means(0.3)
    del theirs["b"]
    with pytest.raises(ValueError, match="runs differ"):
        bench_peers.mean_agreement(_means(0.3), theirs, 1e-6)


def test_irmeta_pvalues_pair_both_directions_into_one_key():
    tsv = ("run\tmeasure\tmean\tbaseline\tdifference\tp_value\tp_adjusted\n"
           "x\tAP\t0.2\ty\t0.1\t0.03\t0.03\n"
           "y\tAP\t0.1\tx\t-0.1\t0.03\t0.03\n")
    assert bench_peers.irmeta_pvalues(tsv) == {("x", "y", "AP"): 0.03}


def test_pvalue_agreement_counts_decisions_that_flip_at_the_level():
    ours = {("x", "y", "AP"): 0.04, ("x", "z", "AP"): 0.5}
    theirs = {("x", "y", "AP"): 0.06, ("x", "z", "AP"): 0.5}
    compared, largest, where, flips = bench_peers.pvalue_agreement(ours, theirs, 0.05)
    assert (compared, where, flips) == (2, "x y AP", 1)
    assert largest == pytest.approx(0.02)
    with pytest.raises(ValueError, match="pairs differ"):
        bench_peers.pvalue_agreement(ours, {("x", "y", "AP"): 0.04})


# ------------------------------------------------------------------ --measures all (issue 42)

import peer_measures  # noqa: E402  (benchmarks/ is on the path above)

from irmeta.measures.names import parse_measure  # noqa: E402
from irmeta.measures.registry import PEER_NAMES  # noqa: E402


def test_measures_all_lists_every_registered_peer_alias():
    """Each example of each peer name the registry declares is a case (or a name refused,
    or one needing judgment groups, listed as not run): none left out, none invented."""
    cases, skipped = peer_measures.cases(PEER_NAMES, parse_measure)
    run = {(c.peer, c.typed) for c in cases}
    not_run = {(s.peer, s.name) for s in skipped}
    for entry in PEER_NAMES:
        if entry.refused:
            assert (entry.peer, entry.name) in not_run, entry
        for typed, _ in entry.examples:
            assert (entry.peer, typed) in run or (entry.peer, typed) in not_run, (entry.peer, typed)
    declared = {(e.peer, typed) for e in PEER_NAMES for typed, _ in e.examples}
    assert run <= declared and len(run) > 100
    assert all(c.canonical == str(parse_measure(c.typed)) for c in cases)
    # both TREC campaigns for the names the alias test checks itself; ndeval's on subtopic qrels
    assert {c.campaign for c in cases if c.typed == "ndcg_cut_10"} == {peer_measures.TREC8, peer_measures.DL2020}
    assert {c.campaign for c in cases if c.peer == "ndeval"} == {peer_measures.DIVERSITY}
    assert peer_measures.tools_of(next(c for c in cases if c.typed == "map")) == ("trec_eval", "pytrec_eval")


def test_measures_all_flags_a_difference_and_names_its_known_cause():
    ours = {("r", "1"): 0.5, ("r", "2"): 0.25}
    theirs = {("r", "1"): 0.5, ("r", "2"): 0.25 + 3e-6}
    flagged = peer_measures.compare(ours, theirs)
    assert flagged.cause == "unknown" and flagged.where == "r 2" and flagged.largest == pytest.approx(3e-6)
    assert flagged.ours == pytest.approx(0.375) and flagged.theirs == pytest.approx(0.375 + 1.5e-6)
    assert peer_measures.compare(ours, dict(ours)).cause == ""
    assert peer_measures.compare(ours, theirs, 4).cause == ""  # within trec_eval's 4 printed decimals
    assert peer_measures.compare(ours, {("r", "2"): 0.2504}, 4).cause == "unknown"
    assert peer_measures.compare(ours, theirs, ours_float32=lambda: theirs).cause == "float32 scores"
    assert peer_measures.compare(ours, theirs, theirs_ordered=lambda: ours).cause == "ties order"
    assert peer_measures.compare(ours, theirs, ours_float32=lambda: ours, theirs_ordered=lambda: theirs).cause \
        == "unknown"
    undefined = peer_measures.compare(ours, {("r", "1"): 0.5, ("r", "2"): float("nan")})
    assert (undefined.cause, undefined.undefined, undefined.topics) == ("", 1, 1)
    with pytest.raises(ValueError, match="irmeta has no value"):
        peer_measures.compare(ours, {("r", "3"): 0.0})


def test_measures_all_reads_the_printed_decimals_and_trec_evals_order():
    assert peer_measures.printed_decimals(["0.1234", "0.5", "12"]) == 4
    assert peer_measures.printed_decimals(["0.12345678901234"]) is None
    campaign = peer_measures.Campaign("c", REPO, [], {}, {"r": {"1": {"a": 1.0, "c": 2.0, "b": 1.0}}})
    assert campaign.ordered() == {"r": {"1": {"c": 3.0, "b": 2.0, "a": 1.0}}}  # ties: docid descending


def _tiny_check(tmp_path, typed: list[str], trec_eval=None):
    qrels, run = tmp_path / "qrels", tmp_path / "r1"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n3 0 d 1\n")
    run.write_text("1 Q0 a 1 2.0 r1\n1 Q0 b 2 1.0 r1\n2 Q0 x 1 1.0 r1\n")
    campaign = peer_measures.Campaign("tiny", qrels, [run], {"1": {"a": 1, "b": 0}, "2": {"c": 1}, "3": {"d": 1}},
                                      {"r1": peer_measures.read_run(run)})
    cases = [peer_measures.Case("trec_eval", t, t, t, str(parse_measure(t)), "tiny") for t in typed]
    return peer_measures.CampaignCheck(campaign, cases, trec_eval, parse_measure), cases


def test_measures_all_holds_a_summary_alone_to_trec_evals_summary(tmp_path):
    check, _ = _tiny_check(tmp_path, ["num_q", "map"])
    # trec_eval without -c: over the 2 topics the run returns, the counts summed
    assert check.summary("NumQ", check.ours["NumQ"]) == {("r1", "all"): 2.0}
    assert check.summary("AP", check.ours["AP"]) == {("r1", "all"): 0.5}


def test_measures_all_names_pytrec_evals_reading_where_trec_eval_agrees(tmp_path, monkeypatch):
    check, (case,) = _tiny_check(tmp_path, ["map"], trec_eval=tmp_path / "trec_eval")
    ours = check.ours["AP"]
    given = {"trec_eval": ({k: v for k, v in ours.items() if k[1] != "all"}, 4),
             "pytrec_eval": ({("r1", "1"): 0.25, ("r1", "2"): 0.0}, None)}
    monkeypatch.setattr(check, "values", lambda tool, case, ordered: given[tool])
    assert check.compare("trec_eval", case).cause == ""
    assert check.compare("pytrec_eval", case).cause.startswith("pytrec_eval reads the parameters otherwise")
    given["trec_eval"] = ({("r1", "1"): 0.25, ("r1", "2"): 0.0}, 4)  # trec_eval disagrees too: unexplained
    assert check.compare("pytrec_eval", case).cause == "unknown"
