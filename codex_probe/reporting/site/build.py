"""`codex-probe site`: the static site of a history folder.

    index.html              the release x finding grid and the change points
    compare.html            any two releases side by side (computed in the page)
    releases/VERSION.html   one release
    findings/ID.html        one finding across every release
    site.css                the one style sheet
    data/                   the dataset (data_writer.py), which the pages link to

Everything is a file with relative links, so the folder works from file:// and from any
static host. Only what the site writes is replaced in the output folder.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from codex_probe.harness.files import inside, write_text_atomically
from codex_probe.reporting.history_view import HistoryView
from codex_probe.reporting.site.compare_page import render_compare
from codex_probe.reporting.site.data_writer import write_dataset
from codex_probe.reporting.site.dataset import DATA
from codex_probe.reporting.site.finding_page import render_finding
from codex_probe.reporting.site.index_page import render_index
from codex_probe.reporting.site.look import STYLE, STYLE_FILE
from codex_probe.reporting.site.release_page import render_release

INDEX, COMPARE = "index.html", "compare.html"
# What the site owns in its folder (and replaces on every build).
OWNED = (INDEX, COMPARE, STYLE_FILE, "releases", "findings", DATA)
# The most the index page (with its style sheet) may weigh.
INDEX_BUDGET = 500_000


@dataclass(frozen=True)
class BuiltSite:
    out: Path
    releases: int
    findings: int
    pages: int
    index_bytes: int  # index.html and the style sheet it loads
    total_bytes: int
    seconds: float

    def describe(self) -> str:
        return (
            f"site: {self.out / INDEX} ({self.pages} pages: {self.releases} releases, "
            f"{self.findings} findings; index {self.index_bytes / 1000:.1f} kB with its style "
            f"sheet, of at most {INDEX_BUDGET / 1000:.0f} kB; everything "
            f"{self.total_bytes / 1e6:.1f} MB) in {self.seconds:.1f} s"
        )


def build_site(history: Path, out: Path) -> BuiltSite:
    """Build the site of the history folder `history` into `out`; HistoryViewError when the
    history cannot be read."""
    started = time.monotonic()
    view = HistoryView.load(history)
    out.mkdir(parents=True, exist_ok=True)
    for name in OWNED:
        target = out / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    dataset = write_dataset(view, out / DATA)
    write_text_atomically(out / STYLE_FILE, STYLE)
    write_text_atomically(out / INDEX, render_index(view))
    write_text_atomically(out / COMPARE, render_compare(view))
    for release in view.releases:
        page = render_release(view, release, dataset.releases[release.version])
        write_text_atomically(inside(out, "releases", f"{release.version}.html"), page)
    for info in view.findings:
        page = render_finding(view, info)
        write_text_atomically(inside(out, "findings", f"{info.id}.html"), page)
    index_bytes = (out / INDEX).stat().st_size + (out / STYLE_FILE).stat().st_size
    total = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    return BuiltSite(
        out=out,
        releases=len(view.releases),
        findings=len(view.findings),
        pages=2 + len(view.releases) + len(view.findings),
        index_bytes=index_bytes,
        total_bytes=total,
        seconds=time.monotonic() - started,
    )
