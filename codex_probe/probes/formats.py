"""The file formats the probes write and the commands read back, each with its JSON schema
generated from its model (harness/file_format.py) and checked in under schemas/, for other
tools to validate against. `python -m codex_probe.probes.formats` writes the schema files
again after a model changed; tests/hostile/test_file_formats.py fails until it has.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codex_probe.harness.file_format import schema_text
from codex_probe.harness.files import write_text_atomically
from codex_probe.probes.domain.surface.file import SurfaceFile
from codex_probe.probes.domain.verdict_file import VerdictFile
from codex_probe.probes.releases.history import HistoryFile

SCHEMAS = Path(__file__).resolve().parent / "schemas"

# File -> its model; each schema is schemas/NAME.schema.json.
FORMATS: dict[str, type[Any]] = {
    "verdict": VerdictFile,
    "surface": SurfaceFile,
    "history": HistoryFile,
}


def schema_file(name: str) -> Path:
    return SCHEMAS / f"{name}.schema.json"


def main() -> None:
    for name, model in FORMATS.items():
        write_text_atomically(schema_file(name), schema_text(model))
        print(schema_file(name))


if __name__ == "__main__":
    main()
