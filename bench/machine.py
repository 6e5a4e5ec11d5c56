"""The machine a bench ran on, as its figures name it."""

from __future__ import annotations

import os
import platform


def describe() -> str:
    return (
        f"{platform.machine()}, {os.cpu_count()} cpus, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )
