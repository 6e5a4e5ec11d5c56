"""Sealed launches: the app-server runs where it cannot see the host's codex configuration.

Even with its own HOME and CODEX_HOME, codex reads the system layer
(`/etc/codex/{config.toml,managed_config.toml,requirements.toml,hooks.json,rules,skills,
agents}`: `config.toml` fills in what our config leaves unset, `managed_config.toml` wins
over it) and looks for `.git` in every parent of its working directory. On a host that has
either, verdicts would change silently.

So every app-server is started through this file, run as a script (`python -I -S seal.py
CWD [--hide DIR NAME]... [--mask DIR]... [--parent PID] -- ARGV`). In a fresh mount
namespace (inside a user namespace of the caller's own uid when it lacks CAP_SYS_ADMIN) it

- covers `/etc/codex`, when the host has one, with an empty read-only tmpfs;
- rebuilds each parent of the working directory that holds a `.git` as a tmpfs of bind
  mounts of all its other entries: `.git` is absent, the rest is the host's own (writes to
  those entries go through; a new file made directly in such a parent stays in the tmpfs);
- with `--parent`, has the kernel kill the app-server when that process (the thread that
  started it) ends, so that not even a kill -9 of the caller leaves it running;

then execs ARGV: same pid, same environment, same network, no extra process to end, and
nothing mounted on the host (the namespace's mounts are private). A `.git` in `/` itself
cannot be hidden this way (that needs a new root): such a launch says it is not sealed.

The network stays the host's. The wiretap listens on 127.0.0.1 of this network namespace;
a new one would cut codex off from it. codex's own outbound calls are switched off by its
config (`rig.homes.NETWORK_QUIET_SETTINGS`).

Whether the host allows all this is checked once per process, by doing it (about 20 ms).
Where it does not, the app-server runs unsealed and its `Sealing` says so and lists what
codex could see; `describe_sealing()` sums up every launch for verdict.json.

The helper part comes first and needs only ctypes, errno, os, stat and sys, so a sealed launch
costs a Python start-up of about 11 ms, whatever environment is handed to codex.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys

# Isolated (no PYTHON* variables, no user site) and no site: the helper needs only the
# standard library.
PYTHON_FLAGS = ("-I", "-S")
EXIT_SEAL_FAILED = 126
USAGE = (
    "usage: seal.py CWD [--hide DIR NAME]... [--mask DIR]... [--parent PID] -- ARGV... "
    "| seal.py --check"
)
_PR_SET_PDEATHSIG = 1
_SIGKILL = 9

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_MS_RDONLY = 0x1
_MS_NOSUID = 0x2
_MS_NODEV = 0x4
_MS_NOEXEC = 0x8
_MS_BIND = 0x1000
_MS_REC = 0x4000
_MS_PRIVATE = 0x40000


# ----- the helper side: run as a script, in the child, before it execs the app-server -----


def _call(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def _enter_namespace(libc: ctypes.CDLL) -> str:
    """A private mount namespace (inside a user namespace of our own uid if need be)."""
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWNS) == 0:
        how = "mount namespace"
    else:
        _call(libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS), "unshare(user+mount)")
        for name, text in (
            ("setgroups", "deny"),
            ("uid_map", f"{uid} {uid} 1"),
            ("gid_map", f"{gid} {gid} 1"),
        ):
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
        how = "user and mount namespace"
    # Nothing mounted from here on may propagate back to the host.
    _call(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")
    return how


def _mount_tmpfs(libc: ctypes.CDLL, target: str, flags: int, options: str) -> None:
    _call(
        libc.mount(b"tmpfs", target.encode(), b"tmpfs", flags, options.encode()),
        f"tmpfs on {target}",
    )


def _rebuild_without(libc: ctypes.CDLL, directory: str, hidden: str) -> None:
    """Cover `directory` with a tmpfs holding bind mounts of every entry of it but `hidden`.

    The host keeps changing `directory` meanwhile (other runs make and remove their homes
    beside ours): an entry that vanishes between the listing and its mount is left out, one
    replaced by another kind of entry is mirrored as what it became, and one that appears
    after the listing is not there, as if it had been made after the seal.
    """
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        names = sorted(os.listdir(fd))
        mode = f"mode={stat.S_IMODE(info.st_mode):o}"
        flags = _MS_NOSUID | _MS_NODEV
        try:
            _mount_tmpfs(libc, directory, flags, f"{mode},uid={info.st_uid},gid={info.st_gid}")
        except OSError:  # an owner a user namespace does not map: then the tmpfs is ours
            _mount_tmpfs(libc, directory, flags, mode)
        for name in names:
            if name != hidden:
                _mirror_entry(libc, fd, directory, name)
    finally:
        os.close(fd)


# What a mirror step meets when its entry was removed or replaced since it was looked at.
_CHANGED_UNDER_US = (errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EINVAL, errno.ESTALE)
_MIRROR_TRIES = 3


def _mirror_entry(libc: ctypes.CDLL, fd: int, directory: str, name: str) -> None:
    """Make `directory/name` on the tmpfs show the covered entry (`fd` names the covered
    directory): a symlink is copied, anything else bind-mounted onto a placeholder of its
    kind. Nothing, if the entry is gone by the time it is looked at."""
    target = os.path.join(directory, name)
    for _ in range(_MIRROR_TRIES):
        try:
            entry = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return  # removed since the listing
        try:
            if stat.S_ISLNK(entry.st_mode):
                os.symlink(os.readlink(name, dir_fd=fd), target)
                return
            if stat.S_ISDIR(entry.st_mode):
                os.mkdir(target)
            else:
                os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600))
            # The fd still names the covered directory: its entries, not the new tmpfs's.
            source = f"/proc/self/fd/{fd}/{name}"
            _call(
                libc.mount(source.encode(), target.encode(), None, _MS_BIND | _MS_REC, None),
                f"bind {target}",
            )
            return
        except OSError as error:
            if error.errno not in _CHANGED_UNDER_US:
                raise
            _remove_placeholder(target)  # then look again: gone, or something else now
    raise OSError(errno.EAGAIN, f"{target} kept changing while it was mirrored")


def _remove_placeholder(target: str) -> None:
    try:
        if os.path.isdir(target) and not os.path.islink(target):
            os.rmdir(target)
        else:
            os.unlink(target)
    except FileNotFoundError:
        pass


def _die_with(libc: ctypes.CDLL, parent: int) -> None:
    """SIGKILL from the kernel when `parent` (the thread that started us) ends, so that nothing
    outlives a caller killed outright; now, if it has ended already. (The same as codex-probe's
    `codex_probe/harness/parent_death.py`, which this standalone file cannot import.)"""
    _call(libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent:
        os.kill(os.getpid(), _SIGKILL)


def _seal(cwd: str, hide: list[tuple[str, str]], mask: list[str], parent: int | None) -> None:
    """Seal this process (it must have one thread): the namespace, the hidden entries, the
    masks, the working directory, the parent-death signal."""
    libc = ctypes.CDLL(None, use_errno=True)
    _enter_namespace(libc)
    for directory, name in hide:
        _rebuild_without(libc, directory, name)
    for directory in mask:
        flags = _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
        _mount_tmpfs(libc, directory, flags, "mode=755,size=16k")
    # Resolve the working directory again, in the new view of its parents.
    os.chdir(cwd)
    if parent is not None:  # after the new namespaces: a change of credentials clears it
        _die_with(libc, parent)


def _seal_and_exec(
    cwd: str, hide: list[tuple[str, str]], mask: list[str], parent: int | None, argv: list[str]
) -> None:
    _seal(cwd, hide, mask, parent)
    os.execvp(argv[0], argv)


def seal_this_process(options: list[str], parent: int) -> None:
    """What the helper does before its exec, done in this process (one thread, a fork of a
    warm process: `harness/forks`): `options` are a plan's helper_args(), the parent-death
    signal comes from `parent` instead of the plan's."""
    cwd, hide, mask, _, _ = _parse([*options, "--", "-"])
    _seal(cwd, hide, mask, parent)


