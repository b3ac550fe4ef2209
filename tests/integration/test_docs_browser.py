"""The documentation site opened in a real browser: every page of the built site loaded
in headless Chromium (as test_report.py opens the report), and every local link and
image of the rendered page (the DOM after scripts ran) leads to a built file, and every
anchor to an element of the page it names. The site is built as `make docs` builds it,
its figure gallery from the session's runs of the demo and of the paper's config
(tests/conftest.py; docs/hooks/gallery.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from test_report import CHROMIUM_FLAGS, _chromium

from campaigns import REPO

pytestmark = pytest.mark.integration


class _Refs(HTMLParser):
    """The <a href>, <img src> and element ids of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.images: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag == "img":
            self.images.append(attrs.get("src") or "")


@pytest.fixture(scope="module")
def site(tmp_path_factory, demo_workflow, paper_workflow) -> Path:
    out = tmp_path_factory.mktemp("site")
    renders = tmp_path_factory.mktemp("gallery")  # as `make docs` renders them: <run>/results/
    (renders / "demo").symlink_to(demo_workflow, target_is_directory=True)
    (renders / "paper").symlink_to(paper_workflow, target_is_directory=True)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", IRMETA_GALLERY=str(renders))
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _dom(chromium: str, page: Path, profile: Path) -> str:
    command = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=3000",
               "--dump-dom", page.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "</html>" in done.stdout, f"{page}: {done.stderr[-1000:]}"
    return done.stdout


def _target(root: Path, page: Path, ref: str) -> tuple[Path, str] | None:
    """The built file a local reference names, and its anchor; None for other sites. A
    path from the server's root (404.html's, served from any folder) starts at the site."""
    parts = urlsplit(ref)
    if parts.scheme or ref.startswith("//"):
        return None
    base = root if parts.path.startswith("/") else page.parent
    path = (base / unquote(parts.path).lstrip("/")).resolve() if parts.path else page
    if path.is_dir():
        path = path / "index.html"
    return path, unquote(parts.fragment)


def test_every_page_opens_and_its_links_and_images_resolve(site, tmp_path):
    chromium = _chromium()
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 20
    with ThreadPoolExecutor(max_workers=2) as pool:
        doms = dict(zip(pages, pool.map(lambda ip: _dom(chromium, ip[1], tmp_path / f"profile{ip[0]}"),
                                        enumerate(pages))))
    refs = {}
    for page, dom in doms.items():
        parsed = _Refs()
        parsed.feed(dom)
        refs[page.resolve()] = parsed
        assert parsed.links, f"{page}: no link rendered"
    broken = []
    for page, parsed in refs.items():
        for kind, items in (("link", parsed.links), ("image", parsed.images)):
            for ref in items:
                target = _target(site.resolve(), page, ref)
                if target is None:
                    continue
                path, anchor = target
                if not path.is_file():
                    broken.append(f"{page.relative_to(site.resolve())}: {kind} {ref!r}: no such file")
                elif anchor and path in refs and anchor not in refs[path].ids:
                    broken.append(f"{page.relative_to(site.resolve())}: {kind} {ref!r}: no element #{anchor}")
    assert not broken, "\n".join(broken)
    gallery = refs[(site / "gallery" / "index.html").resolve()]
    assert len(gallery.images) >= 38, gallery.images  # the demo's 18 figures, TREC-8's 17, the claims, Figure 2
    assert all(image.endswith(".png") for image in gallery.images)


def test_the_check_sees_a_broken_link(tmp_path):
    """The resolver reports what is missing (so the test above could fail)."""
    page = tmp_path / "a" / "index.html"
    page.parent.mkdir()
    page.write_text("<html></html>")
    assert _target(tmp_path, page, "../b/") == ((tmp_path / "b").resolve(), "")
    assert not _target(tmp_path, page, "../b/")[0].is_file()
    assert _target(tmp_path, page, "/b/x.png") == ((tmp_path / "b" / "x.png").resolve(), "")
    assert _target(tmp_path, page, "https://example.org/x") is None
    assert _target(tmp_path, page, "#top") == (page, "top")
