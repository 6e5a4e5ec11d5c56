"""A Ctrl-C while the command's modules load ends `codex-probe` with one line and 130 (the
campaign's 'Ctrl-C during imports' row, at a load average of 18 to 44, got a traceback and
death by SIGINT: the console script imported everything before any handler existed)."""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from types import ModuleType

import pytest

from codex_probe.cli import start


class CtrlCOnImport(importlib.abc.MetaPathFinder):
    """Stands for the user: Ctrl-C lands while `codex_probe.cli.main` is being imported."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> None:
        if fullname == "codex_probe.cli.main":
            raise KeyboardInterrupt
        return None


def test_ctrl_c_while_the_command_loads_is_one_line_and_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delitem(sys.modules, "codex_probe.cli.main", raising=False)
    monkeypatch.setattr(sys, "meta_path", [CtrlCOnImport(), *sys.meta_path])
    monkeypatch.setattr(sys, "argv", ["codex-probe", "probe", "--codex", "0.162.0"])
    with pytest.raises(SystemExit) as exited:
        start.run()
    assert exited.value.code == 130
    assert capsys.readouterr().err == "codex-probe probe: interrupted (SIGINT)\n"
