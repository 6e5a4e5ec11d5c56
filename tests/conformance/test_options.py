"""The installed plugin's options, as any project with codex-probe installed sees them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GROUP_HEADER = "codex-probe conformance"
OPTION_LINE = re.compile(r"^  (--[\w-]+)")
BARE_BACKEND = re.compile(r"(?<![\w-])--backend(?![\w-])")


def plugin_options(help_text: str) -> list[str]:
    """The option names `pytest --help` lists under the plugin's group."""
    lines = help_text.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(GROUP_HEADER))
    options: list[str] = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        if match := OPTION_LINE.match(line):
            options.append(match.group(1))
    return options


def test_a_project_with_codex_probe_installed_gets_only_codex_namespaced_options(
    tmp_path: Path,
) -> None:
    # A plain folder outside the repository: no conftest or ini of ours, so the plugin
    # can only come from the installed pytest11 entry point.
    assert ROOT not in tmp_path.parents, tmp_path
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert GROUP_HEADER in done.stdout, "the codex_probe entry point did not load the plugin"
    options = plugin_options(done.stdout)
    assert "--codex-backend" in options, options
    assert [o for o in options if not o.startswith("--codex-")] == [], options
    assert not BARE_BACKEND.search(done.stdout), "a bare --backend option is still added"
