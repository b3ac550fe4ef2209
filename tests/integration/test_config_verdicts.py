"""The library's verdict on a drawn config is Snakemake's (issue 26, ask 7): a config drawn
from the schema (tests/unit/pipeline/test_config_properties.py's strategy) that passes
the library's parse stage plans under ``snakemake -n``, and one it refuses stops
Snakemake with the library's one-line message, never a traceback or a schema dump."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import yaml
from hypothesis import HealthCheck, example, given, settings
from snakemake.utils import update_config
from test_workflow import _copy_workflow, _snakemake

from campaigns import REPO
from irmeta.pipeline.config_schema import ConfigError
from parse_stage import CONFIGS, parse_stage


def library_verdict(config: dict, workdir: Path, source: str) -> str | None:
    """None when the parse stage passes the config as Snakemake merges it (over
    config/config.yaml), else the refusal's message after the file's name."""
    merged = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(merged, copy.deepcopy(config))
    cwd = Path.cwd()
    os.chdir(workdir)  # plugins are imported from the working directory, as Snakemake's
    try:
        parse_stage(merged, source, workdir)
    except (ValueError, FileNotFoundError) as exc:
        message = str(exc)
        assert "\n" not in message and message.startswith(f"{source}: "), message
        assert isinstance(exc, (ConfigError, FileNotFoundError)) or "key '" in message, message
        return message.removeprefix(f"{source}: ")
    finally:
        os.chdir(cwd)
    return None


@settings(max_examples=3, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(config=CONFIGS)
@example(config={})  # the shipped config as it is: plans
@example(config={"measures": ["P_10", "P@10"]})  # one measure twice: refused by both, on one line
def test_snakemake_agrees_with_the_library(tmp_path_factory, config):
    workdir = _copy_workflow(tmp_path_factory.mktemp("verdict"))
    path = workdir / "drawn.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True))
    refusal = library_verdict(config, workdir, f"config/config.yaml + {path}")
    proc = _snakemake(workdir, "-n", "--configfile", str(path), timeout=120)
    out = proc.stdout + proc.stderr
    if refusal is None:
        assert proc.returncode == 0, out
    else:
        assert proc.returncode != 0 and refusal in out, f"library: {refusal}\nsnakemake:\n{out}"
        assert "Traceback" not in out and "Failed validating" not in out, out
    assert not (workdir / "results").exists()
