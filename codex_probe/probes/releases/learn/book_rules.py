"""What the fake checks in a request, learned for the answer book: the fields of each
method's params from the release's schema, and the release's own words for a missing
field, a wrong type and an unknown value from its refusals of the exploration's invalid
calls (a template per kind, the field or value put back as `{field}`, `{got}`,
`{value}`, `{expected}`).

A field is required where the release refused a call without it in those words (else
where the schema says so); its `expected` and enumerated values are those the release
named refusing it (a field never sent wrong: the words the release used most for fields
of the same JSON types).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec

from codex_probe.fake_appserver.answer_book import FieldRule, Wording, WordingKind
from codex_probe.fake_appserver.request_check import unexpected
from codex_probe.probes.explore.plan import properties_of, required_of
from codex_probe.probes.explore.schema_values import SchemaTree

WITHOUT = "without "
WRONG_TYPE = " of the wrong type"
UNKNOWN_VALUE = " of an unknown value"
EXPECTED = "expected "
QUOTED = re.compile(r"`([^`]*)`")
# serde's words for a value none of an untagged enum's alternatives takes.
NO_VARIANT = "did not match any variant"


def params_rules(schema_dir: Path | None, record: dict[str, Any]) -> dict[str, list[FieldRule]]:
    """Per client method of the schema, its params' fields with what the release said of
    them (see the module); {} without a schema."""
    if schema_dir is None or not (schema_dir / "ClientRequest.json").is_file():
        return {}
    union = json.loads((schema_dir / "ClientRequest.json").read_text(encoding="utf-8"))
    tree = SchemaTree(union.get("definitions") or {})
    said = _what_the_release_said(record)
    rules: dict[str, list[FieldRule]] = {}
    for variant in union.get("oneOf") or []:
        method = variant["properties"]["method"]["enum"][0]
        body = _params_body(tree, variant["properties"].get("params"))
        if body is None:
            continue
        required = required_of(tree, body)
        rules[method] = [
            _field(tree, method, name, node, name in required, said)
            for name, node in properties_of(tree, body).items()
        ]
    return _expected_by_type(rules)


def _expected_by_type(rules: dict[str, list[FieldRule]]) -> dict[str, list[FieldRule]]:
    """Each field the release was never sent a wrong type in gets the words it used most
    for fields of the same types (null aside): `a string` for a string."""
    heard: dict[tuple[str, ...], Counter[str]] = {}
    for fields in rules.values():
        for rule in fields:
            if rule.expected is not None and rule.types:
                heard.setdefault(_type_key(rule.types), Counter())[rule.expected] += 1
    for method, fields in rules.items():
        rules[method] = [
            msgspec.structs.replace(rule, expected=heard[key].most_common(1)[0][0])
            if rule.expected is None and rule.types and (key := _type_key(rule.types)) in heard
            else rule
            for rule in fields
        ]
    return rules


def _type_key(types: list[str]) -> tuple[str, ...]:
    return tuple(t for t in types if t != "null")


def _params_body(tree: SchemaTree, node: Any) -> Any:
    """The object schema of a method's params (None: no params, or not one object)."""
    if node is None:
        return None
    resolved = tree.resolve(node)
    if tree.is_null(resolved):
        return None
    alternatives = tree.alternatives(resolved)
    nullable = isinstance(resolved, dict) and any(
        tree.is_null(alt) for key in ("anyOf", "oneOf") for alt in resolved.get(key, [])
    )
    body = tree.resolve(alternatives[0]) if nullable and len(alternatives) == 1 else resolved
    return body if isinstance(body, dict) and body.get("properties") else None


def _field(
    tree: SchemaTree,
    method: str,
    name: str,
    node: Any,
    required: bool,
    said: dict[tuple[str, str], dict[str, Any]],
) -> FieldRule:
    types = tree.json_types(node)
    heard = said.get((method, name), {})
    return FieldRule(
        name=name,
        required=heard.get("required", required),
        types=sorted(types) if types else None,
        expected=heard.get("expected"),
        values=heard.get("values"),
        tag=heard.get("tag"),
        values_expected=heard.get("values_expected"),
        in_list=heard.get("in_list", False),
        item_tag=_item_tag(tree, node),
        wrong_type=heard.get("wrong_type"),
    )


def _item_tag(tree: SchemaTree, node: Any) -> str | None:
    """The tag every alternative of the field's tagged union has (of its list's items,
    for a list): serde refuses an object without it as a missing field."""
    resolved = tree.resolve(node)
    kinds = [resolved, *tree.alternatives(resolved)]
    for kind in kinds:
        if isinstance(kind, dict) and kind.get("type") == "array":
            resolved = tree.resolve(kind.get("items"))
            break
    named = [tree.tag(alt) for alt in tree.alternatives(resolved)]
    tags = {tag[0] for tag in named if tag is not None}
    if len(named) > 1 and None not in named and len(tags) == 1:
        return tags.pop()
    return None


