"""codex's `lsb_release -a` answered from the machine's answer, read once
(codex_probe/rig/lsb_release.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from codex_probe.rig.lsb_release import answered_path

LOCALE = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC"}
# Quotes, a backslash, a percent sign, a byte that is not UTF-8, no newline at the end.
ODD_OUT = b'Distributor ID:\tIt\'s "odd" \\ 100%\nDescription:\t\xff$HOME `id`'
ODD_ERR = b"No LSB modules are available.\n"


def real_program(folder: Path, stdout: bytes = ODD_OUT, status: int = 3) -> Path:
    """An lsb_release that prints `stdout` and ODD_ERR for -a, its arguments otherwise,
    and counts its runs in folder/runs."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "out").write_bytes(stdout)
    (folder / "err").write_bytes(ODD_ERR)
    program = folder / "lsb_release"
    program.write_text(
        "#!/bin/sh\n"
        f"echo run >> {folder}/runs\n"
        'if [ "$#" = 1 ] && [ "x$1" = x-a ]; then\n'
        f"  cat {folder}/out; cat {folder}/err >&2; exit {status}\n"
        "fi\n"
        'echo "asked: $*"\n'
    )
    program.chmod(0o755)
    return program


def run(path: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["lsb_release", *args], env={"PATH": path}, capture_output=True, timeout=60, check=False
    )


def runs(folder: Path) -> int:
    return len((folder / "runs").read_text().splitlines())


def test_asked_all_codex_gets_the_machines_answer_byte_for_byte_without_running_it_again(
    tmp_path: Path,
) -> None:
    real = tmp_path / "real"
    real_program(real)
    path = answered_path(tmp_path / "answers", f"{real}:/usr/bin:/bin", LOCALE)
    assert path == f"{tmp_path / 'answers'}:{real}:/usr/bin:/bin"
    assert runs(real) == 1  # read once
    for _ in range(3):
        done = run(path, "-a")
        assert (done.stdout, done.stderr, done.returncode) == (ODD_OUT, ODD_ERR, 3)
    assert runs(real) == 1


def test_a_second_home_reuses_the_answer_read_for_the_first(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real_program(real)
    for home in ("one", "two"):
        path = answered_path(tmp_path / home, f"{real}:/usr/bin:/bin", LOCALE)
        assert run(path, "-a").stdout == ODD_OUT
    assert runs(real) == 1


def test_any_other_question_goes_to_the_real_program(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real_program(real)
    path = answered_path(tmp_path / "answers", f"{real}:/usr/bin:/bin", LOCALE)
    for args in (["-si"], ["-a", "-s"], []):
        done = run(path, *args)
        assert done.stdout == f"asked: {' '.join(args)}\n".encode(), args
    assert runs(real) == 1 + 3


def test_a_machine_without_lsb_release_keeps_its_path_and_gets_no_folder(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert answered_path(tmp_path / "answers", str(empty), LOCALE) == str(empty)
    assert not (tmp_path / "answers").exists()


def test_an_answer_a_script_cannot_print_leaves_codex_to_the_real_program(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real_program(real, stdout=b"Distributor ID:\0Nul\n")
    path = f"{real}:/usr/bin:/bin"
    assert answered_path(tmp_path / "answers", path, LOCALE) == path
    assert not (tmp_path / "answers").exists()


def test_any_other_question_reaches_the_program_by_the_name_codex_would_run(
    tmp_path: Path,
) -> None:
    # A symlink's target may read the name it was run by (a program of many names).
    target = real_program(tmp_path / "store")
    target.write_text(target.read_text().replace('echo "asked: $*"', 'echo "ran as: $0"'))
    linked = tmp_path / "bin"
    linked.mkdir()
    (linked / "lsb_release").symlink_to(target)
    path = answered_path(tmp_path / "answers", f"{linked}:/usr/bin:/bin", LOCALE)
    assert run(path, "-si").stdout == f"ran as: {linked / 'lsb_release'}\n".encode()
