"""Files the bundle carries verbatim from codex-probe, loaded by their path.

Under `python3 -I -S` no sibling module can be imported, so reading.py (how a recorded run is
judged: codex-probe's codex_probe/probes/domain/reading.py) and seal.py (how codex is started
sealed: codex-probe's codex_probe/harness/codex/seal.py) are loaded from the bundle's folder by
path.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_bundled(path: Path, name: str) -> tuple[ModuleType | None, str]:
    """The module in `path`, registered as `name`, or None and why it cannot be used."""
    if not path.is_file():
        return None, f"no {path.name} beside reproduce.py"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None, f"{path} cannot be loaded"
    module = importlib.util.module_from_spec(spec)
    # Its dataclasses and named tuples look their module up in sys.modules while made.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:  # a damaged copy: the caller says so
        del sys.modules[name]
        return None, f"{path} cannot be loaded ({type(error).__name__}: {error})"
    return module, ""
