"""IAM's decision on one request, from identity policies: what AWS would answer a function's
role for each call its code makes (docs/security.md, "How the suite proves every call allowed").

The rules are AWS's policy evaluation logic for one account's identity policies: an explicit
Deny wins; otherwise the request is allowed only when an Allow statement matches its action
(Action / NotAction, case-insensitive, `*` and `?` wildcards), its resource (Resource /
NotResource, `*` and `?`) and every one of its conditions. Conditions know the operators the
template uses, with the set prefixes and IfExists; anything else in a policy (another operator,
a policy variable, a Principal) raises UnsupportedPolicy, so it can never be read as allowed.

moto's evaluator (moto.iam.access_control) is not used: it ignores the operators it does not
know (a `ForAllValues:StringLike` condition always holds), takes a failed condition for an
explicit Deny, and matches actions case-sensitively (docs/security.md).
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from typing import Any

#: The statement elements an identity policy may have.
_ELEMENTS = {"Sid", "Effect", "Action", "NotAction", "Resource", "NotResource", "Condition"}
_SET_PREFIXES = ("ForAllValues:", "ForAnyValue:")


class UnsupportedPolicy(ValueError):
    """The policy has something this evaluator does not implement: never guessed at."""


@dataclass(frozen=True)
class Request:
    """One authorization AWS makes: an action on a resource, with the request's condition keys
    (each with its values: `dynamodb:LeadingKeys` may have several)."""

    action: str
    resource: str
    context: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def describe(self) -> str:
        keys = "".join(f", {name} {list(values)}" for name, values in self.context.items())
        return f"{self.action} on {self.resource}{keys}"


class Decision(Enum):
    ALLOWED = "allowed"
    #: No Allow statement matched (the default).
    IMPLICIT_DENY = "implicitly denied"
    EXPLICIT_DENY = "explicitly denied"


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    #: Why: the statement that decided, or the Allow statements whose only failure was a
    #: condition (empty when no statement matched the action and resource at all).
    why: str = ""

    @property
    def allowed(self) -> bool:
        return self.decision is Decision.ALLOWED


def evaluate(statements: Sequence[Mapping[str, Any]], request: Request) -> Verdict:
    """IAM's decision on `request` given every statement of the principal's policies."""
    allowed_by = None
    failed_conditions = []
    for statement in statements:
        effect = _effect(statement)
        if not (
            _action_matches(statement, request.action) and _resource_matches(statement, request)
        ):
            continue
        holds = _conditions_hold(statement.get("Condition", {}), request.context)
        if effect == "Deny" and holds:
            return Verdict(Decision.EXPLICIT_DENY, f"denied by {_name(statement)}")
        if effect == "Allow":
            if holds:
                allowed_by = allowed_by or statement
            else:
                failed_conditions.append(_name(statement))
    if allowed_by is not None:
        return Verdict(Decision.ALLOWED, f"allowed by {_name(allowed_by)}")
    why = f"the condition of {'; '.join(failed_conditions)} fails" if failed_conditions else ""
    return Verdict(Decision.IMPLICIT_DENY, why or "no statement allows it")


def _effect(statement: Mapping[str, Any]) -> str:
    unknown = set(statement) - _ELEMENTS
    if unknown:
        raise UnsupportedPolicy(f"statement elements {sorted(unknown)} in {dict(statement)}")
    effect = statement.get("Effect")
    if effect not in ("Allow", "Deny"):
        raise UnsupportedPolicy(f"Effect {effect!r} in {dict(statement)}")
    if ("Action" in statement) == ("NotAction" in statement):
        raise UnsupportedPolicy(f"not exactly one of Action, NotAction in {dict(statement)}")
    if ("Resource" in statement) == ("NotResource" in statement):
        raise UnsupportedPolicy(f"not exactly one of Resource, NotResource in {dict(statement)}")
    for operator in statement.get("Condition", {}):
        _parsed(operator)  # every operator of every statement, whether it applies or not
    return str(effect)


def _name(statement: Mapping[str, Any]) -> str:
    if "Sid" in statement:
        return f"statement {statement['Sid']}"
    listed = {key: statement[key] for key in ("Effect", "Action", "NotAction") if key in statement}
    return f"statement {listed}"


def _action_matches(statement: Mapping[str, Any], action: str) -> bool:
    if "Action" in statement:
        return any(
            _glob(pattern, True).fullmatch(action) for pattern in _listed(statement["Action"])
        )
    return not any(
        _glob(pattern, True).fullmatch(action) for pattern in _listed(statement["NotAction"])
    )


def _resource_matches(statement: Mapping[str, Any], request: Request) -> bool:
    if "Resource" in statement:
        patterns = _listed(statement["Resource"])
        return any(_glob(pattern, False).fullmatch(request.resource) for pattern in patterns)
    patterns = _listed(statement["NotResource"])
    return not any(_glob(pattern, False).fullmatch(request.resource) for pattern in patterns)


def _listed(value: Any) -> list[str]:
    """A policy element's values: one string or a list of strings (nothing else resolved)."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(item, str) for item in values):
        raise UnsupportedPolicy(f"not a string or a list of strings: {value!r}")
    for item in values:
        if "${" in item:
            raise UnsupportedPolicy(f"policy variable in {item!r}")
    return values


