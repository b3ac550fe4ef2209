"""``bench_peers.py --measures all`` (issue 42, item 4): every name irmeta reads with a
peer's meaning, scored by irmeta and by every peer installed on the same runs, side by side.

The names are the alias registry's (:data:`irmeta.measures.registry.PEER_NAMES`), each
example (as typed, as the peer is asked for it) once per campaign it is checked on: TREC-8
(binary) and TREC 2020 DL passage (grades 0-3) for the names the alias test checks itself;
TREC-8 alone for those a test module of their own checks (``checked_by``: cwl_eval's,
ir_measures' Compat and Accuracy, 11pt_avg with levels); ndeval's diversity names on a
generated Web-track-shaped campaign with subtopic qrels (tests/campaigns.py's generator:
50 topics of 3-8 graded subtopics). trec_eval's ``*_avgjg`` names need ``-R qrels_jg``
judgment groups, which no campaign here has: listed as not run, with their test module.

A trec_eval name is computed by the trec_eval binary (printing 4 decimals) and by
pytrec_eval (trec_eval's code, full precision) where it has the measure; ir_measures'
by ir_measures (its cwl_eval and gdeval providers among them), ranx's by ranx, ndeval's by
pyndeval. The peers read the run files' own scores, as their users give them.

Per case and peer: the mean over the topics the peer reports of irmeta's and the peer's
values, and the largest per-topic |difference|. A difference beyond the tolerance (1e-9
relative, or half a unit of the last decimal where the peer prints fewer) is explained
when a known cause removes it: ``float32 scores`` (irmeta reading the scores in single
precision, as older trec_eval and pytrec_eval do, equals the peer), ``ties order`` (the
peer fed the runs in trec_eval's order as strictly decreasing scores equals irmeta), ``pytrec_eval reads the parameters
otherwise`` (pytrec_eval, trec_eval 9's code, differs where the trec_eval 10 binary agrees
with irmeta). Otherwise the cause is ``unknown``: a defect until explained. A peer printing
a summary alone (trec_eval's num_q) is held to irmeta's values summarised as trec_eval
does without -c (over the topics each run returns; summed for the counts).
"""

from __future__ import annotations

import gzip
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOLERANCE = 1e-9
JUDGMENT_GROUPS = "avgjg"  # trec_eval's -R qrels_jg measures
DIVERSITY_PEERS = ("ndeval",)
TREC8, DL2020, DIVERSITY = "trec8_adhoc", "dl2020_passage", "diversity (generated)"
#: the tools computing each peer's names
TOOLS = {"trec_eval": ("trec_eval", "pytrec_eval"), "ir_measures": ("ir_measures",), "ranx": ("ranx",),
         "ndeval": ("pyndeval",)}

Values = dict[tuple[str, str], float]  # (run, qid) -> value
Run = dict[str, dict[str, float]]  # qid -> docid -> score


@dataclass(frozen=True)
class Case:
    """One example of one peer name on one campaign."""

    peer: str
    name: str  # the name as docs/names.md lists it
    typed: str
    request: str  # as the peer is asked for it
    canonical: str  # irmeta's reading
    campaign: str


@dataclass(frozen=True)
class Skipped:
    peer: str
    name: str
    why: str


def cases(peer_names: Iterable, parse: Callable[[str], object]) -> tuple[list[Case], list[Skipped]]:
    """Every example of every registered peer name on the campaigns it is checked on, and
    the names not run here with why (refused names; judgment groups)."""
    out: list[Case] = []
    skipped: list[Skipped] = []
    for entry in peer_names:
        if entry.refused:
            skipped.append(Skipped(entry.peer, entry.name, "refused by irmeta (another meaning): " +
                                   entry.differs.split(":")[0]))
            continue
        for typed, request in entry.examples:
            if JUDGMENT_GROUPS in request:
                skipped.append(Skipped(entry.peer, typed, f"needs trec_eval -R qrels_jg; checked by "
                                       f"{entry.checked_by}"))
                continue
            if entry.peer in DIVERSITY_PEERS or entry.checked_by.endswith("test_diversity.py"):
                campaigns: tuple[str, ...] = (DIVERSITY,)
            else:
                campaigns = (TREC8,) if entry.checked_by else (TREC8, DL2020)
            out += [Case(entry.peer, entry.name, typed, request, str(parse(typed)), c) for c in campaigns]
    return out, skipped


