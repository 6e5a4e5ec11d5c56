"""The built site in a real browser: Debian's chromium, driven by Playwright for Python
(pointed at the installed binary: no browser is downloaded). Every page is opened from
file://, as a person opens a downloaded site, and the index once more from a static host
(a loopback HTTP server of the standard library)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Request, sync_playwright

from codex_probe.harness.child_env import BROWSER, child_env, search_path
from codex_probe.probes.domain.watch import WATCHED
from codex_probe.reporting.browser import SEALED_FLAGS, find_browser, loopback_host
from codex_probe.reporting.site.build import build_site
from tests.site.recorded import (
    AFTER,
    BEFORE,
    DEVELOPER,
    FIELD,
    MOVED,
    every_finding_id,
    write_history,
)

# Every wait of a page has this deadline (Playwright's own, in milliseconds).
DEADLINE_MS = 20_000
VERSIONS = ("0.160.0", BEFORE, "0.161.1", MOVED, AFTER)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    history = write_history(
        tmp_path_factory.mktemp("history"), [v for v in VERSIONS if v != "0.161.1"],
        unavailable=["0.161.1"],
    )  # fmt: skip
    out = tmp_path_factory.mktemp("site")
    build_site(history, out)
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with (
        tempfile.TemporaryDirectory(prefix="codex-probe-chromium-") as home,
        sync_playwright() as p,
    ):
        # The environment of every browser codex-probe starts: an allow-list, a fresh HOME.
        env: dict[str, str | float | bool] = {
            **child_env(BROWSER, {"PATH": search_path(), "HOME": home})
        }
        chromium = p.chromium.launch(
            executable_path=find_browser(),
            args=list(SEALED_FLAGS),
            env=env,
            timeout=DEADLINE_MS,
        )
        try:
            yield chromium
        finally:
            chromium.close()


class Watched:
    """A page, with every console error, uncaught exception and request it made."""

    def __init__(self, browser: Browser) -> None:
        self.page: Page = browser.new_page(viewport={"width": 1400, "height": 900})
        self.page.set_default_timeout(DEADLINE_MS)
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        self.page.on("request", self._request)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            self.errors.append(f"{message.type}: {message.text}")

    def _request(self, request: Request) -> None:
        self.requests.append(request.url)


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    watching = Watched(browser)
    try:
        yield watching
    finally:
        watching.page.close()


def test_the_grid_renders_from_file_with_a_cell_per_release_and_finding(
    site: Path, watched: Watched
) -> None:
    page = watched.page
    page.goto((site / "index.html").as_uri())
    cells = page.locator("table.grid tbody td")
    assert cells.count() == len(VERSIONS) * (len(every_finding_id()) + len(WATCHED))
    assert page.locator("table.grid thead th.v").all_inner_texts() == list(VERSIONS)
    moved = page.locator("table.grid").locator(
        f'a[href="findings/steer-mid-answer-keeps-reply.html#v{MOVED}"]'
    )
    assert moved.inner_text() == "Δ"
    # Colour and symbol both: the changed cell is orange and says Δ; a holding one green ✓.
    assert moved.evaluate("a => getComputedStyle(a).backgroundColor") == "rgb(230, 159, 0)"
    holds = page.locator("table.grid").locator(
        f'a[href="findings/steer-mid-answer-keeps-reply.html#v{BEFORE}"]'
    )
    assert holds.inner_text() == "✓"
    assert holds.evaluate("a => getComputedStyle(a).backgroundColor") == "rgb(0, 158, 115)"
    # The bar of a verdict's change point.
    assert "inset" in moved.evaluate("a => getComputedStyle(a).boxShadow")
    moved.hover()
    assert moved.get_attribute("title") == (
        f"steer-mid-answer-keeps-reply on {MOVED}: changed upstream (changed here)"
    )
    # A watched bug's cell: symbol and colour both, named under the pointer.
    band = page.locator("table.grid tr", has=page.locator('th a[href$="/issues/40805"]'))
    absent = band.locator("td a").first
    assert absent.inner_text() == "○"
    assert absent.evaluate("a => getComputedStyle(a).backgroundColor") == "rgb(217, 239, 230)"
    absent.hover()
    assert absent.get_attribute("title") == "openai/codex#40805 on 0.160.0: bug absent"
    assert watched.errors == []


def test_a_cell_leads_to_the_finding_s_page_at_that_release(site: Path, watched: Watched) -> None:
    page = watched.page
    page.goto((site / "index.html").as_uri())
    page.locator("table.grid").locator(
        f'a[href="findings/base-developer-placement.html#v{MOVED}"]'
    ).click()
    page.wait_for_url(f"**/findings/base-developer-placement.html#v{MOVED}")
    assert page.locator("h1").inner_text() == "base-developer-placement"
    assert page.locator(":target").get_attribute("id") == f"v{MOVED}"
    point = page.locator(f'[id="change-{MOVED}"]')
    assert f"First changed in {MOVED} (last same: {BEFORE})" in point.locator("h3").inner_text()
    assert FIELD in point.inner_text() and DEVELOPER in point.inner_text()
    assert watched.errors == []


def test_the_compare_view_shows_the_known_difference_of_0_162_0(
    site: Path, watched: Watched
) -> None:
    page = watched.page
    page.goto((site / "compare.html").as_uri() + f"#a={BEFORE}&b={MOVED}")
    row = page.locator('tr[data-key="base-developer-placement.base_at"]')
    assert row.locator("td.before").inner_text() == FIELD
    assert row.locator("td.after").inner_text() == DEVELOPER
    steer = page.locator('tr[data-key="steer-mid-answer-keeps-reply"]')
    assert "holds" in steer.locator("td.before").inner_text()
    assert "changed" in steer.locator("td.after").inner_text()
    assert f"{MOVED} (last same: {BEFORE})" in steer.inner_text()
    # Picking releases that agree: nothing differs, and the address says what is compared.
    page.select_option("#a", MOVED)
    page.select_option("#b", AFTER)
    assert (
        page.locator("#result p.summary")
        .inner_text()
        .startswith(f"0 row(s) differ between {MOVED} and {AFTER}")
    )
    assert page.url.endswith(f"#a={MOVED}&b={AFTER}")
    # Across the release that cannot run, from the first to the last.
    page.select_option("#a", "0.160.0")
    assert page.locator('tr[data-key="steer-mid-answer-keeps-reply"]').count() == 1
    assert watched.errors == []


def test_every_page_opens_from_file_without_an_error_or_a_request_off_the_disk(
    site: Path, watched: Watched
) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == 2 + len(VERSIONS) + len(every_finding_id())
    for path in pages:
        watched.page.goto(path.as_uri())
    assert watched.errors == []
    assert [url for url in watched.requests if not url.startswith("file://")] == []


@pytest.fixture
def static_host(site: Path) -> Iterator[str]:
    """The site served by a static HTTP server on 127.0.0.1 (a port the OS chooses)."""
    with loopback_host(site) as base:
        yield base


def test_the_site_works_the_same_from_a_static_host(static_host: str, watched: Watched) -> None:
    page = watched.page
    page.goto(f"{static_host}/index.html")
    page.locator("table.grid").locator(
        f'a[href="findings/base-developer-placement.html#v{MOVED}"]'
    ).click()
    page.wait_for_url(f"**/findings/base-developer-placement.html#v{MOVED}")
    page.goto(f"{static_host}/compare.html#a={BEFORE}&b={MOVED}")
    row = page.locator('tr[data-key="base-developer-placement.base_at"]')
    assert row.locator("td.after").inner_text() == DEVELOPER
    assert watched.errors == []
