"""How the site looks: every state a cell can show (a colour AND a symbol, so that a
reader who cannot tell the colours apart reads the symbol), the shared style sheet, and the
frame of every page.

Links are relative and name files (`releases/0.162.0.html`, never a folder), so the site
works from file:// as from any static host; nothing is fetched, so nothing needs a server.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

from codex_probe.harness.tool import TOOL
from codex_probe.probes.domain.watch import State as Watch


@dataclass(frozen=True)
class Look:
    css: str  # the cell's class
    symbol: str
    label: str  # the words of the legend
    background: str
    ink: str


# Okabe-Ito colours, which stay apart for the common colour-vision deficiencies.
VERDICTS = {
    "holds": Look("h", "✓", "holds", "#009e73", "#ffffff"),
    "changed": Look("c", "Δ", "changed upstream", "#e69f00", "#000000"),
    "broken": Look("b", "?", "broken: no verdict", "#cc79a7", "#000000"),
}
NOT_INSTALLABLE = Look("u", "\u2013", "not installable", "#e6e6e6", "#555555")
NOT_RECORDED = Look("n", "", "not recorded", "#f3f3f3", "#999999")
SURFACE_SAME = Look("s", "·", "surface as the release before", "#dbe6f2", "#34495e")
SURFACE_CHANGED = Look("sc", "◆", "surface changed here", "#0072b2", "#ffffff")
# The breaking band: the worst rule a release's surface changes meet (codex-probe rules).
BREAKING = {
    "ERR": Look("ke", "✖", "a change that breaks a client (ERR)", "#8b0000", "#ffffff"),
    "WARN": Look("kw", "!", "a change that may break a client (WARN)", "#f0e442", "#000000"),
    "INFO": Look("ki", "+", "only additive changes (INFO)", "#e8eef5", "#34495e"),
}
BREAKING_NONE = Look("k0", "", "no surface change", "#f7f7f7", "#999999")
WATCH_PRESENT = Look("wp", "●", "bug present", "#d55e00", "#ffffff")
WATCH_ABSENT = Look("wa", "○", "bug absent", "#d9efe6", "#1b4d3e")
WATCH_UNDECIDED = Look(
    "wu", "?", "bug undecided: its findings gave no verdict", "#f2e3ec", "#6b2d5c"
)
# A watched issue's state, as the watch list decides it, as a cell shows it.
WATCH_STATES = {
    Watch.PRESENT: WATCH_PRESENT,
    Watch.ABSENT: WATCH_ABSENT,
    Watch.BROKEN: WATCH_UNDECIDED,
}
STATES = (
    *VERDICTS.values(),
    NOT_INSTALLABLE,
    NOT_RECORDED,
    SURFACE_SAME,
    SURFACE_CHANGED,
    *BREAKING.values(),
    BREAKING_NONE,
    WATCH_PRESENT,
    WATCH_ABSENT,
    WATCH_UNDECIDED,
)
GROUP_NAMES = {
    "required": "Required assumption",
    "informative": "Informative assumption",
    "fidelity": "Fake fidelity",
}
GROUP_TITLES = {
    "required": "Required assumptions: the design depends on them; a change fails the gate",
    "informative": "Informative assumptions: recorded, reported, not gated",
    "fidelity": "Fake fidelity: does codex-probe's fake imitate the release (about the fake)",
    "surface": "Protocol surface: one row per aspect",
    "breaking": "Breaking changes: the worst rule the surface's changes meet, per release",
    "watch": "Watched upstream bugs",
}
STYLE_FILE = "site.css"

STYLE = (
    """
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 24px 40px; color: #1d1d1d; }
header.top { display: flex; gap: 18px; align-items: baseline; border-bottom: 1px solid #ddd;
  padding: 10px 0; margin-bottom: 14px; }
