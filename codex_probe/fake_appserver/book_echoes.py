"""What a cell of the answer book says about the fields of its own params, read from the
cell alone, so that a request with other values gets the release's answer to *its* values:

- `refusal_causes`: the fields a refusal names (by their value in the message, or by their
  name), so that a request without them is not refused for them;
- `echo_words`: a refusal's message with the values the cell sent swapped for the
  request's (codex names the marketplace, the server, the plugin it could not find);
- `echo_answer`: an answer with the values the cell sent and the release echoed back
  (`serviceTier`, a goal's `tokenBudget`) swapped for the request's, or for what the
  release answers without them where the request does not send them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from codex_probe.fake_appserver.answer_book import BookCell

# A value shorter than this is too common a text to say the message names it.
SHORTEST_NAMED_VALUE = 3
CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def refusal_causes(cell: BookCell, beyond: frozenset[str]) -> frozenset[str]:
    """The fields among `beyond` (those the cell sent and the release's answered call did
    not) that `cell`'s refusal names: their value in its message (`thread not found:
    {{thread}}`), or their name (`originator filtering is not supported`)."""
    if cell.error is None or not isinstance(cell.params, dict):
        return frozenset()
    message = cell.error.message
    lowered = message.lower()
    named = set()
    for name in beyond:
        value = cell.params.get(name)
        if _names_value(message, value) or _names_field(lowered, name):
            named.add(name)
    return frozenset(named)


def _names_value(message: str, value: Any) -> bool:
    """Whether `message` names `value` where it stands alone: `personality: "none"` is not
    named by `nonempty`."""
    if isinstance(value, list):
        return any(_names_value(message, item) for item in value)
    if not isinstance(value, str) or len(value) < SHORTEST_NAMED_VALUE:
        return False
    return _standing_alone(value).search(message) is not None


def _standing_alone(text: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(text)}(?![\w-])")


def _names_field(lowered_message: str, name: str) -> bool:
    spaced = CAMEL_HUMP.sub(" ", name).lower()
    stems = {name.lower(), spaced, spaced.removesuffix("s")}
    return any(len(stem) >= SHORTEST_NAMED_VALUE and stem in lowered_message for stem in stems)


def echo_words(text: str, cell_params: Any, params: Any, subject: str | None = None) -> str:
    """`text` with each literal text the cell sent in a field (not a placeholder) swapped,
    where it stands alone, for the text the request sends in the same field; a text the
    cell sent in several fields, for the request's in the cell's `subject` (the field it
    added to the minimal call: `with remoteMarketplaceName`), else in the first."""
    if subject is not None and isinstance(cell_params, dict) and subject in cell_params:
        cell_params = {subject: cell_params[subject], **cell_params}
    for sent, wanted in _swaps(cell_params, params).items():
        text = _standing_alone(sent).sub(wanted.replace("\\", "\\\\"), text)
    return text


def _swaps(cell_params: Any, params: Any) -> dict[str, str]:
    if not isinstance(cell_params, dict) or not isinstance(params, dict):
        return {}
    swaps: dict[str, str] = {}
    for name, sent in cell_params.items():
        wanted = params.get(name)
        if isinstance(sent, dict):
            swaps.update(_swaps(sent, wanted))
        elif (
            isinstance(sent, str)
            and isinstance(wanted, str)
            and "{{" not in sent
            and len(sent) >= SHORTEST_NAMED_VALUE
        ):
            swaps.setdefault(sent, wanted)
    return swaps


def echo_answer(result: Any, cell_params: Any, params: Any, without: Mapping[str, Any]) -> Any:
    """`result` (the cell's answer) with every key named as a field the cell sent, holding
    the very value it sent, given the request's value of that field instead; where the
    request does not send it, `without`'s value of that key (what the release answers to a
    call without it), else the text answered or null for another value (`_unsent`)."""
    if not isinstance(cell_params, dict) or not isinstance(params, dict):
        return result
    echoed = {
        name: value
        for name, value in cell_params.items()
        if value is not None and not isinstance(value, bool) and not _holds_placeholder(value)
    }
    return _echo(result, echoed, params, without) if echoed else result


def _echo(value: Any, echoed: dict[str, Any], params: dict[str, Any], without: Any) -> Any:
    if isinstance(value, list):
        return [_echo(item, echoed, params, None) for item in value]
    if not isinstance(value, dict):
        return value
    plain = without if isinstance(without, dict) else {}
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in echoed and _both_objects(item, echoed[key], params.get(key)):
            # An object sent and echoed: its fields the request leaves out are null.
            out[key] = {
                name: params[key].get(name) if _same(part, echoed[key].get(name)) else part
                for name, part in item.items()
            }
        elif key in echoed and _same(item, echoed[key]):
            out[key] = params[key] if key in params else _unsent(key, item, plain)
        else:
            out[key] = _echo(item, echoed, params, plain.get(key))
    return out


def _both_objects(answered: Any, sent: Any, wanted: Any) -> bool:
    return all(isinstance(value, dict) for value in (answered, sent, wanted))


def _unsent(key: str, answered: Any, without: dict[str, Any]) -> Any:
    # A text nobody answered without may be a default the release fills (a goal's status):
    # kept; a number or a list it answers only when sent (a goal's token budget): null.
    if key in without:
        return without[key]
    return answered if isinstance(answered, str) else None


def _same(answered: Any, sent: Any) -> bool:
    return type(answered) is type(sent) and answered == sent


def _holds_placeholder(value: Any) -> bool:
    return "{{" in str(value)


def unasked_parts_dropped(
    result: Any, cell_params: Any, params: Any, without: Mapping[str, Any]
) -> Any:
    """`result` without each top-level key the answer without those fields (`without`)
    lacks and a flag the cell sent true names (`includeLayers` names `layers`), where the
    request does not send that flag, or sends it false."""
    if not isinstance(result, dict) or not isinstance(cell_params, dict) or not without:
        return result
    if not isinstance(params, dict):
        params = {}
    dropped = set()
    for key in set(result) - set(without):
        askers = [
            name
            for name, flag in cell_params.items()
            if flag is True and key.lower() in name.lower() and name != key
        ]
        if askers and not any(params.get(name) for name in askers):
            dropped.add(key)
    return {key: value for key, value in result.items() if key not in dropped}
