"""Headless Chromium (Debian's `chromium`), to see a report as a person would.

Used by the render test and by `codex-probe report --screenshot`. Chromium gets a
throwaway profile and may resolve no host but 127.0.0.1, so opening a report can
neither reach the network nor touch anyone's browser profile. Every run has a
deadline, after which its whole process group is ended.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from codex_probe.harness.child_env import BROWSER, child_env, search_path
from codex_probe.harness.jsonrpc.process import end_process_group
from codex_probe.harness.parent_death import bound_to_this_process
from codex_probe.harness.temp_folders import temporary_folder

BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
BROWSER_TIMEOUT = 90.0
# Virtual time lets the page's scripts run to quiescence without waiting in real time.
VIRTUAL_TIME_BUDGET_MS = 10_000
SCREENSHOT_SIZE = (1280, 1400)


# What keeps a headless Chromium off the network and out of anyone's profile (the site's
# browser test starts it through Playwright with the same flags).
SEALED_FLAGS = (
    "--no-sandbox",  # CI containers run as root, where the sandbox cannot start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
)


class BrowserError(RuntimeError):
    """No Chromium on PATH, or it failed or did not finish in time."""


def find_browser() -> str:
    for name in BROWSER_NAMES:
        if found := shutil.which(name):
            return found
    raise BrowserError(
        "no headless Chromium on PATH (looked for " + ", ".join(BROWSER_NAMES) + "); "
        "on Debian: apt-get install -y chromium"
    )


def dump_dom(
    url: str,
    *,
    until: Callable[[str], bool] | None = None,
    timeout: float = BROWSER_TIMEOUT,
) -> str:
    """The page's DOM after its scripts ran: what it renders, not what it was sent.

    With `until`, the page is dumped again until `until(dom)` holds or `timeout` has
    passed, and the last dump is returned either way: chromium's virtual time budget
    ends when the page looks idle, which on a loaded machine can be before the page's
    scripts have drawn it (seen once: only the header of an Allure page)."""
    deadline = time.monotonic() + timeout
    dom = _run_headless(["--dump-dom", url], timeout=timeout)
    while until is not None and not until(dom):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            dom = _run_headless(["--dump-dom", url], timeout=left)
        except BrowserError:
            if time.monotonic() < deadline:
                raise
            break  # the deadline ended the last dump: the one before says what was drawn
    return dom


def screenshot(
    url: str,
    png: Path,
    *,
    size: tuple[int, int] = SCREENSHOT_SIZE,
    timeout: float = BROWSER_TIMEOUT,
) -> Path:
    png.parent.mkdir(parents=True, exist_ok=True)
    target = png.resolve()
    _run_headless(
        [f"--screenshot={target}", f"--window-size={size[0]},{size[1]}", "--hide-scrollbars", url],
        timeout=timeout,
    )
    if not target.is_file() or target.stat().st_size == 0:
        raise BrowserError(f"chromium wrote no screenshot to {target}")
    return target


@contextmanager
def loopback_host(folder: Path) -> Iterator[str]:
    """`folder` served by a static HTTP server on 127.0.0.1 (a port the OS chooses) while
    the block runs; its base URL. A page of an Allure result renders from file:// in
    --dump-dom but says "Failed to fetch" in a --screenshot, and a static host is how a
    published page is read anyway."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    serving = threading.Thread(target=server.serve_forever, name="loopback-host", daemon=True)
    serving.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        serving.join(timeout=10)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """No line per request on stderr."""


def _run_headless(args: list[str], *, timeout: float) -> str:
    browser = find_browser()
    with temporary_folder("chromium") as profile:
        command = [
            browser,
            "--headless",
            *SEALED_FLAGS,
            f"--user-data-dir={profile}",
            f"--virtual-time-budget={VIRTUAL_TIME_BUDGET_MS}",
            *args,
        ]
        env = child_env(BROWSER, {"PATH": search_path(), "HOME": str(profile)})
        process = subprocess.Popen(
            bound_to_this_process(command),  # no browser outlives a codex-probe killed outright
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,  # its own process group, so every helper can be ended
        )
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise BrowserError(f"chromium did not finish within {timeout:.0f}s: {args}") from None
        finally:
            end_process_group(process, grace=5.0)
    if process.returncode != 0:
        raise BrowserError(f"chromium exited {process.returncode}: {stderr.strip()[-800:]}")
    return stdout