header.top .name { font-weight: 600; }
a { color: #0b57a4; }
h1 { font-size: 22px; margin: 8px 0; } h2 { font-size: 17px; margin: 26px 0 8px; }
code, pre { font: 12px/1.4 ui-monospace, monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: 6px 8px; }
.muted { color: #666; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 8px 0 14px; }
.legend span.k { display: inline-flex; align-items: center; gap: 6px; }
.x { display: inline-block; width: 18px; height: 18px; line-height: 18px; text-align: center;
  font-size: 12px; font-weight: 700; border-radius: 2px; }
.scroll { overflow-x: auto; border: 1px solid #e5e5e5; }
table.grid { border-collapse: separate; border-spacing: 2px; }
table.grid th.row { position: sticky; left: 0; background: #fff; text-align: right;
  font-weight: 400; white-space: nowrap; padding-right: 8px; z-index: 1; }
table.grid th.row.req a { font-weight: 600; }
table.grid thead th.v { vertical-align: bottom; height: 64px; padding: 0; }
table.grid thead th.v a { writing-mode: vertical-rl; transform: rotate(180deg);
  font-size: 11px; font-weight: 400; text-decoration: none; color: #333; }
table.grid tr.sec th { text-align: left; position: sticky; left: 0; background: #fff;
  padding: 12px 0 2px; font-size: 13px; color: #333; }
table.grid td { padding: 0; }
table.grid td a, table.grid td span { display: block; width: 18px; height: 18px;
  line-height: 18px; text-align: center; font-size: 12px; font-weight: 700;
  text-decoration: none; border-radius: 2px; }
td.cv a, td.cv span, .x.cv { box-shadow: inset 4px 0 0 #000; }
td.co a, td.co span, .x.co { background-image: linear-gradient(135deg, #000 0 6px,
  transparent 6px); }
table.list { border-collapse: collapse; margin: 6px 0; }
table.list th, table.list td { border-bottom: 1px solid #e8e8e8; padding: 4px 10px 4px 0;
  text-align: left; vertical-align: top; }
table.list td.val { max-width: 760px; overflow-wrap: anywhere; }
.strip { display: flex; gap: 4px 2px; flex-wrap: wrap; margin: 6px 0 2px; }
.strip a { display: flex; flex-direction: column; align-items: center; text-decoration: none;
  color: #333; font-size: 10px; min-width: 44px; }
td.val.moved code { background: #fff3c4; font-weight: 700; }
td.verdict { white-space: nowrap; }
.strip a .x { margin-bottom: 2px; }
.strip a:target .x { outline: 3px solid #0b57a4; outline-offset: 1px; }
.point { border-left: 4px solid #000; padding: 2px 0 2px 12px; margin: 12px 0; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; }
.sides > div { min-width: 0; }
ul.points li { margin: 3px 0; }
ul.keys { margin: 2px 0 4px; padding-left: 18px; }
ul.keys code, pre.keys { white-space: pre-wrap; }
select { font-size: 14px; }
nav.rel { margin: 4px 0 10px; }
"""
    + "".join(
        f".{s.css} a, .{s.css} span, .x.{s.css} {{ background-color: {s.background}; "
        f"color: {s.ink}; }}\n"
        for s in STATES
    )
    + f".{NOT_INSTALLABLE.css} a, .{NOT_INSTALLABLE.css} span, .x.{NOT_INSTALLABLE.css} "
    "{ background-image: repeating-linear-gradient(135deg, transparent 0 3px, #cfcfcf 3px 4px); }\n"
)


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def symbol(state: Look, extra: str = "", title: str = "") -> str:
    """A state alone, as the legend and the lists show it."""
    classes = f"x {state.css} {extra}".strip()
    tip = esc(title or state.label)
    return f'<span class="{classes}" title="{tip}">{state.symbol}</span>'


def verdict_state(verdict: object) -> Look:
    """The look of a recorded verdict; anything but a known verdict's word (a change
    point's value may be any JSON) is not recorded."""
    return VERDICTS.get(verdict, NOT_RECORDED) if isinstance(verdict, str) else NOT_RECORDED


def verdict_words(verdict: object) -> str:
    state = verdict_state(verdict)
    shown = verdict if isinstance(verdict, str) and verdict else "not recorded"
    return f"{symbol(state)} {esc(shown)}"


def value(value: Any) -> str:
    """A recorded value as a reader reads it: a string as it is, a list of one string as
    that string, anything else as compact JSON."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        value = value[0]
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return f"<code>{esc(text)}</code>"


def legend(states: tuple[Look, ...]) -> str:
    keys = "".join(f'<span class="k">{symbol(s)} {esc(s.label)}</span>' for s in states)
    marks = (
        '<span class="k"><span class="x h cv">✓</span> a bar: the verdict changed here</span>'
        '<span class="k"><span class="x h co">✓</span> a corner: an observed value changed '
        "here, under the same verdict</span>"
    )
    return f'<div class="legend">{keys}{marks}</div>'


def page(title: str, body: str, *, depth: int, script: str = "") -> str:
    """A whole page; `depth`: how many folders below the site's root it lives."""
    root = "../" * depth
    nav = (
        f'<header class="top"><a class="name" href="{root}index.html">codex-probe: codex-cli, '
        f'release by release</a><a href="{root}compare.html">Compare two releases</a>'
        f'<a href="{root}data/index.json">Dataset</a>'
        f'<a href="{root}data/schema.json">Its schema</a></header>'
    )
    footer = f'<p class="muted">Written by {esc(TOOL)}.</p>'
    tail = f"<script>{script}</script>" if script else ""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title>"
        # No icon: a static host would answer the browser's /favicon.ico with a 404.
        '<link rel="icon" href="data:,">'
        f'<link rel="stylesheet" href="{root}{STYLE_FILE}"></head>\n'
        f"<body>{nav}\n{body}\n{footer}{tail}</body></html>\n"
    )


def release_href(version: str, depth: int) -> str:
    return f"{'../' * depth}releases/{version}.html"


def finding_href(finding_id: str, depth: int, version: str | None = None) -> str:
    anchor = f"#v{version}" if version else ""
    return f"{'../' * depth}findings/{finding_id}.html{anchor}"


def compare_href(a: str, b: str, depth: int) -> str:
    return f"{'../' * depth}compare.html#a={a}&b={b}"
