"""Every reading option ``irmeta score`` takes reaches the scoring in every command that
scores runs (issue 40, item 2: ``agree --score-precision float32`` was accepted and
ignored). On a campaign built so that each option changes the answer (two scores of a run
differ only beyond single precision, a grade-1 and a grade-2 document, a relevant document
never returned, tags other than the file names...), each command run with each option
changed gives what the Python API gives for the same setting, and not its default answer.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from irmeta.api import score
from irmeta.cli import build_parser, main, scores_tsv
from irmeta.cli_args import READING_OPTIONS, command_parser

QRELS = """1 0 a 2
1 0 b 0
1 0 c 1
1 0 d 1
1 0 e 2
2 0 a 1
2 0 f 2
2 0 g 0
"""
# r1's a and b differ only beyond float32: as doubles a (relevant) ranks first; rounded to
# single precision they tie and trec_eval's docid order (descending) puts b first.
RUNS = {
    "r1": [("1", "a", "1.00000002"), ("1", "b", "1.00000001"), ("1", "c", "0.5"), ("1", "d", "0.4"),
           ("2", "f", "3"), ("2", "g", "2"), ("2", "a", "1")],
    "r2": [("1", "c", "3"), ("1", "e", "2"), ("1", "b", "1"), ("2", "g", "3"), ("2", "a", "2")],
    "r3": [("1", "e", "5"), ("1", "d", "4"), ("1", "a", "3"), ("2", "a", "2"), ("2", "f", "1")],
    "r4": [("1", "b", "3"), ("1", "c", "2"), ("1", "x", "1"), ("2", "f", "9"), ("2", "x", "8"), ("2", "g", "7")],
}
# the judgment set agree compares: a's grades flipped, g made relevant
JUDGMENTS = QRELS.replace("1 0 a 2", "1 0 a 0").replace("2 0 g 0", "2 0 g 1")
MEASURES = ["P@1", "P@2", "nDCG@3", "Q@3", "ASL", "P_rareness@2"]
# --qrels-format qrels_jg's case: the qrels as judgment groups (a and b judge topic 1, a alone
# topic 2; read as TREC qrels, every document once), scored by the measures that read them
JG_QRELS = "1 a a 2\n1 a b 0\n1 a c 1\n1 b d 1\n1 b e 2\n2 a a 1\n2 a f 2\n2 b g 0\n"
JG_JUDGMENTS = JG_QRELS.replace("1 a a 2", "1 a a 0").replace("2 b g 0", "2 b g 1")
JG_MEASURES = ["P_avgjg@1", "P_avgjg@2", "map_avgjg", "Rprec_mult_avgjg"]
FAMILIES = {"r1": "x", "r2": "x", "r3": "y", "r4": "y"}

# Per reading option (a case: the flag, and what the case reads when a flag has several):
# its command-line value, and the API keyword and value it stands for.
CHANGED = {
    "--threshold": (["2"], {"threshold": 2}),
    "--depth": (["1"], {"depth": 1}),
    "--duplicates": (["first"], {"duplicates": "first"}),
    "--run-name": (["tag"], {"run_name": "tag"}),
    "--score-precision": (["float32"], {"score_precision": "float32"}),
    "--alpha": (["0.5"], {"alphas": [0.5]}),
    "--rarity-depth": (["3"], {"rarity_depth": 3}),
    "--gains": (["1:1,2:10"], {"gains": {1: 1.0, 2: 10.0}}),
    "--beta": (["0.5"], {"beta": 0.5}),
    "--asl-unretrieved": (["plus_one"], {"asl_unretrieved": "plus_one"}),
    "--qrels-format subtopics": (["subtopics"], {"qrels_format": "subtopics"}),
    "--qrels-format qrels_jg": (["qrels_jg"], {"qrels_format": "qrels_jg"}),
}
# the qrels as subtopic qrels: a judged for a second subtopic of topic 1 (so TREC's reading
# refuses it as judged twice), every grade of the collapsed qrels as QRELS's
SUBTOPIC_QRELS = QRELS + "1 1 a 0\n"
COMMANDS = ("score", "compare", "agree", "repro")
# repro says which of its columns are undefined on so small a campaign: beside the point here
pytestmark = pytest.mark.filterwarnings("ignore:.* is undefined")


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> dict:
    """The campaign, and a copy whose r2 returns a document twice (for --duplicates)."""
    root = tmp_path_factory.mktemp("reading")
    made: dict = {"qrels": _write(root / "qrels.txt", QRELS), "judgments": _write(root / "llm.txt", JUDGMENTS),
                  "subtopic_qrels": _write(root / "qrels.subtopics.txt", SUBTOPIC_QRELS),
                  "qrels_jg": _write(root / "qrels_jg.txt", JG_QRELS),
                  "judgments_jg": _write(root / "llm_jg.txt", JG_JUDGMENTS)}
    for variant, extra in (("runs", []), ("duplicated", [("1", "c", "0.1")])):
        made[variant] = [_write(root / variant / run, "".join(f"{q} Q0 {d} {i} {s} T{run}\n" for i, (q, d, s)
                                                              in enumerate(rows + (extra if run == "r2" else []))))
                         for run, rows in RUNS.items()]
    made["families"] = _write(root / "families.tsv", "run\tfamily\n" + "".join(f"{r}\t{f}\n" for r, f in
                                                                              FAMILIES.items()))
    made["families_tag"] = _write(root / "families_tag.tsv", "run\tfamily\n" + "".join(
        f"T{r}\t{f}\n" for r, f in FAMILIES.items()))
    return made


def _cli(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    assert code in (0, 2), err.getvalue()
    return code, out.getvalue() if code == 0 else err.getvalue()


def _inputs(c: dict, flag: str, changed: bool) -> tuple[list[str], str]:
    """The runs and families of ``flag``'s case: r2 returns a document twice for
    --duplicates, the families name runs by tag under --run-name tag."""
    runs = c["duplicated"] if flag == "--duplicates" else c["runs"]
    return runs, c["families_tag"] if flag == "--run-name" and changed else c["families"]


def _judged(c: dict, case: str) -> tuple[str, str, list[str]]:
    """The qrels, judgment set and measures of ``case``: the subtopic qrels for
    --qrels-format subtopics, the judgment groups and their measures for --qrels-format qrels_jg."""
    if case == "--qrels-format subtopics":
        return c["subtopic_qrels"], c["judgments"], MEASURES
    if case == "--qrels-format qrels_jg":
        return c["qrels_jg"], c["judgments_jg"], JG_MEASURES
    return c["qrels"], c["judgments"], MEASURES


def _argv(command: str, c: dict, case: str, values: list[str]) -> list[str]:
    """The command on the inputs of ``case``, its flag given ``values`` (none: its default)."""
    flag = case.split()[0]
    runs, families = _inputs(c, flag, bool(values))
    changed = [flag, *values] if values else []
    qrels, judgments, names = _judged(c, case)
    c = dict(c, qrels=qrels, judgments=judgments)
    measures = [a for m in names for a in ("--measure", m)]
    if command == "score":
        return ["score", "--qrels", c["qrels"], "--runs", *runs, *measures, "--per-topic", *changed]
    if command == "compare":
        return ["compare", "--qrels", c["qrels"], "--runs", *runs, *measures, "--format", "tsv", *changed]
    if command == "agree":
        return ["agree", "--qrels", c["qrels"], "--judgments", c["judgments"], "--runs", *runs, *measures,
                "--families", families, "--family-permutations", "20", "--format", "tsv", *changed]
    roles = ("--original-baseline", "--original-advanced", "--reproduced-baseline", "--reproduced-advanced")
    return ["repro", "--qrels", c["qrels"], *(a for pair in zip(roles, runs) for a in pair), *measures,
            "--format", "tsv", *changed]


def _api(command: str, c: dict, case: str, settings: dict) -> str:
    """The command's answer computed by the Python API with ``settings``, as the command writes it."""
    runs, families = _inputs(c, case.split()[0], bool(settings))
    qrels, judgments, measures = _judged(c, case)
    c = dict(c, qrels=qrels, judgments=judgments)
    if command == "score":
        return scores_tsv(score(c["qrels"], runs, measures, **settings).scores, per_topic=True, digits=None).decode()
    if command == "compare":
        from irmeta.comparison import compare, comparison_tsv

        return comparison_tsv(compare(c["qrels"], runs, measures, **settings))
    if command == "agree":
        from irmeta.agreement import agree_runs, render

        return render(agree_runs(c["qrels"], c["judgments"], runs, measures, families=families,
                                 family_permutations=20, **settings), "tsv")
    from irmeta.reproduction import repro, repro_tsv

    return repro_tsv(repro(c["qrels"], *runs, measures, **settings))


