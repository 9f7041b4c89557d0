"""Would a careful reviewer believe an agent's sentence as a standing decision or convention?

The agent's summaries mix what the project now holds with what the agent only thought, offered,
did or saw: "or its CI hasn't hit the same mismatch", "Option B keeps the cache", "Let me
check the lockfile", "`load()` reads the file twice". A reviewer reading such a line as a
rule for the next session asks of it, before anything else (docs/capture.md, "The agent's
own words"):

- **Is it said as settled?** A sentence that guesses or leaves the matter open is not a
  decision: a modal of possibility ("could", "would", "ought to", "should work"), a hope or an
  assumption ("hopefully", "assuming", "in theory"), an outcome expected ("is expected to
  fix it"; "callers are expected to close it" is a duty), an alternative between two states of the
  world ("either … or", "or its CI hasn't …", "or not", "whether …"), a statement under a
  condition nobody checked ("the build passes if the cache is warm", "unless upstream changed
  it") and a question. A condition is a rule's scope, not a guess, when the sentence directs
  ("if the schema changes, bump the version"; "never push unless CI is green"): only a
  conditional *statement* is speculation. ``claim_mood.hedged`` holds the plain hedge words
  ("might", "probably", "seems", "I think"); this adds the forms they miss.
- **Is it one of several offered?** "One option is …", "alternatively …", "we could …",
  "consider …": a proposal the user has not chosen from. (The sections and messages that lay
  out options or ask for a go-ahead are read in ``capture/extract/summaries``.)
- **Is it a whole sentence?** A fragment carries no claim a later session can act on: under
  four words with no verb ("No `cache` target" is about the shortest whole stance without
  one; "Installs use `pnpm`" has one), cut off mid-sentence
  (a dangling "and", "to", a trailing comma or "…"), an unclosed code span or bracket, a
  table cell, a heading in title case, or a label followed by a bare list ("Standards: A, B,
  C, D").
- **Is it about the project, or about the agent's own turn?** "Let me …", "I'll now …",
  "Next I will …", "Moving on to …": what the agent is doing, over when the turn ends.
- **Does it decide, or describe what the code does today?** "`load_config()` reads the file
  twice", "currently the handler retries": what a glance at the code shows (and a later edit
  changes), not something anyone decided. A sentence with a rule or choice in it ("must",
  "instead of", "is reserved for") is left to the other checks.

Each test is read from the sentence's form, never from its topic; a sentence none of them
catches still has to be borne out by the session's record (``corroborate``). Precision first:
a test fires only on a form that leaves no standing claim, so a directive under a condition,
"and/or" and a list of nouns joined by "or" pass.

Pure logic: text in, a reason (or None) out.
"""

from __future__ import annotations

import re

from claimgraph.logic.lazy_regex import lazy_regex

SPECULATIVE, OFFERED, QUESTION = "speculative", "offered", "question"
FRAGMENT, OWN_ACTIVITY, DESCRIBES_CODE = "fragment", "own-activity", "describes-code"
#: Fewer words than this is a label or a scrap, not a claim (a role, said without its file,
#: is a predicate alone: it needs fewer).
MIN_WORDS, MIN_ROLE_WORDS = 4, 3

#: Code spans and quotations: their words are someone else's text, never the sentence's mood.
_QUOTED = lazy_regex(r"`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”")
#: A modal of possibility or a hope: the speaker does not say it holds. (In a relative clause,
#: "… logic that could drop updates", "shows what would be sent", the modal is what the thing
#: would do, not a doubt.)
_POSSIBLE = lazy_regex(
    r"(?<!\bthat\s)(?<!\bwhich\s)(?<!\bwho\s)(?<!\bwhat\s)\b(?:could|would)\b|"
    r"\b(?:ought\s+to|hopefully|in\s+theory|(?:i|we)\s+assume|^\W*assuming|suppos(?:e|edly)|"
    r"expected\s+to\s+(?:work|pass|fail|break|fix|resolve|solve|succeed|help|improve|land)|"
    r"should\s+(?:(?:now|also|still)\s+)?(?:work|help|fix|resolve|solve|suffice|"
    r"be\s+(?:enough|ok|okay|good|safe|correct|fixed|resolved)))\b", re.IGNORECASE)
_FINITE_VERB = (r"(?:is|are|was|were|has|have|had|does|do|did|will|can|isn't|aren't|wasn't|"
                r"weren't|hasn't|haven't|hadn't|doesn't|don't|didn't|won't|can't)")