def tools_of(case: Case) -> tuple[str, ...]:
    """The tools that compute a case: a diversity name is ndeval's whoever spells it."""
    return ("pyndeval",) if case.campaign == DIVERSITY else TOOLS[case.peer]


# ------------------------------------------------------------------ comparison


@dataclass(frozen=True)
class Comparison:
    """irmeta against one tool on one case: the means over the topics compared, the
    largest per-topic |difference| and where, the tolerance, and the verdict."""

    topics: int
    ours: float
    theirs: float
    largest: float
    where: str
    tolerance: float
    cause: str  # "" within the tolerance; else the known cause, or "unknown"
    undefined: int = 0  # values the peer reports as NaN, left out


#: Peers that print their values rounded: (tool, request prefix) -> decimals (gdeval.pl, which
#: ir_measures runs for ERR@k, prints %.5f; the trec_eval binary's are read from its output).
PRINTED = {("ir_measures", "ERR@"): 5}


def printed_decimals(texts: Iterable[str]) -> int | None:
    """The decimals a peer printed (the most any value shows), None past 9 (full precision)."""
    most = max((len(t.partition(".")[2]) for t in texts if "e" not in t.lower()), default=0)
    return None if most > 9 else most


def within(difference: float, value: float, decimals: int | None) -> bool:
    """1e-9 relative to the value (at least 1e-9), or half a unit of the last decimal printed."""
    if decimals is None:
        return difference <= TOLERANCE * max(1.0, abs(value))
    return difference <= 0.5 * 10.0**-decimals + 1e-12


def largest_difference(ours: Mapping, theirs: Mapping) -> tuple[float, str, int, int]:
    """(largest |difference| over the keys the peer reports, where, keys compared, peer NaNs
    left out); a key irmeta lacks is an error."""
    missing = [k for k in theirs if k not in ours]
    if missing:
        raise ValueError(f"irmeta has no value for {missing[:3]}")
    nan = [k for k, v in theirs.items() if math.isnan(v)]
    diffs = {k: abs(ours[k] - v) for k, v in theirs.items() if not math.isnan(v)}
    if not diffs:
        return 0.0, "", 0, len(nan)
    worst = max(diffs, key=lambda k: (diffs[k], k))
    return diffs[worst], " ".join(worst), len(diffs), len(nan)


def agrees(ours: Mapping, theirs: Mapping, decimals: int | None) -> bool:
    """Every value the peer reports (NaN aside) within :func:`within` of irmeta's."""
    return all(math.isnan(v) or (k in ours and within(abs(ours[k] - v), v, decimals)) for k, v in theirs.items())


def compare(ours: Mapping, theirs: Mapping, decimals: int | None = None, *,
            ours_float32: Callable[[], Mapping] | None = None,
            theirs_ordered: Callable[[], Mapping] | None = None) -> Comparison:
    """irmeta's per-topic values against a tool's (printed to ``decimals``, None: full
    precision), with the cause of a difference when one of the known ones removes it
    (each computed only when needed)."""
    largest, where, n, nan = largest_difference(ours, theirs)
    kept = [k for k, v in theirs.items() if not math.isnan(v)]
    cause = ""
    if not agrees(ours, theirs, decimals):
        cause = "unknown"
        if ours_float32 is not None and agrees(ours_float32(), theirs, decimals):
            cause = "float32 scores"
        elif theirs_ordered is not None:
            ordered = theirs_ordered()
            if all(k in ordered for k in kept) and agrees(ours, {k: ordered[k] for k in kept}, decimals):
                cause = "ties order"
    bound = TOLERANCE if decimals is None else 0.5 * 10.0**-decimals
    if not kept:
        return Comparison(0, math.nan, math.nan, 0.0, "", bound, cause, nan)
    return Comparison(n, sum(ours[k] for k in kept) / n, sum(theirs[k] for k in kept) / n, largest, where, bound,
                      cause, nan)


