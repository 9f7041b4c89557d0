"""Commands a project's own rules forbid: read from one sentence, matched by words.

A fact that tells the next agent to run what the project's instruction file (or the user's
standing words) forbid is worse than no fact: "ALWAYS use `/e2e-test-runner` when running
E2E tests. Never run `pnpm test:e2e` directly" beside a stored ``tested-by pnpm exec
playwright test`` sends the next agent straight into what the file warns against. Two shapes
of rule are read, each only when it names what it forbids plainly:

- **a command forbidden by name**: "Never run `X`", "Do not use `X`", "Avoid `X`", "use `Y`
  instead of `X`", "use `Y`, not `X`" -- ``X`` in a code span, or a bare program name the
  caller knows (``is_program``: "Don't use npm"); a rule with a condition ("never run `X`
  without `-n 4`", "… until …", "… unless …") forbids no command outright and is not read;
- **a kind of check that must go through one way**: "Always use `Y` when running E2E tests",
  "Use `Y` for linting", "When running tests, always use `Y`", "E2E tests must be run via
  `Y`" -- then every command of that kind (test, unit, e2e, lint, format, build: the caller
  says which kinds a command is, from the one command vocabulary) that is not ``Y`` is
  forbidden. ``Y`` must be a command or a skill (``/e2e-test-runner``, "the `x` skill"):
  "always use `vi.fn()` for tests" says how tests are written, not how they are run.

A command matches a forbidden one by its words, never by a substring: ``pnpm test`` is not
``pnpm test:e2e``; a forbidden program matches where a command starts (``npm`` forbids ``cd
web && npm test``, not ``pnpm test``; ``pytest`` does not forbid ``uv run pytest``), a
forbidden flag (``--no-verify``) wherever it is. ``npm run x`` and ``npm x`` are one command.
Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

#: A check's kinds a rule can name, from the words a sentence uses for them.
_KIND_WORDS: tuple[tuple[str, str], ...] = (
    ("e2e", r"e2e(?:\s+tests?|\s+suites?)?|end[- ]to[- ]end(?:\s+tests?)?|playwright(?:\s+tests?)?"
            r"|cypress(?:\s+tests?)?|browser\s+tests?"),
    ("unit", r"unit\s+tests?"),
    ("test", r"tests?|testing|test\s+suites?|the\s+suite"),
    ("lint", r"lint(?:ing|ers?)?|type[- ]?check(?:ing|s)?|static\s+analysis"),
    ("format", r"format(?:ting)?|formatters?"),
    ("build", r"build(?:s|ing)?"),
)
_KIND = "(?P<kind>" + "|".join(f"(?:{words})" for _, words in _KIND_WORDS) + ")"
_KIND_OF = tuple((kind, re.compile(rf"^(?:{words})$", re.IGNORECASE))
                 for kind, words in _KIND_WORDS)
#: What a rule names: a code span, a skill by its slash name, or a bare word.
_THING = r"(?P<{0}>`[^`\n]+`|/[a-z][\w-]*(?![\w/.-])|[\w@](?:[\w./:@-]*[\w@])?)"
_NEGATION = r"(?:never|do\s+not|don'?t|must\s+not|should\s+not|shouldn'?t|avoid)"
_FORBID = re.compile(
    _NEGATION + r"\s+(?:ever\s+)?(?:(?:run|use|call|invoke|execute|type|using|running)\s+)?"
    r"(?:the\s+)?" + _THING.format("what"), re.IGNORECASE)
_INSTEAD = re.compile(r"(?:instead\s+of|rather\s+than|[,;(—–]\s*not)\s+(?:running\s+|using\s+)?"
                      + _THING.format("what"), re.IGNORECASE)
#: After the thing a rule forbids, before its clause ends: a condition, so the command is not
#: forbidden outright ("never run `X` without `-n 4`", "… unless …", "… for now").
_CONDITION = re.compile(r"\b(?:without|unless|until|before|after|outside|except|if|when|while|"
                        r"on\s+(?:ci|main)|in\s+ci|yet|for\s+now|right\s+now|this\s+time|"
                        r"today)\b", re.IGNORECASE)
#: Where a clause ends: what follows is another statement (a reason, another rule).
_CLAUSE_END = re.compile(r"[.;!?]\s|\s[-—–]\s|\s*[—–]|$")
#: What may stand before a rule's negation: nothing (an imperative), a punctuation mark
#: that starts a clause, or "you"/"we"/"please" -- not a subject the rule is about ("Research
#: workers must not run `X`" binds those workers, not whoever works on the code).
_ADDRESSED = re.compile(r"(?:^|[.!?:;,(—–-]|\b(?:you|we|please|and|but|also|so|and\s+never))\s*$",
                        re.IGNORECASE)
#: After a bare program a rule names: the end of its clause or a word that says how, never a
#: noun it is the verb of ("do not make assumptions", "don't use pytest fixtures").
_BARE_END = re.compile(r"^(?:\s*$|\s*[.,;:!?)—–-]|\s+(?:directly|anymore|instead|again|here|"
                       r"at\s+all|in\s+this|for|to|on|in)\b)", re.IGNORECASE)
_SKILL_NAME = re.compile(r"`?(?P<name>/?[\w-]+)`?\s+skill\b", re.IGNORECASE)
_OCCASION_VERB = r"(?:when(?:ever)?\s+(?:you\s+)?(?:run(?:ning)?|execut(?:e|ing))|to\s+run|for)"
_USE = r"(?:always\s+|only\s+)?(?:use|run|invoke)\s+(?:the\s+)?"
_VIA = re.compile(
    _USE + _THING.format("via") + r"(?:\s+skill)?\s+" + _OCCASION_VERB
    + r"\s+(?:the\s+|any\s+|all\s+)?" + _KIND + r"\b", re.IGNORECASE)
_OCCASION_FIRST = re.compile(
    r"^(?:" + _OCCASION_VERB + r")\s+(?:the\s+|any\s+|all\s+)?" + _KIND + r"\b[^,]{0,40},\s*"
    + _USE + _THING.format("via"), re.IGNORECASE)
_PASSIVE = re.compile(
    r"(?:the\s+|all\s+)?" + _KIND + r"\s+(?:must|should|are\s+to)\s+(?:only\s+|always\s+)?"
    r"be\s+run\s+(?:only\s+)?(?:with|via|through|using|by)\s+(?:the\s+)?" + _THING.format("via"),
    re.IGNORECASE)
_MARKUP = re.compile(r"\*\*|__|(?<!\w)\*(?=\w)|(?<=\w)\*(?!\w)")
_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SEPARATOR = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")


@dataclass(frozen=True)
class Forbidden:
    """One rule: ``words`` a command must not run (``kind`` empty), or a ``kind`` of check
    whose every command but ``via`` (its words; empty for a skill, which no command is) is
    forbidden. ``said`` is the sentence, for the reason a fact is left out."""

    words: tuple[str, ...] = ()
    kind: str = ""
    via: tuple[str, ...] = ()
    said: str = ""


#: A word that makes "use `Y` for tests" a standing rule rather than the request of the day.
_STANDING = re.compile(r"\b(?:always|only|must|should|never)\b", re.IGNORECASE)


def rules_in(sentence: str, is_command: Callable[[str], bool],
             is_program: Callable[[str], bool], *, typed: bool = False) -> list[Forbidden]:
    """The rules one sentence states. ``is_command`` says whether a code span is a command
    (a known check, a recipe, a script); ``is_program`` whether a bare word is a program.
    A sentence the person ``typed`` in the session sends a kind of check one way only when
    it says so for good ("always", "only", "must"): "run `pytest x.py` to run the tests" is
    what to do now, an instruction file's "Use `just lint` for linting" a rule."""
    text = " ".join(_MARKUP.sub("", sentence).split())
    found: list[Forbidden] = []
    for pattern in (_FORBID, _INSTEAD):
        for match in pattern.finditer(text):
            before, after = text[:match.start()], text[match.end():]
            if pattern is _INSTEAD and not re.search(r"\b(?:use|run|prefer)\b", before,
                                                     re.IGNORECASE):
                continue
            if pattern is _FORBID and not _ADDRESSED.search(before):
                continue
            if not match["what"].startswith("`") and not _BARE_END.match(after):
                continue
            end = _CLAUSE_END.search(after)
            clause = after[:end.start()] if end else after
            words = _named(match["what"], is_command, is_program)
            if words and not _CONDITION.search(clause):
                found.append(Forbidden(words=words, said=text))
    for pattern in (_VIA, _OCCASION_FIRST, _PASSIVE):
        if typed and not _STANDING.search(text):
            break
        for match in pattern.finditer(text):
            via = _via(match["via"], text[match.end("via"):], is_command)
            if via is not None:
                found.append(Forbidden(kind=_kind_of(match["kind"]), via=via, said=text))
    return list(dict.fromkeys(found))


