"""What the person says happened to the work outside the session: "merged", "#47 has been
merged", "I pushed", "closed that PR" (issue 22: the session's end state decides, and the
user's words about the outside world are evidence).

The person merges a pull request on GitHub, or pushes from their own terminal, and tells the
agent so; git and gh in the session never show it. Without reading that, the end state
says "PR #47 was opened" and "not pushed", both stale by the time the session ends.

Only a report is read, never a wish, a question or a story: the clause must be the report
alone -- an optional "ok"/"looks good", an optional reporter ("I", "we") or the thing
reported ("the PR", "#47", "it"), the verb in the past ("merged", "has been merged",
"pushed"), an optional object ("it", "#47", "to main"), optionally how the person did
it themselves ("manually", "myself", "from my terminal") and nothing else. "The library
merged a fix upstream" names a third party: no report. "Is it merged?", "not merged yet",
"once it's merged" are none either. "closed" is read only with a pull request named ("PR",
"#47"): a bare "closed" may be an issue or a window. A pull request may be named by its
repository ("shop pr merged", "shop-api PR #3 is merged"): the report keeps the name, and
holds only where one repository the session worked in answers to it (``git_state``).

Pure logic: ``reports_in`` reads one message; ``apply_reports`` (in ``git_state``) settles
them against the pull requests the session opened.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Words that may open a report without changing it ("ok, merged", "looks good. pushed").
_FILLER = (r"(?:(?:ok(?:ay)?|done|great|thanks|thank you|cool|nice|yes|yep|yeah|alright|"
           r"all right|sure|good|looks good|lgtm|never ?mind|fyi|btw|and|so|just)\b[\s,:!.-]*)*")
#: A pull request named in a report: "#47", "PR 47", "PR #47", "pull request 47".
_PR_REF = r"(?:(?:the\s+)?(?:pr|pull request)\s*#?\s*(?P<n1>\d+)|#(?P<n2>\d+))"
#: A pull request named by its repository: "shop pr", "shop-api PR #3".
_REPO_PR = r"(?P<repo>[a-z0-9][\w.-]*)\s+(?:pr|pull request)(?:\s*#?\s*(?P<n5>\d+))?"
#: How the person did it themselves, which keeps the clause a report: "I pushed it
#: manually", "pushed from my terminal", "merged it myself on GitHub".
_BY_HAND = (r"(?:manually|by hand|myself|ourselves|"
            r"from (?:my|our|the|a) (?:own |local |other )?(?:terminal|machine|laptop|computer|"
            r"end|side|shell|clone|checkout|ide|editor)|"
            r"(?:via|with|in|using) (?:the )?(?:cli|terminal|command line|git|github(?: ui)?|"
            r"web ui|ide|editor))")
_SUBJECT = (rf"(?:(?P<person>i|we|i'?ve|we'?ve|i have|we have)"
            rf"(?:\s+(?:just|already|now|also|(?P<hand>manually)))*|"
            rf"{_PR_REF}|(?P<thing>(?:the\s+|both\s+|all\s+)?(?:prs?|pull requests?)|it|that|"
            rf"this|that one|they)|{_REPO_PR})")
#: Words before "PR" that are no repository's name ("this pr", "my pr", "the other pr").
_NOT_A_NAME = frozenset({"the", "this", "that", "these", "those", "my", "your", "our", "their",
                         "his", "her", "its", "a", "an", "one", "new", "old", "other", "first",
                         "second", "last", "next", "previous", "both", "all", "each", "every",
                         "which", "open", "draft", "same", "and", "so", "ok", "okay", "yes"})
_AUX = r"(?:(?:has|have)\s+been|was|were|is|are|got|'s|s|just|already|now|been)"
_VERB = r"(?P<verb>merged|closed|pushed)"
_OBJECT = (rf"(?:{_PR_REF.replace('n1', 'n3').replace('n2', 'n4')}|it|that|that one|them|"
           rf"everything|(?P<thing2>(?:(?:the|my|our)\s+)?(?:prs?|pull requests?|changes|commits?|"
           rf"branch|work))|"
           rf"(?:(?:it|them)\s+)?(?:to|into)\s+(?:main|master|origin|the remote|github))")
_REPORT = re.compile(
    rf"^{_FILLER}(?:{_SUBJECT}\s*)?(?:{_AUX}\s+)*{_VERB}(?:\s+{_OBJECT})?"
    rf"(?:\s+(?:already|now|too|as well|on github|(?P<how>{_BY_HAND}))){{0,3}}$",
    re.IGNORECASE)
#: "it's in" / "it is in (main)": the change landed.
_LANDED = re.compile(rf"^{_FILLER}it(?:'?s| is) in(?:\s+(?:main|master))?$", re.IGNORECASE)
#: Where one report ends and the next clause begins.
_CLAUSES = re.compile(r"[.!;\n]+|,\s+|\s+[-\u2013\u2014]+\s+")


@dataclass(frozen=True)
class Report:
    """One thing the person said happened: ``what`` is MERGED, CLOSED or PUSHED; ``number``
    the pull request they named (None: they named none)."""

    what: str
    number: int | None = None
    #: the repository the person named the pull request by ("shop pr merged"), as said
    repo: str | None = None


def reports_in(text: str) -> list[Report]:
    """The reports one message of the person holds, in order (module docstring). A message
    that asks anything reports nothing: "merged?" asks whether it is."""
    if "?" in text:
        return []
    found: list[Report] = []
    for clause in _CLAUSES.split(text):
        clause = " ".join(clause.split()).strip(" '\"`*")
        if not clause:
            continue
        if _LANDED.match(clause):
            found.append(Report("MERGED"))
            continue
        match = _REPORT.match(clause)
        if match is None:
            continue
        number = next((int(match[g]) for g in ("n1", "n2", "n3", "n4", "n5") if match[g]), None)
        verb = match["verb"].lower()
        repo = match["repo"]
        if repo is not None and repo.lower() in _NOT_A_NAME:
            continue  # "this pr merged": which one, the words do not say
        named_pr = number is not None or repo is not None or _names_pr(match["thing"]) \
            or _names_pr(match["thing2"])
        if verb == "closed" and not named_pr:
            continue  # an issue, a window, a ticket: only a pull request named is one
        if verb != "pushed" and (match["how"] or match["hand"]):
            continue  # "merged it manually": a conflict merged by hand as often as a PR
        if verb == "pushed" and number is not None:
            continue  # "pushed #47": a PR is not what a push moves
        if verb == "pushed" and repo is not None:
            continue  # "shop pr pushed": a PR is not what a push moves
        found.append(Report(verb.upper(), number, repo))
    return found


def _names_pr(word: str | None) -> bool:
    return bool(word) and bool(re.search(r"\b(?:prs?|pull requests?)\b", word or "", re.I))
