"""Bring your own scores: per-topic scores computed elsewhere, read into irmeta's experiments.

Two formats (:func:`read_score_file`):

- ``irmeta``: the TSV of ``irmeta score --per-topic``, a header ``run<TAB>measure<TAB>qid<TAB>value``
  then one row per run, measure and topic; qid ``all`` rows are means. Every measure must
  be one irmeta knows (its own, a plugin's, or one registered with
  :func:`irmeta.measures.plugins.register_imported_measure`); the geometric means' rows
  ``gm_<measure>`` (qid ``all``) are left out and counted, as ``gm_map`` is below.
- ``trec_eval``: the output of ``trec_eval -q``, ``measure qid value`` per line; each run's
  block is its per-topic lines then its summary lines (qid ``all``), where
  ``runid all <name>`` names it. Files may hold several runs' blocks one after another.
  trec_eval's names (``P_10``, ``map``, ``ndcg_cut_10``) become irmeta's (``P@10``, ``AP``,
  ``nDCG@10``); lines of measures irmeta does not know (counts such as ``num_q``,
  ``num_ret``, ``num_rel_ret``, the ``runid`` line itself, strings such as ``relstring``,
  measures such as ``gm_map`` or ``iprec_at_recall_0.00``) are left out and counted.

:func:`scores_from_table` lays such a table out as the :class:`~irmeta.measures.averaging.Scores`
the pipeline scores runs into, so that the experiments read imported scores as they read
their own. Names are read with :func:`~irmeta.measures.names.parse_measure`, which knows
trec_eval's spellings (and :func:`~irmeta.measures.names.trec_eval_name` writes them).

Means are never read from a file: a run's mean is the one definition irmeta scores runs
with (:func:`~irmeta.measures.averaging.run_means`), so identical per-topic scores give
identical means whatever the path. The file's mean rows (qid ``all``) are checked
against it, within their printed precision, over all topics (trec_eval -c) or over the
topics a run scores (trec_eval without -c; whatever ``missing`` says), then ignored; a
contradiction is one line naming the file, the line and both values
(:mod:`~irmeta.measures.score_files.mean_rows`; docs/PROTOCOL.md, Numerical care).

Memory follows the rows, not the text (see :mod:`~irmeta.measures.score_files.pieces`).
A value no score of its measure can be (outside the range its measure declares, or a
per-topic P@k, RR@k or Success@k off its grid, within the precision it was printed with)
is refused with its file and line (:mod:`~irmeta.measures.score_files.bounds`).

The modules, each importing only those above it: ``rows`` (:class:`ScoreRows`,
:class:`MeanRows` and the shared names), ``bounds`` (the values' ranges checked),
``pieces`` (reading helpers both formats share), ``formats`` (irmeta's TSV, trec_eval -q,
the tokenisers' checks, repeats), ``reading``
(:func:`read_score_file`, :func:`read_score_rows`), ``mean_rows`` (the mean rows checked)
and ``grid`` (tables to arrays: :func:`score_grid`, :func:`scores_from_table`).
"""

from __future__ import annotations

from irmeta.measures.score_files.grid import ScoreGrid, score_grid, scores_from_table, table_labels
from irmeta.measures.score_files.reading import read_score_file, read_score_rows
from irmeta.measures.score_files.rows import COLUMNS, HEADER, MeanRows, Missing, ScoreFormat, ScoreRows, TopicOrder

__all__ = ["COLUMNS", "HEADER", "MeanRows", "Missing", "ScoreFormat", "ScoreGrid", "ScoreRows",
           "TopicOrder", "read_score_file", "read_score_rows", "score_grid", "scores_from_table", "table_labels"]
