"""Synthetic TREC evaluation campaign (the pipeline's embedded demo collection).

Generative model, per topic ``t`` with a universe of ``pool_size`` candidate
documents ``d``:

* A topic has ``R_t`` relevant documents (log-uniform in 5..60, one topic with
  only 1..3), graded 1 or 2.  Relevant documents come in three kinds:
  *ordinary* (any system can retrieve them), *rare* (only one or two
  designated "innovative" systems can retrieve them, e.g. through vocabulary
  mismatch the others cannot bridge) and *hidden* (no run retrieves them; they
  enter the qrels through extra, non-pooled judging).
* Run ``r`` of participant group ``g`` ranks the retrievable documents by a
  latent score::

      s[t, r, d] = quality[r] * ease[t] * strength[grade[t, d]]
                   + pop[t, d] + group[t, g, d] + own[t, r, d]

  ``pop`` is shared by all systems (documents that are easy to match),
  ``group`` is shared by the variants of one participant (so they retrieve
  mostly the same documents) and ``own`` is small run-specific noise.
  Innovative systems form singleton groups and get a boost on the rare
  documents they own.
* The top ``depth`` documents become the run; printed scores are an affine,
  run-specific transform of the latent score rounded to 6 decimals.  A few
  runs contain exactly tied scores, one run omits topics entirely and one run
  returns fewer than ``depth`` documents on some topics.
* Judgments cover the union of every run's top ``depth // 4`` documents (the
  pool), all relevant documents, and a small random sample of the rest.

What the campaign shares (runs, groups, quality, quirks) is drawn from
``numpy.random.default_rng(seed)``, each topic from its own stream
``default_rng([seed, 1, topic])``; files (including the gzip headers) are
byte-identical for a given seed and arguments, whatever the number of threads.
"""

from __future__ import annotations

import operator
import os
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta import __version__
from irmeta.support.arrow import joined_bytes
from irmeta.support.atomic import atomic_write_bytes, atomic_write_text, owned_folder
from irmeta.support.gzip_stream import GzipAppender
from irmeta.support.progress import progress_steps

# What a folder made by simulate_campaign holds: what made it and the files it wrote.
MARKER = ".irmeta-simulated"


# Latent relevance strength per grade (index = grade).
_GRADE_STRENGTH = np.array([0.0, 1.0, 1.6])


# Fraction of relevant documents that are hidden / rare (of the non-hidden).
_P_HIDDEN = 0.08


_P_RARE = 0.15


# Probability that a rare document is shared by a second innovative system.
_P_CO_OWNED = 0.3


# Latent boost an innovative system gets on the rare documents it owns.
_RARE_BOOST = 3.0


# Standard deviations of the shared / group / run-specific latent noise.
_SD_POP, _SD_GROUP, _SD_RUN = 1.0, 0.9, 0.3


# Fraction of non-pooled, non-relevant documents judged anyway.
_P_EXTRA_JUDGED = 0.05


# Per adjacent-rank probability of an exact score tie in "tied" runs.
_P_TIE = 0.02
# (run, topic, rank) cells drawn and written at a time (6 bytes each): the memory of a block.
_BLOCK_CELLS = 1 << 24
# What a run's gzip stream holds while its file is written a block at a time.
_GZIP_STREAM_BYTES = 300_000


_VARIANTS = (
    "bm25", "bm25-rm3", "ql-dir", "dfr-pl2", "bm25-sdm",
    "ql-jm", "inl2", "bm25-bo1", "lm-rm3", "bm25-axiom",
)


_INNOVATIVE = (("nova", "splade"), ("orbit", "colbert"), ("zenith", "doc2query"))


def _letters(i: int) -> str:
    """0 -> 'A', 25 -> 'Z', 26 -> 'AA' (spreadsheet-style group labels)."""
    s = ""
    i += 1
    while i:
        i, rem = divmod(i - 1, 26)
        s = chr(65 + rem) + s
    return s