# ------------------------------------------------------------------ reading


@dataclass
class Campaign:
    """A campaign's qrels and runs as the peers take them."""

    label: str
    qrels_path: Path
    run_paths: list[Path]
    qrels: dict[str, dict[str, int]]  # trec qrels (the diversity campaign's: a document's largest grade)
    runs: dict[str, Run]  # run name -> its scores as the file gives them
    subtopic_rows: list[tuple[str, str, str, int]] | None = None  # (topic, subtopic, docid, grade)
    qrels_format: str = "trec"

    def ordered(self) -> dict[str, Run]:
        """Each run in trec_eval's order (score descending, docid descending) as strictly
        decreasing scores, so a peer's own tie order plays no part."""
        out = {}
        for name, run in self.runs.items():
            out[name] = {}
            for q, docs in run.items():
                ranked = sorted(docs, key=lambda d: (docs[d], d.encode()), reverse=True)
                out[name][q] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
        return out


def _lines(path: Path) -> list[str]:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode().splitlines()


def read_run(path: Path) -> Run:
    run: Run = {}
    for line in _lines(path):
        if line.strip():
            q, _, d, _, s, *_ = line.split()
            run.setdefault(q, {})[d] = float(s)
    return run


def run_name(path: Path) -> str:
    return path.name.removesuffix(".gz")


def trec_campaign(data: Path, collection: str, runs: int | None) -> Campaign:
    root = data / collection
    paths = sorted((root / "runs").glob("*.gz"))[:runs]
    qrels: dict[str, dict[str, int]] = {}
    for line in _lines(root / "qrels.txt"):
        if line.strip():
            q, _, d, g = line.split()
            qrels.setdefault(q, {})[d] = int(g)
    return Campaign(collection, root / "qrels.txt", paths, qrels, {run_name(p): read_run(p) for p in paths})


def diversity_campaign(folder: Path, seed: int = 2024) -> Campaign:
    """tests/campaigns.py's Web-track-shaped campaign with subtopic qrels."""
    sys.path.insert(0, str(ROOT / "tests"))
    from campaigns import diversity_campaign as generate

    qrels_path, paths = generate(folder, seed)
    rows = [(q, s, d, int(g)) for q, s, d, g in (line.split() for line in qrels_path.read_text().splitlines())]
    qrels: dict[str, dict[str, int]] = {}
    for q, _, d, g in rows:
        qrels.setdefault(q, {})[d] = max(g, qrels.get(q, {}).get(d, g))
    return Campaign(DIVERSITY, qrels_path, list(paths), qrels, {run_name(p): read_run(p) for p in paths}, rows,
                    "subtopics")


def irmeta_values(campaign: Campaign, canonical: Sequence[str], precision: str = "double") -> dict[str, Values]:
    """irmeta's per-topic values of each canonical name (every qrels topic; a topic the run
    misses scores 0), the runs read to depth 1,000 (the measures without @k need a depth;
    no run here returns more, so trec_eval, reading every document, sees the same)."""
    import irmeta

    table = irmeta.evaluate(campaign.qrels_path, campaign.run_paths, list(canonical),
                            qrels_format=campaign.qrels_format, score_precision=precision, depth=1000)
    out: dict[str, Values] = {m: {} for m in canonical}
    for run, m, q, v in zip(table.run, table.measure, table.qid, table.value):
        out[m][(run, q)] = float(v)  # "all" too: a peer printing a summary alone (num_q) is held to it
    return out


# ------------------------------------------------------------------ the tools


def _common(campaign: Campaign, run: Run) -> list[str]:
    return sorted(set(campaign.qrels) & set(run))


