"""compare.html: any two releases side by side, computed in the page (compare.js) from the
data the page carries: every probed release's verdicts and observed values (ids masked, each
distinct set of values written once), surface digests and watched bugs' states."""

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
            r.version: {i: [c.verdict, intern(c.compared)] for i, c in r.cells.items()}
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
        "watch": {
            v: {w.issue: s for w in view.watched if (s := view.watch_state(v, w.issue))}
            for v in probed
        },
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