def _check() -> str:
    libc = ctypes.CDLL(None, use_errno=True)
    how = _enter_namespace(libc)
    _mount_tmpfs(libc, os.path.dirname(os.path.abspath(__file__)), _MS_RDONLY, "size=4k")
    return how


def _parse(
    args: list[str],
) -> tuple[str, list[tuple[str, str]], list[str], int | None, list[str]]:
    if "--" not in args:
        raise ValueError(USAGE)
    split = args.index("--")
    options, argv = args[:split], args[split + 1 :]
    if not options or not argv:
        raise ValueError(USAGE)
    cwd, rest = options[0], options[1:]
    hide: list[tuple[str, str]] = []
    mask: list[str] = []
    parent: int | None = None
    while rest:
        if rest[0] == "--hide" and len(rest) >= 3:
            hide.append((rest[1], rest[2]))
            rest = rest[3:]
        elif rest[0] == "--mask" and len(rest) >= 2:
            mask.append(rest[1])
            rest = rest[2:]
        elif rest[0] == "--parent" and len(rest) >= 2 and rest[1].isdigit():
            parent = int(rest[1])
            rest = rest[2:]
        else:
            raise ValueError(USAGE)
    return cwd, hide, mask, parent, argv


def _helper_main(args: list[str]) -> int:
    try:
        if args == ["--check"]:
            print(_check())
            return 0
        _seal_and_exec(*_parse(args))
    except ValueError as error:
        print(f"codex-probe seal: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"codex-probe seal: {error}", file=sys.stderr)
        return EXIT_SEAL_FAILED
    return EXIT_SEAL_FAILED  # not reached: exec replaced this process


if __name__ == "__main__":  # the helper; the parent side's imports below would slow it down
    sys.exit(_helper_main(sys.argv[1:]))


# ----- the parent side: what a launch needs, and the record of every launch ---------------

import json  # noqa: E402 (after the helper, which must start fast)
import threading  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

SYSTEM_CONFIG_DIR = "/etc/codex"
# What codex reads there (strace of 0.120.0 and 0.171.0).
SYSTEM_CONFIG_ENTRIES = (
    "config.toml",
    "managed_config.toml",
    "requirements.toml",
    "hooks.json",
    "rules",
    "skills",
    "agents",
)
GIT_ENTRY = ".git"
CHECK_TIMEOUT = 20.0
NETWORK = (
    "host network namespace: the wiretap listens on 127.0.0.1 there, a new namespace would "
    "cut codex off from it; codex's own outbound calls are switched off by its config"
)


@dataclass(frozen=True)
class Sealing:
    """How one app-server was started: sealed or not, how, and what of the host it could see.

    `visible` lists the system config entries and the `.git` entries above the working
    directory that exist on this host and were not hidden (empty when sealed).
    """

    sealed: bool
    how: str
    visible: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"sealed": self.sealed, "how": self.how, "visible": list(self.visible)}


