"""The fixtures a conformance check asks for (a plugin of their own, loaded by the plugin).

Only a test that asks for `codex_backend` (directly or through `codex_client`,
`codex_session`, ...) is parametrized over the targets (codex_probe/conformance/selection.py), and
nothing is installed or started until such a test runs. Every name starts with `codex_`:
the fixtures are offered to every pytest run of an environment with codex-probe
installed, beside the project's own. What they run (the rig: wiretap, homes, backends,
sessions) is imported when one of them is set up, not when pytest loads this module.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import pytest_asyncio

from codex_probe.conformance.distribution import is_worker
from codex_probe.conformance.state import state_of
from codex_probe.conformance.target import Target

if TYPE_CHECKING:
    from codex_probe.conformance.holds import Holds
    from codex_probe.conformance.wire import WireLog
    from codex_probe.harness.jsonrpc.client import JsonRpcClient
    from codex_probe.rig.backends import Backend
    from codex_probe.rig.homes import IsolatedHome
    from codex_probe.rig.session import Session
    from codex_probe.rig.wiretap import Wiretap


@pytest.fixture(scope="session")
def codex_backend(request: pytest.FixtureRequest) -> Backend:
    """The backend of this target (installing codex-cli from npm on first use)."""
    target = getattr(request, "param", None)
    if not isinstance(target, Target):
        raise pytest.UsageError("codex_backend is parametrized by the codex-probe plugin")
    if is_worker(request.config) and not request.config.getvalue("loadgroup"):
        pytest.fail(
            "conformance checks under pytest-xdist need --dist loadgroup: the checks that run "
            "last read a target's whole run, so its tests must share one worker",
            pytrace=False,
        )
    return state_of(request.config).backend(target)


@pytest.fixture
def codex_target(codex_backend: Backend) -> Target:
    return Target(codex_backend.kind, codex_backend.version)


@pytest.fixture
def codex_conformance_timeout(request: pytest.FixtureRequest) -> float:
    """The deadline of every request and awaited notification (--codex-timeout)."""
    return state_of(request.config).timeout


@pytest.fixture(scope="session")
def codex_wire_log(request: pytest.FixtureRequest) -> WireLog:
    """Every message of the run, per target, for the checks that read the whole run."""
    return state_of(request.config).wire_log


@pytest.fixture
def codex_holds() -> Holds:
    from codex_probe.conformance.holds import Holds

    return Holds()


@pytest_asyncio.fixture(loop_scope="function")
async def codex_wiretap(codex_holds: Holds) -> AsyncIterator[Wiretap]:
    """A loopback Responses API; its default answers can be held back with codex_holds."""
    from codex_probe.rig.wiretap import Wiretap

    async with Wiretap(responder=codex_holds) as tap:
        yield tap


@pytest.fixture
def codex_isolated_home(codex_wiretap: Wiretap, tmp_path: Path) -> Iterator[IsolatedHome]:
    """A CODEX_HOME of the test's own whose model provider is codex_wiretap."""
    from codex_probe.rig.homes import IsolatedHome

    with IsolatedHome(codex_wiretap.base_url, parent_dir=tmp_path) as home:
        yield home


@pytest_asyncio.fixture(loop_scope="function")
async def codex_session(
    request: pytest.FixtureRequest,
    codex_backend: Backend,
    codex_wiretap: Wiretap,
    codex_isolated_home: IsolatedHome,
    codex_conformance_timeout: float,
    codex_wire_log: WireLog,
) -> AsyncIterator[Session]:
    """Processes on this target's backend and home; every one is ended at teardown."""
    from codex_probe.rig.session import Session

    session = Session(
        codex_backend, codex_wiretap, codex_isolated_home, timeout=codex_conformance_timeout
    )
    try:
        yield session
    finally:
        await session.close()
        label = Target(codex_backend.kind, codex_backend.version).label
        for number, record in enumerate(session.processes, start=1):
            codex_wire_log.add(
                label,
                f"{request.node.nodeid} (process {number})",
                record.entries,
                session.off_schema_methods,
            )


@pytest_asyncio.fixture(loop_scope="function")
async def codex_client(codex_session: Session) -> JsonRpcClient:
    """An initialized client with its own app-server process (ended by codex_session)."""
    return await codex_session.open()
