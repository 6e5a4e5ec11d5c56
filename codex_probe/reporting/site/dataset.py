"""The published dataset: what codex-probe measured, release by release, as JSON files
others can build on.

    data/index.json             every release, every finding, the change points
    data/releases/VERSION.json  one release: each finding's verdict and values
    data/releases/VERSION/      its files: the fake profile, the surface, the bundles (zip)
    data/findings/ID.json       one finding across every release
    data/schema.json            the JSON schema of the three, generated from this model

Every file names its `record` (index, release or finding) and its `dataset_version`. A field
never changes meaning: a new meaning gets a new field, and a change that would break a
reader raises `DATASET_VERSION`. The schema is generated from the structs below
(`python -m codex_probe.reporting.site.dataset` prints it), checked in beside this module,
and a test holds the two equal; every field carries its description. Paths in the dataset
are relative to its folder (the one holding index.json).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from codex_probe.harness.files import plain_name

DATASET_VERSION = 2  # 2: a verdict may be `unsupported` (a history records it)
SCHEMA_FILE = Path(__file__).resolve().parent / "dataset.schema.json"
DATA = "data"  # the dataset's folder in the site
# What the names of the types below begin with, and their names in the schema do not.
PUBLISHED = "Published"

Verdict = Literal["holds", "changed", "broken", "unsupported"]
SeverityName = Literal["ERR", "WARN", "INFO"]
ChangeKind = Literal["verdict", "observed", "surface", "watch"]


def described(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


VERSION_FIELD = Annotated[
    int,
    described("The dataset format: 2. A reader that knows version N reads any file of N."),
]


ReleaseName = Annotated[str, described("A codex-cli version (npm @openai/codex).")]
Status = Annotated[
    Literal["probed", "not_installable"],
    described("not_installable: npm publishes it, but its codex does not run."),
]
ProbedAt = Annotated[str | None, described("When it was probed (UTC, ISO 8601); null: never.")]
FindingId = Annotated[str, described("The finding's stable id.")]
FindingKind = Annotated[
    Literal["assumption", "fidelity"],
    described(
        "assumption: a claim the design rests on, judged on codex; fidelity: whether "
        "codex-probe's fake imitates the release in one scenario (about the fake only)."
    ),
]
Required = Annotated[bool, described("The design requires it: a change fails the release gate.")]
SpecSection = Annotated[str, described('The spec section it comes from ("fake": fidelity).')]
Statement = Annotated[str, described("What the design claims, in one sentence.")]
Expected = Annotated[dict[str, Any], described("The values the design claims.")]
Summary = Annotated[str, described("One line: how it changed or why it is broken (empty: holds).")]
KindOfChange = Annotated[
    ChangeKind,
    described(
        "verdict: a finding's verdict; observed: one observed value of a finding under "
        "the same verdict; surface: an aspect of the protocol surface; watch: a watched "
        "upstream bug's state."
    ),
]
Key = Annotated[
    str,
    described(
        "What changed: a finding id (verdict), FINDING.VALUE (observed), an aspect "
        "(surface) or an issue (watch)."
    ),
]
Subject = Annotated[str, described("The finding id, aspect or issue the key belongs to (its row).")]
PointKey = Annotated[
    str,
    described(
        "What changed, as history.json's change points name it: a finding id (verdict; "
        "observed: before and after hold its observed values), ASPECT KEY (surface: one key "
        "of an aspect) or an issue (watch)."
    ),
]


class PublishedUpstream(msgspec.Struct):
    """A watched upstream bug that a finding decides, and its state on that release."""

    issue: Annotated[str, described('The upstream issue, "owner/repo#N".')]
    state: Annotated[str, described('"present": the release has the bug; "absent": it does not.')]


class PublishedCounts(msgspec.Struct):
    """How many findings of a release have each verdict."""

    holds: Annotated[int, described("Findings that hold.")]
    changed: Annotated[int, described("Findings that changed upstream.")]
    broken: Annotated[int, described("Findings the probe could not measure.")]
    unsupported: Annotated[
        int, described("Findings whose scenario needs a method the release lacks (version 2).")
    ] = 0


class PublishedReleaseEntry(msgspec.Struct):
    """A release as the index lists it."""

    version: ReleaseName
    status: Status
    probed_at: ProbedAt
    counts: Annotated[PublishedCounts | None, described("Findings per verdict (null: not probed).")]
    file: Annotated[str, described("Its release file.")]


class PublishedFindingEntry(msgspec.Struct):
    """A finding as the index lists it."""

    id: FindingId
    kind: FindingKind
    required: Required
    spec_section: SpecSection
    statement: Statement
    file: Annotated[str, described("Its finding file.")]


class PublishedChangePoint(msgspec.Struct):
    """A key whose value on `first_changed` differs from the release before it."""

    kind: KindOfChange
    key: PointKey
    subject: Subject
    first_changed: Annotated[str, described("The first release with the new value.")]
    last_same: Annotated[str, described("The recorded release before it, with the old value.")]
    before: Annotated[Any, described("The value on last_same (ids masked as <id>).")]
    after: Annotated[Any, described("The value on first_changed (ids masked as <id>).")]
    rule: Annotated[
        str | None,
        described(
            "surface: the breaking-change rule the change meets, its worst (`codex-probe "
            "rules` lists them); null for the other kinds."
        ),
    ] = None
    severity: Annotated[
        SeverityName | None,
        described(
            "surface: the rule's severity: ERR breaks a client, WARN may, INFO is additive "
            "or invisible to a client; null for the other kinds."
        ),
    ] = None


class PublishedBreaking(msgspec.Struct):
    """How many keys of the protocol surface first changed on a release, by the severity of
    the breaking-change rule each meets (its worst)."""

    ERR: Annotated[int, described("Changes that break a client.")]
    WARN: Annotated[int, described("Changes that may break a client.")]
    INFO: Annotated[int, described("Additive changes, or invisible to a client.")]


class PublishedWatchedIssue(msgspec.Struct):
    """A known upstream bug the probes watch."""

    issue: Annotated[str, described('"owner/repo#N".')]
    url: Annotated[str, described("Its address.")]
    title: Annotated[str, described("Its title, when the history names it.")]
    findings: Annotated[list[str], described("The findings that decide its state.")]
    states: Annotated[dict[str, str], described('Per release (version): "present" or "absent".')]
    undecided: Annotated[
        dict[str, str],
        described(
            "Per probed release (version) whose findings could not decide it (a finding "
            "broken or not probed): why. Such a release is in no state: a change of state "
            "spans it."
        ),
    ]


class PublishedIndex(msgspec.Struct, tag_field="record", tag="index"):
    """data/index.json: what the dataset holds."""

    dataset_version: VERSION_FIELD
    generated_at: Annotated[str, described("When the dataset was written (UTC, ISO 8601).")]
    tool: Annotated[str, described("The codex-probe that wrote it.")]
    default_version: Annotated[str, described("codex-probe's default codex-cli version.")]
    change_points_source: Annotated[
        Literal["history", "computed"],
        described(
            "history: the change points are history.json's own; computed: derived from the "
            "releases in order (the history had none)."
        ),
    ]
    releases: Annotated[list[PublishedReleaseEntry], described("Every release, in version order.")]
    findings: Annotated[
        list[PublishedFindingEntry],
        described("Every finding: required, informative, then fidelity, each in registry order."),
    ]
    surface_aspects: Annotated[
        list[str], described("The aspects of the protocol surface recorded (may be empty).")
    ]
    watch: Annotated[
        list[PublishedWatchedIssue], described("The watched upstream bugs (may be empty).")
    ]
    change_points: Annotated[
        list[PublishedChangePoint], described("Every change point, in release order.")
    ]


class PublishedBundle(msgspec.Struct):
    """A reproduction bundle: a folder that replays the finding with Python and codex alone."""

    file: Annotated[str, described("The bundle, zipped.")]
    run: Annotated[str, described("How to run it, once unzipped.")]


class PublishedFindingOnRelease(msgspec.Struct):
    """One finding on one release."""

    verdict: Annotated[
        Verdict,
        described(
            "holds: codex behaves as the design assumes; changed: otherwise (the evidence "
            "says how); broken: the probe could not measure."
        ),
    ]
    required: Required
    observed: Annotated[dict[str, Any], described("The values the probe read, as recorded.")]
    expected: Expected
    evidence: Annotated[list[str], described("What the probe saw, line by line.")]
    summary: Summary
    reproduce: Annotated[str, described("The codex-probe command that probes it again.")]
    upstream: Annotated[list[PublishedUpstream], described("The watched upstream bugs it decides.")]
    bundle: Annotated[
        PublishedBundle | None, described("Its reproduction bundle, if one was written.")
    ]


class PublishedFakeProfile(msgspec.Struct):
    """The profile codex-probe's fake ran on for this release."""

    source: Annotated[str | None, described("checked-in, or learned in the same run.")]
    file: Annotated[str | None, described("The profile file, when it is published.")]
    gaps: Annotated[list[Any], described("What the profile could not express.")]
    problem: Annotated[str | None, described("Why no profile could be had, if so.")]


