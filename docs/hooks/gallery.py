"""The figure gallery: every figure the workflow draws for the demo campaign and for TREC-8
under the paper's configuration, as they print (each a page wide at most), with its
report caption and its size and smallest text.

Two halves. ``python docs/hooks/gallery.py --data DATA --out build/gallery`` renders:
it runs the workflow (in a copy, as the tests do) on the default config (the demo, no
data needed) and on ``config/paper.yaml`` (TREC-8 when ``DATA`` holds it), every figure
with its facts beside it (``IRMETA_FIGURE_FACTS``, irmeta.artefacts.figures.style), into
``<out>/demo`` and ``<out>/paper``; ``make docs`` runs it first. As an MkDocs hook
(mkdocs.yml), it writes ``gallery.md`` from the renders under ``$IRMETA_GALLERY``
(default ``build/gallery``) and adds their PNGs and PDFs to the site; without renders the
page says how to make them. The test suite builds the site from its own runs of the two
configs (tests/integration/test_docs_browser.py), whose figures it checks too
(tests/unit/artefacts/test_print_ready_figures.py).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
DEFAULT = REPO / "build" / "gallery"
PAGE = "gallery.md"
#: The runs the gallery shows: folder, heading, the config files the workflow reads.
RUNS = (("demo", "The demo campaign (`config/config.yaml`)", ("config/config.yaml",)),
        ("paper", "TREC-8 under the paper's configuration (`config/paper.yaml`)",
         ("config/config.yaml", "config/paper.yaml")))
#: Figures beside the collections' own: file under results/, its report caption, its heading.
OTHERS = (("claims.png", "claims", "The claims across collections: `claims.png`"),
          ("paper/figure2.png", "kendall_tau", "The paper's Figure 2: `paper/figure2.png`"),
          ("figures/claims_vs_properties.png", "collection_properties",
           "The claims against the properties: `figures/claims_vs_properties.png`"))


# --- rendering -----------------------------------------------------------------------------


def render(data: Path, out: Path) -> None:
    """Run the workflow on each of :data:`RUNS`' configs in ``out/<run>`` (a fresh copy
    of the workflow each time, so the figures are this code's), facts beside every figure."""
    snakemake = Path(sys.executable).parent / "snakemake"
    for name, _, configs in RUNS:
        workdir = out / name
        shutil.rmtree(workdir, ignore_errors=True)
        workdir.mkdir(parents=True)
        shutil.copy2(REPO / "Snakefile", workdir / "Snakefile")
        for folder in ("workflow", "config", "profiles"):
            shutil.copytree(REPO / folder, workdir / folder, ignore=shutil.ignore_patterns("__pycache__"))
        extra = [arg for config in configs[1:] for arg in ("--configfile", config)]
        command = [str(snakemake), "--directory", str(workdir), "--snakefile", str(workdir / "Snakefile"),
                   "--cores", "2", "--quiet", *extra, "--config", f"data_root={data}"]
        print(f"gallery: rendering {name} in {workdir}", file=sys.stderr, flush=True)
        done = subprocess.run(command, env={**os.environ, "IRMETA_FIGURE_FACTS": "1"})
        if done.returncode and name == "demo":  # simulated: it needs no data, so it must run
            raise SystemExit(f"gallery: the {name} run failed ({done.returncode}); its log is above")
        if done.returncode:  # the paper's collections need their data: without it, a gallery of the demo
            print(f"gallery: the {name} run failed ({done.returncode}; is the data at {data}?): the gallery "
                  f"shows the demo only", file=sys.stderr)
            shutil.rmtree(workdir, ignore_errors=True)


# --- the page ------------------------------------------------------------------------------


def gallery_root() -> Path:
    return Path(os.environ.get("IRMETA_GALLERY") or DEFAULT).resolve()


def merged(configs: tuple[str, ...]) -> dict[str, Any]:
    """The configuration a run read: its files merged in order (nested keys merged), the
    defaults filled in, as the workflow checks it; None when it does not check here."""
    def merge(base: dict, extra: dict) -> dict:
        out = dict(base)
        for key, value in extra.items():
            out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
        return out

    config: dict[str, Any] = {}
    for name in configs:
        config = merge(config, yaml.safe_load((REPO / name).read_text()) or {})
    from irmeta.pipeline.config_checks import validate_config

    return validate_config(config, configs[-1])


