"""Whether a sentence the person typed states how a thing of the project is (docs/capture.md,
"What the user states").

The sentence model keeps rules, decisions and preferences; a plain statement of how things are
("the loader only supports ``${VAR}`` expansion", "deployment logic is in flop-core") reads to
it as "other", with the chat around it: reactions, task talk, bug reports, pasted output. What
tells the two apart here is the sentence's shape, not its topic:

- a third-person subject followed, within a few words, by a verb of state or rule ("is",
  "are", "must", "only", "never", "supports", "lives in" ...), present tense;
- not a question, not hedged ("maybe", "I think"), not past ("was", "has been") nor tied to
  the moment ("now", "still", "again"): those are reports on today's work;
- not about the person or the agent ("I", "you", "your"), not a bug report ("doesn't
  work", "broken", "error", a thing named by what it fails to do: "the workers not
  exiting"), not pasted program output (check marks, box lines, numbers);
- it names a thing: a word shaped like code (a path, ``snake_case``, ``camelCase``, a dotted
  or dashed name, a version) or a plain word the session's own commands and paths use. The
  caller says which names the session's tool calls and results hold (``grounded``).

Second pass (``standing``): a sentence of that shape is still no standing statement when it
reports what happens now (a progressive "is returning", a negated event "does not
terminate"), the session's own state (a version something "is at", where the repository is
kept, what "is called" the project's own name, a process's terminal), the aim of the work
("the goal is ...", "the fix is to ...", "X should be obvious"), pasted product prose ("a key
feature", "seamless") or a pointer to another place ("see how ...", "../other").

Pure: the caller gives the sentence and the session's names; nothing here reads a transcript.
Known cost: a statement in another language never passes (its verbs are not these).
"""

from __future__ import annotations

import re
from typing import Container

_WORDS = (4, 40)
#: Discourse markers in front of a statement ("OK, ...", "but ...", "so ..."): dropped
#: before the subject is read.
_LEAD = re.compile(r"^(?:(?:ok(?:ay)?|so|but|and|also|well|yes|yeah|no|note|fyi|btw|"
                   r"actually|because|since|however)\b[\s,:;.!-]*)+", re.IGNORECASE)
#: A subject that is a person or a word pointing back: the sentence is about the
#: conversation, or says nothing stored alone.
_BAD_SUBJECT = re.compile(
    r"^(?:i|i'm|i've|i'd|me|my|you|you're|your|we|we're|we've|let's|lets|he|she|they|"
    r"it|it's|its|that|that's|this|these|those|there|here|what|which|who|why|how|when|"
    r"where|please|can|could|would|will|should|do|does|did|is|are|was|were|if|then)\b",
    re.IGNORECASE)
#: The verb of a statement of state or rule, present tense.
_STATE_VERB = re.compile(
    r"\b(?:is|are|isn't|aren't|is not|are not|must|must not|mustn't|should|shouldn't|"
    r"should not|shall|can't|cannot|can only|(?<!the )only|never|always|does not|doesn't|"
    r"do not|don't|has to|have to|needs to|supports?|requires?|uses?|lives? in|belongs? to|"
    r"means|expects?|contains?|depends on|runs? on)\b",
    re.IGNORECASE)
_SUBJECT_WORDS = 6
#: A Markdown link reads as its text: "[loader.ts](src/loader.ts)" is "loader.ts".
_LINK = re.compile(r"\[([^\]]+)\]\([^)\s]*\)")
#: What a subject never holds: a clause ("if", "that", "to"), a list (a comma), an aside.
_NOT_A_SUBJECT = re.compile(r"[,;()]|:\s|--|\b(?:if|that|to|when|which|who|so|but|though|although|"
                            r"how|what|where|why|"
                            r"even|because|after|before|it|they|them|this|these|those)\b",
                            re.IGNORECASE)
#: A judgement or a status of the work: a reaction to today's result, not how a thing is.
_JUDGED = re.compile(
    r"\b(?:fine|good|great|nice|better|best|bad|worse|too|quite|right|done|closed|pushed|"
    r"merged|finished|gone|ok|okay|cool|perfect|awesome|useful|positive|negative|mainly|"
    r"basically|exactly|correctly|ready|happy|very|pr|pull request)\b", re.IGNORECASE)
#: A numbered heading or a table row of a pasted document ("4.4 After Filament Load").
_HEADING = re.compile(r"^\d+(?:\.\d+)*\s")
#: The person unsure, or the moment: a report on today's work, not how things stand ("the
#: current parser only matches ...": what the work is about to change).
_NOT_SETTLED = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|might|guess|think|believe|wonder|seems?|"
    r"apparently|likely|hopefully|not sure|was|were|wasn't|weren't|had|did|didn't|"
    r"has been|have been|got|just|now|still|again|anymore|any more|already|yet|today|"
    r"current|currently|right now|earlier|yesterday|i|i'm|i've|i'd|me|my|mine|you|your|you're|"
    r"you've|yours|we'll|let's|lets|please|try|tried)\b", re.IGNORECASE)
