"""surface.json: the surface of each release a run probed, beside its verdict.json.

    {"tool": ..., "generated_at": ..., "versions": {VERSION: surface (release.py's JSON)}}

`codex-probe probe` writes it, `codex-probe diff --surfaces FILE` reads it (and adds the
releases it probes), the gate reads it; history keeps one per release
(releases/VERSION/surface.json). A file not of this shape (`SurfaceFile`, whose JSON schema
is checked in as codex_probe/probes/schemas/surface.schema.json) is refused, never
half-read: `load_surfaces` is the one reader of the file.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import msgspec

from codex_probe.harness.codex.versions import version_key
from codex_probe.harness.file_format import Version, read_document
from codex_probe.harness.files import write_json
from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.surface.release import Surface, SurfaceFormatError

SURFACE_FILE = "surface.json"


class SurfaceFileError(ValueError):
    """A surface file that is missing, not JSON, or not of the shape written here."""


class Aspects(msgspec.Struct):
    """Each aspect of a surface (release.ASPECTS): key -> its normalized value."""

    initialize: dict[str, Any] = {}
    notifications: dict[str, Any] = {}
    answers: dict[str, Any] = {}
    refusals: dict[str, Any] = {}
    model_requests: dict[str, Any] = {}
    schema: dict[str, Any] = {}


class SurfaceEntry(msgspec.Struct):
    """One release's surface (Surface.to_json)."""

    format: int  # Surface.from_json names a format this tool does not read
    aspects: Aspects
    version: str = ""
    digest: str = ""
    scenarios: list[str] = []
    missing: list[str] = []


class SurfaceFile(msgspec.Struct):
    versions: dict[Version, SurfaceEntry]
    tool: str = ""
    generated_at: str = ""


def surfaces_document(surfaces: dict[str, Surface]) -> dict[str, Any]:
    return {
        "tool": TOOL,
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "versions": {v: surfaces[v].to_json() for v in sorted(surfaces, key=version_key)},
    }


def write_surfaces(path: Path, surfaces: dict[str, Surface]) -> None:
    write_json(path, surfaces_document(surfaces))


def load_surfaces(path: Path) -> dict[str, Surface]:
    """The surfaces of a surface file, by version; SurfaceFileError (one line naming the
    file and the first wrong field) for a file not of SurfaceFile's shape."""
    document = read_document(path, SurfaceFile, SurfaceFileError, "surface file")
    surfaces = {}
    for version, entry in document["versions"].items():
        try:
            surfaces[version] = Surface.from_json(entry, f"{path}: versions.{version}")
        except SurfaceFormatError as error:
            raise SurfaceFileError(str(error)) from None
    return surfaces