def trec_eval_values(binary: Path, campaign: Campaign, request: str, canonical: str,
                     parse: Callable[[str], object]) -> tuple[Values, int | None]:
    """``trec_eval -q -m request`` on each run (gunzipped to a plain file): its per-topic
    lines, and the decimals it printed (4 from a stock build)."""
    out: Values = {}
    texts: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench_peers_te_") as tmp:
        plain = Path(tmp) / "run"
        for path in campaign.run_paths:
            plain.write_text("\n".join(_lines(path)) + "\n")
            text = subprocess.run([str(binary), "-q", "-m", request, str(campaign.qrels_path), str(plain)],
                                  capture_output=True, text=True, check=True).stdout
            rows = [line.split() for line in text.splitlines() if line.strip()]
            rows = [r for r in rows if r[0] != "runid"]
            per_topic = [r for r in rows if r[1] != "all"]
            rows = per_topic or rows  # num_q and the like: the summary line alone
            names = list(dict.fromkeys(r[0] for r in rows))
            if len(names) > 1:
                names = [n for n in names if _reads(parse, n) == canonical] or names[:1]
            kept = [r for r in rows if r[0] in names[:1]]
            out.update({(run_name(path), r[1]): float(r[2]) for r in kept})
            texts += [r[2] for r in kept]
    return out, printed_decimals(texts)


def _reads(parse: Callable[[str], object], name: str) -> str:
    try:
        return str(parse(name))
    except ValueError:
        return name


#: What the C peers wrote to standard error, by request (shown once under the case's row).
PEER_STDERR: dict[str, list[str]] = {}


def pytrec_eval_values(campaign: Campaign, runs: Mapping[str, Run], request: str, canonical: str,
                       parse: Callable[[str], object]) -> Values:
    """pytrec_eval's values; what its C code prints on standard error kept in :data:`PEER_STDERR`."""
    import pytrec_eval

    out: Values = {}
    with tempfile.TemporaryFile() as caught:
        saved = os.dup(2)
        os.dup2(caught.fileno(), 2)
        try:
            evaluator = pytrec_eval.RelevanceEvaluator(campaign.qrels, {request})
            for name, run in runs.items():
                for q, values in evaluator.evaluate({q: run[q] for q in _common(campaign, run)}).items():
                    keys = [k for k in values if _reads(parse, k) == canonical] or list(values)
                    out[(name, q)] = float(values[keys[0]])
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        caught.seek(0)
        lines = caught.read().decode(errors="replace").splitlines()
    if lines:
        PEER_STDERR[request] = lines
    return out


def ir_measures_values(campaign: Campaign, runs: Mapping[str, Run], request: str) -> Values:
    """ir_measures' values (its RBP without rel= by the one provider that has it,
    trectools); where it fails on a topic (Accuracy's division by zero), that topic's
    value is NaN, each topic then evaluated alone."""
    import ir_measures

    measure = ir_measures.parse_measure(request)
    provider = ir_measures.trectools if measure.NAME == "RBP" and "rel" not in measure.params else ir_measures
    qrels = [ir_measures.Qrel(q, d, g) for q, docs in campaign.qrels.items() for d, g in docs.items()]
    out: Values = {}
    for name, run in runs.items():
        topics = _common(campaign, run)
        scored = [ir_measures.ScoredDoc(q, d, s) for q in topics for d, s in run[q].items()]
        try:
            out.update({(name, m.query_id): float(m.value) for m in provider.iter_calc([measure], qrels, scored)})
        except ZeroDivisionError:
            for q in topics:
                alone = [ir_measures.Qrel(q, d, g) for d, g in campaign.qrels[q].items()]
                try:
                    got = [float(m.value) for m in provider.iter_calc(
                        [measure], alone, [ir_measures.ScoredDoc(q, d, s) for d, s in run[q].items()])]
                except ZeroDivisionError:
                    got = [math.nan]
                if got:
                    out[(name, q)] = got[0]
    return out


def ranx_values(campaign: Campaign, runs: Mapping[str, Run], request: str) -> Values:
    import ranx

    other = "hits@1" if request != "hits@1" else "hits@2"  # one metric: ranx 0.3's return_mean=False misreads it
    out: Values = {}
    for name, run in runs.items():
        topics = _common(campaign, run)
        qrels, scored = ranx.Qrels({q: campaign.qrels[q] for q in topics}), ranx.Run({q: run[q] for q in topics})
        scores = ranx.evaluate(qrels, scored, [request, other], return_mean=False, threads=1,
                               save_results_in_run=False)[request]
        out.update({(name, q): float(v) for q, v in zip(topics, scores.tolist())})
    return out


