"""`dump_dom`: what Chromium renders, waited for rather than trusted to a time budget.

Needs Debian's `chromium`, as the README says.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codex_probe.reporting import browser
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


class Chromium:
    """A stand-in for chromium's runs on a clock of its own: each dump takes `takes`
    seconds and says `said`; from `fails_after` on the clock, it fails."""

    def __init__(self, takes: float, said: str = STILL_DRAWING) -> None:
        self.now, self.takes, self.said = 0.0, takes, said
        self.timeouts: list[float] = []
        self.fails_after: float | None = None

    def monotonic(self) -> float:
        return self.now

    def run(self, args: list[str], *, timeout: float) -> str:
        self.timeouts.append(timeout)
        if self.fails_after is not None and self.now >= self.fails_after:
            raise browser.BrowserError("chromium exited 1: gone")
        if self.takes > timeout:
            self.now += timeout
            raise browser.BrowserError(f"chromium did not finish within {timeout:.0f}s")
        self.now += self.takes
        return self.said


@pytest.fixture
def chromium(monkeypatch: pytest.MonkeyPatch) -> Chromium:
    stand_in = Chromium(takes=4.0)
    monkeypatch.setattr(browser, "_run_headless", stand_in.run)
    monkeypatch.setattr(browser, "time", stand_in)
    return stand_in


def test_a_page_that_never_shows_it_is_dumped_until_the_deadline_and_the_last_dump_returned(
    chromium: Chromium,
) -> None:
    dom = dump_dom("http://127.0.0.1:1/", until=lambda dom: False, timeout=10.0)
    assert dom == STILL_DRAWING
    # 4 s a dump: at 0 (10 s left), 4 (6 left), 8 (2 left: it runs out at the deadline).
    assert chromium.timeouts == [10.0, 6.0, 2.0]


def test_a_dump_that_fails_before_the_deadline_is_an_error_not_a_last_dump(
    chromium: Chromium,
) -> None:
    chromium.fails_after = 4.0
    with pytest.raises(browser.BrowserError, match="exited 1"):
        dump_dom("http://127.0.0.1:1/", until=lambda dom: False, timeout=30.0)
