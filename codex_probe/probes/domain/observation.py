"""What a scenario run produced: its steps, the transcript across every process, the model
requests the wiretap captured; or how it broke. `Observation.to_record()` is the one form
every reader reads (codex_probe/probes/domain/reading.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codex_probe.harness.jsonrpc.errors import JsonRpcError, ServerError, TransportError
from codex_probe.harness.jsonrpc.transcript import Transcript
from codex_probe.rig.captures import CapturedRequest
from codex_probe.rig.replies import Reply


@dataclass
class StepRecord:
    """One step: what was asked, what came back, which model requests it caused."""

    name: str
    label: str
    params: dict[str, Any]
    result: Any = None
    error: dict[str, Any] | None = None
    requests: list[int] = field(default_factory=list)
    # Transcript entries [start, end) written while the step ran.
    transcript_span: tuple[int, int] = (0, 0)
    # Seconds the request went unanswered, when silence is what the step observed.
    unanswered_within: float | None = None
    # Seconds after which silence counts as an answer (an attempt given a deadline).
    silence_after: float | None = None
    # Seconds an unsubscribe waits for the thread's thread/closed before it asks
    # thread/loaded/list.
    settle: float | None = None
    # Seconds a finish_turn waits for a new model request before it lets a held answer go.
    release_grace: float | None = None
    # The model reply the step queued on the wiretap before its request (a reproduction
    # bundle queues the same one at the same point).
    reply: Reply | None = None
    # More replies the step queued, in order, after `reply` (a tool call turn needs two:
    # the call, then the answer after its output).
    replies: tuple[Reply, ...] = ()
    # What the step's outcome rests on besides its turn completing (`reading.
    # unmet_preconditions`): [{"what": words, "expression": a reading expression}].
    requires: list[dict[str, Any]] = field(default_factory=list)
    # A turn or compaction that waits for its turn/completed only `completion_within` s
    # once the `settled_by` item notification (method, item type) has come: its silence
    # then is what it observes (`unanswered_within`), not a failure of the scenario.
    settled_by: tuple[str, str] | None = None
    completion_within: float | None = None
    # A turn that then waits for this notification (method, item type) of its thread, one
    # that comes after turn/completed (the item of a command that outlived its call).
    then: tuple[str, str] | None = None

    @property
    def queued(self) -> tuple[Reply, ...]:
        """Every reply the step queued, in order."""
        return ((self.reply,) if self.reply is not None else ()) + self.replies


@dataclass
class Observation:
    """Everything a scenario produced on one backend, before normalization."""

    scenario: str
    backend: str
    version: str
    steps: list[StepRecord]
    requests: list[CapturedRequest]
    transcript: Transcript
    stderr_tail: str
    threads: dict[str, str]
    # The text the wiretap answered each model request with, by request index.
    answers: dict[int, str] = field(default_factory=dict)
    # The home's config.toml as a table, and its working directory (every thread's cwd).
    home_config: dict[str, Any] = field(default_factory=dict)
    workdir: str = ""

    # The step under way when the scenario broke (None for a scenario that ran through).
    failed_step: str | None = None
    # The SSE event types the wiretap wrote to each streamed answer, by request index, and
    # the indices of the answers codex hung up on before their end.
    streamed: dict[int, list[str]] = field(default_factory=dict)
    abandoned: list[int] = field(default_factory=list)

    def step(self, label: str) -> StepRecord:
        for step in self.steps:
            if step.label == label:
                return step
        raise LookupError(f"scenario {self.scenario} recorded no step {label!r}")

    def request_bodies(self, label: str) -> list[dict[str, Any]]:
        """The model request bodies sent during the step `label`."""
        by_index = {r.index: r for r in self.requests}
        return [
            by_index[i].body
            for i in self.step(label).requests
            if isinstance(by_index[i].body, dict)
        ]

    def to_record(self, failure: dict[str, Any] | None = None) -> dict[str, Any]:
        """The observation as plain JSON, the form every reader reads (codex_probe/probes/domain/
        reading.py), with both directions of the transcript, the thread ids by label, the
        text the wiretap answered each model request with, and the events it streamed."""
        entries = self.transcript.entries
        return {
            "steps": [
                {
                    "step": step.name,
                    "label": step.label,
                    "result": step.result,
                    "error": step.error,
                    "unanswered_within": step.unanswered_within,
                    "model_requests": list(step.requests),
                    "transcript_span": list(step.transcript_span),
                    **({"requires": step.requires} if step.requires else {}),
                }
                for step in self.steps
            ],
            "model_requests": [
                {
                    "index": r.index,
                    "method": r.method,
                    "path": r.path,
                    "body": r.body,
                    "events": list(self.streamed.get(r.index, [])),
                    "abandoned": r.index in self.abandoned,
                }
                for r in self.requests
            ],
            "received": [
                entry.message
                for entry in entries
                if entry.direction == "recv" and isinstance(entry.message, dict)
            ],
            "transcript": [[entry.direction, entry.message] for entry in entries],
            "threads": dict(self.threads),
            "answers": {str(index): text for index, text in self.answers.items()},
            "failure": failure,
        }


class ScenarioBroken(RuntimeError):
    """The backend failed, or refused a step, during a scenario; the run so far is kept.

    `observation` holds every step up to the one that failed (`failed_step`), whose record
    is its last step unless the failure was a (re)start of the app-server.
    """

    def __init__(
        self, name: str, error: JsonRpcError | TimeoutError, observation: Observation
    ) -> None:
        self.error = error
        self.observation = observation
        self.failed_step = observation.failed_step
        self.transcript = observation.transcript
        self.requests = observation.requests
        self.steps = observation.steps
        own_tail = error.stderr_tail if isinstance(error, TransportError) else ""
        # Both: what earlier processes of the run said, and why the failed one ended.
        tails = [observation.stderr_tail, own_tail]
        self.stderr_tail = "\n".join(tail for tail in dict.fromkeys(tails) if tail)
        super().__init__(f"scenario {name} broke: {describe_failure(error)}")


def describe_failure(error: JsonRpcError | TimeoutError) -> str:
    """One line: a transport failure's summary, or the refusal of a step that needed an answer."""
    if isinstance(error, TransportError):
        return error.summary
    if isinstance(error, ServerError):
        return f"{error.method} was refused: error {error.code}: {error.message}"
    return str(error)


@dataclass
class ScenarioOutcome:
    """What running one scenario on one backend gave: an observation, or how it broke."""

    observation: Observation | None
    broken: ScenarioBroken | None = None
    reason: str = "the scenario did not run"  # when it did not run at all
    # Set when the scenario broke on a method the release's own schema does not have.
    unsupported: str | None = None

    def failure(self) -> str:
        return str(self.broken) if self.broken is not None else self.reason