def pyndeval_values(campaign: Campaign, runs: Mapping[str, Run], request: str) -> Values:
    """pyndeval (ndeval's C code) on the subtopic qrels; a topic the run misses is absent."""
    import pyndeval

    assert campaign.subtopic_rows is not None
    evaluator = pyndeval.RelevanceEvaluator(campaign.subtopic_rows, [request], alpha=0.5, beta=0.5)
    out: Values = {}
    for name, run in runs.items():
        rows = [(q, d, s) for q in run for d, s in run[q].items()]
        out.update({(name, q): float(v[request]) for q, v in evaluator.evaluate(rows).items() if request in v})
    return out


def tool_values(tool: str, campaign: Campaign, case: Case, ordered: bool, trec_eval: Path | None,
                parse: Callable[[str], object]) -> tuple[Values, int | None]:
    """A tool's per-topic values of a case and the decimals it prints (None: full precision);
    ``ordered``: fed the runs in trec_eval's order as strictly decreasing scores."""
    runs = campaign.ordered() if ordered else campaign.runs
    decimals = next((d for (t, prefix), d in PRINTED.items() if t == tool and case.request.startswith(prefix)), None)
    if tool == "trec_eval":
        assert trec_eval is not None
        return trec_eval_values(trec_eval, campaign, case.request, case.canonical, parse)
    if tool == "pytrec_eval":
        return pytrec_eval_values(campaign, runs, case.request, case.canonical, parse), decimals
    if tool == "ir_measures":
        return ir_measures_values(campaign, runs, case.request), decimals
    if tool == "ranx":
        return ranx_values(campaign, runs, case.request), decimals
    return pyndeval_values(campaign, runs, case.request), decimals


# ------------------------------------------------------------------ the run


def installed(tool: str, trec_eval: Path | None) -> bool:
    if tool == "trec_eval":
        return trec_eval is not None
    import importlib.util

    return importlib.util.find_spec(tool) is not None


def row_text(case: Case, tool: str, c: Comparison | None, failure: str = "") -> str:
    head = f"{case.typed:<32.32} {case.canonical:<42.42} {case.campaign[:8]:<8} {tool:<11}"
    if c is None:
        return head + f" not computed: {failure}"
    verdict = "same" if not c.cause else c.cause
    nan = f"; {c.undefined} NaN from the peer left out" if c.undefined else ""
    return (head + f" {c.topics:5d} {c.ours:10.6f} {c.theirs:10.6f} {c.largest:9.2e} {verdict}"
            + (f" (at {c.where}; tolerance {c.tolerance:.0e}{nan})" if c.cause or nan else ""))


HEADER = (f"{'name as typed':<32} {'irmeta reads':<42} {'campaign':<8} {'peer':<11} {'n':>5} {'irmeta':>10} "
          f"{'peer':>10} {'max |d|':>9} verdict")


