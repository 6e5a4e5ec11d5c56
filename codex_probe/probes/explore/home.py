"""The exploration's isolated home: sealed like the rig's, with its outbound HTTP sent to a
port that refuses it (outbound.py), codex's own defaults for approvals and the sandbox, and
the files the fixtures name laid out in its working folder."""

from __future__ import annotations

import struct
import wave
import zlib
from pathlib import Path

from codex_probe.rig.homes import IsolatedHome, TomlValue

EXPLORE_CONFIG: dict[str, TomlValue] = {"features": {"shell_snapshot": False}}
# Settings the rig's homes make that the exploration leaves to codex.
CODEX_DEFAULTS = ("approval_policy", "sandbox_mode")


class ExploreHome(IsolatedHome):
    """An isolated home whose codex sends its outbound HTTP to `proxy_env`'s port, with the
    exploration's files laid out in its working folder (fixtures.py names them).

    Its config leaves the approval policy and the sandbox to codex's defaults (a default
    that changes is what the exploration is for), and turns the shell snapshot off: codex
    spawns a login shell for every thread it starts or forks, which cost 3.9 of every
    5.0 s of 20 forks on 0.171.0 (measured under load); no call explored reads it."""

    def __init__(self, base_url: str, proxy_env: dict[str, str]) -> None:
        super().__init__(base_url, extra_config=EXPLORE_CONFIG)
        for key in CODEX_DEFAULTS:
            self.config.pop(key, None)
        self.write_config()
        self.proxy_env = proxy_env
        lay_out(self.workdir)

    def env(self, path: str | None = None) -> dict[str, str]:
        return {**super().env(path), **self.proxy_env}


def lay_out(work: Path) -> None:
    files = work / "files"
    files.mkdir(parents=True, exist_ok=True)
    (files / "readme.txt").write_text("explore readme\n", encoding="utf-8")
    (files / "image.png").write_bytes(_one_pixel_png())
    with wave.open(str(files / "audio.wav"), "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(2)
        audio.setframerate(8000)
        audio.writeframes(b"\0\0" * 80)
    skill = work / "skills" / "explore"
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(
        "---\nname: explore\ndescription: A skill of the exploration.\n---\nDo nothing.\n",
        encoding="utf-8",
    )
    (work / "out").mkdir(exist_ok=True)


def _one_pixel_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0\0"))
        + chunk(b"IEND", b"")
    )


def lay_out_removable(target: Path, work: Path) -> None:
    """The file an fs/remove cell removes (inside the working folder only)."""
    if target.is_relative_to(work):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("remove me\n", encoding="utf-8")
