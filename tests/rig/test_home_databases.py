"""A new home gets the databases a first start of its binary leaves, made once per binary
(codex_probe/rig/home_databases.py)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from codex_probe.harness.codex.appserver import open_app_server
from codex_probe.harness.codex.install import Installation
from codex_probe.harness.codex.versions import DEFAULT_CODEX_VERSION
from codex_probe.rig.backends import make_backend
from codex_probe.rig.home_databases import KEPT, databases_of, seed_databases
from codex_probe.rig.homes import IsolatedHome
from codex_probe.rig.session import Session
from codex_probe.rig.wiretap import Wiretap

# An app-server stand-in: answers `initialize`, leaves a database in CODEX_HOME (or not),
# counts its starts beside itself, and exits with the status it was given at EOF.
STAND_IN = """\
import json, os, pathlib, sqlite3, sys
here = pathlib.Path(__file__).parent
with open(here / "starts", "a") as starts:
    starts.write("start\\n")
home = pathlib.Path(os.environ["CODEX_HOME"])
if "{leaves}" in ("database", "its path"):
    with sqlite3.connect(home / "state_1.sqlite") as db:
        db.execute("create table migrated (step integer, home text)")
        where = str(home) if "{leaves}" == "its path" else None
        db.execute("insert into migrated values (1, ?)", (where,))
    db.close()
(home / "installation_id").write_text("stand-in")
for line in sys.stdin:
    request = json.loads(line)
    if "id" in request:
        print(json.dumps({{"id": request["id"], "result": {{}}}}), flush=True)
sys.exit({status})
"""


# How long each of the state database's migrations took, in ns: a copy keeps the first start's.
MIGRATED = "select version, execution_time from _sqlx_migrations order by version"


def stand_in(folder: Path, *, leaves: str = "database", status: int = 0) -> Path:
    folder.mkdir()
    program = folder / "codex"
    body = STAND_IN.format(leaves=leaves, status=status)
    program.write_text(f"#!{sys.executable}\n{body}")
    program.chmod(0o755)
    return program


def starts(program: Path) -> int:
    starts_file = program.parent / "starts"
    return len(starts_file.read_text().splitlines()) if starts_file.exists() else 0


def new_home(tmp_path: Path) -> IsolatedHome:
    return IsolatedHome("http://127.0.0.1:9/v1", parent_dir=tmp_path)


async def test_new_homes_get_copies_of_the_databases_of_one_first_start_and_nothing_else(
    tmp_path: Path,
) -> None:
    program = stand_in(tmp_path / "bin")
    homes = [new_home(tmp_path) for _ in range(3)]
    for home in homes:
        await seed_databases(program, home.codex_home)
    assert starts(program) == 1  # one scratch start for every home
    for home in homes:
        assert sorted(path.name for path in home.codex_home.iterdir()) == [
            "config.toml",
            "state_1.sqlite",
        ]
        with sqlite3.connect(home.codex_home / "state_1.sqlite") as db:
            assert db.execute("select step from migrated").fetchall() == [(1,)]
        db.close()
    # Each home's copy is its own: a write to one is not seen by the next.
    with sqlite3.connect(homes[0].codex_home / "state_1.sqlite") as db:
        db.execute("insert into migrated values (2, null)")
    db.close()
    with sqlite3.connect(homes[1].codex_home / "state_1.sqlite") as db:
        assert db.execute("select count(*) from migrated").fetchone() == (1,)
    db.close()


async def test_a_ninth_binary_forgets_the_first_ones_databases(tmp_path: Path) -> None:
    programs = [stand_in(tmp_path / f"bin{number}") for number in range(KEPT + 1)]
    first = await databases_of(programs[0])
    assert first is not None and first.is_dir()
    for program in programs[1:]:
        assert await databases_of(program) is not None
    assert not first.exists()
    await seed_databases(programs[0], new_home(tmp_path).codex_home)
    assert starts(programs[0]) == 2  # made again when asked again


async def test_a_home_gets_every_database_or_none(tmp_path: Path) -> None:
    program = stand_in(tmp_path / "bin")
    template = await databases_of(program)
    assert template is not None
    (template / "z.sqlite-wal").mkdir()  # a file that cannot be copied, after state_1's
    home = new_home(tmp_path)
    await seed_databases(program, home.codex_home)
    assert sorted(path.name for path in home.codex_home.iterdir()) == ["config.toml"]


async def test_a_home_that_holds_a_database_already_is_left_as_it_is(tmp_path: Path) -> None:
    program = stand_in(tmp_path / "bin")
    home = new_home(tmp_path)
    (home.codex_home / "state_1.sqlite").write_bytes(b"the home's own")
    await seed_databases(program, home.codex_home)
    assert starts(program) == 0
    assert (home.codex_home / "state_1.sqlite").read_bytes() == b"the home's own"


@pytest.mark.parametrize(
    ("leaves", "status"),
    [("database", 1), ("nothing", 0), ("its path", 0)],
    ids=["exit 1", "no database", "a database naming its home"],
)
async def test_a_first_start_that_fails_or_leaves_no_database_fit_to_copy_leaves_homes_to_codex(
    tmp_path: Path, leaves: str, status: int
) -> None:
    program = stand_in(tmp_path / "bin", leaves=leaves, status=status)
    assert await databases_of(program) is None
    home = new_home(tmp_path)
    await seed_databases(program, home.codex_home)
    assert sorted(path.name for path in home.codex_home.iterdir()) == ["config.toml"]
    assert starts(program) == 1  # not tried again for every home


async def test_a_first_start_that_cannot_start_leaves_homes_to_codex(tmp_path: Path) -> None:
    home = new_home(tmp_path)
    await seed_databases(tmp_path / "no-such-codex", home.codex_home)
    assert sorted(path.name for path in home.codex_home.iterdir()) == ["config.toml"]


@pytest.mark.real
async def test_real_codex_runs_on_copies_of_the_databases_its_own_first_start_makes(
    tmp_path: Path, default_codex: Installation
) -> None:
    backend = make_backend("real", DEFAULT_CODEX_VERSION)
    async with Wiretap() as tap:
        own = IsolatedHome(tap.base_url, parent_dir=tmp_path)
        client, _ = await open_app_server(backend.binary, env=own.env(), cwd=own.workdir)
        assert await client.close() == 0
        template = await databases_of(backend.binary)
        assert template is not None
        made = sorted(path.name for path in own.codex_home.glob("*.sqlite"))
        assert any(name.startswith("state_") for name in made)
        assert sorted(path.name for path in template.glob("*.sqlite")) == made

        seeded = IsolatedHome(tap.base_url, parent_dir=tmp_path)
        session = Session(backend, tap, seeded)
        try:
            await session.open()  # seeded before its codex starts
            thread = await session.start_thread()
            await session.run_turn(thread["id"], "hello")
            listed = await session.request("thread/list", {})
        finally:
            await session.close()
        assert thread["id"] in [listed_thread["id"] for listed_thread in listed["data"]]
        state = next(seeded.codex_home.glob("state_*.sqlite"))
        with sqlite3.connect(state) as db:
            assert db.execute("select id from threads").fetchall() == [(thread["id"],)]
            migrated = db.execute(MIGRATED).fetchall()
        db.close()
        with sqlite3.connect(template / state.name) as db:
            assert db.execute(MIGRATED).fetchall() == migrated  # the copy's, not its own
        db.close()
        # What is not a database is the home's own, made by its codex.
        own_id = (own.codex_home / "installation_id").read_text()
        assert (seeded.codex_home / "installation_id").read_text() not in ("", own_id)
