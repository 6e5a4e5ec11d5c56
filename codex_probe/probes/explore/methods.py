"""How each client method is explored: in which group, and which of its calls are not sent.

Every method of a release's schema gets its invalid calls (codex refuses them while it
reads the request, before any handler runs: upstream's message processor deserializes the
whole `ClientRequest` first and answers `Invalid request: ...`, so they show the same in
any state and run once, last). Its valid calls depend on its group:

- `read`     asked in the state `none`, first: it reads what codex holds (config, models,
             skills, threads, the exploration's own files) or answers from local state;
- `thread`   takes a thread (a required `threadId`): asked in every thread state, on the
             state's own thread if it only reads it (THREAD_READS), else on a copy of the
             state made for the call (states.py);
- `start`    thread/start: in the state `none`, after the reads;
- `write`    changes codex's config or files in the sealed home, or the exploration's
             own folder, or runs a command there: after thread/start;
- `account`  logs in or out (with made-up credentials): last, so that nothing else is
             asked as an account;
- `refused-only`: only the invalid calls are sent; the reason says why.

A method the table does not know (a release newer than the table) is `refused-only` until
someone reads what it does upstream and gives it a group: calling it validly could reach
anything.

Outbound HTTP of every exploration goes to a loopback port that records where it was
going and refuses it (outbound.py), and the home holds no credentials; on top of that the
calls below that would act on a real account, upload, or bind a fixed port are not sent
validly at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Group = Literal["read", "thread", "start", "write", "account", "refused-only"]
# The order of the groups in the state `none` (the thread group runs in the thread states).
NONE_ORDER: tuple[Group, ...] = ("read", "start", "write", "account")


@dataclass(frozen=True)
class Policy:
    group: Group
    # Why the method is explored this way (the docs' table reads it).
    why: str = ""
    # Variants not sent, by name, and why.
    unsent: dict[str, str] = field(default_factory=dict)


READ = Policy("read")
WRITE = Policy("write")
THREAD = Policy("thread")
NO_ACCOUNT = (
    "the home holds no account: codex answers without one, and its outbound HTTP is refused"
)

POLICIES: dict[str, Policy] = {
    # -- the handshake: asked again, it is refused (`Already initialized`)
    "initialize": Policy("read", "a second initialize on the same connection"),
    # -- reads
    "config/read": READ,
    "configRequirements/read": READ,
    "model/list": READ,
    "modelProvider/list": READ,
    "modelProvider/capabilities/read": READ,
    "experimentalFeature/list": READ,
    "permissionProfile/list": READ,
    "skills/list": READ,
    "hooks/list": READ,
    "plugin/list": Policy("read", "local marketplaces only: forceRefetch/forceRemoteSync false"),
    "plugin/installed": READ,
    "plugin/read": Policy("read", "a marketplace path inside the exploration's folder"),
    "plugin/skill/read": Policy("read", NO_ACCOUNT),
    "plugin/share/list": Policy("read", NO_ACCOUNT),
    "app/list": Policy("read", NO_ACCOUNT + "; apps are switched off in its config"),
    "app/read": Policy("read", NO_ACCOUNT + "; apps are switched off in its config"),
    "app/installed": Policy("read", "forceRefresh false"),
    "mcpServerStatus/list": Policy("read", "the home configures no MCP server"),
    "mcpServer/resource/read": Policy("read", "the home configures no MCP server"),
    "thread/list": READ,
    "thread/loaded/list": READ,
    "threadSection/list": READ,
    "thread/attachmentOwner/list": READ,
    "fuzzyFileSearch": Policy("read", "roots: the exploration's own folder"),
    "externalAgentConfig/detect": Policy("read", "HOME is the sealed home: nothing to detect"),
    "externalAgentConfig/import/readHistories": READ,
    "account/read": Policy("read", NO_ACCOUNT + "; refreshToken false"),
    "account/securitySetup/read": Policy("read", NO_ACCOUNT),
    "account/rateLimits/read": Policy("read", NO_ACCOUNT),
    "account/usage/read": Policy("read", NO_ACCOUNT),
    "account/workspaceMessages/read": Policy("read", NO_ACCOUNT),
    "account/gatewayOAuth/read": Policy("read", NO_ACCOUNT),
    "windowsSandbox/readiness": Policy("read", "not Windows: codex says so"),
    "fs/readFile": Policy("read", "a file of the exploration's own folder"),
    "fs/getMetadata": Policy("read", "a file of the exploration's own folder"),
    "fs/readDirectory": Policy("read", "the exploration's own folder"),
    "command/exec/write": Policy("read", "a process id nobody started"),
    "command/exec/resize": Policy("read", "a process id nobody started"),
    "command/exec/terminate": Policy("read", "a process id nobody started"),
    "feedback/save": Policy("read", "saved inside the exploration's own folder"),
    # -- thread/start
    "thread/start": Policy("start", "creates the thread; cwd is the exploration's folder"),
    # -- writes in the sealed home and the exploration's folder
    "config/value/write": Policy(
        "write", "an unknown key, in the home's config or a file of its own"
    ),
    "config/batchWrite": Policy(
        "write", "an unknown key, in the home's config or a file of its own"
    ),
    "config/mcpServer/reload": WRITE,
    "modelProvider/config/write": WRITE,
    "modelProvider/default/set": Policy("write", "the provider the home already uses"),
    "experimentalFeature/enablement/set": Policy("write", "an unknown feature"),
    "skills/config/write": Policy("write", "a skill of the exploration's own folder"),
    "skills/extraRoots/set": Policy("write", "a folder of the exploration's own"),
    "marketplace/add": Policy(
        "write", "a local path inside the exploration's folder (no git remote)"
    ),
    "marketplace/remove": WRITE,
    "marketplace/upgrade": Policy("write", "no marketplace is configured"),
    "plugin/install": Policy("write", "from a marketplace path inside the exploration's folder"),
    "plugin/uninstall": WRITE,
    "plugin/reconcile": WRITE,
    "externalAgentConfig/import": Policy("write", "migrates into the exploration's folder"),
    "externalAgentConfig/import/recordHistory": WRITE,
    "threadSection/create": WRITE,
    "threadSection/update": WRITE,
    "threadSection/delete": WRITE,
    "fs/writeFile": Policy("write", "inside the exploration's own folder"),
    "fs/createDirectory": Policy("write", "inside the exploration's own folder"),
    "fs/remove": Policy("write", "a file laid out for it in the exploration's folder"),
    "fs/copy": Policy("write", "inside the exploration's own folder"),
    "fs/watch": Policy("write", "the exploration's own folder"),
    "fs/unwatch": WRITE,
    "command/exec": Policy("write", "runs `echo explore` in the exploration's folder, sandboxed"),
    "mcpServer/oauth/login": Policy("write", "the home configures no MCP server"),
    "windowsSandbox/setupStart": Policy("write", "not Windows: codex says so"),
    "account/gatewayOAuth/cancel": Policy("write", "no login is pending"),
    "account/gatewayOAuth/login": Policy("write", "deviceAuth false; its outbound HTTP is refused"),
    # -- accounts, last
    "account/login/start": Policy(
        "account",
        "made-up credentials; outbound HTTP is refused",
        unsent={
            "type=chatgpt": "binds the fixed local port 1455 for the browser's callback: two "
            "explorations on one machine would race for it",
            "type=chatgptAuthTokens": "marked for OpenAI's internal use; codex would act as a "
            "ChatGPT account with made-up tokens",
        },
    ),
    "account/login/cancel": Policy("account", "a login id nobody started"),
    "account/logout": Policy("account", "last of all"),
    # -- threads
    **{
        method: THREAD
        for method in (
            "thread/resume",
            "thread/fork",
            "thread/archive",
            "thread/unarchive",
            "thread/delete",
            "thread/unsubscribe",
            "thread/name/set",
            "thread/goal/set",
            "thread/goal/get",
            "thread/goal/clear",
            "thread/metadata/update",
            "thread/attachment/add",
            "thread/attachment/list",
            "thread/attachment/remove",
            "thread/section/move",
            "thread/compact/start",
            "thread/rollback",
            "thread/revert",
            "thread/read",
            "thread/turns/list",
            "thread/items/list",
            "thread/inject_items",
            "thread/approveGuardianDeniedAction",
            "turn/start",
            "turn/steer",
            "turn/interrupt",
            "review/start",
            "mcpServer/tool/call",
        )
    },
    "thread/shellCommand": Policy(
        "thread", "runs `echo explore` in the thread's cwd (the exploration's folder)"
    ),
    # -- only refused calls
    "feedback/upload": Policy(
        "refused-only", "uploads the home's logs to OpenAI; not sent even with HTTP refused"
    ),
    "account/sendAddCreditsNudgeEmail": Policy("refused-only", "would send an email to an account"),
    "account/rateLimitResetCredit/consume": Policy(
        "refused-only", "would spend an account's credit"
    ),
    "plugin/share/save": Policy("refused-only", "would publish a plugin to an account"),
    "plugin/share/updateTargets": Policy("refused-only", "would change who an account shares with"),
    "plugin/share/delete": Policy("refused-only", "would delete an account's shared plugin"),
    "plugin/share/checkout": Policy("refused-only", "would download an account's shared plugin"),
}
# Thread methods that only read the thread: asked on the state's own thread, not a copy.
THREAD_READS = frozenset(
    {
        "thread/read",
        "thread/turns/list",
        "thread/items/list",
        "thread/goal/get",
        "thread/attachment/list",
        "thread/fork",  # a new thread; the source stays as it was
    }
)
# Thread methods whose call starts a turn on its thread (a compaction, a review, a shell
# command without a turn in flight): the cell lasts until that turn completes.
STARTS_TURN = frozenset(
    {"turn/start", "thread/compact/start", "review/start", "thread/shellCommand"}
)
UNKNOWN = Policy(
    "refused-only",
    "not in the exploration's table yet: what it does has not been read upstream, so only "
    "calls codex refuses before acting are sent",
)


def policy_of(method: str) -> Policy:
    return POLICIES.get(method, UNKNOWN)
