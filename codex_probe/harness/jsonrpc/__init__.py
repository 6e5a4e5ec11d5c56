"""Asyncio JSON-RPC over a child process's stdio (newline-delimited, codex dialect).

Import from the modules themselves (client, errors, framing, transcript, process): this
file re-exports nothing, so the fake, which needs only the framing, loads nothing else.
"""
