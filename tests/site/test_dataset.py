"""The published dataset: files others build on, a schema generated from the model, and
fields that keep their names and meanings."""

from __future__ import annotations

import json
import stat
import zipfile
from pathlib import Path

import jsonschema
import pytest

from codex_probe.probes.domain.watch import WATCHED
from codex_probe.reporting.history_view import HistoryView
from codex_probe.reporting.site import dataset as model
from codex_probe.reporting.site.data_writer import write_dataset, zip_folder
from tests.site.recorded import (
    AFTER,
    BEFORE,
    DEVELOPER,
    FIELD,
    MOVED,
    QUEUED,
    STEERED,
    queued_steer,
    write_history,
)

REGENERATE = (
    "python -m codex_probe.reporting.site.dataset > codex_probe/reporting/site/dataset.schema.json"
)

# Every field of dataset version 1, per record. A field is never renamed, dropped or given
# another meaning: a new meaning gets a new field (add it here), and a change a reader of
# version 1 cannot follow raises DATASET_VERSION.
VERSION_1_FIELDS = {
    "Index": {
        "record", "dataset_version", "generated_at", "tool", "default_version",
        "change_points_source", "releases", "findings", "surface_aspects", "watch",
        "change_points",
    },
    "ReleaseEntry": {"version", "status", "probed_at", "counts", "file"},
    "FindingEntry": {"id", "kind", "required", "spec_section", "statement", "file"},
    "ChangePoint": {"kind", "key", "subject", "first_changed", "last_same", "before", "after"},
    "WatchedIssue": {"issue", "url", "title", "findings", "states", "undecided"},
    "ReleaseFile": {
        "record", "dataset_version", "version", "status", "unavailable", "probed_at", "tool",
        "probe_set", "seconds", "previous", "fake_profile", "findings", "surface",
        "surface_file", "changes_since_previous",
    },
    "FindingOnRelease": {
        "verdict", "required", "observed", "expected", "evidence", "summary", "reproduce",
        "upstream", "bundle",
    },
    "Bundle": {"file", "run"},
    "FakeProfile": {"source", "file", "gaps", "problem"},
    "Change": {
        "kind", "key", "subject", "before", "after", "first_changed", "last_same", "changes",
    },
    "FindingFile": {
        "record", "dataset_version", "id", "kind", "required", "spec_section", "statement",
        "expected", "timeline", "change_points", "upstream",
    },
    "TimelineEntry": {"version", "verdict", "observed", "summary", "upstream"},
    "Upstream": {"issue", "state"},
    "Counts": {"holds", "changed", "broken"},
}  # fmt: skip


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("history")
    write_history(folder, ("0.160.0", BEFORE, MOVED, AFTER), unavailable=["0.161.1"])
    out = tmp_path_factory.mktemp("site") / "data"
    write_dataset(HistoryView.load(folder), out)
    return out


def test_the_checked_in_schema_is_the_one_generated_from_the_model() -> None:
    assert model.SCHEMA_FILE.read_text() == model.schema_text(), f"regenerate it: {REGENERATE}"