def test_every_reading_option_has_a_case_and_every_scoring_command_takes_them_all():
    declared = {o.flag for o in READING_OPTIONS if o.keyword is not None}
    assert {case.split()[0] for case in CHANGED} == declared
    parser = build_parser()
    for command in COMMANDS:
        flags = {f for a in command_parser(parser, command)._actions for f in a.option_strings}
        assert {o.flag for o in READING_OPTIONS} <= flags, command


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CHANGED))
@pytest.mark.parametrize("command", COMMANDS)
def test_each_option_changes_each_command_as_it_changes_the_api(campaign, command, case):
    values, settings = CHANGED[case]
    code, changed = _cli(*_argv(command, campaign, case, values))
    assert code == 0, changed
    assert changed == _api(command, campaign, case, settings)
    default_code, default = _cli(*_argv(command, campaign, case, []))
    if case == "--duplicates":  # the default refuses the run, as trec_eval does
        assert default_code == 2 and "r2" in default and len(default.splitlines()) == 1, default
    elif case == "--qrels-format subtopics":  # read as TREC qrels, a document judged for two subtopics is judged twice
        assert default_code == 2 and "judged twice" in default and len(default.splitlines()) == 1, default
    elif case == "--qrels-format qrels_jg":  # read as TREC qrels, the *_avgjg measures are refused, as trec_eval does
        assert default_code == 2 and "qrels_jg" in default and len(default.splitlines()) == 1, default
    else:
        assert default_code == 0 and default == _api(command, campaign, case, {})
        assert changed != default, f"{command} {case}: the option changed nothing"
