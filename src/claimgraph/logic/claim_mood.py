"""The mood of a sentence an agent wrote: is it said as a standing fact, or as something else?

An agent's summary mixes what holds in the project with what does not hold anywhere yet or
holds only for today: a plan ("we'll have to do it in phases"), a guess ("probably the
cache"), a figure about this run ("3,033,404 input tokens across 42 calls"), its comment on
somebody's wording ("\\"Local-only pre-flight\\" -- the run line says this"), a finding about
code it reviewed ("hits `/projects`, missing the `/v2` prefix"). None of these is a fact the
next session can rely on, whatever the session's record says (docs/capture.md, "The agent's
own words"). Each is read from the sentence's form -- first person with a modal of the
future or of obligation, a hedging word, a count in units of a run, a leading quotation --
not from its topic.

The cues are a small, closed list per form, in the languages sessions are held in most
(English first; German, French, Spanish, Italian, Portuguese for the commonest forms). A
sentence with no cue is not judged here: it still has to be borne out by the session's record
(``capture/extract/corroborate.py``).

Pure logic: no I/O.
"""

from __future__ import annotations

import re
from claimgraph.logic.lazy_regex import lazy_regex

#: A speaker's plan: first person with a modal of the future or of obligation, or the words
#: a plan is announced with.
_INTENT = lazy_regex(
    r"\b(?:(?:i|we)(?:'ll|\s+will|\s+shall|\s+(?:are|am)\s+going\s+to|\s+need\s+to|"
    r"\s+have\s+to|\s+should|\s+plan\s+to|\s+want\s+to|\s+intend\s+to)|we'd\s+need|"
    r"let'?s|next\s+steps?|follow[- ]up|todo|in\s+(?:a\s+later|the\s+next)\s+(?:phase|step|pr)|"
    r"in\s+phases|"
    # de / fr / es / it / pt
    r"wir\s+(?:werden|müssen|sollten)|nächste[rn]?\s+schritt|"
    r"nous\s+(?:allons|devons|devrons)|il\s+faudra|prochaine\s+étape|"
    r"vamos\s+a|tendremos\s+que|próximo\s+paso|"
    r"dovremo|faremo|bisognerà|prossimo\s+passo|"
    r"vamos\s+ter\s+que|teremos\s+que|próximo\s+passo)\b",
    re.IGNORECASE)
#: A guess: the speaker is not sure.
_HEDGE = lazy_regex(
    r"\b(?:might|may|maybe|perhaps|probably|possibly|likely|presumably|i\s+think|i\s+believe|"
    r"i\s+suspect|seems?|appears?\s+to|not\s+sure|unclear|guess|should\s+be\s+fine|"
    # de / fr / es / it / pt
    r"vielleicht|wahrscheinlich|peut-être|probablement|quizás|probablemente|forse|"
    r"probabilmente|talvez|provavelmente)\b",
    re.IGNORECASE)
#: A count in units of a run (tokens, calls, seconds, files touched, tests passed ...): the
#: measure of one session, not a property of the project.
_RUN_FIGURE = lazy_regex(
    r"(?:~|≈|\b)\d[\d,.]*\s*[kKmM]?\s*(?:input\s+|output\s+)?(?:tokens?|api\s+calls?|calls?|"
    r"requests?|turns?|files?\s+(?:touched|changed|modified)|tests?\s+(?:passed|passing|failed|"
    r"failing)|passed|failed|lines?\s+(?:changed|added|removed)|insertions?|deletions?|"
    r"commits?|seconds?|secs?|ms|minutes?|mins?|hours?)\b|\b\d{1,3}(?:,\d{3}){2,}\b",
    re.IGNORECASE)
#: A change told as it happens ("the step disappears", "X becomes a derivation of Y"): the
#: report of an edit, whose lasting state is the file itself.
_TRANSITION = lazy_regex(r"\b(?:becomes?|disappears?|goes\s+away|gets\s+(?:removed|replaced|"
                         r"added|dropped)|is\s+(?:being|getting)\s+\w+ed)\b", re.IGNORECASE)
