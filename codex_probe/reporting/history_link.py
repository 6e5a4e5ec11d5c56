"""Link the release x finding grid of a history run from a probe run's report.

The report of one run says what holds on the releases it probed; the grid says since when.
Every Allure result gets a link to the grid, and summary.md a line, with paths relative
to where each is read from, so the reports folder can be moved or uploaded whole.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

LINK_NAME = "codex-cli release history (release x finding grid)"
HISTORY_PAGE = "history.html"  # in a history folder, beside history.json


def find_history(out: Path) -> Path | None:
    """The grid of a history run beside a report folder: OUT/history or OUT/../history."""
    for folder in (out / "history", out.parent / "history"):
        page = folder / HISTORY_PAGE
        if page.is_file():
            return page
    return None


def relative_url(target: Path, from_folder: Path) -> str:
    return Path(os.path.relpath(target.resolve(), from_folder.resolve())).as_posix()


def link_results(results_dir: Path, history: Path, report_dir: Path) -> int:
    """Add the grid's link to every result file once; how many results link it."""
    url = relative_url(history, report_dir)
    linked = 0
    for path in sorted(results_dir.glob("*-result.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        links = [link for link in document.get("links", []) if link.get("name") != LINK_NAME]
        links.append({"type": "link", "name": LINK_NAME, "url": url})
        document["links"] = links
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
        linked += 1
    return linked


def summary_line(history: Path, summary_folder: Path) -> str:
    return (
        f"Since when: the [release x finding grid]({relative_url(history, summary_folder)}) "
        "of the last history run.\n"
    )