def _check_int(name: str, value: int, minimum: int) -> int:
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {value!r}") from None
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _design_runs(rng: np.random.Generator, n_runs: int) -> tuple[list[str], list[str], int]:
    """Run names, their group names, and how many (trailing) runs are innovative."""
    n_innov = 3 if n_runs >= 20 else 2 if n_runs >= 6 else 1
    n_ord = n_runs - n_innov
    n_groups = max(1, round(n_ord / 5))
    sizes = np.full(n_groups, n_ord // n_groups)
    sizes[: n_ord % n_groups] += 1
    names: list[str] = []
    groups: list[str] = []
    for g, size in enumerate(sizes):
        group = f"sys{_letters(g)}"
        # Each participant submits a different subset of variants.
        order = rng.permutation(len(_VARIANTS))
        for k in range(size):
            variant = _VARIANTS[order[k % len(_VARIANTS)]]
            if k >= len(_VARIANTS):
                variant = f"{variant}-v{k // len(_VARIANTS) + 1}"
            names.append(f"{group}-{variant}")
            groups.append(group)
    for i in range(n_innov):
        group, model = _INNOVATIVE[i]
        names.append(f"{group}-{model}")
        groups.append(group)
    return names, groups, n_innov


def simulated_run_names(seed: int = 42, n_runs: int = 24) -> list[str]:
    """The run names :func:`simulate_campaign` gives for ``seed`` and ``n_runs`` (its
    first draws), without simulating: what a collection's config is checked against."""
    return _design_runs(np.random.default_rng(_check_int("seed", seed, 0)), _check_int("n_runs", n_runs, 2))[0]


def _strictly_decreasing(y: np.ndarray) -> np.ndarray:
    """Largest integer array <= y (elementwise) that strictly decreases along the last axis.

    With z_i = y_i + i the constraint y_i <= y_{i-1} - 1 becomes z_i <= z_{i-1},
    i.e. a running minimum, which keeps this vectorised.
    """
    idx = np.arange(y.shape[-1])
    return np.minimum.accumulate(y + idx, axis=-1) - idx


@dataclass(frozen=True)
class _Design:
    """What the whole campaign shares: runs, groups, quality, quirks and score maps."""

    names: list[str]
    groups: list[str]
    group_idx: np.ndarray
    n_innov: int
    quality: np.ndarray  # (runs,)
    ease: np.ndarray  # (topics,)
    n_rel: np.ndarray  # (topics,)
    n_hidden: np.ndarray
    n_rare: np.ndarray
    omitted: np.ndarray  # (topics,) bool: the omitting run skips the topic
    r_omit: int
    short_cut: np.ndarray  # (topics,) the short run's cut, 0 where it is not short
    r_short: int
    tied: np.ndarray  # (runs,) bool: runs with exact score ties
    offset: np.ndarray  # (runs,)
    scale: np.ndarray  # (runs,)


def _design(seed: int, n_runs: int, n_topics: int, keep: int, pool_size: int) -> _Design:
    rng = np.random.default_rng(seed)
    T, U = n_topics, pool_size
    names, groups, n_innov = _design_runs(rng, n_runs)
    group_names = list(dict.fromkeys(groups))
    position = {g: i for i, g in enumerate(group_names)}  # not list.index: 10^5 runs would take minutes
    group_idx = np.array([position[g] for g in groups])
    ordinary = np.arange(n_runs - n_innov)

    n_rel = np.rint(np.exp(rng.uniform(np.log(5), np.log(60), T))).astype(int)
    n_rel[rng.integers(T)] = rng.integers(1, 4)  # one nearly-empty topic
    n_rel = np.clip(n_rel, 1, max(1, U // 4))
    n_hidden = rng.binomial(n_rel, _P_HIDDEN)
    n_rare = rng.binomial(n_rel - n_hidden, _P_RARE)
    # Guarantee the campaign shows hidden and rare documents at all: the
    # largest topic gets >= 1 hidden and >= one rare doc per innovative run.
    big = int(np.argmax(n_rel))
    if n_rel[big] >= 2:
        n_hidden[big] = max(n_hidden[big], 1)
        n_rare[big] = max(n_rare[big], min(n_innov, n_rel[big] - n_hidden[big]))

    n_ord_groups = len(group_names) - n_innov
    base_q = rng.permutation(np.linspace(0.6, 2.6, n_ord_groups))
    quality = np.empty(n_runs)
    quality[ordinary] = base_q[group_idx[ordinary]] + rng.normal(0, 0.3, len(ordinary))
    quality[n_runs - n_innov:] = rng.uniform(1.2, 2.2, n_innov)
    quality = np.maximum(quality, 0.1)
    ease = rng.uniform(0.3, 1.3, T)

    # Quirky runs (picked among ordinary runs so rare-doc guarantees hold).
    r_omit, r_short = rng.choice(ordinary, size=2, replace=len(ordinary) < 2)
    omitted = np.zeros(T, dtype=bool)
    omitted[rng.choice(T, size=min(2, T - 1), replace=False)] = True
    short_cut = np.zeros(T, dtype=np.int64)
    if keep > 1:
        short_topics = rng.random(T) < 0.3
        short_topics[rng.integers(T)] = True
        cut = rng.integers(max(1, keep // 5), keep, T)
        short_cut = np.where(short_topics, cut, 0)
    tied = np.isin(np.arange(n_runs), rng.choice(n_runs, size=max(1, n_runs // 6), replace=False))
    # Printed scores: run-specific affine map of the latent score.
    offset = rng.uniform(-20.0, 30.0, n_runs)
    scale = rng.uniform(0.5, 3.0, n_runs)
    return _Design(names, groups, group_idx, n_innov, quality, ease, n_rel, n_hidden, n_rare, omitted, int(r_omit),
                   short_cut, int(r_short), tied, offset, scale)


@dataclass(frozen=True)
class _Topic:
    """One topic's runs and judgments: the top ``keep`` documents of every run."""

    order: np.ndarray  # (runs, keep) int16 document indices
    micro: np.ndarray  # (runs, keep) int32 printed scores in micro-units, strictly decreasing but ties
    length: np.ndarray  # (runs,) documents returned
    judged: np.ndarray  # judged document indices, ascending
    grade: np.ndarray  # their grades


def _topic(design: _Design, seed: int, t: int, keep: int, pool_size: int, pool_depth: int) -> _Topic:
    """Topic ``t`` drawn from its own stream, ``default_rng([seed, 1, t])``: the same
    whatever the number of threads or the order topics are made in."""
    rng = np.random.default_rng([seed, 1, t])
    U, n_runs, n_innov = pool_size, len(design.names), design.n_innov
    # Random document order; position k < n_rel marks relevance and the first positions
    # within the relevant set are hidden, then rare.
    pos = np.argsort(np.argsort(rng.random(U)))
    rel = pos < design.n_rel[t]
    grade = np.where(rel, np.where(rng.random(U) < 0.3, 2, 1), 0)
    hidden = pos < design.n_hidden[t]
    rare = rel & ~hidden & (pos < design.n_hidden[t] + design.n_rare[t])
    # Rare doc owners cycle over the innovative runs (so each owns some); some are
    # co-owned by the next innovative run.
    owner = (t + pos - design.n_hidden[t]) % n_innov
    co_owner = np.where((rng.random(U) < _P_CO_OWNED) & (n_innov > 1), (owner + 1) % n_innov, owner)
    r_inn = np.full(n_runs, -1)
    r_inn[n_runs - n_innov:] = np.arange(n_innov)
    owns = rare[None, :] & ((r_inn[:, None] == owner[None, :]) | (r_inn[:, None] == co_owner[None, :]))
    can = ~hidden[None, :] & (~rare[None, :] | owns)  # whether run r is able to retrieve doc d

    s = (design.quality[:, None] * design.ease[t] * _GRADE_STRENGTH[grade][None, :]
         + rng.normal(0, _SD_POP, (1, U))
         + rng.normal(0, _SD_GROUP, (len(set(design.groups)), U))[design.group_idx]
         + rng.normal(0, _SD_RUN, (n_runs, U))
         + _RARE_BOOST * owns)
    s = np.where(can, s, -np.inf)
    order = np.argsort(-s, axis=1, kind="stable")[:, :keep]
    top = np.take_along_axis(s, order, axis=1)
    length = np.isfinite(top).sum(axis=1)
    if design.omitted[t]:
        length[design.r_omit] = 0
    if design.short_cut[t]:
        length[design.r_short] = min(length[design.r_short], design.short_cut[t])

    # Integer micro-units, so that rounding can never reorder or accidentally tie.
    finite_top = np.where(np.isfinite(top), top, -50.0)
    micro = _strictly_decreasing(np.rint((design.offset[:, None] + design.scale[:, None] * finite_top) * 1e6)
                                 .astype(np.int64))
    tie = rng.random(micro.shape) < _P_TIE
    tie[:, -1] = False
    tie &= design.tied[:, None]
    r_i, j_i = np.nonzero(tie)
    micro[r_i, j_i + 1] = micro[r_i, j_i]

    # Judgments: the pool (every run's top pool_depth), all relevant documents, and a few more.
    judged = rel | (rng.random(U) < _P_EXTRA_JUDGED)
    pooled = np.arange(keep)[None, :] < np.minimum(length, pool_depth)[:, None]
    judged[order[pooled]] = True
    docs = np.flatnonzero(judged)
    return _Topic(order.astype(np.int16), micro.astype(np.int32), length, docs, grade[docs])


def _decimal(values: np.ndarray, width: int = 0) -> pa.Array:
    """Integers as decimal strings, zero-padded to ``width``."""
    text = pc.cast(pa.array(values), pa.string())
    return pc.utf8_lpad(text, width, "0") if width else text


def _fixed6(micro: np.ndarray) -> pa.Array:
    """micro / 1e6 printed with 6 decimals, as ``f"{micro / 1e6:.6f}"`` prints it."""
    magnitude = np.abs(micro.astype(np.int64))
    sign = pa.array(np.where(micro < 0, "-", ""))
    return pc.binary_join_element_wise(sign, _decimal(magnitude // 1_000_000), ".",
                                       _decimal(magnitude % 1_000_000, 6), "")


def _docids(topic: np.ndarray, doc: np.ndarray, t_width: int, d_width: int) -> pa.Array:
    return pc.binary_join_element_wise("DOC", _decimal(101 + topic, t_width), _decimal(doc, d_width), "-")


def _run_text(name: str, order: np.ndarray, micro: np.ndarray, length: np.ndarray, t_width: int,
              d_width: int, first: int = 0) -> bytes:
    """One run's lines for topics ``first``, ``first + 1``, ..., ``qid Q0 docid rank score
    name``, built column-wise (no loop over lines)."""
    keep = order.shape[1]
    rows = np.arange(keep)[None, :] < length[:, None]  # (topics, keep)
    topic, rank = np.nonzero(rows)
    topic += first
    lines = pc.binary_join_element_wise(
        _decimal(101 + topic), "Q0", _docids(topic, order[rows], t_width, d_width), _decimal(rank + 1),
        _fixed6(micro[rows]), f"{name}\n", " ")
    return joined_bytes(lines)


DEFAULT_DEPTH = 100  # simulate_campaign's runs' depth


def simulated_pool_depth(depth: int | None = None) -> int:
    """The pool depth of a campaign simulated to ``depth`` (None: :data:`DEFAULT_DEPTH`):
    every run's top quarter is judged (with every relevant document and a few others), as
    TREC pools each run's top d; the depth the collection's reusability experiment
    rebuilds pools from."""
    return max(1, int(DEFAULT_DEPTH if depth is None else depth) // 4)


def simulate_campaign(
    out_dir: str | Path,
    *,
    seed: int = 42,
    n_runs: int = 24,
    n_topics: int = 25,
    depth: int = DEFAULT_DEPTH,
    pool_size: int = 400,
    gzip_runs: bool = True,
    threads: int = 2,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict:
    """Write a synthetic TREC campaign to ``out_dir`` and describe it.

    Files: ``qrels.txt``, ``runs/<run_name>.gz`` (``.txt`` if ``gzip_runs`` is
    false) and ``run_groups.tsv``. The qrels judge every run's top
    :func:`simulated_pool_depth` documents per topic (its pool), every relevant document
    and a few others. ``pool_size`` is the number of candidate
    documents per topic that runs retrieve from, at least ``depth`` (a smaller one is
    refused: it could not fill the runs).

    ``out_dir`` must be new, empty, or a folder this function made (its marker
    ``.irmeta-simulated`` lists the files it wrote): only those files are replaced or,
    when this campaign has no such run, removed; anything else refuses the folder
    (:class:`FileExistsError`) before any work. The campaign is written to a hidden
    folder inside ``out_dir`` and moved into place when complete, so a failure leaves
    the folder as it was. A campaign whose estimated memory or disk exceeds the
    machine's is refused (:class:`ValueError`) before anything is allocated.

    Topics are drawn a block at a time from their own streams and each run's lines for
    the block are formatted column-wise and appended to its file, in ``threads``
    threads: 10^8 lines take minutes, in memory of a block of topics (about 2^24
    (run, topic, rank) cells) and a gzip stream (~0.3 MB) per run, never the whole
    campaign. ``progress(stage, done, total)``
    hears how far it got; the topics written also show as a bar when a caller asked
    (:func:`~irmeta.support.progress.shown_by`: ``irmeta simulate`` on a terminal).
    Files are byte-identical for a seed and arguments.

    Returns a dict with ``qrels`` (Path), ``runs`` (list of Paths, in run
    order), ``run_groups`` (run name -> group name), ``seed`` and
    ``innovative`` (names of the runs that own the rare relevant documents).
    """
    seed = _check_int("seed", seed, 0)
    n_runs = _check_int("n_runs", n_runs, 2)
    n_topics = _check_int("n_topics", n_topics, 1)
    depth = _check_int("depth", depth, 1)
    pool_size = _check_int("pool_size", pool_size, 1)
    if pool_size > np.iinfo(np.int16).max:
        raise ValueError(f"pool_size must be <= {np.iinfo(np.int16).max}, got {pool_size}")
    if pool_size < depth:  # silently shorter runs would not be what was asked for
        raise ValueError(f"pool_size {pool_size} cannot fill depth {depth}: a run of depth d ranks d distinct "
                         f"documents per topic, drawn from the pool_size candidates (pool_size >= depth)")
    out = Path(out_dir)
    keep = min(depth, pool_size)
    _check_fits(out, n_runs, n_topics, keep, pool_size, max(1, threads), gzip_runs)
    design = _design(seed, n_runs, n_topics, keep, pool_size)  # O(runs + topics): its names are needed now
    suffix = ".gz" if gzip_runs else ".txt"
    names = ["qrels.txt", "run_groups.tsv", *(f"runs/{n}{suffix}" for n in design.names)]
    about = {"made_by": f"irmeta {__version__} simulate", "options": dict(
        seed=seed, n_runs=n_runs, n_topics=n_topics, depth=depth, pool_size=pool_size, gzip_runs=gzip_runs)}
    # refuses a folder it did not make before any work; written aside, moved in when complete
    with (owned_folder(out, names, marker=MARKER, maker="irmeta simulate", about=about) as staging,
          progress_steps("topics simulated", n_topics, "topic") as step):
        report = _reporting(progress, step)
        widths = (max(4, len(str(100 + n_topics))), max(5, len(str(pool_size - 1))))
        judged = _write_runs(staging / "runs", design, seed, n_topics, keep, pool_size, depth, widths, gzip_runs,
                             threads, report)
        _write_qrels(staging / "qrels.txt", judged, widths)
        run_groups = dict(zip(design.names, design.groups))
        atomic_write_text(staging / "run_groups.tsv",
                          "run\tgroup\n" + "".join(f"{n}\t{g}\n" for n, g in run_groups.items()))
    return {
        "qrels": out / "qrels.txt",
        "runs": [out / name for name in names[2:]],
        "run_groups": run_groups,
        "seed": seed,
        "innovative": design.names[n_runs - design.n_innov:],
    }


def _reporting(progress: Callable[[str, int, int], None] | None,
               step: Callable[[int], None]) -> Callable[[str, int, int], None]:
    """What :func:`_write_runs` reports to: the caller's ``progress``, and the topics
    written as steps of the shown bar (``done`` counts from the start; a step is the rise)."""
    shown = [0]

    def report(stage: str, done: int, total: int) -> None:
        if stage == "topics":
            step(done - shown[0])
            shown[0] = done
        if progress is not None:
            progress(stage, done, total)

    return report


def _topic_block(n_runs: int, keep: int) -> int:
    """Topics drawn and written at a time: about 2^24 (run, topic, rank) cells, 100 MB
    of drawn arrays, whatever the campaign's size."""
    return max(1, _BLOCK_CELLS // (n_runs * keep))


def _block_texts(names: list[str], topics: list[_Topic], first: int,
                 widths: tuple[int, int]) -> Callable[[int], bytes]:
    """Run ``r``'s lines for a block of topics (the first numbered ``first``)."""
    order = np.stack([topic.order for topic in topics])  # (topics, runs, keep)
    micro = np.stack([topic.micro for topic in topics])
    length = np.stack([topic.length for topic in topics])
    return lambda r: _run_text(names[r], order[:, r], micro[:, r], length[:, r], *widths, first)


def _write_runs(run_dir: Path, design: _Design, seed: int, n_topics: int, keep: int, pool_size: int, depth: int,
                widths: tuple[int, int], gzip_runs: bool, threads: int,
                report: Callable[[str, int, int], None]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every run file, streamed: topics drawn a block at a time (each from its own stream,
    in threads), each run's lines for the block formatted and appended to its file (in
    threads); returns every topic's judged documents and grades, for the qrels. Memory
    holds a block, never the campaign; the bytes are the same in any thread order."""
    suffix = ".gz" if gzip_runs else ".txt"
    run_dir.mkdir(parents=True, exist_ok=True)
    # each file streamed into the staging folder, moved into place whole by owned_folder
    streams = [GzipAppender(run_dir / f"{name}{suffix}", gzip_runs) for name in design.names]
    judged: list[tuple[np.ndarray, np.ndarray]] = []
    block = _topic_block(len(design.names), keep)
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        for first in range(0, n_topics, block):
            topics = list(pool.map(lambda t: _topic(design, seed, t, keep, pool_size, simulated_pool_depth(depth)),
                                   range(first, min(first + block, n_topics))))
            judged += [(topic.judged, topic.grade) for topic in topics]
            texts = _block_texts(design.names, topics, first, widths)
            list(pool.map(lambda r: streams[r].add(texts(r)), range(len(streams))))  # noqa: B023 (used at once)
            report("topics", first + len(topics), n_topics)
        list(pool.map(GzipAppender.close, streams))
    report("runs", len(streams), len(streams))
    return judged


def _write_qrels(path: Path, judged: list[tuple[np.ndarray, np.ndarray]], widths: tuple[int, int]) -> Path:
    """Every topic's judged documents as qrels lines, formatted column-wise."""
    topic = np.concatenate([np.full(len(d), t) for t, (d, _) in enumerate(judged)])
    doc = np.concatenate([d for d, _ in judged])
    grades = np.concatenate([g for _, g in judged])
    # docids are zero-padded: index order is string order
    qrels = pc.binary_join_element_wise(_decimal(101 + topic), "0", _docids(topic, doc, *widths),
                                        pc.binary_join_element_wise(_decimal(grades), "\n", ""), " ")
    atomic_write_bytes(path, joined_bytes(qrels))
    return path


def _size(n: float) -> str:
    """Bytes in decimal units, e.g. ``240.0 TB``."""
    unit = "B"
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            break
        n /= 1000
    return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"


def _check_fits(out: Path, n_runs: int, n_topics: int, keep: int, pool_size: int, threads: int,
                gzip_runs: bool) -> None:
    """Refuse (:class:`ValueError`) a campaign whose memory or disk, estimated from below
    so that only one that cannot fit is refused, exceeds the machine's physical memory or
    the free space where it goes. Bytes measured on campaigns of 10^6..10^7 cells: 6 per
    (run, topic, rank) cell of a block of drawn topics, ~48 per (run, candidate) of a
    topic being drawn and ~150 per line of a run's block being formatted (in each
    thread), a gzip stream per run, ~10 per line of a gzipped run (~45 plain) and ~20
    per qrels line (at least 1 in 20 candidates judged)."""
    cells = n_runs * n_topics * keep
    block = min(n_topics, _topic_block(n_runs, keep))
    memory = (6 * n_runs * block * keep + min(threads, n_topics) * 48 * n_runs * pool_size
              + min(threads, n_runs) * 150 * block * keep + (_GZIP_STREAM_BYTES * n_runs if gzip_runs else 0))
    disk = (10 if gzip_runs else 45) * cells + 20 * n_topics * (pool_size // 20 + 1)
    try:
        have_memory: int | None = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # no such sysconf here: not checked
        have_memory = None
    where = next(p for p in (out.absolute(), *out.absolute().parents) if p.exists())
    have_disk = shutil.disk_usage(where).free
    short = [f"{_size(need)} of {what} ({_size(have)} {has})"
             for need, have, what, has in ((memory, have_memory, "memory", "in this machine"),
                                           (disk, have_disk, "disk", f"free under {where}"))
             if have is not None and need > have]
    if short:
        raise ValueError(f"{out}: a campaign of {n_runs} runs x {n_topics} topics x {keep} documents needs about "
                         f"{' and '.join(short)}; ask for fewer runs, topics or documents per topic")