class PublishedChange(msgspec.Struct):
    """A key whose value differs between two releases, and where it changed between them."""

    kind: KindOfChange
    key: Key
    subject: Subject
    before: Annotated[Any, described("The value on the older release (null: not recorded).")]
    after: Annotated[Any, described("The value on the newer release.")]
    first_changed: Annotated[
        str | None, described("The first release of the newer value's last run.")
    ]
    last_same: Annotated[str | None, described("The recorded release before first_changed.")]
    changes: Annotated[int, described("How often the value changed between the two.")]


class PublishedReleaseFile(msgspec.Struct, tag_field="record", tag="release"):
    """data/releases/VERSION.json: one release."""

    dataset_version: VERSION_FIELD
    version: ReleaseName
    status: Status
    unavailable: Annotated[str | None, described("Why its codex does not run, if it does not.")]
    probed_at: ProbedAt
    tool: Annotated[str | None, described("The codex-probe that probed it.")]
    probe_set: Annotated[str | None, described("A digest of what the probes asked.")]
    seconds: Annotated[float | None, described("How long probing it took.")]
    previous: Annotated[str | None, described("The probed release before it, if any.")]
    fake_profile: Annotated[
        PublishedFakeProfile | None, described("The profile the fake ran on (null: not probed).")
    ]
    findings: Annotated[dict[str, PublishedFindingOnRelease], described("Per finding id.")]
    surface: Annotated[dict[str, Any], described("Per surface aspect, its digest.")]
    surface_file: Annotated[str | None, described("The release's whole surface, if published.")]
    changes_since_previous: Annotated[
        list[PublishedChange], described("What differs from the previous probed release.")
    ]
    breaking: Annotated[
        PublishedBreaking | None,
        described(
            "The surface's change points first seen on this release, by severity (null: no "
            "surface recorded). The points themselves are the index's change_points."
        ),
    ] = None


