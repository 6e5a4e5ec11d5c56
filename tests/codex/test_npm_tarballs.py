from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_probe.harness.codex import npm, unpack
from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.npm_tarballs import (
    NotUnpacked,
    cached_tarball,
    tarball_url,
    unpack_release,
)
from tests.codex.npm_cache_store import (
    PLATFORM,
    REGISTRY,
    append_index_line,
    integrity,
    manifest,
    package_manifest,
    release,
    store,
    tarball,
)

VERSION = "0.0.7"


@pytest.fixture
def cacache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """npm's cache as the caller chose it (NPM_CONFIG_CACHE), empty."""
    monkeypatch.setenv("NPM_CONFIG_CACHE", str(tmp_path / "npm"))
    return tmp_path / "npm" / "_cacache"


@pytest.fixture
def prefix(tmp_path: Path) -> Path:
    folder = tmp_path / "staging"
    folder.mkdir()
    return folder


def test_a_download_npm_stored_is_found_by_its_url_and_named_by_its_sha512(cacache: Path) -> None:
    data = b"the tarball"
    store(cacache, "https://registry.example/a.tgz", data)
    found = cached_tarball(cacache, "https://registry.example/a.tgz")
    assert found is not None
    assert found.sha512_hex == hashlib.sha512(data).hexdigest()
    assert found.path.read_bytes() == data
    assert cached_tarball(cacache, "https://registry.example/b.tgz") is None


def test_the_last_index_line_of_a_url_counts_and_one_that_removed_it_means_not_cached(
    cacache: Path,
) -> None:
    url = "https://registry.example/a.tgz"
    store(cacache, url, b"first")
    store(cacache, url, b"second")
    found = cached_tarball(cacache, url)
    assert found is not None and found.path.read_bytes() == b"second"
    store(cacache, url, None)
    assert cached_tarball(cacache, url) is None


def test_an_index_line_cut_short_is_skipped_for_the_one_before_it(cacache: Path) -> None:
    url = "https://registry.example/a.tgz"
    store(cacache, url, b"whole")
    append_index_line(cacache, url, '{"key": "make-fetch-happen:request-cache:', check="0" * 40)
    found = cached_tarball(cacache, url)
    assert found is not None and found.path.read_bytes() == b"whole"


def test_an_index_entry_whose_bytes_are_gone_is_not_cached(cacache: Path) -> None:
    url = "https://registry.example/a.tgz"
    store(cacache, url, b"data", integrity_of=integrity(b"other data"))
    assert cached_tarball(cacache, url) is None


def test_a_scoped_package_s_tarball_is_at_npm_s_standard_path() -> None:
    assert tarball_url("https://registry.npmjs.org/", "0.171.0-linux-x64") == (
        "https://registry.npmjs.org/@openai/codex/-/codex-0.171.0-linux-x64.tgz"
    )
    assert tarball_url("https://mirror.example/npm", "0.171.0") == (
        "https://mirror.example/npm/@openai/codex/-/codex-0.171.0.tgz"
    )


