"""A reproduction bundle: one finding on one release, as a folder an upstream maintainer
runs with Python and the codex binary alone (no codex-probe, no third-party package).

    README.md         what the design expects, what codex did, the one command to run
    reproduce.py      the replay of the scenario (standard library only)
    reading.py        how the finding's values are read from a run: codex-probe's own
                      codex_probe/probes/domain/reading.py, verbatim (standard library only)
    config.toml       the isolated codex home's config ({{provider_url}}: the mock)
    requests.jsonl    the scenario's JSON-RPC requests in order, with what each step awaits
    replies.jsonl     the model replies the mock provider queues, by step
    finding.json      the finding: statement, expected values, how each value is read
    observation.json  what the probe recorded: the outcome, the record the values were read
                      from, what the model saw (normalized)

The bundle judges a run with the very code the probe judged it with (reading.py), so its
reading of the probe's own run is the probe's verdict. A finding no bundle can reproduce
(a fidelity finding, a scenario that cannot be replayed) is refused with `NotBundled`,
which says why in one line.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import tomli_w

from codex_probe.harness.codex import seal
from codex_probe.harness.files import plain_name, write_json, write_text_atomically
from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain import reading
from codex_probe.probes.domain.assumptions import BY_ID, Assumption
from codex_probe.probes.domain.expressions import refusal_rules
from codex_probe.probes.domain.fidelity import normalize
from codex_probe.probes.domain.findings import FIDELITY_ID_PREFIX, Finding, ReproBundle
from codex_probe.probes.domain.observation import ScenarioOutcome
from codex_probe.probes.domain.watch import BY_ISSUE
from codex_probe.probes.releases.repro import record as run_record
from codex_probe.probes.releases.repro.assemble import script_text
from codex_probe.probes.releases.repro.readme import render_readme
from codex_probe.probes.releases.repro.script.main import READING_FILE
from codex_probe.probes.releases.repro.script.sealing import SEAL_FILE

BUNDLE_FILES = (
    "README.md",
    "reproduce.py",
    "config.toml",
    "requests.jsonl",
    "replies.jsonl",
    "finding.json",
    "observation.json",
    READING_FILE,
    SEAL_FILE,
)


class NotBundled(ValueError):
    """No bundle can reproduce this finding on this run; the message says why."""


# Where a probe run keeps the bundles of its changed and broken findings, under its --out.
REPRO_FOLDER = "repro"


def bundle_name(finding_id: str, version: str) -> str:
    return plain_name(f"{finding_id}-{version}")


def bundle_in_report(
    out: Path, finding: Finding, outcome: ScenarioOutcome, codex: Path | None = None
) -> ReproBundle:
    """Write the finding's bundle under `out`/repro/; its folder relative to `out` and the
    command that runs it (with `codex`, the binary it ran on, when known), or why there is
    no bundle."""
    name = bundle_name(finding.id, finding.version)
    try:
        write_bundle(out / REPRO_FOLDER / name, finding, outcome)
    except NotBundled as refusal:
        return ReproBundle(None, why=str(refusal))
    path = f"{REPRO_FOLDER}/{name}"
    binary = "PATH_TO_CODEX" if codex is None else str(codex)
    return ReproBundle(path, run=f"python3 {path}/reproduce.py --codex {binary}")


def write_bundle(folder: Path, finding: Finding, outcome: ScenarioOutcome) -> Path:
    """Write the bundle of `finding`, judged on `outcome` (a run of its scenario: the real
    codex's, for a bundle to show upstream), into `folder`; its README. NotBundled when no
    bundle can reproduce it."""
    assumption = _assumption(finding.id)
    observation = outcome.observation
    failure = None
    if observation is None and outcome.broken is not None:
        observation = outcome.broken.observation
        failure = run_record.failure_of(outcome.broken)
    if observation is None:
        raise NotBundled(f"its scenario did not run: {outcome.failure()}")
    try:
        steps = run_record.replay_steps(observation)
        replies = run_record.replies(observation)
        config = run_record.config(observation)
    except run_record.NotReplayable as error:
        raise NotBundled(f"scenario {assumption.scenario} cannot be replayed: {error}") from None
    recorded = run_record.record(observation, failure)
    described = _finding_document(assumption, finding, observation.backend)
    verdict = reading.judge(recorded, assumption.reads, assumption.expected, refusal_rules())
    folder.mkdir(parents=True, exist_ok=True)
    write_json(folder / "finding.json", described)
    _write_jsonl(folder / "requests.jsonl", steps)
    _write_jsonl(folder / "replies.jsonl", replies)
    write_text_atomically(folder / "config.toml", tomli_w.dumps(config))
    observation_document = {
        "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "tool": TOOL,
        "outcome": verdict,
        "evidence": finding.evidence,
        "normalized": normalize(observation),
        "record": recorded,
    }
    write_json(folder / "observation.json", observation_document)
    write_text_atomically(folder / "reproduce.py", script_text())
    (folder / "reproduce.py").chmod(0o755)
    # codex-probe's own reading and seal, verbatim: reproduce.py judges with the one and
    # starts codex through the other, as the probe does.
    for name, module in ((READING_FILE, reading), (SEAL_FILE, seal)):
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        write_text_atomically(folder / name, source)
    readme = render_readme(described, verdict, steps, replies, finding.evidence)
    write_text_atomically(folder / "README.md", readme)
    return folder / "README.md"


def why_not_bundled(finding_id: str) -> str | None:
    """Why no bundle can reproduce `finding_id` on any run, or None (known before any run)."""
    try:
        _assumption(finding_id)
    except NotBundled as refusal:
        return str(refusal)
    return None


def _assumption(finding_id: str) -> Assumption:
    if finding_id.startswith(FIDELITY_ID_PREFIX):
        raise NotBundled(
            "a fake-fidelity finding compares codex-probe's fake with codex: "
            "there is no behaviour of codex's to show upstream"
        )
    assumption = BY_ID.get(finding_id)
    if assumption is None:
        raise NotBundled(f"{finding_id} is no assumption of the registry")
    return assumption


def _finding_document(assumption: Assumption, finding: Finding, backend: str) -> dict[str, Any]:
    return {
        "finding": assumption.id,
        "version": finding.version,
        "backend": backend,  # what the probe ran: "real" codex-cli (or codex-probe's "fake")
        "scenario": assumption.scenario,
        "spec_section": assumption.spec_section,
        "required": assumption.required,
        "statement": assumption.statement,
        "expected": assumption.expected,
        "reads": assumption.reads,
        "refusal_rules": refusal_rules(),
        "probe_command": finding.reproduce,
        # The watched upstream issues the finding decides (codex_probe/probes/domain/watch.py).
        "upstream": [_upstream(entry, finding.id) for entry in finding.upstream],
        # What a replay must observe alike to reproduce the run: the expected values, and
        # the values that decide a watched upstream issue.
        "compared": list(dict.fromkeys([*assumption.expected, *_sign_keys(finding)])),
    }


def _sign_keys(finding: Finding) -> list[str]:
    return [
        key
        for entry in finding.upstream
        for sign in BY_ISSUE[entry["issue"]].signs
        if sign.finding == finding.id
        for key in sign.values
    ]


def _upstream(entry: dict[str, str], finding_id: str) -> dict[str, Any]:
    watched = BY_ISSUE[entry["issue"]]
    return {
        **entry,
        "url": watched.url,
        "title": watched.title,
        "present_means": watched.present_means,
        "shown_by": [sign.describe() for sign in watched.signs if sign.finding == finding_id],
    }


def _write_jsonl(path: Path, lines: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    write_text_atomically(path, text)