#: A sentence that opens with somebody's words in quotation marks and then comments on them.
_QUOTE_LED = lazy_regex(r"^\s*(?:\"[^\"]{3,}\"|“[^”]{3,}”|'[^']{12,}')\s*[—–:-]")
#: What a code review says of a file: a defect, not what the file is for.
_DEFECT = lazy_regex(
    r"\b(?:missing|fails?|failing|broken|bug(?:gy|s)?|wrong|crash(?:es)?|invents?|useless|"
    r"vulnerab\w*|insecure|leaks?|self-imposed|incorrect(?:ly)?)\b",
    re.IGNORECASE)
#: A request for an account of the code: a verb of reviewing or explaining and, within a few
#: words, what it is about (the code, the project, its files or its architecture).
_ACCOUNT_ASKED = lazy_regex(
    r"\b(?:review|explain|describe|walk\s+(?:me\s+)?through|analy[sz]e|audit|explore|"
    r"give\s+(?:me\s+)?an?\s+overview\s+of|how\s+(?:does|do)|familiari[sz]e\s+yourself\s+with|"
    # de / fr / es / it / pt
    r"erkläre?|überprüfe|analysiere|explique[rz]?|analyse[rz]?|revois|explica|revisa|analiza|"
    r"spiega|rivedi|analizza|revise|analise)\b"
    r"(?:\W+\w+){0,4}?\W+(?:code(?:base)?s?|repo(?:sitory|sitories|s)?|project|architecture|"
    r"structure|modules?|files?|services?|app(?:lication)?|"
    r"codebasis|projekt|projet|código|proyecto|codice|progetto|projeto)\b",
    re.IGNORECASE)
_CODE_SPAN = lazy_regex(r"`[^`]+`")
_SENTENCE_END = lazy_regex(r"[.!?](?:\s+|$)(?=[A-Z`*\"“(])")


def intent(text: str) -> bool:
    """The sentence announces a plan or a next step of the speaker's, not a state."""
    return bool(_INTENT.search(text))


def hedged(text: str) -> bool:
    """The sentence is a guess."""
    return bool(_HEDGE.search(text))


def run_figure(text: str) -> bool:
    """The sentence measures this run (a count of tokens, calls, seconds, passed tests ...).
    A figure inside a code span is a setting ("`timeout: 30 seconds`"), not a measure."""
    return bool(_RUN_FIGURE.search(_CODE_SPAN.sub(" ", text)))


def quote_led(text: str) -> bool:
    """The sentence opens with a quotation and comments on it: talk about wording."""
    return bool(_QUOTE_LED.match(text))


def transition(text: str) -> bool:
    """The sentence narrates a change happening ("… becomes …", "… disappears"), not the
    state it leaves."""
    return bool(_TRANSITION.search(text))


def finding(text: str) -> bool:
    """Said of a file, the sentence reads as a reviewer's finding: a defect, or an account
    that runs to more than one sentence (a role is one clause)."""
    plain = _CODE_SPAN.sub("x", text)
    return bool(_DEFECT.search(plain)) or len(_SENTENCE_END.findall(plain.strip())) >= 1


def asks_for_account(text: str) -> bool:
    """Said by the user, the sentence asks for an account of the code ("review the entire
    codebase", "explain how the project is laid out"): what a file is for is then an answer
    they asked for, not a description any reader of the file would see."""
    return bool(_ACCOUNT_ASKED.search(text))


def not_a_fact(text: str) -> str | None:
    """Why a sentence, by its form alone, is no standing fact: "intent", "hedge", "figure",
    "quote" or "transition"; None when its form says nothing against it."""
    if intent(text):
        return "intent"
    if hedged(text):
        return "hedge"
    if run_figure(text):
        return "figure"
    if quote_led(text):
        return "quote"
    if transition(text):
        return "transition"
    return None
