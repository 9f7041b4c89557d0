"""Whether a stance of the user's records one change rather than how the project works from now on.

The context block's standing decisions are what the next agent reads first, as how to work in
this project from now on; a line there costs its attention whether or not it still matters. A
request the session carried out ("you asked, done") is such a decision only when its words say
the change lasts: "write a lockfile BY DEFAULT when running `setup`", "rebuild the index ON
EVERY import", "it should start on the page you left, not on the home screen EVERY TIME". A
request that only asks for a thing to be made or changed ("I'd like to support LinuxCNC as
well", "Update `sessions.ts` to return the new entries") was today's work: the files show
it from then on, and told as standing it reads as an order to do it again. So is a sentence of
the user's that asks for one act (a rename, a relabel: ``logic.requested.one_act``) without
saying it lasts ('"Rule" should appear as "Claude Rule"').

Such a stance is told among the current facts with the day it was learned (``logic.briefing``,
``told_as_state``), never dropped: what was done is still worth knowing.

A lasting property is named by a word of time or of scope (``_LASTING``): a default, a
condition (when, whenever, if, unless), always, never, only, a replacement (instead, rather
than, no longer), a frequency over events (every time, on each …), a purpose that holds
("so that"). A bare modal ("should", "must") is not one: every request says what the thing is
to be, which is the request itself, not that it holds beyond the change. Pure: facts in, a yes
or no out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from claimgraph.logic.lazy_regex import lazy_regex
from claimgraph.logic.names import object_name
from claimgraph.logic.requested import LASTING, mark, one_act
from claimgraph.logic.trust_tiers import USER_SOURCES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Words that say a change holds beyond the day it was made (module docstring). A word is
#: whole, not a hyphenated word's part ("read-only" is no "only").
_LASTING = lazy_regex(
    r"(?<![\w-])(?:by default|default|when|whenever|if|unless|always|never|only|"
    r"instead|rather than|replac\w+|no longer|from now on|going forward|so that|"
    r"(?:on|after|before|at|upon|with) (?:every|each)|(?:every|each) time)(?![\w-])",
    re.IGNORECASE)


def states_a_lasting_property(sentence: str) -> bool:
    """The sentence names when or over what its change holds (``_LASTING``)."""
    return bool(_LASTING.search(sentence))


def one_change(fact: Mapping[str, Any]) -> bool:
    """A user's stance that records one change (module docstring): a request the session
    carried out whose words give no lasting property, or one act asked for in the user's
    words without one. A request marked as done once is ``logic.requested.done_once``'s."""
    if fact.get("source_type") not in USER_SOURCES:
        return False
    text = str(object_name(fact) or "")
    if not text or states_a_lasting_property(text):
        return False
    return mark(fact) == LASTING or one_act(text)