class CampaignCheck:
    """One campaign's cases: irmeta's values (double, and float32 when a cause is sought)
    and each tool's (as given, and in trec_eval's order when a cause is sought), each once."""

    def __init__(self, campaign: Campaign, cases: list[Case], trec_eval: Path | None,
                 parse: Callable[[str], object]) -> None:
        self.campaign, self.cases, self.trec_eval, self.parse = campaign, cases, trec_eval, parse
        self.names = list(dict.fromkeys(c.canonical for c in cases))
        self.ours = irmeta_values(campaign, self.names)
        self._float32: dict[str, Values] = {}
        self._tools: dict[tuple[str, str, bool], tuple[Values, int | None]] = {}

    def float32(self, canonical: str) -> Values:
        if not self._float32:
            self._float32.update(irmeta_values(self.campaign, self.names, "float32"))
        return self._float32[canonical]

    def values(self, tool: str, case: Case, ordered: bool) -> tuple[Values, int | None]:
        key = (tool, case.request, ordered)
        if key not in self._tools:
            self._tools[key] = tool_values(tool, self.campaign, case, ordered, self.trec_eval, self.parse)
        return self._tools[key]

    def compare(self, tool: str, case: Case) -> Comparison:
        theirs, decimals = self.values(tool, case, False)
        if not theirs:
            raise ValueError("the peer gave no value")
        ours = self.ours[case.canonical]
        if all(q == "all" for _, q in theirs):  # a summary alone (num_q): held to irmeta's trec_eval summary
            ours = self.summary(case.canonical, ours)
        c = compare(ours, theirs, decimals, ours_float32=lambda: self.float32(case.canonical),
                    theirs_ordered=None if tool == "trec_eval" else lambda: self.values(tool, case, True)[0])
        if c.cause == "unknown" and tool == "pytrec_eval" and self.trec_eval is not None:
            # pytrec_eval is trec_eval 9's code: where trec_eval 10 itself agrees with irmeta,
            # the difference is pytrec_eval's reading of the name's parameters
            if compare(self.ours[case.canonical], *self.values("trec_eval", case, False)).cause == "":
                c = replace(c, cause="pytrec_eval reads the parameters otherwise (trec_eval agrees)")
        return c

    def summary(self, canonical: str, ours: Values) -> Values:
        """irmeta's values as trec_eval summarises them without -c: over the topics each
        run returns, summed for the counts (num_q, num_ret...), else averaged."""
        from irmeta.measures.counts import SUMMED

        family = canonical.split("(")[0].split("@")[0]
        out: Values = {}
        for run, scores in self.campaign.runs.items():
            values = [ours[(run, q)] for q in scores if q in self.campaign.qrels]
            out[(run, "all")] = sum(values) if family in SUMMED else sum(values) / len(values)
        return out

    def run(self, out: Callable[[str], object]) -> tuple[int, int]:
        """Print each case's rows; (differences of no known cause, cases a peer could not compute)."""
        bad = failed = 0
        for case in self.cases:
            for tool in tools_of(case):
                if not installed(tool, self.trec_eval):
                    out(row_text(case, tool, None, "not installed"))
                    continue
                try:
                    c = self.compare(tool, case)
                except Exception as error:  # a peer's refusal is reported, never hidden
                    failed += 1
                    out(row_text(case, tool, None, f"{type(error).__name__}: {str(error).splitlines()[0][:90]}"))
                    continue
                bad += c.cause == "unknown"
                out(row_text(case, tool, c))
                if tool == "pytrec_eval" and case.request in PEER_STDERR:
                    lines = PEER_STDERR.pop(case.request)
                    out(f"{'':<32} pytrec_eval wrote on standard error: {lines[0]!r} ({len(lines)} lines)")
        return bad, failed


def bench_measures(data: Path, runs: int | None, trec_eval: Path | None, out: Callable[[str], object] = print) -> int:
    """Every registered peer name, irmeta beside each installed peer; 1 when a difference
    has no known cause, else 0 (a peer that cannot compute a name is listed, not counted:
    pytrec_eval lacks trec_eval 10's newer measures)."""
    from irmeta.measures.names import parse_measure
    from irmeta.measures.registry import PEER_NAMES

    todo, skipped = cases(PEER_NAMES, parse_measure)
    bad = failed = 0
    with tempfile.TemporaryDirectory(prefix="bench_peers_div_") as tmp:
        campaigns = {TREC8: trec_campaign(data, TREC8, runs), DL2020: trec_campaign(data, DL2020, runs),
                     DIVERSITY: diversity_campaign(Path(tmp))}
        out(f"Every peer name irmeta registers ({len({(c.peer, c.typed) for c in todo})} spellings, "
            f"{len(todo)} cases), irmeta beside each installed peer: means over the topics the peer reports, the "
            f"largest per-topic |difference|; runs: " + ", ".join(f"{k} {len(v.runs)}" for k, v in campaigns.items()))
        out(HEADER)
        for label, campaign in campaigns.items():
            check = CampaignCheck(campaign, [c for c in todo if c.campaign == label], trec_eval, parse_measure)
            counts = check.run(out)
            bad, failed = bad + counts[0], failed + counts[1]
    for s in skipped:
        out(f"{s.name:<32.32} {'':<42} {'':<8} {s.peer:<11} not run: {s.why}")
    out(f"{bad} case(s) with a difference of no known cause; {failed} a peer could not compute (listed above)")
    return 1 if bad else 0
