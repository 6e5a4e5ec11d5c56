"""The exploration a release run asks for: the one call the runner makes into this room.

A run asked for the whole surface explores the real codex-cli beside its scenarios; a run
asked for part of it (bisect --surface) explores only the cells it names, or nothing when
it names none; a run about the fake, or without the surface, explores nothing. What comes
back is the exploration's record (record.py) as JSON, for the surface's exploration aspect
and for learning the fake; or the one line that says why it could not run, which the
surface lists as a gap.
"""

from __future__ import annotations

from typing import Any

from codex_probe.harness.codex.install import InstallError, UnknownVersionError
from codex_probe.harness.codex.npm import NpmError
from codex_probe.harness.jsonrpc.errors import JsonRpcError
from codex_probe.probes.explore.run import explore
from codex_probe.probes.explore.unanswered import Unanswered
from codex_probe.probes.runner.selection import Selection, Subject
from codex_probe.rig.backends import BackendError, make_backend

# What stops an exploration from running at all (a failure inside it is a cell's).
CANNOT_RUN = (
    BackendError,
    InstallError,
    UnknownVersionError,
    NpmError,
    JsonRpcError,
    OSError,
    TimeoutError,
)


async def explore_release(
    version: str, selection: Selection, subject: Subject, unanswered: Unanswered | None = None
) -> dict[str, Any] | str | None:
    """The exploration record of `version` as `selection` asks for it (see the module):
    None when none is asked for. `unanswered`: what earlier explorations of the run learnt
    goes unanswered (unanswered.py)."""
    if not selection.surface or subject.kind != "real":
        return None
    if selection.surface_scenarios is not None and not selection.explore_cells:
        return None
    try:
        backend = make_backend("real", version)
        record = await explore(
            backend, only=set(selection.explore_cells) or None, unanswered=unanswered
        )
    except CANNOT_RUN as error:
        return _could_not_run(error)
    except BaseExceptionGroup as group:
        # Its lanes run in a task group: one whose wait ran out (CI under load: the held
        # turn's model request came 12.6 s late) is a group of that error, not the error.
        leaves = _leaves(group)
        if not all(isinstance(leaf, CANNOT_RUN) for leaf in leaves):
            raise
        return _could_not_run(leaves[0])
    return record.to_json()


def _could_not_run(error: BaseException) -> str:
    said = str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"the exploration could not run: {said}"


def _leaves(group: BaseExceptionGroup) -> list[BaseException]:
    found: list[BaseException] = []
    for error in group.exceptions:
        found += _leaves(error) if isinstance(error, BaseExceptionGroup) else [error]
    return found
