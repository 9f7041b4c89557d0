"""What the user said: standing rules, preferences and decisions, each kept as the whole sentence.

Only words a person typed are read (``Event.is_human_prompt``, plus the arguments typed after a
slash command); never assistant text, harness-injected text or a subagent's prompt (the parent
agent's words), nor a code review's findings pasted in to be fixed (anchored to a file or to
lines of code: the reviewer's proposals, ``logic.review_findings``). A sentence is kept
whole, as a prose literal, because its qualifiers are the knowledge: "keep the Justfile -
update it to run Rust tests instead" loses its point as "prefers Justfile".

Which sentences become facts is the sentence model's call (``capture.classify``; see
docs/capture.md, "The sentence model"): a linear model learned from a few thousand labelled
sentences typed to coding agents in public repositories, which tells a standing
**convention** (``x/convention``), **decision** (``x/decided``), **preference**
(``core/prefers``) or **personal** fact (user scope: about the person across projects) from a
request for today, a question, or anything else. Only a sentence it calls durable with
probability at or above the shipped threshold is stored; every sentence read is tallied for
the capture report (``capture --explain`` lists each with its class and score).

The model reads a sentence alone; four structures of the session it cannot see keep a sentence
it scores lower (each shown by ``capture --explain`` with its ``via``): a short order typed
right after the person turned a call down (``stop_order``), a correction the agent conceded and
carried out (``corrections``, ``confirmed_correction``), a rule in the arguments of a command
that writes the project's rules (``briefs``, ``stated_rule``), and a rule in a list under a
label of the brief that says it holds rules (``briefs.rule_lines``, ``brief_rules``). A
sentence it is unsure of (from its phrase floor to its threshold) is also kept when its own
words say it lasts (``lasting``: "never revert user changes", "Do not spawn workers without a
task"), with no end of its own.

A sentence that only picks one of the options the agent just laid out ("let's go with Apache",
"we'll stick with cookie sessions") is never stored as itself, whatever its score: ``picks``
stores it with the option it names (``offered``). Whatever path keeps a sentence, it is
still not stored when it only steers the day (an order about the reply, a step of today's
order of work) or cannot be read alone (a pick whose options are elsewhere, one thing pointed
at without a name, an aspiration naming nothing): ``logic.for_the_day``.

The phrase lists that decided this before the model live in ``capture.classify.phrases``. They
stay, as features of the model, as proposals the model may veto, and as ``classify`` (re-exported
here) for the rules that read text no model was trained on (instruction files, the agent's
summaries, answers to the agent's questions).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from typing import Any, Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.events import Event
from claimgraph.capture.packed import text_head
from claimgraph.capture.classify.phrases import (  # noqa: F401 (re-exported for other rules)
    CONVENTION, DECISION, PREFERS, classify, core as _core, phrase_hits)
from claimgraph.capture.extract.prose import (
    echo_key, is_paste, request_text, sentences, split_paste, split_run_on, typed_part,
    without_echo, without_injected)
from claimgraph.capture.extract.authored import AgentText, own_words
from claimgraph.capture.extract.briefs import rule_lines, rules_command, states_a_rule
from claimgraph.capture.extract.corrections import carried_out, corrected_prompts
from claimgraph.capture.extract.lasting import VIA as LASTING_VIA, lasting_verdict
from claimgraph.capture.extract.offered import agent_before_prompts, resolved_pick
from claimgraph.capture.extract.said import VIA as SAID, is_other, said_verdict
from claimgraph.capture.extract.said import stated as states_a_thing
from claimgraph.capture.extract.requests import (
    Turn, carried_request, carried_turns, done_evidence)
from claimgraph.capture.extract.session import OK, SessionView, candidate, transcript_evidence
from claimgraph.capture.extract.tools import ASK, kind_of
from claimgraph.capture.extract.standing import (
    LEANS_BACK, NEEDS_NOW, for_provisional_work, not_one_rule, task_scoped)
from claimgraph.capture.extract.writes import session_ops
from claimgraph.logic.carried_out import names_a_removed_file
from claimgraph.logic.for_the_day import cannot_be_read_alone, steers_the_day
from claimgraph.logic.review_findings import without_findings
from claimgraph.logic.standalone import not_standalone, offers_a_step

#: Why a sentence that only picks one of the options the agent just offered ("let's go with
#: Apache") is not stored as itself: it says which option, not what it is; ``picks`` stores the
#: option it names, and the bare words must never stand in its place.
PICKED = "only picks an offered option (stored with the option, picks)"
_COMMAND_ARGS = lazy_regex(r"<command-args>(.*?)</command-args>", re.DOTALL)
_MIN_WORDS = 3
_ABOUT_ME = lazy_regex(r"\b(?:i|i'm|i'd|i've|me|my|myself)\b", re.IGNORECASE)
#: What makes a first-person sentence about the person across projects rather than a wish
#: for the work in hand ("I don't want a dark mode here"): a habit or a generality ("I
#: always…", "in all my projects…", "I usually…") or who they are ("I'm a…", "I am…").
_ACROSS_PROJECTS = lazy_regex(
    r"\b(?:always|never|usually|generally|in general|typically|normally|everywhere|"
    r"whenever|by default|all (?:of )?my|every (?:project|repo\w*|codebase)|"
    r"any (?:project|repo\w*|codebase)|across (?:\w+ )?(?:projects|repos\w*|codebases)|"
    r"i'm an?|i am an?|my (?:usual|own|personal|global)|personally)\b", re.IGNORECASE)
_PICK = lazy_regex(r"\b(?:option|approach|choice|alternative|variant)\s+(?:\d+|[a-e])\b|"
                   r"\b(?:first|second|third|last) (?:one|option)\b", re.IGNORECASE)
_OPTION_LINE = lazy_regex(r"^\s*(?:\d+[.)]|[a-zA-Z][.)]|\**option\s+\w+)",
                          re.IGNORECASE | re.MULTILINE)
#: The class the model says, as the fact's predicate; a personal sentence is a preference of
#: the user (user scope), unless the phrase lists read it as a rule or a choice.
PREDICATES = {"convention": CONVENTION, "decision": DECISION, "preference": PREFERS}
_ASIDE = lazy_regex(r"\s*\((?:but|and|except|although|though|just)\s+(?P<clause>[^()]{8,})\)",
                    re.IGNORECASE)
#: A prompt or command file expanded into the message (a Codex custom prompt, spec-kit's
#: commands): YAML front matter opens it.
_FRONT_MATTER = lazy_regex(r"\A\s*---[ \t]*\n[\w-]+[ \t]*:[^\n]*\n(?:[^\n]*\n){0,40}?"
                           r"---[ \t]*(?:\n|\Z)")
#: The slot such a template fills with what the person typed after the command: a "User
#: Input" (or "Arguments") heading, then a fenced block.
_SLOT = lazy_regex(r"^#{1,6}[ \t]*(?:user input|user request|arguments)[ \t]*:?[ \t]*\n\s*"
                   r"(?P<fence>```|~~~)[^\n]*\n(?P<said>.*?)(?P=fence)",
                   re.IGNORECASE | re.MULTILINE | re.DOTALL)
#: The same slot without a fence: a markdown or HTML heading naming it (``<h2 id="…">User's
#: Request</h2>``), then the rest of the message, with no heading after it.
_OPEN_SLOT = lazy_regex(r"^(?:#{1,6}[ \t]*|<h[1-6]\b[^<>\n]*>[ \t]*)users?(?:'s)?[ \t]+"
                        r"(?:input|request)[ \t]*:?[ \t]*(?:</h[1-6]>)?[ \t]*\n(?P<said>.*)\Z",
                        re.IGNORECASE | re.MULTILINE | re.DOTALL)
#: A placeholder left unfilled ("$ARGUMENTS", "{{args}}"): the slot was empty.
_PLACEHOLDER = lazy_regex(r"\$ARGUMENTS\b|\{\{\s*[\w.-]+\s*\}\}")
#: The slot of a command template left unfilled, on a line of its own: the harness (or the
#: person, picking a saved prompt) put the template in as written, and what follows the
#: template is what the person typed.
_PLACEHOLDER_LINE = lazy_regex(r"^[ \t]*(?:\$ARGUMENTS|\{\{\s*args\s*\}\})[ \t]*$",
                               re.MULTILINE)
#: A heading, in markdown or in HTML: a template goes on past its slot when one follows.
_ANY_HEADING = lazy_regex(r"^[ \t]*#{1,6}[ \t]+\S|<h[1-6]\b", re.IGNORECASE | re.MULTILINE)
_FENCE_LINE = lazy_regex(r"^[ \t]*(?:```|~~~)", re.MULTILINE)
#: A markup element spanning lines (``<agent-activation …>`` … ``</agent-activation>``, an IDE's
#: ``<ide_selection>``, an image placeholder): written by a tool, a framework or a harness,
#: never typed by the person, whatever its tag.
_ELEMENT = lazy_regex(r"<(?P<tag>[A-Za-z][\w.:-]*)\b[^<>\n]*>[^\n]*\n.*?</(?P=tag)\s*>",
                      re.DOTALL)
#: A step of an ordered or bulleted list, as an instruction template numbers them.
_STEP_LINE = lazy_regex(r"^\s*(?:\d+[.)]|[-*•])\s+\S", re.MULTILINE)
_TEMPLATE_STEPS = 3


def statement_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """The user's sentences the sentence model calls durable, with enough confidence to
    store (docs/capture.md, "The sentence model"); every sentence read is tallied for the
    capture report, kept or not."""
    from claimgraph.capture.classify import tally
    from claimgraph.capture.classify.model import shipped

    model = shipped()
    told = view.remembered("statements.not_english", not_english)
    answering = view.remembered("statements.after_options", after_options)
    turned_down = view.remembered("statements.after_refusal", after_refusal)
    offering = view.remembered("statements.after_offer", after_offer)
    corrected = corrected_prompts(view)
    carried = carried_turns(view)
    briefed = view.remembered("statements.brief_rules", brief_rules)
    read: set[tuple[int, str]] = set()  # the brief's rules read among the typed sentences
    for event, typed in user_texts(view):
        text = without_findings(typed)  # a review's findings pasted in are the reviewer's
        if not text.strip():
            continue
        parts = _parts(text)
        where = typed_in(view, event)
        commanded = rules_command(event.text)
        ruled = briefed[event.line][1] if event.line in briefed else ()
        read.update((event.line, sentence) for sentence in parts if sentence in ruled)
        for index, sentence in enumerate(parts):
            verdict = _personal_checked(
                model.verdict(sentence, index, len(parts), answering.get(event.line)), sentence)
            why = _not_stored(verdict, sentence, view)
            via = None
            if why == "not durable" and event.line in turned_down and stop_order(sentence):
                verdict = dataclasses.replace(verdict, label="convention", kept=True)
                via = "an order typed after a refused or interrupted call"
                why = _not_stored(verdict, sentence, view)
            said = False
            if why == "not durable" and is_other(verdict) \
                    and states_a_thing(view, event.line, sentence, user_texts(view)):
                verdict, via, said = said_verdict(verdict), SAID, True
                why = _not_stored(verdict, sentence, view)
            if why == "not durable":
                lasting = lasting_verdict(verdict, sentence, model.phrase_floor)
                if lasting is not None:  # its likeliest durable class: personal only as any is
                    verdict, via = _personal_checked(lasting, sentence), LASTING_VIA
                    why = _not_stored(verdict, sentence, view)
            if why is not None and event.line in corrected:
                confirmed = confirmed_correction(verdict, sentence, corrected[event.line])
                if confirmed is not None:
                    verdict, via = confirmed, "a correction the agent conceded and carried out"
                    why = _not_stored(verdict, sentence, view, lenient=_CORRECTION_LENIENT)
            if why is not None and commanded:
                stated = stated_rule(verdict, sentence)
                if stated is not None:
                    verdict, via = stated, "the arguments of a command that writes the rules"
                    why = _not_stored(verdict, sentence, view)
            if why is not None and sentence in ruled:
                verdict, via = _as_convention(verdict), BRIEF_RULE
                why = _not_stored(verdict, sentence, view)
            done = None
            if why is not None and event.line in carried:
                done = carried_request(verdict, sentence, carried[event.line], index,
                                       len(parts), answering.get(event.line), text,
                                       offered=event.line in offering)
                if done is not None:
                    via = f"a request the session carried out ({done})"
                    why = _request_not_stored(sentence, view)
            if why is None and resolved_pick(view, event.line, sentence) is not None:
                why = PICKED  # whatever the score: the option it names is the fact (picks)
            if why is None:
                why = for_provisional_work(sentence, text)
            if why is None and names_a_removed_file(sentence, removed_next(view, event.line)):
                why = "for today: a request the next turn carried out (it deleted the file)"
            tally.record(event.line, sentence, verdict.label, verdict.score, why is None,
                         why if verdict.kept else None, via if why is None else None,
                         typed_in=where, language=told.get(event.line))
            if why is None and done is not None:
                yield _request_candidate(view, event, sentence, done, carried[event.line])
            elif why is None:
                yield _candidate(view, event, verdict.label, sentence,
                                 "statements.said" if said and via == SAID else None)
    for line, (event, ruled) in briefed.items():
        for sentence in ruled:
            if (line, sentence) not in read:
                yield from _brief_rule(view, model, event, sentence,
                                       told.get(line) or _other_language(ruled))


def not_english(view: SessionView) -> dict[int, str]:
    """The language of each message the person typed, by line, when the sentence model does not
    read it (``logic.language``; docs/capture.md, "The sentence model"): its sentences are
    scored all the same, and the report says they were read, not judged. Guessed on the whole
    message, so a short reply ("oui", "可以") takes its message's language. It only labels:
    nothing stored depends on it."""
    typed: dict[int, list[str]] = {}
    for event, text in user_texts(view):
        typed.setdefault(event.line, []).append(text)
    found = {line: _other_language(texts) for line, texts in typed.items()}
    return {line: code for line, code in found.items() if code}


def _other_language(texts: list[str] | tuple[str, ...]) -> str | None:
    """The language of ``texts`` read as one message, when the sentence model does not read it
    (None for English or undetermined): a message's typed texts, or a brief's rules read as a
    document."""
    from claimgraph.logic.language import is_other_language, message_language

    code = message_language("\n".join(texts))
    return code if is_other_language(code) else None


#: Why a line under a label that says it holds rules is kept (``briefs.rule_lines``).
BRIEF_RULE = "a rule under a label of the brief that says it holds rules"


def brief_rules(view: SessionView) -> dict[int, tuple[Event, tuple[str, ...]]]:
    """For each message the person typed in the main session, the sentences of its blocks
    under a label that says they hold rules (docs/capture.md, "Rules inside a brief"): every
    line under a label naming principles, conventions or guidelines, and the lines that state
    a rule under one naming rules, constraints or behaviour. Read in the whole message, a
    brief the person wrote as a document included ("# PROMPT SYSTÈME … ### Principes de
    code"), without what the harness injected, a template's words, the agent's earlier lines
    pasted back, a review's findings pasted in (``logic.review_findings``), and a plan handed
    over ("Implement the following plan:")."""
    found: dict[int, tuple[Event, tuple[str, ...]]] = {}
    agent_said: set[str] = set()
    unread: list[str] = []  # the agent's messages, read for echoes only when a brief needs it
    agent_text = AgentText()
    for event in view.transcript.events:
        if event.subagent_id or event.is_sidechain:
            continue
        if event.kind == "assistant" and not event.derived:
            unread.append(event.text)
            continue
        if not event.is_human_prompt or _HANDS_OVER_A_PLAN.search(event.text[:400]):
            continue
        text = not_generated(request_text(without_injected(event.text)))
        if not rule_lines(text):
            continue
        text = without_findings(
            typed_by_hand(request_text(without_injected(event.text)), agent_text, unread))
        agent_said.update(key for said in unread for line in said.splitlines()
                          for key in [echo_key(line)] if key)
        unread.clear()
        ruled = tuple(dict.fromkeys(
            sentence for line, standing in rule_lines(without_echo(text, agent_said))
            for sentence in _parts(line) if standing or states_a_rule(sentence)))
        if ruled:
            found[event.line] = (event, ruled)
    return found


#: A message that hands a plan over to carry out: its rules are the plan's, a proposal.
_HANDS_OVER_A_PLAN = lazy_regex(r"\b(?:implement|execute|follow|carry out)\b[^\n]{0,40}\bplan\b",
                                re.IGNORECASE)


def _as_convention(verdict: Any) -> Any:
    return dataclasses.replace(verdict, label="convention", kept=True)


def _brief_rule(view: SessionView, model: Any, event: Event, sentence: str,
                language: str | None = None) -> Iterator[dict[str, Any]]:
    """A rule of a brief's block that the person's typed text does not hold (the brief was
    read as a document, ``prose.typed_part``): kept as a convention when the checks of
    "Standing or for today" pass, tallied like every sentence read."""
    from claimgraph.capture.classify import tally

    verdict = model.verdict(sentence, 0, 1, None)
    kept = _as_convention(verdict)
    why = _not_stored(kept, sentence, view) or for_provisional_work(sentence, sentence)
    tally.record(event.line, sentence, kept.label if why is None else verdict.label, verdict.score,
                 why is None, why, BRIEF_RULE if why is None else None,
                 typed_in=typed_in(view, event), language=language)
    if why is None:
        yield _candidate(view, event, "convention", sentence)


def removed_next(view: SessionView, line: int) -> frozenset[str]:
    """Base names of the files deleted between the person's message at ``line`` and their
    next message: what the turn after it did."""
    turns = view.remembered("statements.removed_by_turn", _removed_by_turn)
    return next((names for start, end, names in turns if start <= line < end), frozenset())


def _removed_by_turn(view: SessionView) -> list[tuple[int, int, frozenset[str]]]:
    prompts = [event.line for event in view.transcript.events
               if event.is_human_prompt and not event.subagent_id]
    bounds = list(zip(prompts, prompts[1:] + [1 << 62]))
    deleted = [(op.line, posixpath.basename(op.path.rstrip("/")))
               for _, outcome, ops in session_ops(view) if outcome == OK
               for op in ops if op.kind == "delete"]
    return [(start, end, frozenset(name for at, name in deleted if start < at < end))
            for start, end in bounds]


def _parts(text: str) -> list[str]:
    return [statement_of(part) for s in sentences(text) for part in split_run_on(s)]


#: The sentence model's score from which a sentence typed as the arguments of a command that
#: writes the project's rules is kept (``briefs.rules_command``): the command says the brief
#: states principles, the model still has to read one in the sentence.
BRIEF_FLOOR = 0.5
_BRIEF_WORDS = (4, 40)


def stated_rule(verdict: Any, sentence: str) -> Any | None:
    """The verdict to store a sentence of a rules command's arguments (docs/capture.md, "Rules
    inside a brief"), or None: not a question, 4 to 40 words, a rule's word in it, scored at
    least ``BRIEF_FLOOR``. Stored as a convention; the for-today checks still apply."""
    words = len(sentence.split())
    if ("?" in sentence or not _BRIEF_WORDS[0] <= words <= _BRIEF_WORDS[1]
            or verdict.score < BRIEF_FLOOR or not _RULE.search(sentence)):
        return None
    return dataclasses.replace(verdict, label="convention", kept=True)


def _personal_checked(verdict: Any, sentence: str) -> Any:
    """Personal (user scope, told to every project) only when the person speaks of
    themselves as they are across projects (a habit, a generality, who they are), and not
    when they pick an option the agent offered ("I like Option 1" is a choice for this
    project) nor state a wish for the work in hand ("I don't want a dark mode"): otherwise
    the likeliest project class. When unsure, the project: a rule told to every project
    misleads more than one kept to where it was said."""
    if verdict.label != "personal" or (_ABOUT_ME.search(sentence)
                                       and _ACROSS_PROJECTS.search(sentence)
                                       and not _PICK.search(sentence)):
        return verdict
    label = max(("convention", "decision", "preference"),
                key=lambda name: verdict.probabilities[name])
    return dataclasses.replace(verdict, label=label)


def _not_stored(verdict: Any, sentence: str, view: SessionView,
                lenient: frozenset[str] = frozenset()) -> str | None:
    """Why a sentence does not become a fact (None: it does); ``lenient``: the for-today
    checks (``standing``) the session's record has already answered."""
    if not verdict.kept:
        return "not durable"
    if len(_core(sentence).split()) < _MIN_WORDS:
        return "too short to stand alone"  # "B", "Option 2": the choice lives in the question
    today = reminded_scope(sentence, lenient)
    if today:
        return f"for today: {today}"
    garbled = not_one_rule(sentence)
    if garbled:
        return f"not one rule: {garbled}"
    alone = not_standalone(sentence) or cannot_be_read_alone(sentence)
    if alone:
        return f"does not stand alone: {alone}"
    day = steers_the_day(sentence)
    if day:
        return f"for today: {day}"
    if verdict.label != "personal" and not view.project:
        return "no known project"
    return None


#: The person asks the agent to carry something into later turns ("keep in mind", "don't
#: forget", "n'oublie pas", "tieni presente", "denk daran"): kept tiny, a few languages.
_REMINDER = lazy_regex(
    r"\b(?:keep in mind|bear in mind|remember (?:that|to)|don'?t forget|do not forget)\b|"
    r"n'oublie(?:z)? pas|garde(?:z)? (?:en tête|à l'esprit)|tieni (?:presente|a mente)|"
    r"ricorda(?:ti)? (?:che|di)|denk(?:e|t)? (?:dran|daran)", re.IGNORECASE)
_NEEDS = lazy_regex(r"\b(?:needs?|have|has) to\b", re.IGNORECASE)


def reminded_scope(sentence: str, lenient: frozenset[str] = frozenset()) -> str | None:
    """``standing.task_scoped``, except that a need the person asks the agent to keep in mind
    is a rule for the turns to come, not what the current work needs ("keep in mind, you need
    to run `make seed` to have the sample data in your database"): the need is read as a "must"
    and the other checks still apply (a reminder tied to now stays for today)."""
    today = task_scoped(sentence, lenient)
    if today and _REMINDER.search(sentence):
        return task_scoped(_NEEDS.sub("must", sentence), lenient)
    return today


#: A correction the agent conceded and then carried out answers two of the for-today checks:
#: what it leans on is the agent's action just before it, and the need it states is the
#: project's, since the change made for it stays.
_CORRECTION_LENIENT = frozenset({LEANS_BACK, NEEDS_NOW})
#: The sentence model's score from which a carried-out correction is kept: below the shipped
#: threshold (the model reads the sentence alone, without the concession and the change),
#: well above the phrase floor. Chosen on whole sessions (docs/capture.md, "Corrections").
CORRECTION_FLOOR = 0.65
_CORRECTION_WORDS = (4, 40)
_RULE = lazy_regex(r"\b(?:should|must|shall|ought|never|not|no|don'?t|doesn'?t|only|avoid|keep|"
                   r"need|needs|want|prefer|like|instead)\b", re.IGNORECASE)


#: A sentence whose subject is a bare pronoun ("it should be local only"): what it is about
#: stayed in the conversation, so stored alone it says nothing, however it was carried out.
_PRONOUN_SUBJECT = lazy_regex(
    r"^(?:(?:ok(?:ay)?|yes|yeah|no|nope|so|and|but|well|hey|hmm)[,!.…]*\s+)*"
    r"(?:it|that|this|they|those|these|them)(?:'s|'re|\b)(?!\s+(?:way|approach|option|idea)\b)",
    re.IGNORECASE)


def confirmed_correction(verdict: Any, sentence: str, changes: list[str]) -> Any | None:
    """The verdict to store a correction the agent conceded with (docs/capture.md,
    "Corrections"), or None: a statement, not a question, of 4 to 40 words with a rule's word
    in it and no bare pronoun for its subject, scored at least ``CORRECTION_FLOOR``, and named
    by a change the agent made after conceding (``corrections.carried_out``). Stored as the
    likeliest durable project class."""
    words = len(sentence.split())
    if (verdict.score < CORRECTION_FLOOR or "?" in sentence or _PRONOUN_SUBJECT.match(sentence)
            or not _CORRECTION_WORDS[0] <= words <= _CORRECTION_WORDS[1]
            or not _RULE.search(sentence) or not carried_out(sentence, changes)):
        return None
    label = max(("convention", "decision", "preference"),
                key=lambda name: verdict.probabilities.get(name, 0.0))
    return dataclasses.replace(verdict, label=label, kept=True)


#: How a transcript shows the person cut the agent's turn short. A call they turned down is
#: its result's mark (``Event.turned_down``, set by each reader), not words anywhere: an
#: agent's message or a command's output quoting "rejected by user" turned nothing down.
_CUT_SHORT = lazy_regex(r"\[Request interrupted|turn_aborted|aborted by user|Operation Cancelled",
                        re.IGNORECASE)
#: An order that corrects the agent: a negative one ("stop trying to run …", "don't …",
#: "never …") or one that keeps what it was about to remove ("keep the X skill"), in English
#: and a few other languages; not a dismissal ("never mind", "don't worry") nor a "go on"
#: ("keep going").
_STOP_ORDER = lazy_regex(
    r"^(?:(?:no|ok(?:ay)?|hey|please|pls|and|oops|wait)[,.!]*\s+)*(?:stop|quit|don'?t|dont|"
    r"do not|never|no more|arr[eê]te(?:z)? de|smetti(?:la)? di|hör auf)\b"
    r"(?!\s+(?:mind|worry|bother)\b)|^(?:(?:no|ok(?:ay)?|please|oops|wait)[,.!]*\s+)*keep\b"
    r"(?!\s+(?:going|trying|working|it up|on)\b)", re.IGNORECASE)
MIN_ORDER_WORDS, MAX_ORDER_WORDS = 4, 15


def after_refusal(view: SessionView) -> set[int]:
    """Lines of what the person typed right after turning down or interrupting the agent's
    tool call (the next prompt), or while turning it down (the refused call's result)."""
    found: set[int] = set()
    refused = False
    for event in view.transcript.events:
        if event.subagent_id or event.is_sidechain:
            continue
        if event.is_human_prompt:
            if refused:
                found.add(event.line)
            refused = False
        elif (event.kind == "tool_result" and view.refused(event)) \
                or _cut_short(text_head(event, 300)):
            refused = True
            found.add(event.line)
    return found


def _cut_short(head: str) -> bool:
    """``_CUT_SHORT.search(head)``, searched only where the lowered head holds a word every
    match has (no other character matches these letters ignoring case, a test checks): most
    events, and a case-blind search of each one's head was most of ``after_refusal``."""
    lowered = head.lower()
    return any(word in lowered for word in _CUT_SHORT_WORDS) and bool(_CUT_SHORT.search(head))


#: A word each alternative of ``_CUT_SHORT`` holds, lowered.
_CUT_SHORT_WORDS = ("rupted", "aborted", "cancelled")


def stop_order(sentence: str) -> bool:
    """A correction that states a rule (docs/capture.md, "Corrections"): typed right after the
    person turned the agent's call down or cut it short, a short negative order naming what
    not to do ("stop trying to run powershell commands") is how they want the work done, not
    a request for today; the sentence model, which reads it alone, sees a request. The other
    checks still apply (tied to now, leaning on what was said before, one rule)."""
    words = sentence.split()
    return (MIN_ORDER_WORDS <= len(words) <= MAX_ORDER_WORDS and "?" not in sentence
            and bool(_STOP_ORDER.match(sentence)))


def after_options(view: SessionView) -> dict[int, bool | None]:
    """For each prompt's line: does it answer an agent that just asked a question or offered
    options (a "?" near the end of its last message, or two option-looking lines)? None for
    the first prompt and for a prompt right after another prompt."""
    return {line: None if last is None else _offers(last)
            for line, last in agent_before_prompts(view, command_args=True)}


def after_offer(view: SessionView) -> frozenset[int]:
    """Lines of the prompts typed right after the agent asked a question or offered its next
    step in prose ("If you want, I can add them to the tab": ``logic.standalone``)."""
    return frozenset(line for line, last in agent_before_prompts(view, command_args=True)
                     if last and offers_a_step(last))


def _offers(text: str) -> bool:
    return "?" in text[-600:] or len(_OPTION_LINE.findall(text)) >= 2


def user_texts(view: SessionView) -> list[tuple[Event, str]]:
    """Text a person typed in the main session: prompts, a slash command's arguments, and
    what they typed while turning a tool call down -- without a pasted document, the agent's
    own earlier lines pasted back, or what the harness injected into the message (an
    instruction file, the environment) (``prose.typed_part``, ``prose.without_echo``,
    ``prose.without_injected``)."""
    return view.remembered("statements.user_texts", _user_texts)


def not_generated(text: str) -> str:
    """What the person typed of a message that a template or a tool wrote, in whole or in part
    (docs/capture.md, "Words the person did not type"):

    - a prompt or command file expanded into the message (front matter, or a "User Input"
      slot): only the slot's content is the person's (nothing when it is empty or still a
      placeholder); the template's rules are its author's;
    - a markup element spanning lines (an IDE selection, an image placeholder, an agent
      framework's activation block) is never typed; when such an element is a list of steps
      (an instruction template) and nothing follows it, the words that lead into it are the
      template's too ("You must embody this persona … <activation> 1. … 2. …").

    Text with none of these marks is returned as it is."""
    typed = typed_into_template(text)
    if typed is not None:
        return typed
    if "<" not in text:
        return text
    elements = list(_ELEMENT.finditer(text))
    if not elements:
        return text
    last = elements[-1]
    if (len(_STEP_LINE.findall(last.group())) >= _TEMPLATE_STEPS
            and not text[last.end():].strip()):
        return ""  # an instruction template and the words that introduce it
    return _ELEMENT.sub("\n", text).strip()


def typed_by_hand(text: str, agent_text: AgentText, unread: list[str] | None = None) -> str:
    """What the person wrote of a message: without what a template or a tool wrote
    (``not_generated``) and without what they pasted from another author
    (``authored.own_words``: a review comment, a program's screen, the agent's own earlier
    text), read before a template's markup elements are dropped, since a pasted comment is
    recognised by its markup. A template's slot is read for pastes after it is filled in.
    ``unread``: the agent's messages not yet added to ``agent_text``."""
    for said in unread or ():
        agent_text.add(said)
    if typed_into_template(text) is not None:
        return own_words(not_generated(text), agent_text)
    return not_generated(own_words(text, agent_text))


def typed_into_template(text: str) -> str | None:
    """What the person typed into a prompt or command template expanded into the message
    (docs/capture.md, "Words the person did not type"), or None when the message shows no
    template:

    - the template's slot left unfilled on a line of its own (``$ARGUMENTS``, alone or in a
      fenced block) with the person's words after it, and nothing of the template after them
      (no heading, no fence, no list of steps): those words (a saved prompt picked, then the
      request typed below it);
    - a slot filled in: a "User Input" heading and a fenced block, or such a heading (markdown
      or HTML) and the rest of the message: the slot's content;
    - front matter and no slot: nothing.

    A placeholder still in the slot is no words of the person's."""
    after = _after_unfilled_slot(text)
    if after is not None:
        return after
    slot = _SLOT.search(text) or _open_slot(text)
    if slot is None and not _FRONT_MATTER.match(text):
        return None
    said = slot["said"] if slot else ""
    return "" if _PLACEHOLDER.search(said) else said.strip()


def _open_slot(text: str) -> re.Match[str] | None:
    """A "User's Request" heading closing the message (``_OPEN_SLOT``): none when a heading
    follows it (a document's section, not a slot)."""
    if "request" not in text.lower() and "input" not in text.lower():
        return None
    slot = _OPEN_SLOT.search(text)
    return None if slot is None or _ANY_HEADING.search(slot["said"]) else slot


def _after_unfilled_slot(text: str) -> str | None:
    """The words after a template's last unfilled slot (``typed_into_template``), or None
    when there is no such slot, no template before it (a heading; front matter marks a
    command file the harness expanded whole, whose every line is its author's), or the
    template goes on after it: a heading, a fence, a list of steps, or a paragraph set off by
    a blank line. What a person types after a file they picked starts on the slot's next
    line; a template's author sets its next paragraph apart."""
    if "$ARGUMENTS" not in text and "{{" not in text:
        return None
    slots = list(_PLACEHOLDER_LINE.finditer(text))
    if not slots:
        return None
    before, after = text[:slots[-1].start()], text[slots[-1].end():]
    if _FRONT_MATTER.match(before) or not _ANY_HEADING.search(before):
        return None
    if len(_FENCE_LINE.findall(before)) % 2:  # the slot is a fenced block: after it closes
        closing = _FENCE_LINE.search(after)
        if closing is None or after[:closing.start()].strip():
            return None
        after = after[closing.end():]
    lines = after.split("\n")[1:]  # the rest of the slot's (or the fence's) line goes
    if not lines or not "".join(lines).strip():
        return None  # nothing typed after it: what was typed before the template, if any
    if (not lines[0].strip() or _ANY_HEADING.search(after) or _FENCE_LINE.search(after)
            or len(_STEP_LINE.findall(after)) >= _TEMPLATE_STEPS):
        return None
    return "\n".join(lines).strip()


#: Where a person's words were typed, as ``capture --explain`` shows it (``typed_in``).
TYPED_IN = {"prompt": "the prompt", "template": "the slot of a prompt template",
            "arguments": "a command's arguments", "refusal": "while turning a call down",
            "answer": "an answer to the agent's question"}


def typed_in(view: SessionView, event: Event) -> str:
    """Where the text ``user_texts`` read from ``event`` was typed: the prompt, the slot of
    a template expanded into it, a slash command's arguments, a turned-down call's result,
    or the answer to one of the agent's questions (docs/capture.md, "The sources it reads")."""
    if event.kind == "tool_result":
        call = view.call_of(event)
        asked = call is not None and kind_of(call.tool_name) == ASK
        return TYPED_IN["answer" if asked else "refusal"]
    if event.kind == "meta":
        return TYPED_IN["arguments"]
    text = request_text(without_injected(event.text))
    return TYPED_IN["template" if typed_into_template(text) is not None else "prompt"]


def _user_texts(view: SessionView) -> list[tuple[Event, str]]:
    found: list[tuple[Event, str]] = []
    agent_said: set[str] = set()
    agent_text = AgentText()
    for event in view.transcript.events:
        if event.subagent_id or event.is_sidechain:
            continue
        if event.kind == "assistant" and not event.derived:
            agent_said.update(key for line in event.text.splitlines()
                              for key in [echo_key(line)] if key)
            agent_text.add(event.text)
            continue
        if event.is_human_prompt:
            text = typed_by_hand(request_text(without_injected(event.text)), agent_text)
        elif event.kind == "meta" and "<command-args>" in event.text:
            text = own_words(" ".join(_COMMAND_ARGS.findall(event.text)), agent_text)
        else:
            continue
        text = said_around_paste(typed_part(without_echo(text, agent_said)))
        if text.strip() and not is_paste(text):
            found.append((event, text))
    for event, text in view.typed_in_results():  # words typed while turning a call down
        text = own_words(typed_part(without_injected(text)))
        if text.strip() and not is_paste(text):
            found.append((event, text))
    return found


def said_around_paste(text: str) -> str:
    """What the person wrote of a message that hands over to a paste ("I got this error when
    running the build:" and a log, a note around a fenced block): their lines only
    (``prose.split_paste``), so that their sentence is read while the paste, which a program
    printed, is not; the whole text otherwise."""
    split = split_paste(text)
    return split[0] if split is not None else text


#: The words of a file name: "git-flow", "gitFlow", "GIT_FLOW" are all "git", "flow".
_NAME_WORD = lazy_regex(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
#: A one-word name ("notes", "plan", "summary") is said by chance; a name of two words said
#: together is a page asked for.
_MIN_NAME_WORDS = 2


def asked_for_page(view: SessionView, cited: str, written_at: int) -> bool:
    """Did the person ask for the page the session wrote at line ``written_at``? Yes when
    something they typed before it names the page: its file name ("put it in git-flow.md"),
    or the words of its name said together, whatever separates them ("implement git flow in
    my project" for git-flow.md), when the name has two words or more. A page the person asked
    for records what they asked for: its rules are the project's, not the agent's report of
    its turn (docs/capture.md, "Words the person did not type")."""
    name = posixpath.basename(cited)
    words = [w.lower() for w in _NAME_WORD.findall(name.rsplit(".", 1)[0]) if len(w) > 1]
    phrase = re.compile(r"(?<!\w)" + r"[\s_.-]*".join(map(re.escape, words)) + r"(?!\w)") \
        if len(words) >= _MIN_NAME_WORDS else None
    for event, text in user_texts(view):
        if event.line >= written_at:
            continue
        lowered = text.lower()
        if name.lower() in lowered or (phrase and phrase.search(lowered)):
            return True
    return False


def statement_of(sentence: str) -> str:
    """The part of a sentence that states something: the whole sentence, unless it is a
    request for today whose aside starts a statement of its own ("Delete the Python files
    (but keep the Justfile - update it …)"). The closing period goes: it is not the claim's."""
    aside = _ASIDE.search(sentence)
    if aside and classify(_ASIDE.sub("", sentence)) is None and classify(aside["clause"]):
        sentence = aside["clause"]
    return sentence.strip().rstrip(".!;:").strip()


def _request_not_stored(sentence: str, view: SessionView) -> str | None:
    """Why a request the session carried out is still not stored: the checks of
    ``_not_stored`` its own gate has not made (``requests.carried_request``)."""
    if len(_core(sentence).split()) < _MIN_WORDS:
        return "too short to stand alone"
    garbled = not_one_rule(sentence)
    if garbled:
        return f"not one rule: {garbled}"
    alone = not_standalone(sentence) or cannot_be_read_alone(sentence)
    if alone:
        return f"does not stand alone: {alone}"
    day = steers_the_day(sentence)
    if day:
        return f"for today: {day}"
    return None if view.project else "no known project"


def _request_candidate(view: SessionView, event: Event, sentence: str, done: str,
                       turn: Turn) -> dict[str, Any]:
    """A request the session carried out (``requests``): the user's words as the project's
    decision, citing their line and the change that did it."""
    return candidate("requests", view.project or "", DECISION, sentence,
                     trust="statements.request",
                     evidence=[transcript_evidence(event.line, sentence),
                               done_evidence(done, turn)],
                     object_kind="literal", subject_type="project", at=event.timestamp)


def _candidate(view: SessionView, event: Event, label: str, sentence: str,
               trust: str | None = None) -> dict[str, Any]:
    personal = label == "personal"
    predicate = (classify(sentence) or PREFERS) if personal else PREDICATES[label]
    epistemic = "preference" if predicate == PREFERS else "commitment"
    return candidate("statements", "user" if personal else view.project or "", predicate,
                     sentence, evidence=[transcript_evidence(event.line, sentence)],
                     epistemic=epistemic, trust=trust,
                     scope="user" if personal else "project", object_kind="literal",
                     subject_type=None if personal else "project", at=event.timestamp)
