"""Turning command-line text into values, with refusals that name the flag and the fix.

argparse's own ``type=float`` would make "--confidence high" a usage error (exit 2) with a
generic message; these parse in the command instead, so bad values fail like any other bad
input: exit 1, one line saying which value is wrong and what a good one looks like.
"""

from __future__ import annotations

from claimgraph.core import Shell
from claimgraph.errors import ClaimgraphError
from claimgraph.logic.timeutil import from_iso

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any

#: Typed ids shorter than this are too likely to match many facts to be worth a scan.
MIN_ID_PREFIX = 4


def time_arg(text: str | None, flag: str) -> int | None:
    """An ISO date or date-time (naive means UTC) as integer ms; None when not given."""
    if text is None:
        return None
    try:
        return from_iso(text)
    except ClaimgraphError as err:
        raise ClaimgraphError(err.type, f"{flag} {text!r} is not a date or time", hint=err.hint,
                              flag=flag, value=text) from None


def fraction_arg(text: str | None, flag: str) -> float | None:
    """A number in [0, 1]. The write path would clamp 1.5 to 1.0; a person typing it meant
    something else, so the CLI refuses rather than guess."""
    if text is None:
        return None
    import math  # a shared library in most builds: `facts` without the flag never loads it
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isnan(value):
        raise ClaimgraphError("invalid-confidence", f"{flag} {text!r} is not a number",
                              hint=f"give {flag} a number between 0 and 1, e.g. 0.8",
                              flag=flag, value=text)
    if not 0.0 <= value <= 1.0:
        raise ClaimgraphError("invalid-confidence", f"{flag} {text} is out of range",
                              hint=f"give {flag} a number between 0 and 1, e.g. 0.8",
                              flag=flag, value=text)
    return value


def resolve_fact_id(sh: Shell, typed: str) -> str:
    """A full id, or the short ``f-1234abcd`` the human output shows, if it is unique."""
    typed = typed.strip()
    if sh.store.get_fact(typed) is not None or len(typed) < MIN_ID_PREFIX:
        return typed
    matches = sorted(f["id"] for f in sh.store.all_facts() if f["id"].startswith(typed))
    if len(matches) > 1:
        raise ClaimgraphError("ambiguous-fact", f"{typed!r} matches {len(matches)} facts",
                              hint="type more of the id", candidates=matches[:10])
    return matches[0] if matches else typed


def drop_none(**values: Any) -> dict[str, Any]:
    """Keyword arguments the user actually gave, so the shell's defaults apply to the rest."""
    return {key: value for key, value in values.items() if value is not None}
