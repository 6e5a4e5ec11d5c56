"""Turns and compactions: the notifications upstream sends, and the model requests behind them."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from codex_probe.fake_appserver.failures import RequestFailed
from codex_probe.fake_appserver.layout import (
    compacted_history,
    history_after_remote_compaction,
    initial_context,
    message,
    remote_compaction_request,
    request_body,
)
from codex_probe.fake_appserver.profile import (
    InterruptWithoutTurn,
    ModelSwitch,
    Profile,
    RemoteRequest,
    SteerWhileAnswering,
    TurnStartWhileActive,
)
from codex_probe.fake_appserver.provider import (
    ModelAnswer,
    ModelClient,
    ProviderError,
    StreamEnd,
)
from codex_probe.fake_appserver.store import ThreadStore
from codex_probe.fake_appserver.streamed_items import StreamedItems
from codex_probe.fake_appserver.threads import ActiveTurn, LoadedThread
from codex_probe.fake_appserver.tool_calls import Ask, Spawn, ToolCalls
from codex_probe.fake_appserver.turn_profile import CallInFailedResponse
from codex_probe.fake_appserver.wire import ItemsView, Wire, new_id, now_ms, now_s

# Sends the client a notification: (method, params).
Notify = Callable[[str, Any], None]


class TurnRunner:
    """turn/* and thread/compact/start on the threads the server has loaded.

    It only looks threads up: loading and unloading them is the server's.
    """

    def __init__(
        self,
        *,
        profile: Profile,
        wire: Wire,
        loaded: Mapping[str, LoadedThread],
        store: ThreadStore,
        model: ModelClient,
        notify: Notify,
        ask: Ask,
        spawn: Spawn,
    ) -> None:
        self.profile = profile
        self.wire = wire
        self.loaded = loaded
        self.store = store
        self.model = model
        self.notify = notify
        self.spawn = spawn
        self.calls = ToolCalls(profile, wire, notify, ask, spawn)
        self.never_complete_next = False
        # Scripted faults for the next turn / compaction (codex_probe/fake_appserver/script.py).
        self.fail_next_turn = False
        self.skip_next_compaction = False
        # The release runs a turn whose input has no text (its answer book says so).
        self.runs_input_without_text = False

    # ----- requests ----------------------------------------------------------------

    async def turn_start(self, params: Any) -> Any:
        thread = self._loaded_thread(params)
        texts = _texts(params)
        if not texts and not self.runs_input_without_text:
            raise RequestFailed(*self.profile.errors.turn_without_text.value.answer())
        if thread.active is not None:
            return self._join_active_turn(thread.active, texts)
        turn = self._new_turn()
        hang = self.never_complete_next
        self.never_complete_next = False
        active = ActiveTurn(turn=turn)
        model = params.get("model")
        if isinstance(model, str) and model and model != thread.record["model"]:
            thread.record["model"] = model  # this turn and the next ones
            active.model_switched = True
        thread.active = active
        active.task = asyncio.ensure_future(self._run_turn(thread, active, "\n".join(texts), hang))
        return {"turn": self.wire.turn(turn, view="notLoaded")}

    def _join_active_turn(self, active: ActiveTurn, texts: list[str]) -> Any:
        """A turn/start while a turn is active: no second turn, the input is steered in."""
        _steer(active, texts)
        joining = self.profile.behaviour.turn_start_while_active.value
        # Either way the answer is a turn as turn/start answers one: inProgress, unstarted.
        if joining is TurnStartWhileActive.JOINS_ACTIVE_TURN:
            answered = self._new_turn(active.turn["id"])
        else:
            answered = self._new_turn()  # a turn that never starts nor completes
        return {"turn": self.wire.turn(answered, view="notLoaded")}

    async def turn_steer(self, params: Any) -> Any:
        if "expectedTurnId" not in params:  # measured: a required field, refused first
            raise RequestFailed(*self.profile.errors.steer_without_expected_turn.answer())
        thread = self._loaded_thread(params)
        active = thread.active
        if active is None:
            raise RequestFailed(*self.profile.errors.no_active_turn.answer())
        expected = params.get("expectedTurnId")
        if expected is not None and expected != active.turn["id"]:
            raise RequestFailed(
                *self.profile.errors.wrong_active_turn.answer(
                    expected=expected, actual=active.turn["id"]
                )
            )
        _steer(active, _texts(params))
        return {"turnId": active.turn["id"]}

    async def turn_interrupt(self, params: Any) -> Any:
        thread = self._loaded_thread(params)
        active = thread.active
        if active is None:
            return await self._interrupt_without_turn(thread)
        if active.task is not None and params.get("turnId") in (None, active.turn["id"]):
            thread.release_held_interrupts()
            await asyncio.sleep(0)  # the held ones answer first, as upstream's do
            # Measured on 0.120.0 and 0.171.0: the interrupt is answered, then the turn
            # ends (its status and turn/completed come after the answer).
            self.spawn(_cancelled_after_answer(active.task))
        return {}

    async def _interrupt_without_turn(self, thread: LoadedThread) -> Any:
        profile = self.profile
        if profile.behaviour.interrupt_without_turn.value is InterruptWithoutTurn.REFUSED:
            refusal = profile.errors.no_active_turn_to_interrupt
            assert refusal is not None  # the profile model refuses a file without it
            raise RequestFailed(*refusal.answer())
        held: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        thread.held_interrupts.append(held)
        await held
        return {}

    async def compact_start(self, params: Any) -> Any:
        thread = self._loaded_thread(params)
        turn = self._new_turn()
        active = ActiveTurn(turn=turn)
        thread.active = active
        active.task = asyncio.ensure_future(self._run_compaction(thread, active))
        return dict(self.wire.template("compact_start"))

    def _loaded_thread(self, params: Any) -> LoadedThread:
        thread_id = str(params.get("threadId", ""))
        thread = self.loaded.get(thread_id)
        if thread is None:
            raise RequestFailed(*self.profile.errors.thread_not_found.answer(thread_id=thread_id))
        return thread

    # ----- running -------------------------------------------------------------------

    def _new_turn(self, turn_id: str | None = None) -> dict[str, Any]:
        return {
            "id": turn_id or new_id(),
            "status": "inProgress",
            "items": [],
            "error": None,
            "started_at": None,
            "completed_at": None,
            "duration_ms": None,
        }

    def _begin(self, thread: LoadedThread, turn: dict[str, Any]) -> float:
        wire, notify = self.wire, self.notify
        turn["started_at"] = now_s()
        if not self.store.holds(thread.id):
            self.store.save(thread.record)  # the first turn writes the rollout
        notify("thread/status/changed", {"threadId": thread.id, "status": wire.status("active")})
        notify("turn/started", {"threadId": thread.id, "turn": wire.turn(turn, view="notLoaded")})
        return time.monotonic()

    def _item(self, thread: LoadedThread, turn: dict[str, Any], item: dict[str, Any]) -> None:
        wire, notify = self.wire, self.notify
        item["started_ms"] = now_ms()
        notify("item/started", wire.item_params("started", item, thread.id, turn["id"]))
        item["completed_ms"] = now_ms()
        turn["items"].append(item)
        notify("item/completed", wire.item_params("completed", item, thread.id, turn["id"]))

    async def _answer(self, thread: LoadedThread, active: ActiveTurn) -> ModelAnswer | None:
        """The model's answer, its function calls carried out (their outputs then in the
        history); None if steered input abandoned it (the profile's choice).

        A response whose stream fails keeps what it streamed, or not, and its calls are
        run or answered `aborted`, as the profile's `turns.stream_failure` says; then the
        failure goes on to fail the turn."""
        listener = StreamedItems(self.wire, self.notify, thread, active.turn)
        try:
            answer = await self._ask_unless_steered(thread, active, listener)
        except ProviderError as error:
            if error.answer is not None:
                await self._after_failure(thread, active.turn, listener, error.answer)
            raise
        if answer is not None:
            for call in answer.function_calls:
                await self.calls.run(thread, active.turn, call)
        return answer

    async def _after_failure(
        self,
        thread: LoadedThread,
        turn: dict[str, Any],
        listener: StreamedItems,
        answer: ModelAnswer,
    ) -> None:
        failure = self.profile.turns.stream_failure.value
        if not failure.keeps_streamed_items:
            listener.forget()
            return
        for call in answer.function_calls:
            if failure.call_in_failed_response is CallInFailedResponse.EXECUTED:
                await self.calls.run(thread, turn, call)
            else:
                self.calls.abort(thread, call)

    async def _ask_unless_steered(
        self, thread: LoadedThread, active: ActiveTurn, listener: StreamedItems
    ) -> ModelAnswer | None:
        """The model's answer, or None if steered input abandoned it (profile's choice)."""
        body = self._body(thread, thread.record["history"])
        steering = self.profile.behaviour.steer_while_answering.value
        if steering is not SteerWhileAnswering.ABANDONS_ANSWER_AND_RESTARTS:
            return await self.model.respond(body, listener)
        active.steer_arrived.clear()
        asking = asyncio.ensure_future(self.model.respond(body, listener))
        steered = asyncio.ensure_future(active.steer_arrived.wait())
        try:
            await asyncio.wait({asking, steered}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            steered.cancel()
        if asking.done():
            return asking.result()
        asking.cancel()
        await asyncio.gather(asking, return_exceptions=True)
        return None

    def _body(
        self, thread: LoadedThread, history: list[dict[str, Any]], *, compaction: bool = False
    ) -> dict[str, Any]:
        profile = self.profile
        return request_body(
            profile,
            model=thread.record["model"],
            thread_id=thread.id,
            base=thread.base,
            history=history,
            offer_tools=not compaction or profile.behaviour.compaction.value.tools,
        )

    async def _run_turn(
        self, thread: LoadedThread, active: ActiveTurn, text: str, hang: bool
    ) -> None:
        turn, record = active.turn, thread.record
        started = self._begin(thread, turn)
        usage = (0, 0)
        failing, self.fail_next_turn = self.fail_next_turn, False
        with self._outcome(turn):
            if failing:
                raise ProviderError("fake-codex: the fault script fails this turn")
            pending = [text]
            while pending:
                for user_text in pending:
                    if not record["has_initial_context"]:
                        record["history"] += initial_context(
                            self.profile, thread.developer, record["cwd"]
                        )
                        record["has_initial_context"] = True
                    if active.model_switched:
                        active.model_switched = False
                        record["history"] += self._model_switch(thread)
                    record["history"].append({"kind": "user", "item": message("user", user_text)})
                    record["preview"] = record["preview"] or user_text
                    self._item(
                        thread, turn, {"type": "userMessage", "id": new_id(), "text": user_text}
                    )
                if hang:
                    await asyncio.Event().wait()  # scripted: the turn never completes
                answer = await self._answer(thread, active)
                if answer is None:
                    # The pending answer is dropped; ask again with the steered input.
                    pending, active.steered = active.steered, []
                    continue
                usage = (usage[0] + answer.input_tokens, usage[1] + answer.output_tokens)
                # The model is asked again with the calls' outputs, in the same turn.
                while answer.function_calls:
                    answer = await self._answer(thread, active)
                    if answer is None:
                        break  # steered: the follow-up below asks with the steered input
                    usage = (usage[0] + answer.input_tokens, usage[1] + answer.output_tokens)
                # Input steered into the turn while the model answered goes in a follow-up.
                pending, active.steered = active.steered, []
        self._finish(thread, active, started, usage)

    def _model_switch(self, thread: LoadedThread) -> list[dict[str, Any]]:
        """What codex puts in the history when a turn names another model: measured on
        0.120.0 to 0.171.0, a developer message holding the thread's base instructions
        (and on some releases the permissions text after it)."""
        profile = self.profile
        rule = profile.behaviour.model_switch.value
        if rule is ModelSwitch.NOTHING:
            return []
        base = profile.texts.default_prompt if thread.base is None else thread.base
        texts = [profile.texts.model_switch.format(instructions=base)]
        if rule is ModelSwitch.BASE_AND_PERMISSIONS_IN_DEVELOPER_MESSAGE:
            texts.append(profile.texts.permissions)
        return [{"kind": "switch", "item": message("developer", *texts)}]

    async def _run_compaction(self, thread: LoadedThread, active: ActiveTurn) -> None:
        turn, record, profile = active.turn, thread.record, self.profile
        started = self._begin(thread, turn)
        item: dict[str, Any] = {"type": "contextCompaction", "id": new_id()}
        item["started_ms"] = now_ms()
        wire, notify = self.wire, self.notify
        notify("item/started", wire.item_params("started", item, thread.id, turn["id"]))
        usage = (0, 0)
        skipping, self.skip_next_compaction = self.skip_next_compaction, False
        with self._outcome(turn):
            if not skipping:  # scripted: the compaction ends without asking the model
                compacted = await self._compact(thread)
                record["history"], record["has_initial_context"], usage = compacted
        # Upstream reports the compaction's token usage before the item completes.
        notify("thread/tokenUsage/updated", wire.token_usage(thread.id, turn["id"], *usage))
        item["completed_ms"] = now_ms()
        notify("item/completed", wire.item_params("completed", item, thread.id, turn["id"]))
        # The compaction's turn lists its item (measured on 0.144.5 and 0.165.0: thread/read,
        # resume and fork of a compacted thread).
        turn["items"].append(item)
        if profile.behaviour.compaction.value.notifies_thread_compacted:
            notify("thread/compacted", {"threadId": thread.id, "turnId": turn["id"]})
        self._finish(thread, active, started, usage=None)

    async def _compact(
        self, thread: LoadedThread
    ) -> tuple[list[dict[str, Any]], bool, tuple[int, int]]:
        """Ask for a compaction the way the profile says codex does for this provider."""
        profile, record = self.profile, thread.record
        history: list[dict[str, Any]] = record["history"]
        remote = profile.behaviour.remote_compaction.value
        if self.model.provider_name != remote.provider_name:
            prompt = {"kind": "user", "item": message("user", profile.texts.compaction_prompt)}
            answer = await self.model.respond(
                self._body(thread, [*history, prompt], compaction=True)
            )
            new_history, has_context = compacted_history(
                profile, history, "\n".join(answer.texts), thread.developer, record["cwd"]
            )
            return new_history, has_context, (answer.input_tokens, answer.output_tokens)
        body = self._body(thread, history)
        if remote.request is RemoteRequest.COMPACTION_TRIGGER:
            body["input"].append({"type": "compaction_trigger"})
            answer = await self.model.respond(body)
            items, usage = answer.other_items, (answer.input_tokens, answer.output_tokens)
        else:
            items = await self.model.compact(
                remote_compaction_request(body, remote.compact_body_keys)
            )
            usage = (0, 0)
        new_history, has_context = history_after_remote_compaction(profile, history, items)
        return new_history, has_context, usage

    def _finish(
        self,
        thread: LoadedThread,
        active: ActiveTurn,
        started: float,
        usage: tuple[int, int] | None,
    ) -> None:
        wire, notify, turn = self.wire, self.notify, active.turn
        turn["completed_at"] = now_s()
        turn["duration_ms"] = int((time.monotonic() - started) * 1000)
        record = thread.record
        record["turns"].append(turn)
        record["updated_at"] = now_s()
        self.store.save(record)
        if thread.active is active:
            thread.active = None
        broken_stream = turn.pop("broken_stream", False)
        if broken_stream:
            # Measured: no usage; the thread's failure status, then an `error`.
            failure = self.profile.turns.stream_failure.value
            status = wire.status(failure.thread_status)
            notify("thread/status/changed", {"threadId": thread.id, "status": status})
            if failure.notifies_error:
                notify("error", self._error_params(thread, turn))
        else:
            if usage is not None:
                notify("thread/tokenUsage/updated", wire.token_usage(thread.id, turn["id"], *usage))
            notify("thread/status/changed", {"threadId": thread.id, "status": wire.status("idle")})
        view: ItemsView = "notLoaded" if turn["status"] == "failed" else wire.completed_view()
        notify("turn/completed", {"threadId": thread.id, "turn": wire.turn(turn, view=view)})

    def _error_params(self, thread: LoadedThread, turn: dict[str, Any]) -> Any:
        params = dict(self.wire.template("error_notification"))
        params.update(error=turn["error"], threadId=thread.id, turnId=turn["id"], willRetry=False)
        return params

    @contextlib.contextmanager
    def _outcome(self, turn: dict[str, Any]) -> Iterator[None]:
        """Set the turn's final status from how its work ended (interrupt: cancellation).

        A model stream that failed, was cut or dropped fails the turn in the release's words
        (`turns.texts`) and shape (the error of `error_notification`)."""
        texts = self.profile.turns.texts
        try:
            yield
            turn["status"] = "completed"
        except asyncio.CancelledError:
            turn["status"] = "interrupted"
        except ProviderError as error:
            turn["status"] = "failed"
            said = {
                StreamEnd.FAILED: texts.failed_stream.format(message=error.detail),
                StreamEnd.CUT: texts.cut_stream,
                StreamEnd.DROPPED: texts.dropped_stream,
            }.get(error.end)
            if said is None:
                turn["error"] = {
                    "message": str(error),
                    "codexErrorInfo": None,
                    "additionalDetails": None,
                }
            else:
                turn["error"] = self.wire.error(said)
                turn["broken_stream"] = True


def _texts(params: Any) -> list[str]:
    """The text parts of a turn/start or turn/steer input."""
    return [
        str(part.get("text", ""))
        for part in params.get("input") or []
        if part.get("type") == "text"
    ]


async def _cancelled_after_answer(task: asyncio.Task[None]) -> None:
    await asyncio.sleep(0)  # the answer to the interrupt goes out first
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def _steer(active: ActiveTurn, texts: list[str]) -> None:
    """Input joins the active turn: the model gets it with the next request of the turn."""
    active.steered.extend(texts)
    active.steer_arrived.set()
