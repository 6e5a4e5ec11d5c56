"""The `codex-probe` command: the top floor, which composes every other part."""
