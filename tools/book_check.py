"""How many cells of a release's exploration the fake, on a learned profile and its answer
book, answers as the release did (in sample: the cells the book was learned from).

    python -m tools.book_check --codex VERSION --profile DIR/VERSION.json [--record REAL.json]
        [--fake-record FAKE.json] [--show N]

Without --record, the release's cells are the answer book's own (the exploration it was
learned from, cell for cell).

Runs the exploration on the fake backend with the profile, and compares each cell's value
in the surface's exploration aspect (probes/domain/surface/exploration.py: the answer's
shape with its enumerated values, the refusal's code and masked message, the
notifications) with the real record's. Prints the counts, per method how many of its
cells differ, and the first N differing cells. A measuring tool: it judges nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec

from codex_probe.fake_appserver.answer_book import AnswerBook
from codex_probe.fake_appserver.profile import load_profile
from codex_probe.probes.domain.surface.exploration import exploration_aspect
from codex_probe.probes.explore.run import explore
from codex_probe.rig.backends import make_backend


def compare(real: dict[str, Any], fake: dict[str, Any], schema: Path | None) -> dict[str, Any]:
    """Cell by cell: the keys both ran, those alike, and the differing ones with both values."""
    real_cells, fake_cells = exploration_aspect(real, schema), exploration_aspect(fake, schema)
    ran = [k for k, v in real_cells.items() if "not run" not in v]
    differing = {
        k: (real_cells[k], fake_cells.get(k)) for k in ran if fake_cells.get(k) != real_cells[k]
    }
    return {"cells": len(ran), "same": len(ran) - len(differing), "differing": differing}


def record_of(book: AnswerBook) -> dict[str, Any]:
    """The exploration record a book was learned from, as far as the book keeps it."""
    cells = []
    for method, found in book.methods.items():
        for cell in found:
            made = msgspec.to_builtins(cell)
            cells.append({"method": method, **{k: v for k, v in made.items() if v is not None}})
    return {"version": book.version, "methods": sorted(book.methods), "cells": cells}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="book_check", description=__doc__)
    parser.add_argument("--codex", required=True)
    parser.add_argument("--profile", type=Path, required=True)
    parser.add_argument("--record", type=Path, help="the real exploration.json (default: the book)")
    parser.add_argument("--fake-record", type=Path, help="write the fake's exploration here")
    parser.add_argument("--show", type=int, default=20)
    args = parser.parse_args(argv)
    profile = load_profile(path=args.profile)
    book = profile.book
    if args.record is not None:
        real = json.loads(args.record.read_text())
    elif book is not None:
        real = record_of(book)
    else:
        parser.error(f"{args.profile} has no answer book; give --record")
    answered = 0 if book is None else sum(1 for m in book.methods.values() if m)
    backend = make_backend("fake", args.codex, profile=args.profile)
    fake = asyncio.run(explore(backend)).to_json()
    if args.fake_record:
        args.fake_record.write_text(json.dumps(fake, indent=1))
    found = compare(real, fake, backend.schema_folder)
    methods = len(real.get("methods") or [])
    print(f"codex-cli {args.codex}: the book answers {answered} of the schema's {methods} methods")
    print(f"in-sample cells: {found['same']} of {found['cells']} answered as the release did")
    per_method = Counter(key.split(" ", 1)[0] for key in found["differing"])
    for method, count in per_method.most_common():
        print(f"  {count:4} differing: {method}")
    for key, (was, now) in list(found["differing"].items())[: args.show]:
        print(f"- {key}\n    real: {json.dumps(was)[:300]}\n    fake: {json.dumps(now)[:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