#: A bug report: what is wrong today, fixed by the work, stale once it is. "the workers not
#: exiting", "the page not loading": a thing named by what it fails to do is the trouble at
#: hand ("not including", "not matching" qualify a rule instead, and "not something we
#: support" names no failing thing: a word ending in "thing" is no verb).
_TROUBLE = re.compile(
    r"\b(?:not working|doesn't work|does not work|don't work|broken|breaks?|fails?|"
    r"failing|failed|errors?|bugs?|crash\w*|wrong|missing|issues?|problems?|weird|"
    r"strange|nothing happens|not (?!\w*thing\b|including\b|counting\b|using\b|having\b|"
    r"being\b|requiring\b|touching\b|changing\b|matching\b|containing\b|exceeding\b)"
    r"\w{3,}ing)\b", re.IGNORECASE)
#: Program output typed back: check marks, box drawing, prompts, arrows.
_PRINTED = re.compile(r"[✔✓✗✘│─┌┐└┘├┤❯➜→⎿●•]|^\s*[$#>]\s")
_TOKEN = re.compile(r"`[^`]+`|\$\{?\w+\}?|[\w@][\w@.:/+-]*[\w/]|\w", re.UNICODE)
#: Shaped like a name of code: a path, a dotted, dashed or snake name, camelCase, a version.
_CODE_SHAPED = re.compile(r"^`.+`$|^\$\{?\w+|[/_.:@]\w|\w-\w|[a-z][A-Z]|\d[a-z]|[a-z]\d",
                          re.UNICODE)
_PLAIN = re.compile(r"^[a-z]{5,}$")
#: Plain words too common in commands and paths to say what a sentence is about.
_GENERIC = frozenset(
    "about after their there these those which while would could should where other "
    "files folder folders directory output input results result value values thing things "
    "project source sources build tests test testing script scripts config configs setting "
    "settings default error errors using because every first second third always never "
    "before under above below between through change changes update updates check checks "
    "server client user users model models data index debug local global state start "
    "write reads write writes print prints types class function method object string "
    "number items item names label labels version versions option options system session "
    "sessions current lower higher".split())


def is_statement(sentence: str) -> bool:
    """True when ``sentence`` reads as a settled statement of how a thing is or must be
    (module docstring): the shape only, not yet whether it names a thing of the project."""
    text = _LEAD.sub("", _LINK.sub(r"\1", sentence.strip()).strip("*_#> \t")).strip()
    words = text.split()
    if not _WORDS[0] <= len(words) <= _WORDS[1] or "?" in text or _PRINTED.search(text):
        return False
    if (_BAD_SUBJECT.match(text) or _NOT_SETTLED.search(text) or _TROUBLE.search(text)
            or _JUDGED.search(text) or _HEADING.match(text)):
        return False
    verb = _STATE_VERB.search(text)
    subject = text[:verb.start()].strip() if verb else ""
    if verb is None or not subject or _NOT_A_SUBJECT.search(subject):
        return False
    return (len(subject.split()) <= _SUBJECT_WORDS and _prose(words)
            and not _not_standing(text, subject, text[verb.start():]))


#: What happens now, watched: a progressive ("is returning", "are running") or a negated event
#: ("does not terminate"); a statement of how a thing is negates a relation instead
#: ("does not depend on", "doesn't support").
_PROGRESSIVE = re.compile(
    r"\b(?:is|are|isn't|aren't|is not|are not)\s+(?:\w+ly\s+)?(?!(?:nothing|something|"
    r"everything|anything|string|thing|king|ring|spring|during|bring|pending\b))\w{2,}ing\b",
    re.IGNORECASE)
_NEGATED_DO = re.compile(r"\b(?:does not|doesn't|do not|don't)\s+(\w+)", re.IGNORECASE)
_RELATIONS = frozenset(
    "depend need require support use allow accept belong contain include have handle ship "
    "expand apply affect import call know care matter exist own expose store persist mean "
    "touch cover count hold take".split())
#: The session's own state: a version something is at, where the repository itself is kept
#: or what it is called, a process's place in the terminals.
_AT_VERSION = re.compile(r"\b(?:is|are)\s+(?:now\s+|both\s+|all\s+)?(?:at|on)\s+v?\d+(?:\.\d+)+",
                         re.IGNORECASE)
_SELF = re.compile(r"^(?:the|this|our|my)?\s*(?:local\s+)?(?:repo|repository|project|codebase|"
                   r"workspace|checkout|clone|worktree|library|app|package|folder|directory)$",
                   re.IGNORECASE)
_SELF_PLACE = re.compile(r"^\w+\s+(?:\w+ly\s+)?(?:called|named|stored|located|cloned|kept|"
                         r"checked out|at|in|under)\b", re.IGNORECASE)
_TERMINAL = re.compile(r"\b(?:tmux|screen|terminal|pane|tab|window|shell)\s+(?:session|window|"
                       r"pane|tab)?|\bpid\s+\d+", re.IGNORECASE)
#: The aim or the plan of the work: what it is for today, not how the project is.
_AIM = re.compile(r"^(?:the|our|my|a|current|main|next|first|final|real|only)?\s*(?:current\s+|"
                  r"main\s+|next\s+)?(?:goal|aim|objective|task|plan|todo|next step|priority|"
                  r"focus|fix|solution|idea|approach|workaround|answer|point|intent|"
                  r"requirement)s?\b", re.IGNORECASE)
