"""What a fixture makes once for the whole test run, even on pytest-xdist workers.

A module- or session-scoped fixture runs once per worker that runs one of its tests, so a
full probe run shared by five tests could run on four workers. Here the first worker to
ask makes the folder under a file lock in the run's shared temporary root, and the others
wait for it and read it (the pattern pytest-xdist documents for session fixtures). Only
for folders that the tests read and never change; a value (`computed_once`) is kept
pickled there and each caller gets its own copy, which it may change.
"""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from filelock import FileLock

MADE = ".made"
VALUE = "value.pickle"
T = TypeVar("T")


def made_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]
) -> Path:
    """The folder `make(folder)` filled, made by the first of the run's processes to ask."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the workers' basetemps sit side by side in the run's own
    folder = root / f"made-once-{name}"
    with FileLock(f"{folder}.lock"):
        if not (folder / MADE).is_file():
            shutil.rmtree(folder, ignore_errors=True)  # a maker that failed half-way
            folder.mkdir()
            make(folder)
            (folder / MADE).touch()
    return folder


def computed_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, compute: Callable[[], T]
) -> T:
    """A copy of what `compute()` returned to the first of the run's processes to ask."""

    def keep(folder: Path) -> None:
        (folder / VALUE).write_bytes(pickle.dumps(compute()))

    value: T = pickle.loads((made_once(tmp_path_factory, name, keep) / VALUE).read_bytes())
    return value
