"""surface.json: the surface of each release a run probed, beside its verdict.json.

    {"tool": ..., "generated_at": ..., "versions": {VERSION: surface (release.py's JSON)}}

`codex-probe probe` writes it, `codex-probe diff --surfaces FILE` reads it (and adds the
releases it probes), the gate reads it; history keeps one per release
(releases/VERSION/surface.json). A file not of this shape is refused, never half-read.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from codex_probe.harness.codex.versions import version_key
from codex_probe.harness.files import read_json, write_json
from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.surface.release import Surface, SurfaceFormatError

SURFACE_FILE = "surface.json"


class SurfaceFileError(ValueError):
    """A surface file that is missing, not JSON, or not of the shape written here."""


def surfaces_document(surfaces: dict[str, Surface]) -> dict[str, Any]:
    return {
        "tool": TOOL,
        "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "versions": {v: surfaces[v].to_json() for v in sorted(surfaces, key=version_key)},
    }


def write_surfaces(path: Path, surfaces: dict[str, Surface]) -> None:
    write_json(path, surfaces_document(surfaces))


def load_surfaces(path: Path) -> dict[str, Surface]:
    """The surfaces of a surface file, by version."""
    document = read_json(path, SurfaceFileError, "surface file")
    if not isinstance(document, dict) or not isinstance(document.get("versions"), dict):
        raise SurfaceFileError(f"{path}: expected an object with a 'versions' object")
    surfaces = {}
    for version, entry in document["versions"].items():
        try:
            surfaces[version] = Surface.from_json(entry, f"{path}: versions.{version}")
        except SurfaceFormatError as error:
            raise SurfaceFileError(str(error)) from None
    return surfaces
