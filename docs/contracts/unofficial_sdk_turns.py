"""A client of the app-server written with a third-party SDK (`codex-python-sdk-unofficial`
on PyPI, its synchronous client as its README shows): a thread with two turns, then the
thread resumed by a second client (a second app-server).

It finds `codex` on its PATH, as the SDK does by default: `codex-probe record` puts its
own first. Run it with a Python that has the SDK:
`python -m venv other && other/bin/pip install codex-python-sdk-unofficial==0.128.0`.
"""

from __future__ import annotations

from codex_agent_sdk import CodexOptions, SyncCodexSDKClient


def main() -> None:
    options = CodexOptions(approval_policy="never", sandbox_mode="read-only")
    with SyncCodexSDKClient(options=options) as client:
        thread_id = client.start_thread()
        first = client.query("Say hello.").wait()
        second = client.query("Say it again.").wait()
        print("turns:", first.status, second.status)
    with SyncCodexSDKClient(options=options) as client:
        print("resumed:", client.resume_thread(thread_id) == thread_id)


if __name__ == "__main__":
    main()