@dataclass(frozen=True)
class Support:
    """Whether this host lets the helper make a private mount namespace and mount in it."""

    available: bool
    how: str


@dataclass(frozen=True)
class Plan:
    """What the helper does before it execs the app-server."""

    cwd: str
    hide: list[tuple[str, str]]  # (directory, name): rebuilt without the name, top down
    mask: list[str]  # directories covered by an empty read-only tmpfs
    parent: int | None = None  # the app-server is killed when this process goes

    def helper_args(self) -> list[str]:
        args = [self.cwd]
        for directory, name in self.hide:
            args += ["--hide", directory, name]
        for directory in self.mask:
            args += ["--mask", directory]
        if self.parent is not None:
            args += ["--parent", str(self.parent)]
        return args


def system_entries() -> list[str]:
    """The system config entries codex reads that exist on this host."""
    return [
        path
        for name in SYSTEM_CONFIG_ENTRIES
        if os.path.lexists(path := os.path.join(SYSTEM_CONFIG_DIR, name))
    ]


def git_entries_above(cwd: str) -> list[str]:
    """Every `.git` in a parent of `cwd` (not in `cwd` itself), top down."""
    found: list[str] = []
    parent = os.path.dirname(cwd)
    while True:
        if os.path.lexists(candidate := os.path.join(parent, GIT_ENTRY)):
            found.append(candidate)
        if parent == os.path.dirname(parent):
            return found[::-1]
        parent = os.path.dirname(parent)


def exposure(cwd: str) -> list[str]:
    """What codex started in `cwd` could see of the host: system config, parents' `.git`."""
    return system_entries() + git_entries_above(cwd)


def plan_for(cwd: str) -> tuple[Plan, list[str]]:
    """The helper's plan for a launch in `cwd`, and what it cannot hide (a `.git` in `/`)."""
    hide: list[tuple[str, str]] = []
    unhideable: list[str] = []
    if os.path.lexists(SYSTEM_CONFIG_DIR) and not os.path.isdir(SYSTEM_CONFIG_DIR):
        hide.append((os.path.dirname(SYSTEM_CONFIG_DIR), os.path.basename(SYSTEM_CONFIG_DIR)))
    for git in git_entries_above(cwd):
        parent = os.path.dirname(git)
        if parent == os.path.dirname(parent):
            unhideable.append(git)
        else:
            hide.append((parent, GIT_ENTRY))
    mask = [SYSTEM_CONFIG_DIR] if os.path.isdir(SYSTEM_CONFIG_DIR) else []
    return Plan(cwd, hide, mask, os.getpid()), unhideable