#: Alternatives between states of the world: "either the lockfile is stale or …", "whether
#: …", "… or not" -- two clauses, not two nouns ("accepts either a path or a URL" is a spec).
_EITHER = lazy_regex(r"\beither\s+(?:\S+\s+){0,4}?" + _FINITE_VERB + r"\b[^.;]*\bor\b|"
                     r"\bor\s+not\b|\bwhether\b", re.IGNORECASE)
#: An "or" that opens a clause with a finite verb of its own ("…, or its CI hasn't hit …"):
#: another state the world may be in -- unless the sentence directs (a rule and what
#: happens otherwise: "pin it, or the build breaks").
_OR_CLAUSE = lazy_regex(r"(?<!and/)\bor\s+(?:[\w'-]+\s+){0,3}?" + _FINITE_VERB + r"\b",
                        re.IGNORECASE)
#: A condition: a statement under it is a guess when the condition is about what may or may
#: not have happened (an unknown state: "if the image hasn't been rebuilt", "unless someone
#: changed it") or the statement claims an outcome ("passes if the cache is warm"). A
#: condition on the input ("falls back to defaults if missing") is a specification.
_CONDITION = lazy_regex(r"\b(?:if|unless|provided\s+that|as\s+long\s+as|in\s+case)\b",
                        re.IGNORECASE)
_UNKNOWN_STATE = lazy_regex(
    r"\b(?:if|unless|provided\s+that|as\s+long\s+as|in\s+case)\b[^,.;:]*\b(?:already|still|"
    r"ever|someone|somebody|anyone|was|were|had|did|wasn't|weren't|hasn't|haven't|hadn't|"
    r"didn't)\b", re.IGNORECASE)
_OUTCOME = lazy_regex(r"\b(?:works?|pass(?:es)?|fails?|breaks?|succeeds?|fix(?:es)?|"
                      r"resolves?|helps?|(?:is|are|be|stays?|remains?)\s+(?:safe|fine|ok|okay|"
                      r"correct|enough|valid|compatible|stable|green|unaffected))\b",
                      re.IGNORECASE)
#: Words a rule is given in: the sentence directs, so its condition is the rule's scope.
_RULE_WORD = lazy_regex(r"\b(?:must|always|never|shall|should|required?|don'?t|do\s+not|"
                        r"make\s+sure|ensure|avoid|prefer|only|need\s+to|has\s+to|have\s+to)\b",
                        re.IGNORECASE)
#: Where the reason for what a sentence says begins: a causal word, a comma's "as", a colon
#: or a dash ("…, since a crash could corrupt it", "Keep it pure: a clock would …").
_REASON = lazy_regex(r"\b(?:because|since|otherwise|or\s+else|given\s+that)\b|,\s*as\b|"
                     r"[:;—–]|\s-\s", re.IGNORECASE)
#: A clause that opens with a verb in its base form: an instruction.
_IMPERATIVE = lazy_regex(
    r"^\W*(?:use|run|set|add|keep|pin|call|pass|install|enable|disable|restart|rebuild|"
    r"regenerate|bump|check|rerun|re-run|clear|delete|remove|update|export|prefix|wrap|put|"
    r"write|commit|push|open|create|switch|fall\s+back|retry|skip|ignore|do|make|see|start|"
    r"stop|reinstall|refresh|rename|move|copy|point|configure|build|test|lint|format|tag|"
    r"release|deploy|mark|log|fail|raise|return|reject|treat|read|edit|list|name|document|"
    r"keep)\b", re.IGNORECASE)
#: A question outside code and quotations.
_ASKS = lazy_regex(r"\?(?:\s|$)")
#: A proposal among others, or one not taken up yet.
_PROPOSAL = lazy_regex(
    r"\b(?:one|an|another|the\s+other|a\s+(?:possible|simpler|cleaner|better))\s+"
    r"(?:option|alternative|approach|way|idea|possibility|choice)\b|\balternatively\b|"
    r"^\W*consider(?:ing)?\b|\bworth\s+(?:considering|trying|exploring|a\s+try)\b|"
    r"(?<!\bso\s)(?<!\bthat\s)\b(?:we|you)\s+(?:can|could)\s+(?:also\s+|either\s+)?"
    r"(?!not\b|n't\b|only\b|never\b|no\s+longer\b)\w+",  # "you can only …": a rule
    re.IGNORECASE)
#: The agent narrating its own turn: "Let me …", "I'll now …", "Next I will …".
_OWN_TURN = lazy_regex(
    r"^\W*(?:(?:ok(?:ay)?|now|next|then|first|so),?\s+)*(?:let\s+me|let's|i'll|i\s+will|"
    r"i'm\s+(?:going\s+to|about\s+to|now)|i\s+am\s+(?:going\s+to|about\s+to|now)|"
    r"going\s+to|about\s+to|moving\s+on|i\s+(?:need|want)\s+to|we'll\s+now|will\s+now)\b|"
    r"^\W*(?:now|next|then|first),?\s+(?:i|we)\b",
    re.IGNORECASE)