@cache
def _glob(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    """IAM's wildcards: `*` any run of characters, `?` any one; everything else literal."""
    parts = (".*" if char == "*" else "." if char == "?" else re.escape(char) for char in pattern)
    return re.compile("".join(parts), re.IGNORECASE | re.DOTALL if ignore_case else re.DOTALL)


def _conditions_hold(
    condition: Mapping[str, Mapping[str, Any]], context: Mapping[str, tuple[str, ...]]
) -> bool:
    """Every operator of the block holds (AND), each on every key it names (AND)."""
    known = {name.lower(): values for name, values in context.items()}
    return all(
        _operator_holds(operator, key, _listed(expected), known.get(key.lower()))
        for operator, keys in condition.items()
        for key, expected in keys.items()
    )


def _parsed(operator: str) -> tuple[str, str, bool]:
    """(set prefix or "", the operator, IfExists) of a condition operator this evaluator
    implements; UnsupportedPolicy for any other."""
    prefix = next((p for p in _SET_PREFIXES if operator.startswith(p)), "")
    base = operator.removeprefix(prefix)
    if_exists = base.endswith("IfExists")
    base = base.removesuffix("IfExists")
    if base not in _MATCHERS:
        raise UnsupportedPolicy(f"condition operator {operator}")
    return prefix, base, if_exists


def _operator_holds(
    operator: str, key: str, expected: list[str], values: tuple[str, ...] | None
) -> bool:
    prefix, base, if_exists = _parsed(operator)
    match = _MATCHERS[base]
    negated = "Not" in base
    if prefix == "ForAllValues:":
        # Every value the request has matches: so a request without the key passes.
        return all(match(expected, value) for value in values or ())
    if prefix == "ForAnyValue:":
        if not values:
            return if_exists
        return any(match(expected, value) for value in values)
    if values is None:
        # AWS: an absent key matches nothing; a negated operator then holds.
        return if_exists or negated
    if len(values) != 1:
        raise UnsupportedPolicy(f"{operator} on {key}, which has {len(values)} values here")
    return match(expected, values[0])


def _equals(expected: Sequence[str], value: str) -> bool:
    return value in expected


def _not_equals(expected: Sequence[str], value: str) -> bool:
    return value not in expected


def _like(expected: Sequence[str], value: str) -> bool:
    return any(_glob(pattern, False).fullmatch(value) for pattern in expected)


def _not_like(expected: Sequence[str], value: str) -> bool:
    return not _like(expected, value)


#: The condition operators implemented, each as "does one value match the policy's values".
_MATCHERS: dict[str, Callable[[Sequence[str], str], bool]] = {
    "StringEquals": _equals,
    "StringNotEquals": _not_equals,
    "StringLike": _like,
    "StringNotLike": _not_like,
}