class _Record:
    """Every distinct Sealing this process started an app-server with, and how many."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[str, Sealing] = {}
        self._launches = 0

    def add(self, sealing: Sealing) -> None:
        key = json.dumps(sealing.to_json(), sort_keys=True)
        with self._lock:
            self._seen.setdefault(key, sealing)
            self._launches += 1

    def snapshot(self) -> tuple[list[Sealing], int]:
        with self._lock:
            return [self._seen[key] for key in sorted(self._seen)], self._launches


_record = _Record()
_support_lock = threading.Lock()
_support: Support | None = None


def namespace_support() -> Support:
    """Whether the helper can seal on this host: checked once per process, by doing it."""
    global _support
    with _support_lock:
        if _support is None:
            _support = _check_support()
        return _support


def _check_support() -> Support:
    import subprocess

    command = [sys.executable, *PYTHON_FLAGS, os.path.abspath(__file__), "--check"]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=CHECK_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
            env={},
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return Support(False, f"the mount namespace check could not run: {error}")
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return Support(False, f"no mount namespace on this host ({said})")
    return Support(True, done.stdout.strip())


def seal_launch(
    argv: list[str], *, cwd: os.PathLike[str] | str | None
) -> tuple[list[str], Sealing]:
    """The argv that runs `argv` sealed in `cwd`, and how it is sealed (recorded for
    `describe_sealing()`). Where this host cannot seal: `argv` itself, and what codex sees."""
    where = os.path.realpath(cwd if cwd is not None else os.getcwd())
    wrapped, sealing = prepare(list(argv), where)
    _record.add(sealing)
    return wrapped, sealing


def seal_options(*, cwd: os.PathLike[str] | str | None) -> tuple[list[str] | None, Sealing]:
    """`seal_launch` for a process that seals itself (`seal_this_process`): the helper's
    options for a launch in `cwd` (None where this host cannot seal), and how it is sealed
    (recorded for `describe_sealing()`)."""
    where = os.path.realpath(cwd if cwd is not None else os.getcwd())
    options, sealing = helper_options(where)
    _record.add(sealing)
    return options, sealing


def prepare(argv: list[str], cwd: str, support: Support | None = None) -> tuple[list[str], Sealing]:
    """`seal_launch` without the record: the argv for `argv` in `cwd` (a real path) and its
    Sealing, with this host's support unless `support` is given."""
    options, sealing = helper_options(cwd, support)
    if options is None:
        return argv, sealing
    wrapped = [sys.executable, *PYTHON_FLAGS, os.path.abspath(__file__), *options, "--", *argv]
    return wrapped, sealing


def helper_options(cwd: str, support: Support | None = None) -> tuple[list[str] | None, Sealing]:
    """The helper's options for a launch in `cwd` (a real path; None where this host cannot
    seal) and its Sealing, with this host's support unless `support` is given."""
    support = support or namespace_support()
    if not support.available:
        return None, Sealing(False, f"unsealed: {support.how}", exposure(cwd))
    plan, unhideable = plan_for(cwd)
    said = [support.how]
    said.append(
        "an empty read-only tmpfs over " + ", ".join(plan.mask)
        if plan.mask
        else f"no {SYSTEM_CONFIG_DIR} on this host"
    )
    said += [f"{os.path.join(directory, name)} hidden" for directory, name in plan.hide]
    if unhideable:
        said.append("cannot hide " + ", ".join(unhideable))
    elif all(name != GIT_ENTRY for _, name in plan.hide):
        said.append("no .git above the working directory")
    return plan.helper_args(), Sealing(not unhideable, "; ".join(said), unhideable)


def describe_sealing() -> dict[str, Any]:
    """For verdict.json: whether every app-server of this run was sealed, how, and what of
    the host any of them could see. Before any launch: what one from the temp folder gets."""
    sealings, launches = _record.snapshot()
    if not sealings:
        import tempfile

        sealings = [prepare([], os.path.realpath(tempfile.gettempdir()))[1]]
    return {
        "sealed": all(sealing.sealed for sealing in sealings),
        "how": sorted({sealing.how for sealing in sealings}),
        "visible": sorted({path for sealing in sealings for path in sealing.visible}),
        "launches": launches,
        "network": NETWORK,
    }
