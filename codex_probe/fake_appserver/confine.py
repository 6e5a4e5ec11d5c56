"""Run a command where it can change nothing but the folders named writable, offline.

The fake's stand-in for codex's sandbox: a command a scripted model asks the fake to run
(`exec_command`) runs through this file, as a script:

    python -I -S confine.py [--writable DIR]... -- ARGV...

In a new user, mount and network namespace of the caller's own uid it

- makes every mount it sees read-only (keeping the flags the kernel locks in a user
  namespace: nosuid, nodev, noexec, atime), then binds each writable folder over itself
  and makes that bind writable again;
- keeps the new network namespace empty (its loopback down): the command has no network;

then execs ARGV: same pid, the environment it was given. Nothing is mounted on the host
(the namespace's mounts are private). A mount of a kernel pseudo file system (proc, sysfs,
cgroup...) that refuses to be made read-only is left as it is; any other refusal, or a host
that allows no user namespace, exits EXIT_UNCONFINED naming it, and runs nothing.

Only os, sys and ctypes: the helper starts in about 11 ms.
"""

from __future__ import annotations

import ctypes
import os
import sys

EXIT_UNCONFINED = 125
USAGE = "usage: confine.py [--writable DIR]... -- ARGV..."

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_MS_RDONLY = 0x1
_MS_REMOUNT = 0x20
_MS_BIND = 0x1000
_MS_REC = 0x4000
_MS_PRIVATE = 0x40000
# Per-mount flags a user namespace may not drop from a mount it inherited.
_LOCKED = {
    "nosuid": 0x2,
    "nodev": 0x4,
    "noexec": 0x8,
    "noatime": 0x400,
    "nodiratime": 0x800,
    "relatime": 0x200000,
    "strictatime": 0x1000000,
}
# File systems of the kernel's own, which may refuse a read-only remount: left as they are.
_PSEUDO = {
    "proc",
    "sysfs",
    "cgroup",
    "cgroup2",
    "devpts",
    "mqueue",
    "securityfs",
    "debugfs",
    "tracefs",
    "pstore",
    "bpf",
    "fusectl",
    "configfs",
    "binfmt_misc",
    "hugetlbfs",
    "autofs",
    "nsfs",
    "efivarfs",
}


def _call(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def _unescape(field: str) -> str:
    """A mountinfo path: spaces, tabs, newlines and backslashes come as octal escapes."""
    parts = field.split("\\")
    return parts[0] + "".join(chr(int(p[:3], 8)) + p[3:] for p in parts[1:])


def _mounts() -> list[tuple[str, int, str]]:
    """(mount point, locked flags, file system type) of every mount, parents first."""
    found = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            separator = fields.index("-")
            flags = 0
            for option in fields[5].split(","):
                flags |= _LOCKED.get(option, 0)
            found.append((_unescape(fields[4]), flags, fields[separator + 1]))
    return found


def _locked_flags(path: str, mounts: list[tuple[str, int, str]]) -> int:
    """The locked flags of the mount that holds `path` (the longest mount point above it)."""
    best, flags = "", 0
    for point, point_flags, _ in mounts:
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, flags = point, point_flags
    return flags


def _confine(writable: list[str]) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    _call(libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWNET), "unshare(user+mount+net)")
    maps = (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1"))
    for name, text in maps:
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
    _call(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")
    mounts = _mounts()
    for point, flags, kind in mounts:
        read_only = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | flags
        done = libc.mount(None, point.encode(), None, read_only, None)
        if done != 0 and kind not in _PSEUDO:
            _call(done, f"make {point} ({kind}) read-only")
    for folder in writable:
        path = os.path.realpath(folder).encode()
        flags = _locked_flags(os.path.realpath(folder), mounts)
        _call(libc.mount(path, path, None, _MS_BIND | _MS_REC, None), f"bind {folder}")
        writable_again = _MS_REMOUNT | _MS_BIND | flags
        _call(libc.mount(None, path, None, writable_again, None), f"make {folder} writable")


def _parse(args: list[str]) -> tuple[list[str], list[str]]:
    if "--" not in args:
        raise ValueError(USAGE)
    split = args.index("--")
    options, argv = args[:split], args[split + 1 :]
    if not argv or len(options) % 2 or any(o != "--writable" for o in options[::2]):
        raise ValueError(USAGE)
    return options[1::2], argv


def main(args: list[str]) -> int:
    try:
        writable, argv = _parse(args)
        cwd = os.getcwd()
        _confine(writable)
        os.chdir(cwd)  # resolve it again, in the new view of the mounts
        os.execvp(argv[0], argv)
    except ValueError as error:
        print(f"fake-codex confine: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"fake-codex confine: cannot confine the command, not run: {error}", file=sys.stderr)
        return EXIT_UNCONFINED
    return EXIT_UNCONFINED  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
