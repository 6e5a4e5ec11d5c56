"""Long tests are handed out first (tests/conftest.py), the rest in their order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_test_marked_starts_early_is_collected_before_the_tests_named_before_it() -> None:
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
            "tests/test_backends.py", "tests/test_wheel.py",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    backends = [line for line in collected if line.startswith("tests/test_backends.py::")]
    first = collected.index(backends[0])
    # The wheel's early tests first, though its file is named after test_backends.py.
    assert first >= 1, collected
    assert all(line.startswith("tests/test_wheel.py::") for line in collected[:first]), collected
    assert collected[first : first + 3] == backends and len(backends) == 3, collected
