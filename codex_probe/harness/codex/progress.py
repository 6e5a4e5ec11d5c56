"""What a person sees while npm installs something big: codex-cli is about 424 MB.

On a terminal, a progress bar (tqdm: bytes so far, rate, elapsed) measured from the folder
npm fills; elsewhere (CI logs, pipes) one line when the install starts and one when it
ends, as pip and npm do, instead of a bar redrawn into a log.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Never, TextIO

from tqdm import tqdm

# How often the folder is measured while npm runs.
PROGRESS_EVERY_S = 0.5


def folder_size(folder: Path) -> int:
    """Bytes of the files under `folder` now (files npm moves away meanwhile are skipped)."""
    total = 0
    for directory, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                continue
    return total


class InstallProgress:
    def __init__(self, what: str, folder: Path, stream: TextIO | None = None) -> None:
        self.what = what
        self.folder = folder
        self.stream = stream if stream is not None else sys.stderr
        self.bar: tqdm[Never] | None = None
        self.started = 0.0

    def __enter__(self) -> InstallProgress:
        self.started = time.monotonic()
        if self.stream.isatty():
            self.bar = tqdm(
                desc=f"installing {self.what}",
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
                file=self.stream,
                # The folder is measured every PROGRESS_EVERY_S: draw every measurement.
                mininterval=0,
                miniters=1,
            )
        else:
            print(f"installing {self.what} (once, into the cache) ...", file=self.stream)
        return self

    def update(self) -> None:
        if self.bar is not None:
            self.bar.update(folder_size(self.folder) - self.bar.n)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.bar is not None:
            self.update()
            self.bar.close()
            return
        if kind is None:
            size = folder_size(self.folder) / 1e6
            seconds = time.monotonic() - self.started
            print(f"installed {self.what}: {size:.0f} MB in {seconds:.0f} s", file=self.stream)


def wait_showing(
    process: subprocess.Popen[str], timeout: float, progress: InstallProgress | None
) -> tuple[str, str]:
    """The process's output once it exits; until then, at most every PROGRESS_EVERY_S, the
    folder it fills is measured for the progress line."""
    if progress is None:
        return process.communicate(timeout=timeout)
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise subprocess.TimeoutExpired(process.args, timeout)
        try:
            return process.communicate(timeout=min(PROGRESS_EVERY_S, left))
        except subprocess.TimeoutExpired:
            progress.update()
