"""A deadline that runs out in a session says what the wiretap and the server had said."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from codex_probe.harness.jsonrpc.errors import NotificationTimeout
from codex_probe.rig.backends import make_backend
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.session import Session
from codex_probe.rig.wiretap import Reply, Wiretap

pytestmark = pytest.mark.real  # the fake reads its schema from the installed release


@pytest.fixture
async def held_session(tmp_path: Path) -> AsyncIterator[Session]:
    """A session on the fake whose model answer the wiretap holds back past its deadline."""
    async with Wiretap([Reply(text="late", delay_s=30.0, until_released=True)]) as tap:
        with IsolatedHome(tap.base_url, parent_dir=tmp_path) as home:
            session = Session(make_backend("fake", "0.171.0"), tap, home, timeout=1.0)
            try:
                await session.open()
                yield session
            finally:
                tap.release_held()
                await session.close()


async def test_a_turn_that_never_completes_says_codex_called_the_model_and_what_it_said_last(
    held_session: Session,
) -> None:
    thread_id = (await held_session.start_thread())["id"]
    with pytest.raises(NotificationTimeout) as caught:
        await held_session.run_turn(thread_id, "hello")
    (recount,) = caught.value.__notes__
    assert "the wiretap had 1 request(s), 1 to the model (last: POST /v1/responses)" in recount
    assert "the server's last messages:" in recount and "turn/started" in recount


async def test_a_wait_that_runs_out_before_any_model_call_says_the_model_was_never_called(
    held_session: Session,
) -> None:
    with pytest.raises(NotificationTimeout) as caught:
        await held_session.wait_thread_turn_completed("no-such-thread")
    (recount,) = caught.value.__notes__
    assert "the wiretap had 0 request(s), 0 to the model;" in recount
    assert "answer to" in recount  # the initialize answer, at least
