"""Allure results -> one static HTML page, by the pinned Allure 3 CLI, offline.

`allure generate` reads a config (`allurerc.json`) from its working directory or
`--config`; we write one into a private folder with our categories and the Awesome
plugin in single-file mode. A single `index.html` (data inlined) opens from disk, from a
downloaded CI artifact, or over http alike; the multi-file layout fetches its data and
shows an empty shell under file://.

Allure 3.18 puts a Google Analytics tag into every page it writes; the report must not
call out when someone opens it, so we remove that tag and check it is gone.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from codex_probe.harness.child_env import ALLURE, child_env, search_path
from codex_probe.harness.codex.install import Installation
from codex_probe.harness.parent_death import bound_to_this_process
from codex_probe.harness.temp_folders import temporary_folder
from codex_probe.reporting.categories import categories_json

GENERATE_TIMEOUT = 300.0
REPORT_NAME = "codex-probe"
# The tree groups findings by what they mean for the run (reporting/finding_results.py:
# changed and gated, changed and informative, broken, ..., holds), then by spec section.
GROUP_BY = ["parentSuite", "epic"]
ANALYTICS_HOST = "googletagmanager.com"
ANALYTICS_TAG = re.compile(
    r"\s*<script async src=\"https://www\.googletagmanager\.com/gtag/js[^\"]*\"></script>"
    r"\s*<script>\s*window\.dataLayer[\s\S]*?</script>"
)


class ReportError(RuntimeError):
    """No results to show, or Allure failed or did not finish in time."""


@dataclass(frozen=True)
class GeneratedReport:
    index: Path
    seconds: float
    results: int


def require_results(results_dir: Path) -> list[Path]:
    """The result files of `results_dir`; an empty or missing folder is an error."""
    results = sorted(results_dir.glob("*-result.json"))
    if not results:
        raise ReportError(
            f"{results_dir} holds no Allure results (*-result.json); "
            "run `codex-probe probe --out DIR` first"
        )
    return results


def allure_config(output: Path, name: str = REPORT_NAME) -> dict[str, object]:
    return {
        "name": name,
        "output": str(output),
        "categories": categories_json(),
        "plugins": {
            "awesome": {"options": {"reportName": name, "singleFile": True, "groupBy": GROUP_BY}}
        },
    }


def generate_html(
    allure: Installation,
    results_dir: Path,
    html_dir: Path,
    *,
    name: str = REPORT_NAME,
    timeout: float = GENERATE_TIMEOUT,
) -> GeneratedReport:
    """Write `html_dir/index.html` from `results_dir`, titled `name` (the page's heading);
    the old report is replaced atomically."""
    # Allure runs in its own working folder, so relative paths must not reach it.
    results_dir, html_dir = results_dir.resolve(), html_dir.resolve()
    results = require_results(results_dir)
    html_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = _new_staging_dir(html_dir)
    started = time.monotonic()
    try:
        with temporary_folder("allure") as work:
            config = work / "allurerc.json"
            config.write_text(json.dumps(allure_config(staging, name), indent=2))
            _run_allure(
                allure,
                ["generate", "--config", str(config), "--output", str(staging), str(results_dir)],
                cwd=work,
                timeout=timeout,
            )
        index = staging / "index.html"
        if not index.is_file():
            raise ReportError(f"allure {allure.version} generate wrote no index.html")
        _strip_analytics(index, allure.version)
        _replace_dir(staging, html_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return GeneratedReport(html_dir / "index.html", time.monotonic() - started, len(results))


def _new_staging_dir(html_dir: Path) -> Path:
    """An empty folder beside `html_dir` that becomes it by a rename.

    Made by mkdir, so it takes the umask like any folder (0755 under umask 022):
    tempfile.mkdtemp would make it 0700, and the rename would carry that to the report.
    """
    while True:
        staging = html_dir.with_name(f".{html_dir.name}.partial-{secrets.token_hex(4)}")
        try:
            staging.mkdir()
        except FileExistsError:
            continue  # a name another run took: draw again
        return staging


def _run_allure(allure: Installation, args: list[str], *, cwd: Path, timeout: float) -> None:
    # PATH and the names of the CI run Allure shows, never a token: child_env.ALLURE.
    # Nothing of the user's home is read or written.
    env = child_env(ALLURE, {"PATH": search_path(), "HOME": str(cwd)})
    try:
        done = subprocess.run(
            bound_to_this_process([str(allure.binary), *args]),
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise ReportError(f"`allure {args[0]}` did not finish within {timeout:.0f}s") from None
    except OSError as error:
        raise ReportError(f"cannot run {allure.binary}: {error}") from None
    if done.returncode != 0:
        tail = (done.stderr.strip() or done.stdout.strip())[-800:] or "(no output)"
        raise ReportError(f"`allure {args[0]}` exited {done.returncode}: {tail}")


def _strip_analytics(index: Path, version: str) -> None:
    page = index.read_text(encoding="utf-8")
    stripped = ANALYTICS_TAG.sub("", page)
    if ANALYTICS_HOST in stripped:
        raise ReportError(
            f"allure {version} wrote an analytics tag into {index} that codex-probe does not "
            "know how to remove; pin the Allure version this was checked against"
        )
    index.write_text(stripped, encoding="utf-8")


def _replace_dir(new: Path, target: Path) -> None:
    # Two renames: a reader sees the old report or the new one, never a half-written one.
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        shutil.rmtree(old, ignore_errors=True)
        os.rename(target, old)
    os.rename(new, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