def _what_the_release_said(record: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Per (method, field): what the release's refusals of the invalid calls said."""
    said: dict[tuple[str, str], dict[str, Any]] = {}
    for cell in _invalid_cells(record):
        method, variant, params = cell["method"], cell["variant"], cell.get("params")
        refused = cell["outcome"] == "refused"
        message = str((cell.get("error") or {}).get("message", ""))
        if variant.startswith(WITHOUT):
            field = variant.removeprefix(WITHOUT)
            missing = refused and f"`{field}`" in message and "missing field" in message
            said.setdefault((method, field), {})["required"] = missing
        elif variant.endswith(WRONG_TYPE) and refused and isinstance(params, dict):
            field = variant.removesuffix(WRONG_TYPE)
            split = _split(message, unexpected(params.get(field)))
            if split is not None:
                said.setdefault((method, field), {})["expected"] = split[1]
            elif NO_VARIANT in message:  # serde's untagged enum, worded whole
                code = int((cell.get("error") or {}).get("code", 0))
                evidence = f"{method} {cell['state']} {variant}"
                wrong_type = Wording("invalid type", code, message, evidence)
                said.setdefault((method, field), {})["wrong_type"] = wrong_type
        elif variant.endswith(UNKNOWN_VALUE) and refused and isinstance(params, dict):
            field = variant.removesuffix(UNKNOWN_VALUE)
            _learn_values(said.setdefault((method, field), {}), params.get(field), message)
    return said


def _learn_values(heard: dict[str, Any], sent: Any, message: str) -> None:
    tag = None
    in_list = isinstance(sent, list) and len(sent) == 1 and isinstance(sent[0], str)
    if in_list:  # a list of enumerated values (`marketplaceKinds: ["x"]`)
        sent = sent[0]
    if isinstance(sent, dict) and len(sent) == 1:
        tag, sent = next(iter(sent.items()))
    if not isinstance(sent, str):
        return
    split = _split(message, f"`{sent}`")
    if split is None:
        return
    heard.update(
        tag=tag, values=QUOTED.findall(split[1]), values_expected=split[1], in_list=in_list
    )


def _split(message: str, sent: str) -> tuple[str, str] | None:
    """`message` as its template, with `sent` as `{sent}` and what follows the `expected `
    after it as `{expected}`; and that expected text (None: the message is not so made)."""
    at = message.find(sent)
    if at < 0:
        return None
    expected_at = message.find(EXPECTED, at + len(sent))
    if expected_at < 0:
        return None
    template = message[:at] + "{sent}" + message[at + len(sent) : expected_at]
    return template + EXPECTED + "{expected}", message[expected_at + len(EXPECTED) :]


def wordings(record: dict[str, Any]) -> list[Wording]:
    """The release's words for each kind of refusal: the template most of its refusals
    share, with the first cell that said it."""
    heard: dict[WordingKind, Counter[tuple[int, str]]] = {}
    first: dict[tuple[WordingKind, int, str], str] = {}
    for cell in _invalid_cells(record):
        if cell["outcome"] != "refused" or not isinstance(cell.get("params"), dict):
            continue
        error = cell.get("error") or {}
        code, message = int(error.get("code", 0)), str(error.get("message", ""))
        made = _template(cell["variant"], cell["params"], message)
        if made is None:
            continue
        kind, template = made
        heard.setdefault(kind, Counter())[(code, template)] += 1
        first.setdefault(
            (kind, code, template), f"{cell['method']} {cell['state']} {cell['variant']}"
        )
    found = []
    for kind, counts in heard.items():
        (code, template), _ = counts.most_common(1)[0]
        found.append(Wording(kind, code, template, first[(kind, code, template)]))
    return sorted(found, key=lambda w: w.kind)


def _template(variant: str, params: dict[str, Any], message: str) -> tuple[WordingKind, str] | None:
    if variant.startswith(WITHOUT):
        field = variant.removeprefix(WITHOUT)
        if "missing field" in message and f"`{field}`" in message:
            return "missing field", message.replace(f"`{field}`", "`{field}`")
        return None
    if variant.endswith(WRONG_TYPE):
        split = _split(message, unexpected(params.get(variant.removesuffix(WRONG_TYPE))))
        return None if split is None else ("invalid type", _named(split, "{got}"))
    if variant.endswith(UNKNOWN_VALUE):
        sent = params.get(variant.removesuffix(UNKNOWN_VALUE))
        if isinstance(sent, dict) and len(sent) == 1:
            sent = next(iter(sent.values()))
        if not isinstance(sent, str) or (split := _split(message, f"`{sent}`")) is None:
            return None
        return "unknown variant", _named(split, "`{value}`")
    return None


def _named(split: tuple[str, str], name: str) -> str:
    return split[0].replace("{sent}", name)


def _invalid_cells(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in record.get("cells") or [] if c.get("kind") == "invalid"]


# What the exploration's list params (plan.LIST_PARAMS) become when codex reads them as a
# struct's fields in order: a thread id "explore", whose first character that is no hex
# digit is its second.
LIST_ID_PROBLEM = "found `x` at 2"


def malformed_id_wordings(record: dict[str, Any]) -> dict[str, Wording]:
    """Per method, the release's words for a thread id that is no UUID, where its list
    params were read as one."""
    found: dict[str, Wording] = {}
    for cell in _invalid_cells(record):
        message = str((cell.get("error") or {}).get("message", ""))
        if cell["outcome"] != "refused" or LIST_ID_PROBLEM not in message:
            continue
        template = message.replace(LIST_ID_PROBLEM, "found `{char}` at {position}")
        code = int((cell.get("error") or {}).get("code", 0))
        evidence = f"{cell['method']} {cell['state']} {cell['variant']}"
        found[str(cell["method"])] = Wording("malformed id", code, template, evidence)
    return found