def test_a_release_in_npm_s_cache_is_unpacked_into_the_folders_npm_makes(
    cacache: Path, prefix: Path
) -> None:
    release(cacache, VERSION)
    unpack_release(VERSION, prefix, PLATFORM, REGISTRY)
    modules = prefix / "node_modules"
    launcher = modules / "@openai" / "codex" / "bin" / "codex.js"
    assert launcher.read_bytes() == b"#!/usr/bin/env node\n"
    assert os.readlink(modules / ".bin" / "codex") == "../@openai/codex/bin/codex.js"
    assert (modules / ".bin" / "codex").resolve() == launcher.resolve()
    vendor = modules / "@openai" / f"codex-{PLATFORM}" / "vendor" / "x86_64-unknown-linux-musl"
    assert stat.S_IMODE((vendor / "bin" / "codex-bin").stat().st_mode) == 0o755
    assert stat.S_IMODE((vendor / "notes.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE(vendor.stat().st_mode) == 0o755
    assert sorted(p.name for p in (modules / "@openai").iterdir()) == [
        "codex",
        f"codex-{PLATFORM}",
    ]


def _left_to_npm(prefix: Path, registry: str = REGISTRY) -> str:
    """Why VERSION, unpacked into `prefix`, is left to npm; that nothing was left there."""
    with pytest.raises(NotUnpacked) as caught:
        unpack_release(VERSION, prefix, PLATFORM, registry)
    assert not list(prefix.iterdir()), "a release left to npm leaves nothing behind"
    return str(caught.value)


def test_a_release_whose_platform_build_npm_has_not_downloaded_is_left_to_npm(
    cacache: Path, prefix: Path
) -> None:
    release(cacache, VERSION, with_build=False)
    assert "not in npm's cache" in _left_to_npm(prefix)


def test_a_release_downloaded_from_another_registry_is_left_to_npm(
    cacache: Path, prefix: Path
) -> None:
    release(cacache, VERSION)
    why = _left_to_npm(prefix, "https://elsewhere.example/")
    assert "not in npm's cache" in why


@pytest.mark.parametrize(
    ("package_json", "said"),
    [
        (package_manifest(VERSION, scripts={"postinstall": "node x.js"}), "install scripts"),
        (package_manifest(VERSION, dependencies={"left-pad": "1"}), "has dependencies"),
        (package_manifest(VERSION, gypfile=True), "native build"),
        (package_manifest(VERSION, bin={"codex": "bin/other.js"}), "a launcher other than"),
        (package_manifest(VERSION, bin={"codex": "bin/codex.js", "x": "x.js"}), "a launcher"),
        (package_manifest(VERSION, optionalDependencies={}), f"its {PLATFORM} build is not"),
        (package_manifest("0.0.8"), f"not @openai/codex@{VERSION}"),
    ],
)
def test_a_package_npm_would_do_more_with_than_unpack_is_left_to_npm(
    cacache: Path, prefix: Path, package_json: bytes, said: str
) -> None:
    release(cacache, VERSION, package_json=package_json)
    assert said in _left_to_npm(prefix)


@pytest.mark.parametrize(
    ("build_json", "said"),
    [
        (manifest(f"{VERSION}-{PLATFORM}", bin={"x": "x.js"}), "has a launcher"),
        (manifest(f"{VERSION}-{PLATFORM}", scripts={"install": "make"}), "install scripts"),
        (manifest(VERSION), f"not @openai/codex@{VERSION}-{PLATFORM}"),
    ],
)
def test_a_platform_build_npm_would_do_more_with_than_unpack_is_left_to_npm(
    cacache: Path, prefix: Path, build_json: bytes, said: str
) -> None:
    release(cacache, VERSION, build_json=build_json)
    assert said in _left_to_npm(prefix)


def test_a_tarball_holding_a_link_is_left_to_npm(cacache: Path, prefix: Path) -> None:
    release(cacache, VERSION, build_links={"package/vendor/rg": "/usr/bin/rg"})
    assert "not a file or a folder" in _left_to_npm(prefix)


def test_a_tarball_whose_bytes_changed_in_the_cache_is_left_to_npm(
    cacache: Path, prefix: Path
) -> None:
    release(cacache, VERSION)
    found = cached_tarball(cacache, tarball_url(REGISTRY, f"{VERSION}-{PLATFORM}"))
    assert found is not None
    changed = tarball({"package/package.json": manifest(f"{VERSION}-{PLATFORM}")})
    found.path.write_bytes(changed)
    why = _left_to_npm(prefix)
    assert "its sha512 is not the one npm's cache names it by" in why


def test_a_cache_npm_chose_for_itself_is_left_to_npm(
    prefix: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NPM_CONFIG_CACHE", raising=False)
    monkeypatch.delenv("npm_config_cache", raising=False)
    monkeypatch.setattr("codex_probe.harness.codex.npm_tarballs.npm_cache_in_use", lambda: None)
    why = _left_to_npm(prefix)
    assert "npm keeps a cache of its own choosing" in why


def test_unpacking_refuses_a_path_that_leaves_the_folder(tmp_path: Path) -> None:
    data = tarball({"package/../escaped.txt": b"x"})
    (tmp_path / "t.tgz").write_bytes(data)
    (tmp_path / "into").mkdir()
    with pytest.raises(unpack.NotUnpackable, match="a path outside the package"):
        unpack.unpack(tmp_path / "t.tgz", hashlib.sha512(data).hexdigest(), tmp_path / "into")
    assert not (tmp_path / "escaped.txt").exists()


def test_the_unpacker_says_in_one_line_what_it_could_not_unpack_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "t.tgz").write_bytes(b"not gzip at all")
    (tmp_path / "into").mkdir()
    assert unpack.main([str(tmp_path / "t.tgz"), "00", str(tmp_path / "into")]) == 1
    said = capsys.readouterr().err
    assert said.startswith("not unpacked: ") and said.count("\n") == 1
    assert unpack.main([]) == 2


@pytest.fixture
def npm_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """npm's runs, recorded and not run; its registry is REGISTRY."""
    calls: list[list[str]] = []

    def recorded(args: list[str], **kwargs: object) -> str:
        calls.append(args)
        if args[:2] == ["config", "get"]:
            return f"registry = {REGISTRY}\n@openai:registry = undefined\n"
        return ""

    monkeypatch.setattr(npm, "run_npm", recorded)
    npm.codex_registry.cache_clear()
    yield calls
    npm.codex_registry.cache_clear()


def test_installing_a_release_in_npm_s_cache_runs_no_npm_install(
    cacache: Path, prefix: Path, npm_calls: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(npm, "platform_name", lambda: PLATFORM)
    release(cacache, VERSION)
    npm.install_package(VERSION, prefix)
    assert [call[0] for call in npm_calls] == ["config"]
    assert (prefix / "node_modules" / ".bin" / "codex").exists()


def test_installing_a_release_npm_has_not_downloaded_runs_npm_install(
    cacache: Path, prefix: Path, npm_calls: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(npm, "platform_name", lambda: PLATFORM)
    release(cacache, VERSION, with_build=False)
    npm.install_package(VERSION, prefix)
    assert [call[0] for call in npm_calls] == ["config", "install"]
    assert f"@openai/codex@{VERSION}" in npm_calls[-1]


def test_a_tarball_with_a_native_build_is_left_to_npm(cacache: Path, prefix: Path) -> None:
    package = tarball(
        {
            "package/package.json": package_manifest(VERSION),
            "package/bin/codex.js": b"",
            "package/binding.gyp": b"{}",
        }
    )
    release(cacache, VERSION)
    store(cacache, tarball_url(REGISTRY, VERSION), package)
    assert "native build" in _left_to_npm(prefix)


def _tree(root: Path) -> dict[str, tuple[str, int, str]]:
    """Every entry under `root`: its kind, permission bits, and a link's target or a file's
    sha256 (npm's own record of what it installed, .package-lock.json, left out)."""
    entries: dict[str, tuple[str, int, str]] = {}
    for path in root.rglob("*"):
        relative = path.relative_to(root).as_posix()
        if relative == "node_modules/.package-lock.json":
            continue
        mode = stat.S_IMODE(path.lstat().st_mode)
        if path.is_symlink():
            entries[relative] = ("link", 0, os.readlink(path))
        elif path.is_dir():
            entries[relative] = ("folder", mode, "")
        else:
            entries[relative] = ("file", mode, hashlib.sha256(path.read_bytes()).hexdigest())
    return entries


@pytest.mark.real
def test_a_release_unpacked_from_npm_s_cache_has_every_file_npm_install_makes_and_no_other(
    tmp_path: Path, default_codex: Installation
) -> None:
    by_npm, unpacked = tmp_path / "by-npm", tmp_path / "unpacked"
    by_npm.mkdir()
    unpacked.mkdir()
    npm.npm_install(default_codex.version, by_npm)  # its tarballs are in npm's cache after
    unpack_release(default_codex.version, unpacked, npm.platform_name(), npm.codex_registry())
    made, ours = _tree(by_npm), _tree(unpacked)
    assert len(made) > 20
    assert {k: v for k, v in ours.items() if made.get(k) != v} == {}
    assert {k: v for k, v in made.items() if ours.get(k) != v} == {}
