"""The codex-probe pytest plugin: `--backend`, `--codex-version`, fixtures, baseline, header.

Registered as the `pytest11` entry point `codex_probe`, so every pytest run of an
environment with codex-probe installed loads it. It stays out of the way of tests
that do not use its fixtures: only a test that asks for `codex_backend` (directly
or through `codex_client`, `codex_session`, ...) is parametrized over the targets,
and nothing is installed or started until such a test runs.

A test requesting `codex_backend` runs once per target: every `--backend` (fake,
real; default both) times every `--codex-version` (default: the default matrix).
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from conformance.baseline import (
    Baseline,
    BaselineError,
    default_baseline_path,
    empty,
    judge,
    load_baseline,
)
from conformance.holds import Holds
from conformance.registry import CHECKS, MARKER, Check
from conformance.state import ConformanceState, state_key, state_of
from conformance.target import Target
from conformance.wire import WireLog
from fake_appserver.profile import ProfileError, load_profile
from harness.codex.versions import DEFAULT_MATRIX
from harness.jsonrpc.client import JsonRpcClient
from rig.backends import BACKEND_KINDS, Backend
from rig.homes import IsolatedHome
from rig.session import DEFAULT_TIMEOUT, Session
from rig.wiretap import Wiretap

DEFAULT_LIFECYCLE_EXAMPLES = 100


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("codex-probe", "codex-probe conformance (tests using codex_backend)")
    group.addoption(
        "--backend",
        dest="codex_backends",
        action="append",
        choices=BACKEND_KINDS,
        help="run conformance fixtures on this backend (repeatable; default: fake and real)",
    )
    group.addoption(
        "--codex-version",
        dest="codex_versions",
        action="append",
        metavar="VERSION",
        help=f"codex-cli version to check (repeatable; default: {', '.join(DEFAULT_MATRIX)})",
    )
    group.addoption(
        "--fake-script",
        dest="codex_fake_script",
        metavar="FILE",
        help="fault script (JSON Lines) for the fake backend; implies --backend fake",
    )
    group.addoption(
        "--fake-profile",
        dest="codex_fake_profile",
        metavar="FILE",
        help="profile file the fake imitates (e.g. from `codex-probe learn`); default: the "
        "version's checked-in one. Implies --backend fake and the profile's --codex-version",
    )
    group.addoption(
        "--conformance-timeout",
        dest="conformance_timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"deadline of every request and awaited notification (default {DEFAULT_TIMEOUT})",
    )
    group.addoption(
        "--conformance-baseline",
        dest="conformance_baseline",
        metavar="FILE|none",
        help="expected-failures baseline (default: the packaged one; 'none': no baseline)",
    )
    group.addoption(
        "--conformance-check",
        dest="conformance_checks",
        action="append",
        metavar="ID",
        help="run only this check id (repeatable)",
    )
    group.addoption(
        "--lifecycle-examples",
        dest="lifecycle_examples",
        type=int,
        default=DEFAULT_LIFECYCLE_EXAMPLES,
        metavar="N",
        help="stateful lifecycle sequences per backend, shared out over the versions "
        f"(default {DEFAULT_LIFECYCLE_EXAMPLES})",
    )
    group.addoption(
        "--conformance-results",
        dest="conformance_results",
        metavar="FILE",
        help="write one JSON line per check outcome (check, target, outcome, message)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(id): the conformance check (conformance/registry.py) a test is"
    )
    script = config.getoption("codex_fake_script")
    profile = config.getoption("codex_fake_profile")
    kinds: list[str] = config.getoption("codex_backends") or (
        ["fake"] if script or profile else ["fake", "real"]
    )
    if script and "real" in kinds:
        raise pytest.UsageError("--fake-script needs the fake backend only (--backend fake)")
    imitated = profile_version(profile) if profile else None
    versions: list[str] = config.getoption("codex_versions") or (
        [imitated] if imitated else list(DEFAULT_MATRIX)
    )
    if imitated and set(versions) != {imitated}:
        raise pytest.UsageError(
            f"--fake-profile {profile} imitates codex-cli {imitated}; "
            f"--codex-version asks for {', '.join(versions)}"
        )
    targets = [Target(kind, version) for version in dict.fromkeys(versions) for kind in kinds]
    choice = config.getoption("conformance_baseline")
    try:
        if choice == "none":
            baseline: Baseline = empty()
        else:
            baseline = load_baseline(Path(choice) if choice else default_baseline_path())
    except BaselineError as error:
        raise pytest.UsageError(str(error)) from None
    examples = config.getoption("lifecycle_examples")
    if examples < 1:
        raise pytest.UsageError("--lifecycle-examples must be at least 1")
    config.stash[state_key] = ConformanceState(
        targets=targets,
        baseline=baseline,
        script=Path(script).resolve() if script else None,
        profile=Path(profile).resolve() if profile else None,
        timeout=config.getoption("conformance_timeout"),
        lifecycle_examples=math.ceil(examples / len(dict.fromkeys(versions))),
        results_path=Path(p) if (p := config.getoption("conformance_results")) else None,
        wire_log=WireLog(),
    )


def profile_version(path: str) -> str:
    """The codex-cli version a --fake-profile file imitates (a broken file: usage error)."""
    try:
        return load_profile(path=Path(path)).version
    except ProfileError as error:
        raise pytest.UsageError(f"--fake-profile: {error}") from None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "codex_backend" not in metafunc.fixturenames:
        return
    targets = state_of(metafunc.config).targets
    metafunc.parametrize(
        "codex_backend",
        targets,
        ids=[t.label for t in targets],
        indirect=True,
        scope="session",
    )


def check_of(item: pytest.Item) -> Check | None:
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return None
    if len(marker.args) != 1 or marker.args[0] not in CHECKS:
        raise pytest.UsageError(
            f"{item.nodeid}: {MARKER} needs one registered check id, got {marker.args!r}"
        )
    return CHECKS[marker.args[0]]


def target_of(item: pytest.Item) -> Target | None:
    callspec = getattr(item, "callspec", None)
    value = callspec.params.get("codex_backend") if callspec is not None else None
    return value if isinstance(value, Target) else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    wanted = config.getoption("conformance_checks")
    if wanted:
        unknown = sorted(set(wanted) - set(CHECKS))
        if unknown:
            raise pytest.UsageError(f"unknown conformance check id(s): {', '.join(unknown)}")
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        check = check_of(item)
        if wanted and (check is None or check.id not in wanted):
            dropped.append(item)
        else:
            keep.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    seen: dict[tuple[str, Target], str] = {}
    for item in keep:
        check, target = check_of(item), target_of(item)
        if check is not None and target is not None:
            other = seen.setdefault((check.id, target), item.nodeid)
            if other != item.nodeid:
                raise pytest.UsageError(
                    f"{check.id} on {target.label} is both {other} and {item.nodeid}: "
                    "a check is one test per target (the baseline keys on it)"
                )
    last = [item for item in keep if (check := check_of(item)) is not None and check.runs_last]
    items[:] = [item for item in keep if item not in last] + last


def pytest_collection_finish(session: pytest.Session) -> None:
    state = state_of(session.config)
    if not any(target_of(item) is not None for item in session.items):
        return
    state.used = True
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    for line in state.header_lines():
        reporter.write_line(line)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    check, target = check_of(item), target_of(item)
    if check is None or target is None:
        return report
    state = state_of(item.config)
    if report.when == "setup":
        report.user_properties.append(("conformance_check", check.id))
        report.user_properties.append(("protects", check.protects))
    if report.skipped:
        if report.when == "call" or report.when == "setup":
            state.record(check, target, "skipped", failure_of(report))
        return report
    if report.when == "call" or (report.when == "setup" and report.failed):
        if report.when == "call":
            entry = state.baseline.lookup(check.id, target.version, target.kind)
            verdict = judge(entry, report.passed, report.longreprtext, target.kind)
            if verdict.outcome == "expected failure":
                report.outcome = "skipped"
                report.wasxfail = verdict.message
            elif verdict.outcome == "failed" and report.passed:
                report.outcome = "failed"
                report.longrepr = verdict.message
            elif verdict.message:
                report.sections.append(("conformance baseline", verdict.message))
            reason = failure_of(report) if report.failed else ""
            state.record(
                check, target, verdict.outcome, "\n".join(filter(None, [verdict.message, reason]))
            )
        else:
            state.record(check, target, "error", failure_of(report))
        if report.failed:
            report.sections.append(
                ("conformance check", f"{check.id}: {check.title}\nprotects: {check.protects}")
            )
    return report


def failure_of(report: pytest.TestReport) -> str:
    """The one-line reason of a failed report (the exception line), else its whole text."""
    crash = getattr(report.longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    return message if isinstance(message, str) else report.longreprtext


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    state = state_of(terminalreporter.config)
    if not state.used:
        return
    terminalreporter.section("codex-probe conformance")
    for line in state.summary_lines():
        terminalreporter.write_line(line)


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(state_key, None)
    if state is not None and state.results_path is not None and state.used:
        state.results_path.write_text(
            "".join(json.dumps(r) + "\n" for r in state.results), encoding="utf-8"
        )


# ----- fixtures ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def codex_backend(request: pytest.FixtureRequest) -> Backend:
    """The backend of this target (installing codex-cli from npm on first use)."""
    target = getattr(request, "param", None)
    if not isinstance(target, Target):
        raise pytest.UsageError("codex_backend is parametrized by the codex-probe plugin")
    return state_of(request.config).backend(target)


@pytest.fixture
def codex_target(codex_backend: Backend) -> Target:
    return Target(codex_backend.kind, codex_backend.version)


@pytest.fixture
def conformance_timeout(request: pytest.FixtureRequest) -> float:
    return state_of(request.config).timeout


@pytest.fixture(scope="session")
def wire_log(request: pytest.FixtureRequest) -> WireLog:
    return state_of(request.config).wire_log


@pytest.fixture
def codex_holds() -> Holds:
    return Holds()


@pytest_asyncio.fixture(loop_scope="function")
async def wiretap(codex_holds: Holds) -> AsyncIterator[Wiretap]:
    """A loopback Responses API; its default answers can be held back with codex_holds."""
    async with Wiretap(responder=codex_holds) as tap:
        yield tap


@pytest.fixture
def isolated_home(wiretap: Wiretap, tmp_path: Path) -> Iterator[IsolatedHome]:
    with IsolatedHome(wiretap.base_url, parent_dir=tmp_path) as home:
        yield home


@pytest_asyncio.fixture(loop_scope="function")
async def codex_session(
    request: pytest.FixtureRequest,
    codex_backend: Backend,
    wiretap: Wiretap,
    isolated_home: IsolatedHome,
    conformance_timeout: float,
    wire_log: WireLog,
) -> AsyncIterator[Session]:
    """Processes on this target's backend and home; every one is ended at teardown."""
    session = Session(codex_backend, wiretap, isolated_home, timeout=conformance_timeout)
    try:
        yield session
    finally:
        await session.close()
        label = Target(codex_backend.kind, codex_backend.version).label
        for number, record in enumerate(session.processes, start=1):
            wire_log.add(
                label,
                f"{request.node.nodeid} (process {number})",
                record.entries,
                session.off_schema_methods,
            )


@pytest_asyncio.fixture(loop_scope="function")
async def codex_client(codex_session: Session) -> JsonRpcClient:
    """An initialized client with its own app-server process (ended by codex_session)."""
    return await codex_session.open()
