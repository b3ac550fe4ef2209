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

Everything is drawn from ``numpy.random.default_rng(seed)``; files (including
the gzip headers) are byte-identical for a given seed and arguments.
"""

from __future__ import annotations

import gzip
import io
import operator
from pathlib import Path

import numpy as np

__all__ = ["simulate_campaign"]

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


def _strictly_decreasing(y: np.ndarray) -> np.ndarray:
    """Largest integer array <= y (elementwise) that strictly decreases along the last axis.

    With z_i = y_i + i the constraint y_i <= y_{i-1} - 1 becomes z_i <= z_{i-1},
    i.e. a running minimum, which keeps this vectorised.
    """
    idx = np.arange(y.shape[-1])
    return np.minimum.accumulate(y + idx, axis=-1) - idx


def _write_bytes(path: Path, data: bytes, gzip_it: bool) -> None:
    if gzip_it:
        buf = io.BytesIO()
        # mtime=0 and an empty name keep the gzip header seed-deterministic.
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz:
            gz.write(data)
        data = buf.getvalue()
    path.write_bytes(data)


def simulate_campaign(
    out_dir: str | Path,
    *,
    seed: int = 42,
    n_runs: int = 24,
    n_topics: int = 25,
    depth: int = 100,
    pool_size: int = 400,
    gzip_runs: bool = True,
) -> dict:
    """Write a synthetic TREC campaign to ``out_dir`` and describe it.

    Files: ``qrels.txt``, ``runs/<run_name>.gz`` (``.txt`` if ``gzip_runs`` is
    false) and ``run_groups.tsv``.  ``pool_size`` is the number of candidate
    documents per topic that runs retrieve from; runs return at most
    ``min(depth, pool_size)`` documents per topic.  Stale ``*.gz``/``*.txt``
    files in ``out_dir/runs`` are removed so the directory holds exactly this
    campaign.

    Returns a dict with ``qrels`` (Path), ``runs`` (list of Paths, in run
    order), ``run_groups`` (run name -> group name), ``seed`` and
    ``innovative`` (names of the runs that own the rare relevant documents).
    """
    seed = _check_int("seed", seed, 0)
    n_runs = _check_int("n_runs", n_runs, 2)
    n_topics = _check_int("n_topics", n_topics, 1)
    depth = _check_int("depth", depth, 1)
    pool_size = _check_int("pool_size", pool_size, 1)

    rng = np.random.default_rng(seed)
    T, U = n_topics, pool_size
    names, groups, n_innov = _design_runs(rng, n_runs)
    group_names = list(dict.fromkeys(groups))
    group_idx = np.array([group_names.index(g) for g in groups])
    innov = np.arange(n_runs - n_innov, n_runs)
    ordinary = np.arange(n_runs - n_innov)

    # --- relevance ---------------------------------------------------------
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

    # Random document order per topic; position k < n_rel marks relevance and
    # the first positions within the relevant set are hidden, then rare.
    pos = np.argsort(np.argsort(rng.random((T, U)), axis=1), axis=1)
    rel = pos < n_rel[:, None]
    grade = np.where(rel, np.where(rng.random((T, U)) < 0.3, 2, 1), 0)
    hidden = pos < n_hidden[:, None]
    rare = rel & ~hidden & (pos < (n_hidden + n_rare)[:, None])

    # Rare doc owners cycle over the innovative runs (so each owns some);
    # some are co-owned by the next innovative run.
    k = pos - n_hidden[:, None]
    owner = (np.arange(T)[:, None] + k) % n_innov
    co_owner = np.where(
        (rng.random((T, U)) < _P_CO_OWNED) & (n_innov > 1), (owner + 1) % n_innov, owner
    )
    # can[t, r, d]: whether run r is able to retrieve doc d at all.
    r_inn = np.full(n_runs, -1)
    r_inn[innov] = np.arange(n_innov)
    owns = rare[:, None, :] & (
        (r_inn[None, :, None] == owner[:, None, :]) | (r_inn[None, :, None] == co_owner[:, None, :])
    )
    can = ~hidden[:, None, :] & (~rare[:, None, :] | owns)

    # --- latent scores -----------------------------------------------------
    n_ord_groups = len(group_names) - n_innov
    base_q = rng.permutation(np.linspace(0.6, 2.6, n_ord_groups))
    quality = np.empty(n_runs)
    quality[ordinary] = base_q[group_idx[ordinary]] + rng.normal(0, 0.3, len(ordinary))
    quality[innov] = rng.uniform(1.2, 2.2, n_innov)
    quality = np.maximum(quality, 0.1)
    ease = rng.uniform(0.3, 1.3, T)

    s = (
        quality[None, :, None] * ease[:, None, None] * _GRADE_STRENGTH[grade][:, None, :]
        + rng.normal(0, _SD_POP, (T, 1, U))
        + rng.normal(0, _SD_GROUP, (T, len(group_names), U))[:, group_idx, :]
        + rng.normal(0, _SD_RUN, (T, n_runs, U))
        + _RARE_BOOST * owns
    )
    s = np.where(can, s, -np.inf)

    keep = min(depth, U)
    order = np.argsort(-s, axis=2, kind="stable")[:, :, :keep]  # (T, R, keep)
    top = np.take_along_axis(s, order, axis=2)
    length = np.isfinite(top).sum(axis=2)  # (T, R): retrievable docs in the top

    # Quirky runs (picked among ordinary runs so rare-doc guarantees hold).
    r_omit, r_short = rng.choice(ordinary, size=2, replace=len(ordinary) < 2)
    n_omit = min(2, T - 1)
    length[rng.choice(T, size=n_omit, replace=False), r_omit] = 0
    if keep > 1:
        short_topics = rng.random(T) < 0.3
        short_topics[rng.integers(T)] = True
        cut = rng.integers(max(1, keep // 5), keep, T)
        length[:, r_short] = np.where(short_topics, np.minimum(length[:, r_short], cut), length[:, r_short])
    n_tied = max(1, n_runs // 6)
    tied_runs = rng.choice(n_runs, size=n_tied, replace=False)

    # Printed scores: run-specific affine map of the latent score, in integer
    # micro-units so that rounding can never reorder or accidentally tie.
    offset = rng.uniform(-20.0, 30.0, n_runs)
    scale = rng.uniform(0.5, 3.0, n_runs)
    finite_top = np.where(np.isfinite(top), top, -50.0)
    micro = np.rint((offset[None, :, None] + scale[None, :, None] * finite_top) * 1e6).astype(np.int64)
    micro = _strictly_decreasing(micro)
    tie = rng.random(micro.shape) < _P_TIE
    tie[:, :, -1] = False
    tie &= np.isin(np.arange(n_runs), tied_runs)[None, :, None]
    t_i, r_i, j_i = np.nonzero(tie)
    micro[t_i, r_i, j_i + 1] = micro[t_i, r_i, j_i]

    # --- judgments ---------------------------------------------------------
    pool_depth = max(1, depth // 4)
    ranks = np.arange(keep)[None, None, :]
    pooled = (ranks < pool_depth) & (ranks < length[:, :, None])
    judged = rel | (rng.random((T, U)) < _P_EXTRA_JUDGED)
    tt = np.broadcast_to(np.arange(T)[:, None, None], order.shape)
    judged[tt[pooled], order[pooled]] = True

    # --- files -------------------------------------------------------------
    out = Path(out_dir)
    run_dir = out / "runs"
    run_dir.mkdir(parents=True, exist_ok=True)
    qids = [str(101 + t) for t in range(T)]
    t_width = max(4, len(str(100 + T)))
    d_width = max(5, len(str(U - 1)))
    docids = [
        [f"DOC-{101 + t:0{t_width}d}-{d:0{d_width}d}" for d in range(U)] for t in range(T)
    ]

    qrels_lines = []
    for t in range(T):
        for d in np.flatnonzero(judged[t]):  # docids are zero-padded: index order == string order
            qrels_lines.append(f"{qids[t]} 0 {docids[t][d]} {grade[t, d]}\n")
    qrels_path = out / "qrels.txt"
    qrels_path.write_text("".join(qrels_lines), encoding="ascii")

    suffix = ".gz" if gzip_runs else ".txt"
    wanted = {f"{n}{suffix}" for n in names}
    for stale in run_dir.iterdir():
        if stale.is_file() and stale.suffix in {".gz", ".txt"} and stale.name not in wanted:
            stale.unlink()

    run_paths: list[Path] = []
    order_l, micro_l, length_l = order.tolist(), micro.tolist(), length.tolist()
    for r, name in enumerate(names):
        lines = []
        for t in range(T):
            docs, scores, qid, ids = order_l[t][r], micro_l[t][r], qids[t], docids[t]
            for j in range(length_l[t][r]):
                lines.append(f"{qid} Q0 {ids[docs[j]]} {j + 1} {scores[j] / 1e6:.6f} {name}\n")
        path = run_dir / f"{name}{suffix}"
        _write_bytes(path, "".join(lines).encode("ascii"), gzip_runs)
        run_paths.append(path)

    run_groups = dict(zip(names, groups))
    (out / "run_groups.tsv").write_text(
        "run\tgroup\n" + "".join(f"{n}\t{g}\n" for n, g in run_groups.items()), encoding="ascii"
    )
    return {
        "qrels": qrels_path,
        "runs": run_paths,
        "run_groups": run_groups,
        "seed": seed,
        "innovative": [names[i] for i in innov],
    }