_AIMED = re.compile(
    r"\b(?:should|must|needs? to|has to|have to)\s+(?:\w+\s+)?be\s+(?:more\s+|very\s+)?"
    r"(?:obvious|clear|visible|easy|simple|intuitive|readable|clean|fast|quick|smooth|"
    r"responsive|consistent|understandable|prominent|noticeable|accessible|beautiful|pretty|"
    r"polished|helpful|friendly|elegant|discoverable|apparent|evident)\b", re.IGNORECASE)
#: Product prose pasted in: the words of a brochure, not of a person describing their code.
_BROCHURE = re.compile(
    r"\b(?:key feature|seamless\w*|powerful|robust|comprehensive|cutting[- ]edge|"
    r"state[- ]of[- ]the[- ]art|empower\w*|effortless\w*|innovative|unlock\w*|"
    r"best[- ]in[- ]class|world[- ]class|streamlin\w*|delight\w*|leverag\w*|"
    r"(?:enables?|allows?|lets|helps?)\s+(?:users|customers|teams|businesses|you)|"
    r"users can|designed to)\b", re.IGNORECASE)
#: A pointer to another place: a command to look ("see how ..."), a path outside the project.
_POINTER = re.compile(r"^(?:see|look|check|refer|read|compare|follow|consult|copy|mirror)\b|"
                      r"(?:^|\s)\.\./|\b(?:like|as) (?:it is )?(?:done )?in\b", re.IGNORECASE)
_MODAL = re.compile(r"^(?:must|mustn't|must not|should|shouldn't|should not|shall|can't|cannot|"
                    r"can only|only|never|always|has to|have to|needs to)\b", re.IGNORECASE)


def _not_standing(text: str, subject: str, predicate: str) -> bool:
    """The shape of a statement, but about now, the session, the work's aim, a brochure or
    another place (module docstring, second pass)."""
    negated = _NEGATED_DO.search(predicate)
    happening = bool(_PROGRESSIVE.search(predicate)) or bool(
        negated and negated.group(1).lower().rstrip("s") not in _RELATIONS)
    session = bool(_AT_VERSION.search(predicate) or _TERMINAL.search(predicate)
                   or (_SELF.match(subject) and _SELF_PLACE.match(predicate)))
    aim = bool(_AIM.match(subject) or _AIMED.search(predicate))
    return happening or session or aim or bool(_BROCHURE.search(text) or _POINTER.search(text))


def is_rule(sentence: str) -> bool:
    """The statement's verb says what must or must not be (``must``, ``never``, ``only`` ...),
    not how a thing is found: a rule stands whatever the session does to the thing after."""
    text = _LEAD.sub("", _LINK.sub(r"\1", sentence.strip()).strip("*_#> \t")).strip()
    verb = _STATE_VERB.search(text)
    return bool(verb and _MODAL.match(text[verb.start():]))


def _prose(words: list[str]) -> bool:
    """Mostly words, not numbers and symbols (a line of output, a table row)."""
    wordy = sum(1 for word in words if any(ch.isalpha() for ch in word))
    titled = sum(1 for word in words if word[:1].isupper())
    return wordy * 4 >= len(words) * 3 and titled * 2 <= len(words)


def names(sentence: str) -> tuple[set[str], set[str]]:
    """The sentence's names, lowercased: (code-shaped ones, plain words of five letters or
    more that are not generic). Which of them the session also names is the caller's to say."""
    shaped: set[str] = set()
    plain: set[str] = set()
    for token in _TOKEN.findall(sentence):
        token = token.strip("`.:,;").rstrip("/")
        if len(token) < 3:
            continue
        if _CODE_SHAPED.search(token):
            shaped.add(token.lower())
        elif _PLAIN.match(token.lower()) and token.lower() not in _GENERIC:
            plain.add(token.lower())
    return shaped, plain


def grounded(sentence: str, session_text: str | bytes | bytearray | Container[str],
             session_words: set[str] | frozenset[str]) -> bool:
    """True when the sentence names a thing the session's own record names too: a code-shaped
    name of it found in ``session_text`` (what the tool calls and results hold, lowercased;
    a long session's is held as UTF-8, where a name's UTF-8 occurs exactly where the name
    does in the text; or any container that answers ``name in`` it as the text would, such
    as one held compressed), or a plain word of it in ``session_words`` (the words of the
    commands run and the paths touched)."""
    shaped, plain = names(sentence)
    if isinstance(session_text, (bytes, bytearray)):
        found = any(name.encode("utf-8", "surrogatepass") in session_text for name in shaped)
    else:
        found = any(name in session_text for name in shaped)
    return found or bool(plain & set(session_words))


def subject_of(sentence: str) -> str:
    """The words before the statement's verb ("" when there is none): what it is about."""
    text = _LEAD.sub("", _LINK.sub(r"\1", sentence.strip()).strip("*_#> \t")).strip()
    verb = _STATE_VERB.search(text)
    return text[:verb.start()].strip() if verb else ""