def caption(name: str, config: dict[str, Any]) -> str:
    """A report caption (``workflow/report/<name>.rst``) with the run's settings, as the
    report shows it; its reStructuredText literals as Markdown code."""
    import jinja2

    text = (REPO / "workflow" / "report" / f"{name}.rst").read_text()
    text = jinja2.Template(text).render(snakemake=SimpleNamespace(config=config))
    return re.sub(r"``([^`]+)``", r"`\1`", " ".join(text.split()))


def facts_line(png: Path) -> str:
    """The figure's printed size, pages and smallest text, from its facts."""
    path = png.with_suffix(".facts.json")
    if not path.is_file():
        return ""
    pages = json.loads(path.read_text())["pages"]
    first = pages[0]
    smallest = min((t["size"] for p in pages for t in p["texts"]), default=0.0)
    more = f", {len(pages)} pages (the PNG is the first)" if len(pages) > 1 else ""
    return f"{first['width']:.1f} x {first['height']:.1f} in, smallest text {smallest:g} pt{more}."


def entries(results: Path) -> list[tuple[str, str, Path]]:
    """(heading, caption name, PNG) of every figure of a run, the collections' in the
    manifest's order, then the claims, Figure 2 and the properties figure."""
    from irmeta.pipeline.manifest import EXPERIMENTS

    found = []
    for collection in sorted(p for p in results.iterdir() if (p / "figures").is_dir() and p.name != "figures"):
        for experiment in EXPERIMENTS:
            for figure in experiment.figures:
                png = collection / "figures" / f"{figure.name}.png"
                if png.is_file():
                    title = f"{figure.subcategory}, {collection.name}: `{figure.name}.png`"
                    found.append((title, figure.caption or "", png))
    for path, name, title in OTHERS:
        if (results / path).is_file():
            found.append((title, name, results / path))
    return found


def page(root: Path) -> tuple[str, list[tuple[str, Path]]]:
    """The gallery's Markdown and the files it shows (site path, file)."""
    lines = ["# Figure gallery (generated)", "",
             "Every figure the workflow draws, as the site was built: for the demo campaign and for TREC-8 "
             "under the paper's configuration. Each fits a paper: at most a page wide (7 in) and 10 in high, "
             "its text at least 7 pt printed, every panel titled, every series told apart "
             "([The report and the figures](report.md)). A figure with more panels than a page holds goes on "
             "further pages of its PDF; its PNG shows the first. `make docs` renders them "
             "(`docs/hooks/gallery.py`).", ""]
    files: list[tuple[str, Path]] = []
    shown = 0
    for name, heading, configs in RUNS:
        results = root / name / "results"
        if not results.is_dir():
            continue
        try:
            config = merged(configs)
        except ValueError:  # a config that does not check: the figures without captions
            config = {}
        lines += [f"## {heading}", ""]
        for title, caption_name, png in entries(results):
            uri = f"gallery/{name}/{png.relative_to(results).as_posix()}"
            pdf = png.with_suffix(".pdf")
            files.append((uri, png))
            lines += [f"### {title}", "", f"![{title.replace('`', '')}]({uri})", ""]
            if pdf.is_file():
                files.append((uri[:-4] + ".pdf", pdf))
                lines.append(f"[PDF]({uri[:-4]}.pdf). {facts_line(png)}")
                lines.append("")
            if caption_name and config:
                lines += [caption(caption_name, config), ""]
            shown += 1
    if not shown:
        lines += ["No renders were found at `build/gallery` (or `$IRMETA_GALLERY`): `make docs` renders them "
                  "before it builds the site.", ""]
    return "\n".join(lines), files


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    text, shown = page(gallery_root())
    files.append(File.generated(config, PAGE, content=text))
    for uri, path in shown:
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description="Render the figure gallery's figures (the demo and the paper's "
                                                 "config) into OUT, for `mkdocs build` (IRMETA_GALLERY=OUT).")
    parser.add_argument("--data", type=Path, required=True, help="the campaign data (data_root)")
    parser.add_argument("--out", type=Path, default=DEFAULT, help="where to render (default: build/gallery)")
    args = parser.parse_args()
    render(args.data.resolve(), args.out.resolve())


if __name__ == "__main__":
    main()
