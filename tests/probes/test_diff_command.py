"""`codex-probe diff --from A --to B`: every surface difference between two releases, and
its exit code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codex_probe.harness.codex.install import Installation
from codex_probe.probes.domain.surface.file import load_surfaces, write_surfaces
from codex_probe.probes.domain.surface.release import ASPECTS, Surface
from tests.cli import codex_probe
from tests.site.recorded import BEFORE, MOVED, surface_files, write_history


def surface(version: str, missing: tuple[str, ...] = (), **aspects: dict[str, Any]) -> Surface:
    return Surface(version, {a: dict(aspects.get(a, {})) for a in ASPECTS}, missing)


OLD = surface(
    "0.150.0",
    answers={"s A thread/start": {"$": "object"}, "s B thread/list": {"$": "object"}},
    notifications={"s t turn/start": ["turn/started", "turn/completed"]},
)
NEW = surface(
    "0.171.0",
    answers={"s A thread/start": {"$": "object", "x": "string"}, "s B thread/list": {"$": "null"}},
    notifications={"s t turn/start": ["turn/started", "turn/completed"]},
)


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    path = tmp_path / "surface.json"
    write_surfaces(path, {"0.150.0": OLD, "0.171.0": NEW})
    return path


def test_json_gives_every_change_both_values_a_rule_and_a_severity(stored: Path) -> None:
    done = codex_probe(
        "diff", "--from", "0.150.0", "--to", "0.171.0", "--surfaces", str(stored), "--json"
    )
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    assert (document["a"], document["b"], document["fail_on"]) == ("0.150.0", "0.171.0", "INFO")
    assert document["counts"] == {"ERR": 1, "WARN": 0, "INFO": 1}
    assert document["changes"] == [
        {
            "aspect": "answers",
            "key": "s A thread/start",
            "before": {"$": "object"},
            "after": {"$": "object", "x": "string"},
            "driver_relevant": True,
            "rule": "response-field-added",
            "severity": "INFO",
            "details": [
                {
                    "rule": "response-field-added",
                    "severity": "INFO",
                    "where": "x",
                    "before": None,
                    "after": "string",
                }
            ],
        },
        {
            "aspect": "answers",
            "key": "s B thread/list",
            "before": {"$": "object"},
            "after": {"$": "null"},
            "driver_relevant": False,
            "rule": "response-field-now-nullable",
            "severity": "ERR",
            "details": [
                {
                    "rule": "response-field-now-nullable",
                    "severity": "ERR",
                    "where": "$",
                    "before": "object",
                    "after": "null",
                },
                {
                    "rule": "response-type-narrowed",
                    "severity": "INFO",
                    "where": "$",
                    "before": "object",
                    "after": "null",
                },
            ],
        },
    ]


def test_the_text_tells_what_breaks_a_client_first_with_its_rule(stored: Path) -> None:
    done = codex_probe("diff", "--from", "0.150.0", "--to", "0.171.0", "--surfaces", str(stored))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert (
        "codex-cli 0.150.0 -> 0.171.0: 2 surface difference(s): 1 ERR, 0 WARN, 1 INFO; "
        "1 the reference driver would feel"
    ) in lines
    err = lines.index("ERR: 1 change(s) that break a client")
    info = lines.index("INFO: 1 change(s), additive, or invisible to a client")
    assert err < lines.index("  answers s B thread/list") < info
    assert "    ERR  response-field-now-nullable: $: object -> null" in lines
    assert info < lines.index("    s A thread/start [the reference driver touches it]")
    assert "      + x: string" in lines


def test_a_release_against_itself_is_no_difference_and_exit_0(stored: Path) -> None:
    done = codex_probe(
        "diff", "--from", "0.171.0", "--to", "0.171.0", "--surfaces", str(stored), "--json"
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["changes"] == []


def test_a_surface_with_a_gap_is_compared_where_it_can_be_and_exits_3(tmp_path: Path) -> None:
    path = tmp_path / "surface.json"
    write_surfaces(path, {"0.150.0": OLD, "0.171.0": surface("0.171.0", missing=("s",))})
    done = codex_probe(
        "diff", "--from", "0.150.0", "--to", "0.171.0", "--surfaces", str(path), "--json"
    )
    assert done.returncode == 3
    assert json.loads(done.stdout)["changes"] == []
    assert "not compared, as not read: 0.171.0: s" in done.stderr


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--from", "0.171.0"], "the following arguments are required: --to"),
        (["--from", "0.171.0", "--to", "9.9.9"], "9.9.9"),
        (["--from", "0.171.0", "--to", "0.171.0", "--surfaces", "{broken}"], "not JSON"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    tmp_path: Path, args: list[str], problem: str
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    done = codex_probe("diff", *[a.replace("{broken}", str(broken)) for a in args])
    assert done.returncode == 2, done.stderr
    assert problem in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.real
def test_the_default_release_probed_twice_shows_no_difference_and_is_kept(
    tmp_path: Path, default_codex: Installation
) -> None:
    version = default_codex.version
    done = codex_probe("diff", "--from", version, "--to", version, "--json", timeout=600)
    assert done.returncode == 0, _what_differed(done.stdout) + done.stderr[-3000:]
    assert json.loads(done.stdout)["changes"] == []
    assert done.stderr.count(f"codex-cli {version}: surface sha256:") == 2
    kept = tmp_path / "surface.json"
    twice = codex_probe(
        "diff", "--from", version, "--to", version, "--surfaces", str(kept), timeout=600
    )
    assert twice.returncode == 0, twice.stdout[-3000:] + twice.stderr[-3000:]
    assert twice.stdout.count(f"codex-cli {version}: surface sha256:") == 2  # probed twice
    again = codex_probe(
        "diff", "--from", version, "--to", "0.150.0", "--surfaces", str(kept), timeout=600
    )
    assert again.returncode in (0, 1), again.stderr[-3000:]
    assert f"codex-cli {version}: surface read from {kept}" in again.stdout
    assert set(load_surfaces(kept)) == {version, "0.150.0"}


def test_a_history_that_records_both_releases_answers_without_probing(tmp_path: Path) -> None:
    def answers(version: str) -> dict[str, dict[str, Any]]:
        shape = {"$": "object"} | ({"thread.fresh": "boolean"} if version == MOVED else {})
        return {"answers": {"errors resume thread/resume": shape}}

    folder = tmp_path / "history"
    write_history(folder, (BEFORE, MOVED), surface=surface_files(folder, answers))
    done = codex_probe(
        "diff", "--history", str(folder), "--from", BEFORE, "--to", MOVED, "--json", timeout=60
    )
    assert done.returncode == 1, done.stderr
    assert [(c["key"], c["after"]) for c in json.loads(done.stdout)["changes"]] == [
        ("errors resume thread/resume", {"$": "object", "thread.fresh": "boolean"})
    ]
    assert done.stderr.splitlines() == [
        f"codex-cli {v}: surface read from {folder / 'releases' / v / 'surface.json'}"
        for v in (BEFORE, MOVED)
    ]


def _what_differed(stdout: str) -> str:
    """Each differing key and where inside it the two probes differ (a failure under load
    printed only the tail of a long diff once, and which field differed was lost)."""
    try:
        changes = json.loads(stdout)["changes"]
    except (ValueError, KeyError, TypeError):
        return stdout[-3000:]
    return "\n".join(
        f"{change['aspect']} {change['key']}: "
        + "; ".join(
            f"{d.get('where')}: {d.get('before')} -> {d.get('after')}" for d in change["details"]
        )
        for change in changes
    )