def _named(thing: str, is_command: Callable[[str], bool],
           is_program: Callable[[str], bool]) -> tuple[str, ...]:
    """The words of a forbidden command: a code span that is a command or a flag, or a bare
    known program; () for anything else."""
    if thing.startswith("`"):
        inner = thing.strip("`").strip()
        if inner.startswith("-") and " " not in inner:
            return (inner,)
        return normalized(inner.split()) if inner and is_command(inner) else ()
    return (thing,) if is_program(thing) else ()


def _via(thing: str, after: str, is_command: Callable[[str], bool]) -> tuple[str, ...] | None:
    """The one way a kind of check must run: a command's words, () for a skill; None when the
    thing is neither (a flag, a helper, a setting)."""
    inner = thing.strip("`").strip()
    if thing.startswith("/") or (inner.startswith("/") and " " not in inner
                                 and inner.count("/") == 1):
        return ()  # a skill by its slash name
    if re.match(r"\s*skill\b", after, re.IGNORECASE) and _SKILL_NAME.match(thing + after):
        return ()
    if thing.startswith("`") and inner and not inner.startswith("-") and is_command(inner):
        return normalized(inner.split())
    return None


def _kind_of(said: str) -> str:
    said = " ".join(said.split())
    return next(kind for kind, pattern in _KIND_OF if pattern.match(said))


