"""Tool arguments as the agent sends them, turned into values (docs/mcp.md).

The rules: snake_case and kebab-case names are both accepted (``entity_scope``,
``entity-scope``); a blank string means the argument is absent; numbers may come as JSON numbers
or as numeric strings, and an integer argument refuses 2.5; booleans accept true/false, "true"/
"false", 1/0; times are ISO-8601 dates or date-times (naive means UTC). Any failure is one
``invalid-argument`` error naming the argument and what a good value looks like, so the model
can correct itself. Unknown arguments are refused with the list of known ones, for the same
reason. The JSON Schema each tool advertises is generated from the same table, so what the
agent is told and what is accepted cannot drift apart.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, NamedTuple, Sequence

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.timeutil import from_iso

KINDS = ("string", "integer", "fraction", "boolean", "time", "choice")
_JSON_TYPES = {"string": "string", "integer": "integer", "fraction": "number",
               "boolean": "boolean", "time": "string", "choice": "string"}


class Arg(NamedTuple):
    """One tool argument: its snake_case name, kind, whether required, and its description.
    (A named tuple: ``dataclasses`` would load ``inspect`` at every server start.)"""

    name: str
    kind: str
    help: str
    required: bool = False
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def schema(self) -> dict[str, Any]:
        prop: dict[str, Any] = {"type": _JSON_TYPES[self.kind], "description": self.help}
        if self.choices:
            prop["enum"] = list(self.choices)
        if self.kind == "fraction":
            prop.update(minimum=0, maximum=1)
        if self.minimum is not None:
            prop["minimum"] = self.minimum
        if self.maximum is not None:
            prop["maximum"] = self.maximum
        return prop


def input_schema(args: Sequence[Arg]) -> dict[str, Any]:
    """The tool's JSON Schema: an object of its arguments, the required ones listed."""
    schema: dict[str, Any] = {"type": "object", "properties": {a.name: a.schema() for a in args}}
    required = [a.name for a in args if a.required]
    if required:
        schema["required"] = required
    return schema


def invalid(name: str, message: str, hint: str) -> ClaimgraphError:
    return ClaimgraphError("invalid-argument", message, hint=hint, argument=name)


def parse(args: Sequence[Arg], raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """{snake_name: value} for the arguments given; absent ones are left out."""
    spec = {a.name: a for a in args}
    values: dict[str, Any] = {}
    for key, value in (raw or {}).items():
        name = str(key).replace("-", "_")
        if name not in spec:
            known = ", ".join(spec) or "no arguments"
            raise invalid(str(key), f"unknown argument {key!r}", f"this tool takes: {known}")
        if name in values:
            raise invalid(name, f"argument {name!r} is given twice (snake and kebab case)",
                          "give it once")
        coerced = coerce(spec[name], value)
        if coerced is not None:
            values[name] = coerced
    missing = [a.name for a in args if a.required and a.name not in values]
    if missing:
        raise invalid(missing[0], f"missing required argument {missing[0]!r}",
                      f"give {missing[0]}: {spec[missing[0]].help}")
    return values


def coerce(arg: Arg, value: Any) -> Any:
    """One value as its kind, None for absent (null or blank text)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _COERCERS[arg.kind](arg, value)


def _string(arg: Arg, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise invalid(arg.name, f"{arg.name} must be text, not {type(value).__name__}",
                      f"give {arg.name} as a string")
    text = str(value)
    if "\x00" in text or any("\ud800" <= ch <= "\udfff" for ch in text):
        raise invalid(arg.name, f"{arg.name} holds a NUL or an unpaired surrogate, which no "
                      "text can hold", f"give {arg.name} as plain text")
    return text.strip()


def _number(arg: Arg, value: Any) -> float:
    if isinstance(value, bool):
        value = math.nan
    try:
        number = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise invalid(arg.name, f"{arg.name} {value!r} is not a number",
                      f"give {arg.name} as a number")
    return number


def _integer(arg: Arg, value: Any) -> int:
    number = _number(arg, value)
    if number != int(number):
        raise invalid(arg.name, f"{arg.name} {value!r} is not a whole number",
                      f"give {arg.name} as an integer, e.g. {arg.minimum or 1}")
    whole = int(number)
    low, high = arg.minimum, arg.maximum
    if (low is not None and whole < low) or (high is not None and whole > high):
        bounds = f"from {low}" + (f" to {high}" if high is not None else " up")
        raise invalid(arg.name, f"{arg.name} {whole} is out of range", f"give {arg.name} {bounds}")
    return whole


def _fraction(arg: Arg, value: Any) -> float:
    number = _number(arg, value)
    if not 0.0 <= number <= 1.0:
        raise invalid(arg.name, f"{arg.name} {number} is out of range",
                      f"give {arg.name} between 0 and 1, e.g. 0.8")
    return number


_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


def _boolean(arg: Arg, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if isinstance(value, (str, int)) else ""
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise invalid(arg.name, f"{arg.name} {value!r} is not true or false",
                  f"give {arg.name} as true or false")


def _time(arg: Arg, value: Any) -> int:
    try:
        return from_iso(_string(arg, value))
    except ClaimgraphError:
        raise invalid(arg.name, f"{arg.name} {value!r} is not a date or time",
                      f"give {arg.name} as an ISO date or date-time, e.g. 2026-01-31") from None


def _choice(arg: Arg, value: Any) -> str:
    text = _string(arg, value)
    if text not in arg.choices:
        raise invalid(arg.name, f"{arg.name} {text!r} is not one of {', '.join(arg.choices)}",
                      f"give {arg.name} as one of: {', '.join(arg.choices)}")
    return text


_COERCERS = {"string": _string, "integer": _integer, "fraction": _fraction,
             "boolean": _boolean, "time": _time, "choice": _choice}