#: "Going to <a place> <verb>s …": the going is the sentence's subject, a rule about it
#: ("Going to production requires a signed tag"), not the agent saying what it will do next.
_GOING_SUBJECT = lazy_regex(
    r"^\W*going\s+to\s+(?:[\w'-]+\s+){1,3}?(?:is|requires|needs|means|takes|must|should|"
    r"has|involves|triggers|goes)\b", re.IGNORECASE)
#: Today's behaviour of the code, marked as today's.
_TODAY = lazy_regex(r"\b(?:currently|right\s+now|at\s+present|as\s+it\s+stands|as\s+of\s+now|"
                    r"at\s+the\s+moment|today)\b", re.IGNORECASE)
#: A code thing (a code span, a call, a dotted or snake_case name) doing something: the
#: sentence says what the code does.
_CODE_DOES = lazy_regex(
    r"^\W*(?:the\s+)?(?:`[^`]+`|[A-Za-z_][\w.]*\(\)|[a-z]\w*[._]\w+)\s+"
    r"(?:(?:function|method|class|module|hook|handler|script|helper|endpoint)\s+)?"
    r"(?:(?:now|also|still|only|first|then)\s+)?"
    r"(?:returns|handles|calls|reads|writes|parses|loads|sends|checks|wraps|iterates|logs|"
    r"emits|accepts|takes|fetches|computes|converts|validates|stores|dispatches|delegates|"
    r"resolves|loops|retries|catches|throws|raises|opens|closes|spawns|prints|renders|"
    r"builds|creates|queries|caches|serializes|deserializes|formats|maps|filters|sorts)\b",
    re.IGNORECASE)
#: A choice said in the sentence (with a rule word, ``_RULE_WORD``): it decides, whatever it
#: describes or whatever it says may follow.
_CHOICE = lazy_regex(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of|chose|chosen|decided|"
                     r"reserved|by\s+design|on\s+purpose|intentionally|deliberately)\b",
                     re.IGNORECASE)
#: A sentence cut off: a word that needs more after it, a dangling mark, an ellipsis.
_CUT = lazy_regex(r"(?:\b(?:and|or|but|the|a|an|to|of|with|for|by|in|on|at|from|that|which|"
                  r"as|via|into|than|because|e\.g\.|i\.e\.)|[,;:(/–—-]|\.\.\.|…)\s*$",
                  re.IGNORECASE)