class PublishedTimelineEntry(msgspec.Struct):
    """A finding on one release."""

    version: ReleaseName
    verdict: Annotated[Verdict | None, described("null: not probed (or not installable).")]
    observed: Annotated[dict[str, Any] | None, described("The values the probe read, as recorded.")]
    summary: Summary
    upstream: Annotated[list[PublishedUpstream], described("The watched upstream bugs it decides.")]


class PublishedFindingFile(msgspec.Struct, tag_field="record", tag="finding"):
    """data/findings/ID.json: one finding across every release."""

    dataset_version: VERSION_FIELD
    id: FindingId
    kind: FindingKind
    required: Required
    spec_section: SpecSection
    statement: Statement
    expected: Expected
    timeline: Annotated[list[PublishedTimelineEntry], described("Every release, in version order.")]
    change_points: Annotated[list[PublishedChangePoint], described("Where its values changed.")]
    upstream: Annotated[list[str], described("The watched upstream bugs it decides.")]


Record = PublishedIndex | PublishedReleaseFile | PublishedFindingFile


def index_file() -> str:
    return "index.json"


def release_file(version: str) -> str:
    return f"releases/{plain_name(version)}.json"


def release_folder(version: str) -> str:
    """Where a release's own files go: its fake profile, surface and bundles."""
    return f"releases/{plain_name(version)}"


def finding_file(finding_id: str) -> str:
    return f"findings/{plain_name(finding_id)}.json"


def encode(record: Record) -> bytes:
    return msgspec.json.format(msgspec.json.encode(record), indent=1) + b"\n"


def decode(data: bytes) -> Record:
    """A dataset file read back into the model (msgspec.ValidationError names the field)."""
    record: Record = msgspec.json.decode(data, type=Record)
    return record


def dataset_schema() -> dict[str, Any]:
    """The JSON schema of every file of the dataset, generated from the model."""
    schema: dict[str, Any] = _as_published(msgspec.json.schema(Record))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"codex-probe dataset, version {DATASET_VERSION}",
        "description": (__doc__ or "").strip(),
        **schema,
    }


def _as_published(node: Any) -> Any:
    """The schema with each type under its published name: the Python names say
    `Published...` (a type of the file format, apart from the view it is built from), the
    format's own names are the ones it has always had."""
    if isinstance(node, list):
        return [_as_published(item) for item in node]
    if isinstance(node, str):  # a reference: $ref, or a tag's in the discriminator
        return node.replace(f"#/$defs/{PUBLISHED}", "#/$defs/")
    if not isinstance(node, dict):
        return node
    renamed: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$defs":
            value = {name.removeprefix(PUBLISHED): d for name, d in value.items()}
        elif key == "title" and isinstance(value, str):
            value = value.removeprefix(PUBLISHED)
        renamed[key] = _as_published(value)
    return renamed


def schema_text() -> str:
    return json.dumps(dataset_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    # Imported by name: run as __main__, the model's titles would name __main__.
    from codex_probe.reporting.site.dataset import schema_text as named_schema_text

    sys.stdout.write(named_schema_text())