def normalized(words: Iterable[str]) -> tuple[str, ...]:
    """A command's words as compared: assignments in front left out, and ``npm run x`` read
    as ``npm x`` (one script, two spellings)."""
    out = [word for word in words]
    while out and _ASSIGNMENT.match(out[0]):
        out.pop(0)
    if len(out) > 2 and out[0] in _MANAGERS and out[1] == "run":
        del out[1]
    return tuple(out)


def commands_of(line: str) -> list[tuple[str, ...]]:
    """The simple commands of one line of shell, each as ``normalized`` words (a ``cd`` is a
    command too, and forbids nothing)."""
    return [normalized(part.split()) for part in _SEPARATOR.split(line) if part.strip()]


def forbids(rule: Forbidden, command: tuple[str, ...], kinds: frozenset[str]) -> bool:
    """Whether ``rule`` forbids one simple command (``normalized`` words) of the given kinds."""
    if rule.kind:
        return rule.kind in kinds and not _starts(command, rule.via) if rule.via else \
            rule.kind in kinds
    if rule.words[0].startswith("-"):
        return rule.words[0] in command
    return _starts(command, rule.words)


def _starts(command: tuple[str, ...], words: tuple[str, ...]) -> bool:
    return bool(words) and command[:len(words)] == words


def first_forbidding(rules: Iterable[Forbidden], command: tuple[str, ...],
                     kinds: frozenset[str]) -> Forbidden | None:
    """The first of ``rules`` that forbids ``command``, else None."""
    return next((rule for rule in rules if forbids(rule, command, kinds)), None)


def code_spans(text: str) -> Iterator[str]:
    """The code spans of a text, in order."""
    yield from re.findall(r"`([^`\n]+)`", text)