def test_the_schema_is_a_valid_json_schema_and_says_what_every_field_means() -> None:
    schema = json.loads(model.SCHEMA_FILE.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    undescribed = [
        f"{name}.{field}"
        for name, definition in schema["$defs"].items()
        for field, described in definition["properties"].items()
        if "description" not in described and field != "record"  # the record's own name
    ]
    assert undescribed == []


def test_dataset_version_1_keeps_every_field_it_has_ever_had() -> None:
    assert model.DATASET_VERSION == 2  # 2 added the verdict `unsupported`, no field
    definitions = json.loads(model.SCHEMA_FILE.read_text())["$defs"]
    for record, fields in VERSION_1_FIELDS.items():
        assert fields <= set(definitions[record]["properties"]), record


def test_every_file_of_a_dataset_validates_against_the_schema_and_reads_back(data: Path) -> None:
    validator = jsonschema.Draft202012Validator(json.loads((data / "schema.json").read_text()))
    files = [data / "index.json", *sorted(data.glob("releases/*.json"))]
    files += sorted(data.glob("findings/*.json"))
    assert len(files) == 1 + 5 + len(list(data.glob("findings/*.json")))
    for path in files:
        document = json.loads(path.read_text())
        assert not list(validator.iter_errors(document)), path
        assert model.decode(path.read_bytes()).dataset_version == model.DATASET_VERSION


def test_the_index_names_each_release_and_finding_by_its_file(data: Path) -> None:
    index = json.loads((data / "index.json").read_text())
    assert index["record"] == "index" and index["change_points_source"] == "computed"
    statuses = {r["version"]: r["status"] for r in index["releases"]}
    assert statuses == {
        "0.160.0": "probed", BEFORE: "probed", "0.161.1": "not_installable",
        MOVED: "probed", AFTER: "probed",
    }  # fmt: skip
    for entry in index["releases"] + index["findings"]:
        assert (data / entry["file"]).is_file()
    groups = [f["kind"] for f in index["findings"]]
    assert groups == sorted(groups)  # assumptions, then the fake's fidelity
    assert {"kind": "verdict", "key": "steer-mid-answer-keeps-reply", "subject":
            "steer-mid-answer-keeps-reply", "first_changed": MOVED, "last_same": BEFORE,
            "before": "holds", "after": "changed", "rule": None, "severity": None} in (
        index["change_points"])  # fmt: skip


def test_a_release_file_holds_its_findings_its_files_and_what_changed(data: Path) -> None:
    release = json.loads((data / f"releases/{MOVED}.json").read_text())
    assert release["previous"] == BEFORE
    steer = release["findings"]["steer-mid-answer-keeps-reply"]
    assert steer["verdict"] == "changed" and steer["expected"] == {"pending_answer_kept": True}
    assert (
        steer["bundle"]["file"]
        == f"releases/{MOVED}/repro/steer-mid-answer-keeps-reply-{MOVED}.zip"
    )
    assert (data / steer["bundle"]["file"]).is_file()
    assert release["fake_profile"]["file"] == f"releases/{MOVED}/fake-profile.json"
    assert (data / release["fake_profile"]["file"]).is_file()
    changed = {c["key"]: (c["before"], c["after"]) for c in release["changes_since_previous"]}
    assert changed["base-developer-placement.base_at"] == ([FIELD], [DEVELOPER])
    assert "/home/runner" not in (data / f"releases/{MOVED}.json").read_text()


def test_a_finding_file_holds_its_timeline_and_change_points(data: Path) -> None:
    finding = json.loads((data / "findings/base-developer-placement.json").read_text())
    assert [e["version"] for e in finding["timeline"]] == [
        "0.160.0", BEFORE, "0.161.1", MOVED, AFTER,
    ]  # fmt: skip
    assert finding["timeline"][2]["verdict"] is None  # not installable
    assert [(p["key"], p["first_changed"]) for p in finding["change_points"]] == [
        ("base-developer-placement", MOVED)
    ]
    moved = finding["change_points"][0]
    assert (moved["before"]["base_at"], moved["after"]["base_at"]) == ([FIELD], [DEVELOPER])


def test_the_index_carries_each_watched_bug_s_states_why_one_was_undecided_and_its_changes(
    tmp_path: Path,
) -> None:
    recorded = queued_steer({"0.160.0": False, BEFORE: None, MOVED: True})
    folder = write_history(tmp_path / "history", ("0.160.0", BEFORE, MOVED), recorded=recorded)
    write_dataset(HistoryView.load(folder), tmp_path / "data")
    index = json.loads((tmp_path / "data" / "index.json").read_text())
    assert [w["issue"] for w in index["watch"]] == [w.issue for w in WATCHED]
    queued = next(w for w in index["watch"] if w["issue"] == QUEUED)
    assert queued["findings"] == [STEERED]
    assert queued["states"] == {"0.160.0": "absent", MOVED: "present"}
    assert list(queued["undecided"]) == [BEFORE]
    assert queued["undecided"][BEFORE].startswith(f"{STEERED} is broken")
    assert [p for p in index["change_points"] if p["kind"] == "watch"] == [
        {"kind": "watch", "key": QUEUED, "subject": QUEUED, "first_changed": MOVED,
         "last_same": "0.160.0", "before": "absent", "after": "present", "rule": None,
         "severity": None}
    ]  # fmt: skip
    finding = json.loads((tmp_path / "data" / f"findings/{STEERED}.json").read_text())
    assert finding["upstream"] == [QUEUED]
    assert finding["timeline"][2]["upstream"] == [{"issue": QUEUED, "state": "present"}]


def test_a_bundle_is_zipped_with_the_same_bytes_each_time_and_keeps_its_script_runnable(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "steer-0.162.0"
    (folder / "sub").mkdir(parents=True)
    (folder / "reproduce.py").write_text("print(1)\n")
    (folder / "reproduce.py").chmod(0o755)
    (folder / "sub" / "reading.py").write_text("x = 1\n")
    zip_folder(folder, tmp_path / "one.zip")
    (folder / "reproduce.py").touch()
    zip_folder(folder, tmp_path / "two.zip")
    assert (tmp_path / "one.zip").read_bytes() == (tmp_path / "two.zip").read_bytes()
    with zipfile.ZipFile(tmp_path / "one.zip") as archive:
        assert archive.namelist() == ["steer-0.162.0/reproduce.py", "steer-0.162.0/sub/reading.py"]
        mode = archive.getinfo("steer-0.162.0/reproduce.py").external_attr >> 16
        assert mode & stat.S_IXUSR
