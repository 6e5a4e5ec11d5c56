"""verdict.json, surface.json and history.json: each read by one loader, against the JSON
schema generated from its model; the checked-in schema files are the generated ones; any
JSON, and any document of the schema, is loaded or refused in one line, and a loaded one is
read by every command that reads it without a traceback."""

from __future__ import annotations

import itertools
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codex_probe.harness.file_format import schema_of
from codex_probe.probes.domain.surface.diff import diff_surfaces
from codex_probe.probes.domain.surface.file import SurfaceFileError, load_surfaces
from codex_probe.probes.domain.surface.release import FORMAT
from codex_probe.probes.domain.verdict_file import VerdictFileError, load_verdict
from codex_probe.probes.formats import FORMATS, schema_file
from codex_probe.probes.releases.history import (
    HistoryError,
    load_history,
    save_history,
)
from codex_probe.probes.releases.history_changes import history_change_points
from codex_probe.reporting.gate import evaluate
from codex_probe.reporting.history_files import HistoryViewError
from codex_probe.reporting.history_view import HistoryView
from codex_probe.reporting.site.build import build_site
from codex_probe.reporting.summary import render_summary
from codex_probe.reporting.surface_text import render_changes
from codex_probe.reporting.upgrade import judge_upgrade
from tests.hostile.schema_documents import ANY_JSON, from_schema

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
LOADERS: dict[str, tuple[Callable[[Path], Any], type[Exception]]] = {
    "verdict": (load_verdict, VerdictFileError),
    "surface": (load_surfaces, SurfaceFileError),
    "history": (load_history, HistoryError),
}


@pytest.mark.parametrize("name", list(FORMATS))
def test_the_checked_in_schema_is_the_one_generated_from_the_model(name: str) -> None:
    regenerate = "python -m codex_probe.probes.formats"
    assert json.loads(schema_file(name).read_text()) == schema_of(FORMATS[name]), (
        f"regenerate it: {regenerate}"
    )


def written(document: Any, folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("name", list(LOADERS))
def test_any_json_is_loaded_or_refused_in_one_line_naming_the_file(name: str) -> None:
    load, refusal = LOADERS[name]

    @FUZZ
    @given(document=ANY_JSON)
    def check(document: Any) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            path = written(document, Path(scratch), f"{name}.json")
            try:
                load(path)
            except refusal as refused:
                message = str(refused)
                assert message.startswith(str(path)) and "\n" not in message, message

    check()


@FUZZ
@given(document=from_schema(schema_of(FORMATS["verdict"])))
def test_any_verdict_file_of_the_schema_is_read_by_the_summary_and_the_gate(
    document: dict[str, Any],
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        report = load_verdict(written(document, Path(scratch), "verdict.json"))
    render_summary(report)
    result = evaluate(report, report.versions)
    result.lines()


@FUZZ
@given(document=from_schema(schema_of(FORMATS["surface"])))
def test_any_surface_file_of_the_schema_is_loaded_and_diffed_or_refused_in_one_line(
    document: dict[str, Any],
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        path = written(document, Path(scratch), "surface.json")
        if any(entry["format"] != FORMAT for entry in document["versions"].values()):
            with pytest.raises(SurfaceFileError, match=r"^[^\n]*surface format [^\n]*$"):
                load_surfaces(path)
            return
        surfaces = list(load_surfaces(path).items())
    for (a, before), (b, after) in itertools.pairwise(surfaces):
        render_changes(a, b, diff_surfaces(before, after))


@settings(FUZZ, max_examples=25)
@given(document=from_schema(schema_of(FORMATS["history"])), data=st.data())
def test_any_history_of_the_schema_makes_a_site_an_answer_and_change_points(
    document: dict[str, Any], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "history"
        folder.mkdir()
        path = written(document, folder, "history.json")
        try:
            view = HistoryView.load(folder)
        except HistoryViewError as refused:
            pytest.fail(f"a history of the schema was refused: {refused}")
        build_site(folder, Path(scratch) / "site")
        releases = sorted(document["releases"])
        if releases:
            a = data.draw(st.sampled_from(releases))
            b = data.draw(st.sampled_from(releases))
            answer = judge_upgrade(view, a, b, [a, b] if a != b else [a])
            answer.lines()
        history_change_points(load_history(path), folder)
        save_history(path, load_history(path))
