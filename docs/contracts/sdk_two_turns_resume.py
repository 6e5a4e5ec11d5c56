"""A client of the app-server written with the official Python SDK (`openai-codex` on PyPI),
as its README shows: a thread, two turns, and the thread resumed in a second process.

`codex-probe record` runs it; it takes the codex binary from $CODEX_PROBE_CODEX (the SDK
otherwise runs the codex its own wheel pins). Run it with a Python that has the SDK:
`python -m venv sdk && sdk/bin/pip install openai-codex==0.163.0`.
"""

from __future__ import annotations

import os

from openai_codex import Codex, CodexConfig


def main() -> None:
    config = CodexConfig(codex_bin=os.environ["CODEX_PROBE_CODEX"])
    with Codex(config=config) as codex:
        thread = codex.thread_start()
        first = thread.run("Say hello.")
        second = thread.run("Say it again.")
        print("turns:", first.status, second.status, repr(second.final_response))
        thread_id = thread.id
    with Codex(config=config) as codex:
        resumed = codex.thread_resume(thread_id)
        print("resumed:", resumed.id == thread_id)


if __name__ == "__main__":
    main()
