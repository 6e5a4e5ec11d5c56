"""The site and the dataset say, per release, the worst rule its surface changes meet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codex_probe.reporting.site.build import build_site
from tests.site.recorded import AFTER, BEFORE, MOVED, surface_files, write_history

START = "client request thread/start"


def schema(version: str) -> dict[str, dict[str, Any]]:
    """MOVED retires a request enum value; AFTER only adds a method."""
    policy = "null|enum(never|on-failure)" if version == BEFORE else "null|enum(never)"
    methods = {START: {"params": {"approvalPolicy": policy}, "result": None}}
    if version == AFTER:
        methods["client request thread/goal/set"] = {"params": None, "result": None}
    return {"schema": methods}


def built(tmp_path: Path) -> Path:
    folder = tmp_path / "history"
    build_site(write_history(folder, surface=surface_files(folder, schema)), tmp_path / "site")
    return tmp_path / "site"


def test_the_index_draws_a_breaking_band_with_the_worst_rule_of_each_release(
    tmp_path: Path,
) -> None:
    index = (built(tmp_path) / "index.html").read_text()
    assert "Breaking changes: the worst rule the surface&#x27;s changes meet" in index
    band = index[index.index("Breaking changes: the worst rule") :].split("</tr>")[0]
    assert f"<td class=ke><a href=releases/{MOVED}.html#breaking>✖</a>" in band
    assert f"<td class=ki><a href=releases/{AFTER}.html#breaking>+</a>" in band
    assert "<td class=k0><span></span>" in band  # BEFORE: nothing before it to differ from
    assert "1 ERR), e.g. ERR request-enum-value-removed: <code>client request" in index


def test_a_release_page_names_every_err_change_and_the_diff_that_lists_its_rules(
    tmp_path: Path,
) -> None:
    page = (built(tmp_path) / "releases" / f"{MOVED}.html").read_text()
    section = page[page.index('id="breaking"') :]
    assert "1 key(s) of the surface changed here: 1 ERR, 0 WARN, 0 INFO" in section
    assert f"codex-probe diff --from {BEFORE} --to {MOVED} --fail-on ERR" in section
    assert "<td>request-enum-value-removed</td><td class='val'>schema client request" in section


def test_the_dataset_gives_each_surface_change_point_its_rule_and_each_release_its_counts(
    tmp_path: Path,
) -> None:
    data = built(tmp_path) / "data"
    index = json.loads((data / "index.json").read_text())
    surface = [p for p in index["change_points"] if p["kind"] == "surface"]
    assert [(p["first_changed"], p["rule"], p["severity"]) for p in surface] == [
        (MOVED, "request-enum-value-removed", "ERR"),
        (AFTER, "method-added", "INFO"),
    ]
    moved = json.loads((data / f"releases/{MOVED}.json").read_text())
    assert moved["breaking"] == {"ERR": 1, "WARN": 0, "INFO": 0}
    assert moved["dataset_version"] == 2  # the rule fields are new fields, not a new version
