"""`dump_dom`: what Chromium renders, waited for rather than trusted to a time budget.

Needs Debian's `chromium`, as the README says.
"""

from __future__ import annotations

from pathlib import Path

from codex_probe.reporting.browser import dump_dom

PAGE = "<html><body><div id='app'></div><script>{}</script></body></html>"
STILL_DRAWING = PAGE.format("document.getElementById('app').textContent = 'drawing';")
DRAWN = PAGE.format("document.getElementById('app').textContent = 'the tree';")


def test_a_page_is_dumped_again_until_it_shows_what_the_caller_waits_for(tmp_path: Path) -> None:
    page = tmp_path / "index.html"
    page.write_text(STILL_DRAWING)
    seen: list[str] = []

    def drawn(dom: str) -> bool:
        seen.append(dom)
        page.write_text(DRAWN)  # what the next dump will find: drawn at last
        return "the tree" in dom

    dom = dump_dom(page.as_uri(), until=drawn)
    assert "the tree" in dom
    assert len(seen) == 2 and "drawing" in seen[0]


def test_without_a_condition_the_page_is_dumped_once(tmp_path: Path) -> None:
    page = tmp_path / "index.html"
    page.write_text(STILL_DRAWING)
    assert "drawing" in dump_dom(page.as_uri())
