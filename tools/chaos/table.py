"""The campaign's one table: test, expected, observed, pass/fail, with wrapped cells."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

WIDTHS = (30, 44, 58, 6)
HEADER = ("test", "expected", "observed", "result")


def render(rows: Sequence[tuple[str, str, str, str]]) -> str:
    lines = [_line(HEADER), "-+-".join("-" * width for width in WIDTHS)]
    for row in rows:
        lines.extend(_wrapped(row))
    return "\n".join(lines)


def _wrapped(row: tuple[str, str, str, str]) -> list[str]:
    cells = [textwrap.wrap(text, width) or [""] for text, width in zip(row, WIDTHS, strict=True)]
    height = max(len(cell) for cell in cells)
    return [_line(tuple(cell[i] if i < len(cell) else "" for cell in cells)) for i in range(height)]


def _line(cells: tuple[str, ...]) -> str:
    return " | ".join(text.ljust(width) for text, width in zip(cells, WIDTHS, strict=True))
