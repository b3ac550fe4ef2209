"""Every timing the README's "How fast" table and the documentation's pages state comes
from one file the benchmarks write, ``benchmarks/measured.yaml`` (issue 43, item 5): the
README's rows are its entries, a page's ``{{ measured.<key>.<figure> }}`` is filled in
from it by the docs hook, and a benchmark records what it measured there."""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest

from campaigns import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import measured  # noqa: E402


def _hook():
    spec = importlib.util.spec_from_file_location("docs_measured_hook", REPO / "docs" / "hooks" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_table_is_the_measured_file():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## How fast", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| campaign")]
    assert rows == [measured.readme_row(entry) for entry in measured.readme_entries(measured.load())]
    trec8 = measured.load()["trec8_paper"]["wall"]
    assert f"the run now takes {trec8}" in section  # the prose under it too
    test_errors = measured.load()["test_errors_trec8_2000_trials"]["wall"]
    assert f"command above ({test_errors} a measure" in readme  # the test-errors section's cost
    fast = measured.load()["make_test_fast"]
    said = " ".join(readme.split("`make\ntest-fast`", 1)[1].split("\n\n", 1)[0].split())
    assert f"{fast['tests']} tests, {fast['left_out']} left out, in {fast['wall']} on {fast['machine']}" in said
    full = measured.load()["make_test"]
    said = " ".join(readme.split("`make test` is the full suite", 1)[1].split("\n\n", 1)[0].split())
    assert f"it last ran in {full['wall']} at {full['commit']}" in said


def test_every_entry_says_what_measured_it():
    for key, entry in measured.load().items():
        assert entry.get("what") and entry.get("by"), key
        if not entry.get("readme"):  # the pages' entries: where and on what the figure was measured
            assert re.fullmatch(r"[0-9a-f]{7,40}", entry["commit"]) and re.fullmatch(r"\d{4}-\d\d-\d\d",
                                                                                     str(entry["date"])), key
            assert "core" in entry["machine"], key


def test_each_benchmark_figure_is_stated_through_the_measured_file():
    """The benchmarks page and the pages repeating its figures write each entry's figures
    through the hook, never as literal numbers (which would drift apart when one is measured
    again)."""
    hook = _hook()
    entries = measured.load()
    stated: dict[str, set[str]] = {}
    for page in sorted((REPO / "docs").rglob("*.md")):
        for key, name in hook.MEASURED_FIGURE.findall(page.read_text(encoding="utf-8")):
            stated.setdefault(key, set()).add(name)
    for key, entry in entries.items():
        if entry.get("readme"):
            continue
        numbers = {name for name in entry if name not in ("what", "by", "commit", "date", "machine")}
        assert key in stated and numbers <= stated[key], (key, numbers - stated.get(key, set()))
    page = (REPO / "docs" / "reference" / "benchmarks.md").read_text(encoding="utf-8")
    rendered = hook.with_measured_figures(page)
    for literal in ("26.7 s wall", "8 s and 546 MB", "1.26 s wall", "86 s wall", "6.9 s for the whole"):
        assert literal not in page and literal in rendered, literal


def test_pages_state_timings_through_the_measured_file():
    hook = _hook()
    entries = measured.load()
    pages = sorted((REPO / "docs").rglob("*.md"))
    used = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for key, name in hook.MEASURED_FIGURE.findall(text):
            assert name in entries.get(key, {}), (page, key, name)
            used += 1
    install = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    rendered = hook.with_measured_figures(install)
    assert f"take {entries['trec8_paper']['wall']} on 2 idle cores" in rendered and "{{" not in rendered
    assert used >= 2 and not re.search(r"about \d+ s on 2 cores", install)
    with pytest.raises(KeyError, match="measured.yaml has no trec8_paper.nope"):
        hook.with_measured_figures("{{ measured.trec8_paper.nope }}")


def test_a_benchmark_records_a_figure_keeping_the_others(tmp_path):
    copy = tmp_path / "measured.yaml"
    copy.write_text(measured.PATH.read_text(encoding="utf-8"))
    measured.record("trec8_paper", copy, wall="21.0 s")
    after = measured.load(copy)
    assert after["trec8_paper"]["wall"] == "21.0 s"
    assert after["trec8_paper"]["cpu"] == measured.load()["trec8_paper"]["cpu"]
    assert list(after) == list(measured.load())
    assert copy.read_text().startswith("# What the benchmarks measured")
