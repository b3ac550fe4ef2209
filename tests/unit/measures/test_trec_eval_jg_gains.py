"""trec_eval's judgment-group measures, gain maps, 11pt_avg at given levels and -c's num_rel,
per topic against trec_eval 10.0-rc2 itself (issue 42).

The golden file (data/trec_eval_10_jg_gains.tsv, its provenance in its header) holds what the
binary printed for real TREC-8 and DL 2020 runs read from ../shared/data, the judgment-group
qrels made from each collection's qrels by :func:`judgment_group_lines` (deterministic: each
topic split into 1-3 pseudo judgment groups that disagree). No peer in Python reads qrels_jg
or trec_eval's gain maps, so the binary's output is the reference; regenerate it with

    cd tests/unit/measures
    python test_trec_eval_jg_gains.py TREC_EVAL_FULLPREC > data/trec_eval_10_jg_gains.tsv
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import tempfile
import zlib
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.api import score
from irmeta.campaign.errors import TrecFormatError
from irmeta.campaign.judgment_groups import read_qrels_jg
from irmeta.cli import main
from irmeta.measures.averaging import exact_mean
from irmeta.measures.names import Measure, parse_measure, trec_eval_name

GOLDEN = Path(__file__).parent / "data" / "trec_eval_10_jg_gains.tsv"
TOLERANCE = 1e-12
SHARED = Path(__file__).resolve().parents[4] / "shared" / "data"

# byte order jg10 < jg2 < jg7: the groups' slots are not their order of appearance
GROUP_NAMES = ("jg2", "jg10", "jg7")
JG_MEASURES = ["P_avgjg.5,10,100", "map_avgjg", "Rprec_mult_avgjg.0.5,1,2"]
GAIN_MAPS = ["ndcg.1=0,2=3", "G.1=3,2=5", "ndcg_rel.0=1,3=2", "Rndcg.2=1", "rbp.p=0.95,2=3", "rbp.3=10", "dcg.1=2"]
LEVELS = ["11pt_avg..25,.5,.75", "11pt_avg.0.5,0.25", "11pt_avg.0,1,0.3,0.3,2"]
# (collection, qrels: trec or jg, trec_eval's flags, runs, its -m measures, each in a call of its own)
CASES = [
    ("trec8_adhoc", "jg", "", ["INQ601", "uwmt8a0", "READWARE"], [JG_MEASURES]),
    ("trec8_adhoc", "jg", "-J -M 500", ["INQ601", "uwmt8a0"], [JG_MEASURES]),
    ("dl2020_passage", "jg", "-l 2", ["pash_r3", "p_bm25", "bigIR-BERT-R"], [JG_MEASURES]),
    ("dl2020_passage", "trec", "", ["pash_r3", "bigIR-BERT-R"], [[m] for m in GAIN_MAPS]),
    ("trec8_adhoc", "trec", "", ["INQ601", "uwmt8a0"], [[m] for m in LEVELS]),
    ("dl2020_passage", "trec", "-l 2", ["pash_r3"], [[m] for m in LEVELS]),
]


def judgment_group_lines(qrels: Path) -> list[str]:
    """Judgment-group qrels (``qid jg docid grade``) made from a collection's qrels: topic t
    has 1 group when t % 5 == 0, 2 when t is even, else 3; with several, group j leaves out
    the documents whose crc32 is j mod 4. Group jg2 copies the grades; jg10 judges a relevant
    document non-relevant when crc32 % 5 == 0 and a non-relevant one relevant when % 11 == 0;
    jg7 grades a relevant document 2 when crc32 is even, marks one in 13 -1 (in the pool,
    unjudged) and, on topics whose id ends in 9, judges nothing relevant."""
    lines = []
    for line in qrels.read_text().splitlines():
        qid, _, docid, grade_text = line.split()
        grade, h, t = int(grade_text), zlib.crc32(docid.encode()), int(qid)
        n = 1 if t % 5 == 0 else 2 if t % 2 == 0 else 3
        for j in range(n):
            if n > 1 and h % 4 == j:
                continue
            g = grade
            if j == 1:
                g = 0 if grade > 0 and h % 5 == 0 else 1 if grade == 0 and h % 11 == 0 else grade
            if j == 2:
                g = 2 if grade > 0 and h % 2 == 0 else grade
                g = -1 if h % 13 == 0 else g
                g = min(g, 0) if qid.endswith("9") else g
            lines.append(f"{qid} {GROUP_NAMES[j]} {docid} {g}")
    return lines


def _settings(flags: str) -> dict:
    words = flags.split()
    return {"threshold": int(words[words.index("-l") + 1]) if "-l" in words else 1,
            "depth": int(words[words.index("-M") + 1]) if "-M" in words else None,
            "judged_only": "-J" in words}


def _judged_only(measure: Measure) -> Measure:
    return Measure(measure.family, measure.cutoff, tuple(sorted(measure.params + (("judged_only", "true"),))))


def read_golden() -> dict[tuple[str, str, str], dict[tuple[str, str, str], float]]:
    """{(collection, qrels, flags): {(run, measure, qid): value}}."""
    out: dict[tuple[str, str, str], dict[tuple[str, str, str], float]] = defaultdict(dict)
    with GOLDEN.open() as handle:
        for row in csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t"):
            out[(row["collection"], row["qrels"], row["flags"])][(row["run"], row["measure"], row["qid"])] = \
                float(row["value"])
    return out


@pytest.fixture(scope="module")
def golden():
    return read_golden()


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(CASES)))
def test_equal_trec_eval_10_per_topic(shared_data, tmp_path, golden, case):
    collection, kind, flags, runs_named, _ = CASES[case]
    expected = golden[(collection, kind, flags)]
    root = shared_data / collection
    qrels = root / "qrels.txt"
    if kind == "jg":
        qrels = tmp_path / "qrels_jg.txt"
        qrels.write_text("\n".join(judgment_group_lines(root / "qrels.txt")) + "\n")
    settings = _settings(flags)
    names = sorted({name for _, name, _ in expected})
    measures = [parse_measure(name) for name in names]
    if settings["judged_only"]:
        measures = [_judged_only(m) for m in measures]
    scored = score(qrels, [root / "runs" / f"{run}.gz" for run in runs_named], measures, average="returned",
                   threshold=settings["threshold"], depth=settings["depth"],
                   qrels_format="qrels_jg" if kind == "jg" else "trec")
    s, matrix = scored.scores, scored.matrix
    compared = 0
    for (run, name, qid), value in expected.items():
        r, block = s.runs.index(run), names.index(name)
        per_topic = s.per_topic[block, r]
        ours = (float(exact_mean(per_topic, matrix.returned[r])) if qid == "all"
                else float(per_topic[s.topics.index(qid)]))
        assert abs(ours - value) <= TOLERANCE * max(1.0, abs(value)), (collection, flags, run, name, qid, ours, value)
        compared += 1
    assert compared == len(expected) > 100


def test_golden_covers_every_case(golden):
    for collection, kind, flags, runs_named, calls in CASES:
        rows = golden[(collection, kind, flags)]
        assert {run for run, _, _ in rows} == set(runs_named)
        assert len({name for _, name, _ in rows}) >= len(calls)


def test_num_rel_all_under_c_counts_every_positive_grade(shared_data, golden):
    """trec_eval -c -l 2 prints num_rel's all line as the qrels' judgments graded > 0 (3606
    on DL 2020), not their sum at the threshold (1666): irmeta score --format trec_eval too."""
    root = shared_data / "dl2020_passage"
    want = golden[("dl2020_passage", "trec", "-c -l 2")][("pash_r3", "num_rel", "all")]
    out = io.StringIO()
    args = ["score", "--qrels", str(root / "qrels.txt"), "--runs", str(root / "runs" / "pash_r3.gz"),
            "--measure", "num_rel", "--threshold", "2", "--format", "trec_eval"]
    from contextlib import redirect_stdout
    with redirect_stdout(out):
        assert main([*args, "--average", "all"]) == 0
    assert out.getvalue().splitlines()[-1].split("\t") == ["num_rel".ljust(22), "all", str(int(want))]
    assert want == 3606
    out = io.StringIO()
    with redirect_stdout(out):
        assert main([*args, "--average", "returned"]) == 0  # without -c: the sum at the threshold
    assert out.getvalue().splitlines()[-1].endswith("\t1666")


# ------------------------------------------------------------ names, reading, refusals


@pytest.mark.parametrize("typed,canonical,printed", [
    ("P_avgjg.10", "P_avgjg@10", "P_avgjg_10"), ("P_avgjg_10", "P_avgjg@10", "P_avgjg_10"),
    ("map_avgjg", "AP_avgjg", "map_avgjg"), ("Rprec_mult_avgjg.0.5", "Rprec_mult_avgjg(multiple=0.5)",
                                             "Rprec_mult_avgjg_0.50"),
    ("ndcg.1=0,2=3", "nDCG(gains={1:0,2:3},gains_rest=grade)", "ndcg_1=0,2=3"),
    ("G_1=3,2=5", "G(gains={1:3,2:5},gains_rest=grade)", "G_1=3,2=5"),
    ("rbp.p=0.95,2=3", "RBP(gain_scale=topic_max,gains={2:3},gains_rest=grade,p=0.95)", "rbp_p=0.95,2=3"),
    ("rbp.3=10", "RBP(gain_scale=topic_max,gains={3:10},gains_rest=grade,p=0.9)", "rbp_3=10"),
    ("11pt_avg..25,.5,.75", "IPrec_avg(levels=[0.25,0.5,0.75])", "11pt_avg_0.25,0.5,0.75"),
    ("11pt_avg_0.5,0.25", "IPrec_avg(levels=[0.5,0.25])", "11pt_avg_0.5,0.25"),
    ("IPrec_avg(levels=[0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1])", "IPrec_avg", "11pt_avg"),
    ("ndcg_cut.10", "nDCG@10", "ndcg_cut_10"),  # ndcg_cut's parameters are cutoffs, not gains
])
def test_trec_eval_names_read_and_written(typed, canonical, printed):
    assert str(parse_measure(typed)) == canonical
    assert trec_eval_name(typed) == printed
    assert parse_measure(printed) == parse_measure(typed)


@pytest.mark.parametrize("typed,why", [
    ("ndcg.1=0.5", "ideal list depends"), ("ndcg.-1=2", "absent from the qrels"), ("ndcg.x=2", "ignores 'x=2'"),
    ("G.1=2,1=3", "given twice"), ("ndcg.1=-2", "must be in"), ("rbp_resid.1=2", "takes no gains"),
    ("IPrec_avg(levels=[-1])", ">= 0"), ("IPrec_avg(levels=0.5)", "a list of numbers"),
    ("nDCG(gains={1:1},gains_rest=half)@10", "gains_rest takes zero or grade"),
])
def test_trec_eval_spellings_irmeta_cannot_match_are_refused(typed, why):
    with pytest.raises(ValueError, match=why) as raised:
        parse_measure(typed)
    assert "\n" not in str(raised.value)


def test_gains_rest_grade_keeps_the_grades_a_map_does_not_name(shared_data):
    """ndcg.3=1 on DL 2020 (grades 0..3): grades 1 and 2 gain 1 and 2, grade 3 gains 1."""
    root = shared_data / "dl2020_passage"
    got = irmeta.evaluate(root / "qrels.txt", [root / "runs" / "pash_r3.gz"],
                          ["ndcg.3=1", "nDCG(gains={1:1,2:2,3:1})", "nDCG(gains={3:1})"], per_topic=True)
    value = {m: got[(got.measure == m) & (got.qid != "all")].value.to_numpy() for m in set(got.measure)}
    np.testing.assert_array_equal(value["nDCG(gains={3:1},gains_rest=grade)"], value["nDCG(gains={1:1,2:2,3:1})"])
    assert np.abs(value["nDCG(gains={3:1},gains_rest=grade)"] - value["nDCG(gains={3:1})"]).max() > 0.1


def _toy(tmp_path: Path) -> tuple[Path, Path]:
    qrels = tmp_path / "qrels_jg.txt"
    qrels.write_text("1 a d1 1\n1 a d2 0\n1 b d2 1\n1 b d3 1\n1 b d1 -1\n2 a d1 1\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d9 3 1 r\n2 Q0 d1 1 1 r\n")
    return qrels, run


def test_toy_campaign_by_hand(tmp_path):
    """Topic 1: group a judges d1 relevant (of 1), group b d2 and d3 (of 2), d1 in its pool
    unjudged; the run ranks d1, d2, d9. P@2: a 1/2, b 1/2; AP: a 1, b (1/2) / 2; Rprec_mult
    at x = 1: a P@1 = 1, b P@2 = 1/2. Topic 2: one group, AP 1."""
    qrels, run = _toy(tmp_path)
    got = irmeta.evaluate(qrels, [run], ["P_avgjg@2", "map_avgjg", "Rprec_mult_avgjg"], qrels_format="qrels_jg")
    value = {(m, q): v for m, q, v in zip(got.measure, got.qid, got.value)}
    assert value[("P_avgjg@2", "1")] == 0.5 and value[("AP_avgjg", "1")] == (1 + 0.25) / 2
    assert value[("Rprec_mult_avgjg", "1")] == (1 + 0.5) / 2 and value[("AP_avgjg", "2")] == 1.0
    judged_only = irmeta.evaluate(qrels, [run], ["AP_avgjg(judged_only=true)"], qrels_format="qrels_jg")
    # condensed per group: a keeps d1, d2 (AP 1); b keeps d2 (d1 is -1 there): AP (1/1) / 2
    assert judged_only[judged_only.qid == "1"].value.item() == (1 + 0.5) / 2


def test_reader_and_in_memory_forms_agree(tmp_path):
    qrels, run = _toy(tmp_path)
    from_file = irmeta.evaluate(qrels, [run], ["map_avgjg"], qrels_format="qrels_jg")
    rows = [line.split() for line in qrels.read_text().splitlines()]
    as_tuples = irmeta.evaluate([(q, j, d, int(g)) for q, j, d, g in rows], [run], ["map_avgjg"],
                                qrels_format="qrels_jg")
    frame = pd.DataFrame(rows, columns=["qid", "jg", "docid", "grade"]).astype({"grade": int})
    as_frame = irmeta.evaluate(frame, [run], ["map_avgjg"], qrels_format="qrels_jg")
    assert from_file.value.tolist() == as_tuples.value.tolist() == as_frame.value.tolist()
    judged = read_qrels_jg(qrels)
    assert judged.topics == ["1", "2"] and len(judged) == 4  # (topic, document) pairs
    assert judged.judgment_groups is not None and judged.judgment_groups.n_groups.tolist() == [2, 1]


def test_a_document_judged_twice_by_a_group_is_refused(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 a d1 1\n1 b d1 0\n1 a d1 0\n")
    with pytest.raises(TrecFormatError, match=r"q.txt:3: topic 1 judgment group a document d1 is judged twice "
                                              r"\(first on line 1\)"):
        read_qrels_jg(qrels)
    qrels.write_text("1 0 d1 1 extra\n")
    with pytest.raises(TrecFormatError, match=r"5 columns, expected 4 \(qid jg docid grade\)"):
        read_qrels_jg(qrels)


def test_each_kind_of_measure_refused_over_the_other_kind_of_qrels(tmp_path):
    qrels, run = _toy(tmp_path)
    with pytest.raises(ValueError, match="AP@10: .* hold judgment groups .* P_avgjg, AP_avgjg, Rprec_mult_avgjg"):
        irmeta.evaluate(qrels, [run], ["AP@10"], qrels_format="qrels_jg")
    plain = tmp_path / "plain.txt"
    plain.write_text("1 0 d1 1\n")
    with pytest.raises(ValueError, match="P_avgjg@10: a measure averaged over judgment groups needs"):
        irmeta.evaluate(plain, [run], ["P_avgjg.10"])


def test_cli_scores_judgment_groups_as_trec_eval_prints_them(tmp_path):
    qrels, run = _toy(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    from contextlib import redirect_stderr, redirect_stdout
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["score", "--qrels", str(qrels), "--runs", str(run), "--qrels-format", "qrels_jg",
                     "--measure", "map_avgjg", "--measure", "P_avgjg.2", "--format", "trec_eval", "--per-topic"])
    assert code == 0, err.getvalue()
    lines = [line.split("\t") for line in out.getvalue().splitlines()]
    assert ["map_avgjg".ljust(22), "1", "0.6250"] in lines and ["P_avgjg_2".ljust(22), "all", "0.5000"] in lines
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = main(["score", "--qrels", str(qrels), "--runs", str(run), "--measure", "map_avgjg"])
    assert code == 2 and "qrels_jg" in err.getvalue().splitlines()[-1]


# ------------------------------------------------------------ the golden file's maker


def _trec_eval_rows(binary: str, collection: str, kind: str, flags: str, runs_named: list[str],
                    calls: list[list[str]], tmp: Path) -> list[list[str]]:
    root = SHARED / collection
    qrels = root / "qrels.txt"
    if kind == "jg":
        qrels = tmp / f"{collection}.qrels_jg"
        qrels.write_text("\n".join(judgment_group_lines(root / "qrels.txt")) + "\n")
    rows = []
    for run in runs_named:
        plain = tmp / run
        plain.write_bytes(subprocess.run(["gzip", "-dc", str(root / "runs" / f"{run}.gz")], capture_output=True,
                                         check=True).stdout)
        for measures in calls:
            command = [binary, "-q", *flags.split(), *(["-R", "qrels_jg"] if kind == "jg" else [])]
            command += [x for m in measures for x in ("-m", m)] + [str(qrels), str(plain)]
            for line in subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines():
                name, qid, value = (x.strip() for x in line.split("\t"))
                if name != "runid":
                    rows.append([collection, kind, flags, run, name, qid, value])
    return rows


def write_golden(binary: str) -> None:
    shown = subprocess.run([binary, "-v"], capture_output=True, text=True)
    version = (shown.stdout + shown.stderr).strip() or "?"
    print("# Golden output of trec_eval 10.0-rc2 (usnistgov/trec_eval, Makefile VERSIONID 10.0-rc2 @08ece25; the\n"
          "# sources and build in /work/notes/trec_eval_src, README.local), printf %6.4f -> %.17g, nothing else\n"
          f"# changed (-v: {version}). Made by: python tests/unit/measures/test_trec_eval_jg_gains.py BINARY.\n"
          "# Per case and run: trec_eval -q <flags> [-R qrels_jg] -m <measure>... <qrels> <run, gunzipped>\n"
          "# (gain maps and 11pt_avg levels one -m per call); qrels jg: judgment_group_lines(<collection>/qrels.txt)\n"
          "# of the test module; inputs read by the test from ../shared/data, never copied here. Last case:\n"
          "# trec_eval -c -l 2 -m num_rel (its all line only). Columns: collection, qrels, flags, run, measure\n"
          "# (as trec_eval prints it), qid, value.")
    writer = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
    writer.writerow(["collection", "qrels", "flags", "run", "measure", "qid", "value"])
    with tempfile.TemporaryDirectory() as tmp:
        for collection, kind, flags, runs_named, calls in CASES:
            writer.writerows(_trec_eval_rows(binary, collection, kind, flags, runs_named, calls, Path(tmp)))
        all_line = [row for row in _trec_eval_rows(binary, "dl2020_passage", "trec", "-c -l 2", ["pash_r3"],
                                                   [["num_rel"]], Path(tmp)) if row[5] == "all"]
        writer.writerows(all_line)


if __name__ == "__main__":
    write_golden(sys.argv[1])

