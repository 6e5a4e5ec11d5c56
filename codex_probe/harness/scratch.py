"""Where codex-probe makes its scratch folders (a home per scenario, per exploration lane,
per fake): TMPDIR when the user set it; else the machine's RAM-backed folder, /dev/shm,
when it is a tmpfs with room and programs may run from it; else the system's temp folder.

Why not always the temp folder: codex writes its home all the time (its SQLite state and
log databases, rollouts, the skills it unpacks on a first start), and the homes are made
and removed by the hundred in a history. On a Debian root file system (ext4, `/tmp` on
disk), 4 releases of `codex-probe history` (0.160.0 to 0.162.0, 3 pairs in turn) took
0.91x the CPU and 0.91x the wall with the homes on tmpfs, the system time a quarter less,
every surface the same. A history's homes took at most 104 MB at once there.

A TMPDIR (or TEMP, TMP) the user set is theirs to choose, and is kept. /dev/shm is taken only with
MIN_FREE free (a container's default 64 MB is not enough) and without `noexec`.
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

# A scratch folder named in a text, up to its `codex-probe-` prefix, wherever its root was:
# what codex says of a home masks the same from /tmp, /dev/shm or any TMPDIR, so surfaces
# and learned profiles of two machines compare.
SCRATCH_FOLDER = r"(?:/[^/\s'\"`,;)]+)+/codex-probe-"
RAM_FOLDER = Path("/dev/shm")
# The variables Python's tempfile reads for the user's temp folder, in its order.
USER_TEMP = ("TMPDIR", "TEMP", "TMP")
MIN_FREE = 2 * 1024**3
TMPFS = "tmpfs"


@functools.cache
def scratch_root() -> Path:
    """The folder scratch folders are made in (resolved), decided once per process."""
    chosen = any(os.environ.get(name) for name in USER_TEMP)
    if not chosen and ram_folder_fits(RAM_FOLDER):
        return RAM_FOLDER.resolve()
    return Path(tempfile.gettempdir()).resolve()


def ram_folder_fits(folder: Path) -> bool:
    """Whether `folder` is a tmpfs this process may write and run programs from, with
    MIN_FREE free."""
    try:
        stat = os.statvfs(folder)
    except OSError:
        return False
    if stat.f_flag & (os.ST_RDONLY | os.ST_NOEXEC):
        return False
    if stat.f_bavail * stat.f_frsize < MIN_FREE:
        return False
    return os.access(folder, os.W_OK | os.X_OK) and _is_tmpfs(folder)


def _is_tmpfs(folder: Path) -> bool:
    """Whether /proc/mounts says `folder` is a tmpfs mount point."""
    try:
        mounts = Path("/proc/mounts").read_text(encoding="utf-8")
    except OSError:
        return False
    return any(
        fields[1] == str(folder) and fields[2] == TMPFS
        for fields in (line.split() for line in mounts.splitlines())
        if len(fields) > 2
    )