_TABLE_CELL = lazy_regex(r"\|")
#: A list marker inside a sentence ("1) lint 2) test", "a) migrate"): a ")" no "(" opened.
_LIST_MARKER = lazy_regex(r"(?:^|(?<=\s))(?:\d{1,2}|[A-Za-z])\)(?=\s)")
#: Han and kana: scripts written without spaces between words (``_word_count``).
_UNSPACED = lazy_regex("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
#: A label and a bare list after it: "Public standards: A, B, C, D".
_LABEL_LIST = lazy_regex(r"^(?P<label>[^:]{1,60}):\s+(?P<items>[^:]+)$")
_FINITE = lazy_regex(r"\b(?:is|are|was|were|be|has|have|had|must|should|will|can|do|does|"
                     r"did|may|might|would|could|shall|need|needs|uses?|keeps?|runs?)\b",
                     re.IGNORECASE)
_MIN_LIST_ITEMS, _MAX_ITEM_WORDS = 3, 4
#: Small words a title-case heading leaves in lower case.
_TITLE_SMALL = frozenset("a an the of for and or to in on with at by vs via".split())


def speculative(text: str) -> bool:
    """The sentence guesses or leaves the matter open (module docstring): a modal of
    possibility, a hope, an alternative between states, or a statement under a condition."""
    plain = _QUOTED.sub(" ", text)
    if _EITHER.search(plain) or _POSSIBLE.search(plain) and not _rationale_only(plain):
        return True
    if _OR_CLAUSE.search(plain) and not _directs(plain) and not _CHOICE.search(plain):
        return True
    return bool(_CONDITION.search(plain)) and not _directs(plain) \
        and not _CHOICE.search(plain) and bool(
        _UNKNOWN_STATE.search(plain) or _OUTCOME.search(plain))


def _rationale_only(plain: str) -> bool:
    """The modal stands only in the reason given for a rule or a choice ("chose Redis because
    polling would add latency", "never retry a POST, as it could charge twice"): what would
    happen the other way is why the matter is settled, not a doubt about it."""
    found = _REASON.search(plain)
    if found is None:
        return False
    head = plain[:found.start()]  # a clause of its own, not a label ("Update: it could …")
    if len(head.split()) < MIN_ROLE_WORDS or _POSSIBLE.search(head):
        return False
    # before a colon, a choice word may be a label's ("Chosen approach: Redis could work")
    labelled = found.group() == ":"
    return _directs(head) or (not labelled and bool(_CHOICE.search(head)))


def _directs(plain: str) -> bool:
    """The sentence gives an instruction or a rule: a rule word anywhere, or a clause (the
    whole, or what follows a leading condition's comma) that opens with a verb's base form."""
    if _RULE_WORD.search(plain) or _IMPERATIVE.match(plain):
        return True
    _, comma, rest = plain.partition(",")
    return bool(comma) and bool(_IMPERATIVE.match(rest))


def question(text: str) -> bool:
    """A question (outside code and quotations): something asked is not something decided."""
    return bool(_ASKS.search(_QUOTED.sub(" ", text)))


def offered(text: str) -> bool:
    """One proposal among others, or a possibility put to the person ("one option is …",
    "alternatively …", "we could …", "consider …")."""
    return bool(_PROPOSAL.search(_QUOTED.sub(" ", text)))


def fragment(text: str, min_words: int = MIN_WORDS) -> bool:
    """Not a whole sentence: too short, cut off, unbalanced, a table cell, a title-case
    heading, or a label with a bare list after it."""
    stripped = text.strip()
    if _CUT.search(stripped):
        return True
    if _word_count(stripped) < min_words and not _FINITE.search(_QUOTED.sub(" ", stripped)):
        return True  # short and without a verb: a label ("Installs use `pnpm`" has one)
    unmarked = _LIST_MARKER.sub(" ", stripped)
    if stripped.count("`") % 2 or unmarked.count("(") != unmarked.count(")") \
            or stripped.count("[") != stripped.count("]") \
            or stripped.count("“") != stripped.count("”"):
        return True
    plain = _QUOTED.sub(" x ", stripped)
    return bool(_TABLE_CELL.search(plain)) or _title_case(plain) or _bare_list(plain)


def _word_count(text: str) -> int:
    """Words in a sentence: the spaced ones, and in a script written without spaces (Chinese,
    Japanese) one for every two of its characters; to ``str.split`` a whole sentence there
    is a single word, so every one would be a scrap."""
    spaced = _UNSPACED.sub(" ", text).split()
    return len(spaced) + sum(len(run) // 2 for run in _UNSPACED.findall(text))


def _title_case(plain: str) -> bool:
    words = re.findall(r"[A-Za-z][\w'-]*", plain)
    return len(words) >= 2 and not re.search(r"[.!?;]", plain) and all(
        word[0].isupper() or word.lower() in _TITLE_SMALL for word in words)


def _bare_list(plain: str) -> bool:
    found = _LABEL_LIST.match(plain)
    if found is None or _RULE_WORD.search(found["label"]):
        return False  # "Reads these only: A, B, C": a rule, and the list is its scope
    items = [item.strip() for item in re.split(r",|\band\b", found["items"].rstrip(". "))
             if item.strip()]
    return len(items) >= _MIN_LIST_ITEMS and not _FINITE.search(found["items"]) and all(
        len(item.split()) <= _MAX_ITEM_WORDS for item in items)


def own_activity(text: str) -> bool:
    """The agent narrating its turn ("Let me …", "I'll now …", "Next I will …")."""
    return bool(_OWN_TURN.search(text)) and not _GOING_SUBJECT.match(text)


def describes_code(text: str) -> bool:
    """What the code does today, not a decision: marked as today's ("currently"), or a code
    thing doing something ("`load()` reads the file twice") with no rule or choice in it."""
    plain = _QUOTED.sub(" x ", text)
    if _CHOICE.search(plain) or _RULE_WORD.search(plain):
        return False
    return bool(_TODAY.search(plain) or _CODE_DOES.match(text))


def not_standing(text: str, role: bool = False) -> str | None:
    """Why the agent's sentence is not to be believed as standing (one of the reasons
    above), or None when its form says nothing against it. ``role``: the sentence is what a
    file is for (a predicate without its subject, a description by nature), so only its
    mood and its wholeness are judged."""
    if role:
        if question(text):
            return QUESTION
        if speculative(text) or offered(text):
            return SPECULATIVE
        return FRAGMENT if fragment(text, MIN_ROLE_WORDS) else None
    for reason, test in ((QUESTION, question), (OWN_ACTIVITY, own_activity),
                         (OFFERED, offered), (SPECULATIVE, speculative),
                         (FRAGMENT, fragment), (DESCRIBES_CODE, describes_code)):
        if test(text):
            return reason
    return None
