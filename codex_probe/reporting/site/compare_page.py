"""compare.html: any two releases side by side, computed in the page (compare.js) from the
data the page carries: every probed release's verdicts and observed values (ids masked, each
distinct set of values written once), its surface (each key's value, each distinct value
written once) and watched bugs' states."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from codex_probe.reporting.history_view import HistoryView
from codex_probe.reporting.site.look import VERDICTS, page

SCRIPT = "compare.js"


def compare_data(view: HistoryView) -> dict[str, Any]:
    values: list[dict[str, str]] = []
    interned: dict[str, int] = {}

    def intern(observed: dict[str, Any]) -> int:
        written = {key: json.dumps(found, sort_keys=True) for key, found in observed.items()}
        text = json.dumps(written, sort_keys=True)
        if text not in interned:
            interned[text] = len(values)
            values.append(written)
        return interned[text]

    probed = view.probed_versions
    default = view.default_version
    start = [default if default in probed[:-1] else probed[0], probed[-1]] if probed else []
    return {
        "start": start,
        "releases": view.versions,
        "unavailable": {r.version: r.unavailable for r in view.releases if not r.probed},
        "verdicts": {name: [s.css, s.symbol, s.label] for name, s in VERDICTS.items()},
        "findings": [[f.id, f.group] for f in view.findings],
        "aspects": view.aspects,
        "issues": [[w.issue, w.url, w.title] for w in view.watched],
        "values": values,
        "cells": {
            r.version: {
                i: [found.finding.verdict.value, intern(found.compared)]
                for i, found in r.findings.items()
            }
            for r in view.releases
            if r.probed
        },
        "surface": {
            r.version: {
                a: json.dumps(d, sort_keys=True) if not isinstance(d, str) else d
                for a, d in r.surface.items()
            }
            for r in view.releases
            if r.surface
        },
        **surface_keys(view),
        "watch": {
            v: {w.issue: s for w in view.watched if (s := view.watch_state(v, w.issue))}
            for v in probed
        },
    }


def surface_keys(view: HistoryView) -> dict[str, Any]:
    """Every surface key and its value on each release that has a surface file: the keys
    once (`keys`, "ASPECT KEY"), each distinct value once (`key_values`, JSON), and per
    release one index into those per key (-1: the release lacks the key). From these the
    page says which keys of an aspect differ between two releases, and how."""
    keys: dict[str, int] = {}
    values: list[str] = []
    interned: dict[str, int] = {}
    cells: dict[str, dict[int, int]] = {}
    for release in view.releases:
        surface = view.surface(release.version) if release.surface_file else None
        if surface is None:
            continue
        row = cells.setdefault(release.version, {})
        for aspect, found in surface.aspects.items():
            for key, value in found.items():
                text = json.dumps(value, sort_keys=True)
                number = keys.setdefault(f"{aspect} {key}", len(keys))
                row[number] = interned.setdefault(text, len(interned))
                if row[number] == len(values):
                    values.append(text)
    return {
        "keys": list(keys),
        "key_values": values,
        "key_cells": {v: [row.get(k, -1) for k in range(len(keys))] for v, row in cells.items()},
    }


def render_compare(view: HistoryView) -> str:
    # No "<" reaches the page as markup: inside a script block it could end it.
    data = json.dumps(compare_data(view), separators=(",", ":")).replace("<", "\\u003c")
    script = resources.files(__package__).joinpath(SCRIPT).read_text(encoding="utf-8")
    body = (
        "<h1>Compare two releases</h1>"
        "<p>Every finding whose verdict or observed values differ"
        + (", every surface aspect" if view.aspects else "")
        + (", every watched bug" if view.watched else "")
        + ", and where between the two each one first took its new value. "
        "Computed in this page from the data it carries; every text of the result is set as "
        "text, never as markup.</p>"
        '<p><label>From <select id="a"></select></label> '
        '<label>to <select id="b"></select></label></p>'
        '<div id="result"><p class="muted">The comparison needs JavaScript.</p></div>'
        f'<script type="application/json" id="compare-data">{data}</script>'
    )
    return page("Compare two releases", body, depth=0, script=script)
