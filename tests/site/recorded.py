"""History folders as `codex-probe history` writes them, made without codex: every finding of
the registry on each release, with its verdict.json, learned profile and bundles, and the
fields newer histories add (surface, upstream, change_points) when a test asks for them.

The default history imitates the measured move of 0.162.0: the base instructions leave the
request's `instructions` field for a developer message (an observed value of required
findings) and a steered turn stops keeping its pending answer (an informative verdict).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.assumptions import ASSUMPTIONS
from codex_probe.probes.domain.findings import (
    FAKE_SECTION,
    FIDELITY_ID_PREFIX,
    Finding,
    ReproBundle,
    Verdict,
)
from codex_probe.probes.domain.surface.file import write_surfaces
from codex_probe.probes.domain.surface.release import ASPECTS, Surface
from codex_probe.probes.domain.verdict_file import VerdictReport
from codex_probe.probes.releases.history import probe_set, surface_path
from codex_probe.probes.runner.scenarios import SCENARIOS

BEFORE, MOVED, AFTER = "0.161.0", "0.162.0", "0.162.1"
FIELD = "top-level instructions field"
DEVELOPER = "input[0] role=developer part 0"
# Where a history made on another machine names its learned profiles.
ELSEWHERE = "/home/runner/work/codex-probe/reports/history-shard-2"

Observed = dict[str, Any]
# A release's findings: id -> (verdict, observed values).
Findings = dict[str, tuple[str, Observed]]


def every_finding_id() -> list[str]:
    return [a.id for a in ASSUMPTIONS] + [f"{FIDELITY_ID_PREFIX}{s}" for s in SCENARIOS]


def placement(version: str) -> Findings:
    """What the probes record on `version`, around the move of 0.162.0."""
    moved = [int(p) for p in version.split(".")] >= [0, 162, 0]
    base_at = [DEVELOPER if moved else FIELD]
    found: Findings = {}
    for assumption in ASSUMPTIONS:
        found[assumption.id] = ("holds", dict(assumption.expected))
    found["base-developer-placement"] = (
        "holds",
        {"base_in_user_message": False, "base_at": base_at, "order": "base first"},
    )
    found["start-applies-instructions"] = ("holds", {"base_seen": True, "base_at": base_at})
    found["steer-mid-answer-keeps-reply"] = (
        "changed" if moved else "holds",
        {"pending_answer_kept": not moved},
    )
    found["resume-refresh-cold"] = ("changed", {"new_base_seen": True})
    # Only the id in the message differs: no change.
    thread = (
        "10192eed-8b3c-40de-bf2b-7a58e72ab0d1" if moved else "0a1b2c3d-1111-4222-8333-444455556666"
    )
    message = f"no rollout found for thread id {thread}"
    found["error-resume-unknown-thread"] = ("holds", {"refused": True, "message": message})
    for scenario in SCENARIOS:
        profile = {"source": "learned", "path": f"{ELSEWHERE}/releases/{version}/learned/x.json"}
        found[f"{FIDELITY_ID_PREFIX}{scenario}"] = (
            "holds",
            {"fake_matches_real": True, "profile": profile},
        )
    return found


STEERED = "steer-in-flight-reaches-the-turn"  # decides openai/codex#40805 alone
QUEUED = "openai/codex#40805"


def queued_steer(states: dict[str, bool | None]) -> Callable[[str], Findings]:
    """What the probes record (placement), with openai/codex#40805 shown (True), not shown
    (False) or undecided (None: the finding that decides it broke) on the releases named."""

    def recorded(version: str) -> Findings:
        found = placement(version)
        if version in states:
            shown = states[version]
            found[STEERED] = (
                ("broken", {})
                if shown is None
                else (
                    "changed" if shown else "holds",
                    {"accepted": True, "item_before_the_in_flight_answer_ended": not shown},
                )
            )
        return found

    return recorded


def surface_files(
    folder: Path, aspects: Callable[[str], dict[str, dict[str, Any]]]
) -> Callable[[str], dict[str, Any]]:
    """For write_history's `surface`: each release's surface written to
    releases/VERSION/surface.json under `folder` (its `aspects`, the others empty), and the
    pointer to it history.json keeps, as a history run records them."""

    def recorded(version: str) -> dict[str, Any]:
        given = aspects(version)
        found = Surface(version, {a: dict(given.get(a, {})) for a in ASPECTS})
        write_surfaces(folder / surface_path(version), {version: found})
        return {"digest": found.digest(), "path": surface_path(version), "missing": []}

    return recorded


def finding(finding_id: str, version: str, verdict: str, observed: Observed) -> Finding:
    known = next((a for a in ASSUMPTIONS if a.id == finding_id), None)
    if known is None:  # a fidelity finding
        required, section, expected = False, FAKE_SECTION, {}
        statement = (
            f"fake-codex on the learned profile {ELSEWHERE}/releases/{version}/learned/"
            f"{version}.json is faithful"
        )
    else:
        required, section, expected = known.required, known.spec_section, dict(known.expected)
        statement = known.statement
    return Finding(
        id=finding_id,
        version=version,
        verdict=Verdict(verdict),
        required=required,
        spec_section=section,
        statement=statement,
        observed=observed,
        expected=expected,
        evidence=[f"real {version} step turn-1: {json.dumps(observed, sort_keys=True)}"],
        reproduce=f"codex-probe probe --codex {version} --only {finding_id}",
        summary="" if verdict == "holds" else f"assumption changed upstream: {finding_id}",
    )


def write_release(
    folder: Path,
    version: str,
    found: Findings,
    *,
    upstream: dict[str, list[dict[str, str]]] | None = None,
    with_files: bool = True,
) -> dict[str, Any]:
    """The release's folder (verdict.json, learned profile, a bundle per changed finding)
    under `folder`/releases/; its history.json entry."""
    here = folder / "releases" / version
    findings = {i: finding(i, version, v, o) for i, (v, o) in found.items()}
    if with_files:
        for finding_id, item in findings.items():
            if item.verdict is not Verdict.HOLDS and not item.is_fidelity:
                bundle = here / "repro" / f"{item.id}-{version}"
                bundle.mkdir(parents=True)
                (bundle / "README.md").write_text(f"# {item.id} on {version}\n")
                (bundle / "reproduce.py").write_text("print('replay')\n")
                (bundle / "reproduce.py").chmod(0o755)
                findings[finding_id] = replace(
                    item,
                    repro=ReproBundle(
                        f"repro/{bundle.name}",
                        run=f"python3 repro/{bundle.name}/reproduce.py --codex PATH_TO_CODEX",
                    ),
                )
        learned = here / "learned"
        learned.mkdir(parents=True, exist_ok=True)
        moved = found["base-developer-placement"][1].get("base_at") == [DEVELOPER]
        placed = "developer_message_first" if moved else "instructions_field"
        behaviour = {"base_placement": {"value": placed, "measured": True, "evidence": "start"}}
        (learned / f"{version}.json").write_text(json.dumps({"behaviour": behaviour}))
        (learned / f"wire-{version}.json").write_text("{}")
        report = VerdictReport({version: findings})
        document = report.to_json()
        for finding_id, issues in (upstream or {}).items():
            document["versions"][version][finding_id]["upstream"] = issues
        here.mkdir(parents=True, exist_ok=True)
        (here / "verdict.json").write_text(json.dumps(document))
    return {
        "tool": TOOL,
        "probe_set": probe_set(),
        "probed_at": f"2026-12-02T07:{len(version):02d}:00Z",
        "seconds": 10.5,
        "fake_profile": {
            "source": "learned",
            "path": f"{ELSEWHERE}/releases/{version}/learned/{version}.json",
            "gaps": [],
            "problem": None,
        },
        "findings": {
            i: {
                "verdict": f.verdict.value,
                "required": f.required,
                "observed": f.observed,
                "summary": f.summary,
            }
            for i, f in findings.items()
        },
    }


def write_history(
    folder: Path,
    versions: Iterable[str] = (BEFORE, MOVED, AFTER),
    *,
    recorded: Callable[[str], Findings] = placement,
    unavailable: Iterable[str] = (),
    with_files: bool = True,
    upstream: Callable[[str], dict[str, list[dict[str, str]]]] | None = None,
    surface: Callable[[str], Any] | None = None,
    **more: Any,
) -> Path:
    """A history folder; `more` goes into history.json as it is (change_points, watch)."""
    folder.mkdir(parents=True, exist_ok=True)
    releases: dict[str, Any] = {}
    for version in versions:
        entry = write_release(
            folder,
            version,
            recorded(version),
            upstream=upstream(version) if upstream else None,
            with_files=with_files,
        )
        if upstream is not None:
            for finding_id, issues in upstream(version).items():
                entry["findings"][finding_id]["upstream"] = issues
        if surface is not None:
            entry["surface"] = surface(version)
        releases[version] = entry
    for version in unavailable:
        releases[version] = {
            "tool": TOOL,
            "probe_set": probe_set(),
            "probed_at": "2026-12-02T07:00:00Z",
            "unavailable": "Error: Missing optional dependency @openai/codex-linux-x64",
            "findings": {},
        }
    document = {"tool": TOOL, "shard": None, "releases": releases, **more}
    (folder / "history.json").write_text(json.dumps(document))
    return folder
