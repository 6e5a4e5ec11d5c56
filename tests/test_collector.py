"""The garbage collector's policy: the process's own command freezes what its imports made
and makes full collections rare; a command called in process (as tests do) changes
nothing of the caller's collector."""

from __future__ import annotations

import gc
import subprocess
import sys

from codex_probe.cli.main import main
from codex_probe.harness.collector import FULL_EVERY_YOUNGER_PASSES

SHOW_COLLECTOR = (
    "import gc, sys\n"
    "from codex_probe.cli.main import main\n"
    "main(['findings'], exiting=True)\n"
    "print(gc.get_threshold()[2], gc.get_freeze_count(), file=sys.stderr)\n"
)


def test_the_processs_own_command_freezes_its_imports_and_makes_full_collections_rare() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SHOW_COLLECTOR], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    threshold, frozen = map(int, done.stderr.split()[-2:])
    assert threshold == FULL_EVERY_YOUNGER_PASSES
    assert frozen > 10_000  # the modules of the command and what they made


def test_a_command_called_in_process_leaves_the_callers_collector_as_it_was() -> None:
    before = (gc.get_threshold(), gc.get_freeze_count())
    assert main(["findings"]) == 0
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
