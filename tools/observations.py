"""The observations page of a history run: every release where an aspect of the surface
changed, with the command that shows the change again.

    python -m tools.observations HISTORY_DIR [--aspect exploration] [--examples N]

Reads the change points a `codex-probe history` run wrote into HISTORY_DIR/history.json
(its surface rows, `ASPECT METHOD STATE VARIANT`...) and prints Markdown: one section per
pair of releases (the last that was the same, the first that changed), in version order,
with how many keys changed by severity, the methods they belong to, a few of them with
what they were before and after, and `codex-probe diff --history HISTORY_DIR --from
LAST_SAME --to FIRST_CHANGED --aspect ASPECT`, which lists them all. It measures nothing
itself: docs/observations/ pages are written from it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from codex_probe.harness.codex.versions import version_key
from codex_probe.probes.domain.surface.release import ASPECTS
from codex_probe.probes.releases.change_points import ChangePoint, trimmed
from codex_probe.probes.releases.history import HistoryError, load_history

SEVERITIES = ("ERR", "WARN", "INFO")
SHOWN_CHARACTERS = 160


@dataclass
class Step:
    """The changed keys of one aspect between two releases."""

    last_same: str
    first_changed: str
    points: list[ChangePoint] = field(default_factory=list)

    def methods(self) -> list[str]:
        return sorted({point.key.split(" ")[1] for point in self.points})

    def severities(self) -> Counter[str]:
        return Counter(point.severity or "unclassified" for point in self.points)


def steps_of(points: Iterable[ChangePoint], aspect: str) -> list[Step]:
    """The surface change points of `aspect`, grouped by the releases they lie between,
    oldest first."""
    steps: dict[tuple[str, str], Step] = {}
    for point in points:
        if point.kind != "surface" or point.key.split(" ", 1)[0] != aspect:
            continue
        pair = (point.last_same, point.first_changed)
        steps.setdefault(pair, Step(*pair)).points.append(point)
    return sorted(
        steps.values(), key=lambda s: (version_key(s.first_changed), version_key(s.last_same))
    )


def _shown(value: object) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= SHOWN_CHARACTERS else text[: SHOWN_CHARACTERS - 3] + "..."


def render(steps: Sequence[Step], *, aspect: str, history: str, examples: int) -> list[str]:
    """The page's lines (see the module)."""
    changed = sum(len(step.points) for step in steps)
    lines = [
        f"{changed} key(s) of the `{aspect}` aspect changed between {len(steps)} pair(s) of "
        "releases.",
        "",
    ]
    for step in steps:
        counts = ", ".join(
            f"{count} {severity}"
            for severity in (*SEVERITIES, "unclassified")
            if (count := step.severities()[severity])
        )
        methods = step.methods()
        lines += [
            f"### {step.first_changed} (last same: {step.last_same})",
            "",
            f"{len(step.points)} key(s) ({counts}) of {len(methods)} method(s): "
            + ", ".join(f"`{method}`" for method in methods),
            "",
            "```sh",
            f"codex-probe diff --history {history} --from {step.last_same} "
            f"--to {step.first_changed} --aspect {aspect}",
            "```",
            "",
        ]
        ordered = sorted(step.points, key=lambda p: (*SEVERITIES, "").index(p.severity or ""))
        for point in ordered[:examples]:
            before, after = trimmed(point.before, point.after)
            rule = f" [{point.severity} {point.rule}]" if point.rule else ""
            lines.append(f"- `{point.key}`{rule}: `{_shown(before)}` -> `{_shown(after)}`")
        if len(step.points) > examples:
            lines.append(f"- ... and {len(step.points) - examples} more")
        lines.append("")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.observations", description=__doc__)
    parser.add_argument("history", type=Path, metavar="HISTORY_DIR")
    parser.add_argument("--aspect", choices=ASPECTS, default="exploration")
    parser.add_argument("--examples", type=int, default=5, metavar="N")
    args = parser.parse_args(argv)
    try:
        document = load_history(args.history / "history.json")
    except HistoryError as error:
        print(f"tools.observations: {error}", file=sys.stderr)
        return 2
    points = [ChangePoint.from_json(entry) for entry in document.get("change_points", [])]
    steps = steps_of(points, args.aspect)
    print(
        "\n".join(
            render(steps, aspect=args.aspect, history=str(args.history), examples=args.examples)
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
