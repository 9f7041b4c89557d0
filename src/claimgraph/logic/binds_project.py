"""Whether a line of a guide binds THIS project, read from what the line names.

A contributor guide or an agent instruction file mixes two kinds of line. Some are the
project's own rules: "Run `pnpm test` to compile the tests", "do not hand-edit generated
files in `dist/`", "When changing OrderDesk's contracts, check …". Others are advice that
would read the same in any project of the language: "Prefer composition over inheritance",
"Never raise `ValueError`", "Indent with two spaces", "Think before a large change". The second
kind is what the next agent already does, or would be told by any style guide; stored, it
costs a line of every briefing and teaches nothing (the review rubric: generic style advice
is noise, a concrete project rule -- a command, a path, a prohibition on a thing of the
project -- is kept).

No list of "generic" phrases can tell them apart. What the line names can: a project's own
rule names something that exists only in this project, and advice names nothing of it. So a
line binds the project when it names one of (``anchor``):

- a path: a folder with its slash (``src/test/``, ``dist/``), a file with its extension
  (``doc/api.md``, ``package.json``) or a glob of files (``*.test.ts``) -- not a URL, and
  not "I/O" or "CI/CD";
- a command the session ran: a code span whose first word is a program the session ran
  successfully (``pnpm test`` after the session ran ``pnpm install``);
- a setting: ``NAME=value`` (``NODE_ENV=test``);
- a name made up in code, in a code span: snake_case or lowerCamelCase (``circuit_breaker``,
  ``endsWith('=')``): a helper of the project or an API the rule is about;
- the project's own name, or the name of a file or folder of it the session saw, written
  in a code span (``billing-core``): the guide speaks of this project's parts;
- the variety of a language its words are written in (British or American English,
  ``en-GB``, the Oxford comma), or a word of its own vocabulary chosen over another, both
  in quotes ('Say "orders" rather than "purchases" in the UI'): a choice each project makes
  for itself, which no guide of the language can make for it.

A code span alone is not enough: ``ValueError``, ``if``/``else``, ``async`` and ``for item
in items`` are the language's words, which any guide of that language may name.

Pure: the line and the names the session knows in; a yes or no out.
"""

from __future__ import annotations

import math
import re
from typing import Iterable

from claimgraph.logic.lazy_regex import lazy_regex

_CODE_SPAN = lazy_regex(r"`([^`\n]+)`")
#: The extensions of the kinds of file a guide names (``doc/api.md``, ``*.test.ts``).
_EXTENSIONS = (r"(?:md|mdx|ts|tsx|js|jsx|mjs|cjs|py|pyi|rs|go|rb|java|kt|swift|c|h|cc|cpp|hpp|"
               r"cs|sql|json|jsonc|toml|ya?ml|lock|sh|bash|zsh|ps1|env|ini|cfg|conf|txt|html|"
               r"css|scss|vue|svelte|proto|graphql|xml|gradle|tf|dockerfile|mk)")
#: A folder written with its trailing slash, a relative path with at least one slash between
#: names, or a file name with a known kind of extension; "I/O", "CI/CD", "and/or" are words.
_PATH = lazy_regex(
    r"(?<![\w/:.-])(?:\.{1,2}/)?(?:[\w.*@-]+/)+(?:[\w.*-]+)?(?![\w/])"
    r"|(?<![\w/.-])[\w*-][\w.*-]*\." + _EXTENSIONS + r"\b")
#: A path's last part with the extension of a kind of file.
_FILE = lazy_regex(r"[\w*-]\." + _EXTENSIONS + "$")
#: Words with slashes that are not paths.
_NOT_PATHS = frozenset({"i/o", "ci/cd", "and/or", "either/or", "read/write", "on/off",
                        "yes/no", "true/false", "input/output", "tcp/ip", "n/a", "w/o"})
#: "Node.js", "Vue.js": a product's name, written like a file's.
_PRODUCT = lazy_regex(r"^[A-Z][a-z]+\.js$")
#: A variety of a language or a house spelling the project writes in.
#: "US" and "UK" only as capitals: "send us spelling fixes" names no variety.
_WORDING = lazy_regex(r"\b(?:(?i:british|american|canadian|australian)|US|UK)\s+"
                      r"(?i:english|spelling)\b|(?i:\ben[-_](?:gb|us|au|ca|nz)\b|\boxford comma\b)")
#: One word of prose chosen over another, both in double quotes ("orders" rather than
#: "purchases"); in code spans it is an API's choice, which any guide may make.
_TERM_CHOICE = lazy_regex(r"[\"\u201c][^\"\u201c\u201d\n]{1,30}[\"\u201d][^\"\u201c\n]{0,30}?"
                          r"\b(?:instead of|rather than|over|not)\b"
                          r"\s*[\"\u201c][^\"\u201c\u201d\n]{1,30}[\"\u201d]", re.IGNORECASE)
_SETTING = lazy_regex(r"(?<![\w$])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+=\S+")
#: The words that end just before a command the line tells its reader to run ("call" is a
#: function's: "Never call `print` in library code").
_RUN = lazy_regex(r"\b(?:run|runs|running|execute|invoke)\s+(?:the\s+)?$", re.IGNORECASE)
#: A word of prose that may be a folder's name.
_FOLDER_WORD = lazy_regex(r"(?<![\w/.-])[a-z][\w-]*[a-z0-9](?![\w/-])")
#: A name someone made up in code: snake_case or lowerCamelCase (``circuit_breaker``,
#: ``endsWith``), not one word of the language (``ValueError``, ``async``, ``import``).
_COMPOUND = lazy_regex(r"(?<!\w)(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z][a-z0-9]*[A-Z]\w*)(?!\w)")
_WORD = lazy_regex(r"[a-z0-9]+")
#: A program word at the head of a command (``pnpm``, ``./scripts/check.sh``, ``uv``).
_PROGRAM = lazy_regex(r"^(?:\./)?[\w][\w./-]*$")
#: A word a person's request and a line can share: three letters or more, in any script.
_SAID_WORD = lazy_regex(r"[^\W\d_]{3,}")
#: How many of a line's words one request must hold, at the least and as a share of them.
_SAID_MIN, _SAID_SHARE = 3, 2 / 3


def anchor(line: str, project: str | None, parts: Iterable[str] = (),
           programs: Iterable[str] = (), folders: Iterable[str] = ()) -> str | None:
    """What in ``line`` belongs to this project (the first found), or None when it names
    nothing of it. ``project`` is the project's name, ``parts`` the names of the files and
    folders the session saw in it (named in a code span), ``programs`` the programs of the
    commands it ran, ``folders`` the folders it saw (lowercase), named as a word of the line."""
    parts, folders = frozenset(parts), frozenset(folders)
    for path in _paths(line, parts | folders):
        return path
    setting = _SETTING.search(line)
    if setting:
        return str(setting[0])
    spans: list[str] = _CODE_SPAN.findall(line)
    ran = frozenset(programs)
    for span in spans:
        head = span.split()[0] if span.split() else ""
        if _PROGRAM.match(head) and (_program(head) in ran and len(span.split()) >= 2
                                     or _RUN.search(line.split("`" + span + "`")[0])):
            return span
    for span in spans:
        made_up = _COMPOUND.search(span)
        if made_up:
            return str(made_up[0])
    if project and _names_project(line, project):
        return project
    known = frozenset(part for part in parts if len(part) > 2)
    for span in spans:
        if span.strip() in known:
            return span.strip()
    wording = _WORDING.search(line) or _TERM_CHOICE.search(line)
    if wording:
        return str(wording[0])
    named = frozenset(folder for folder in folders if len(folder) > 3)
    words: list[str] = _FOLDER_WORD.findall(_CODE_SPAN.sub(" ", line).lower())
    for word in words:
        if word in named:
            return word
    return None


def _paths(line: str, seen: frozenset[str]) -> Iterable[str]:
    """The paths a line names: a folder written with its trailing slash, a path of three or
    more parts, a file name with its extension, or -- in a code span -- two names joined by a
    slash of which one is a folder or file the session saw (``src/lib``) or a scoped package
    (``@repo/result``); "list/detail" in
    prose and `async/await` in code are two words, "Node.js" a product."""
    spans = _CODE_SPAN.findall(line)
    prose = _CODE_SPAN.sub(" ", line)
    for text, in_code in [*((span, True) for span in spans), (prose, False)]:
        for match in _PATH.finditer(text):
            found = match[0]
            if found.lower().rstrip("/") in _NOT_PATHS or found in ("./", "../"):
                continue
            if "://" in text[max(0, match.start() - 12):match.end()]:
                continue  # a URL names another site, not a file of the project
            if not (found.endswith("/") or found.count("/") >= 2 or found.startswith(".")
                    or (in_code and found.startswith("@"))  # a scoped package: `@repo/ui`
                    or (_FILE.search(found) and not _PRODUCT.match(found))
                    or (in_code and any(part in seen for part in found.split("/")))):
                continue
            yield found


def _program(head: str) -> str:
    """The program a command's first word runs (``./scripts/x.sh`` -> ``x.sh``)."""
    return head.rsplit("/", 1)[-1]


def _names_project(line: str, project: str) -> bool:
    """The project's name, in any spelling of its words ("order-desk", "OrderDesk",
    "order_desk"), as a whole word of the line. A name of one common word is too weak a
    sign ("core", "app"): only a name of more than four letters counts."""
    words = _WORD.findall(project.lower())
    joined = "".join(words)
    if len(joined) <= 4:
        return False
    flat = re.sub(r"[\s_.-]+", "", line.lower())
    if joined not in flat:
        return False
    spelled = r"[\s_.-]?".join(re.escape(word) for word in words)
    return re.search(r"(?<![a-z0-9])" + spelled + r"(?![a-z0-9])", line.lower()) is not None


def said_words(text: str) -> tuple[str, ...]:
    """The words (three letters or more, lowercase) of ``text`` in order, as ``said_in``
    compares them."""
    return tuple(word.lower() for word in _SAID_WORD.findall(text))


def said_in(line: str, requests: Iterable[tuple[str, ...]]) -> bool:
    """Whether one of the person's ``requests`` (``said_words`` of each) holds most of the
    line's words close together: "Add to CONTRIBUTING.md: never push to main" and the line
    "Never push to main" the session then wrote. A rule the person dictated is theirs,
    whatever it names; a line of the agent's own ("Keep modules cohesive") shares none of
    their words. At least three words and two thirds of the line's, within twice the line's
    length of the request: a request that only mentions a topic does not vouch for every
    line written about it, nor does a long pasted text that holds each word somewhere."""
    words = frozenset(said_words(line))
    need = max(_SAID_MIN, math.ceil(_SAID_SHARE * len(words)))
    return len(words) >= _SAID_MIN and any(
        _close_together(request, words, need, 2 * len(words)) for request in requests)


def _close_together(text: tuple[str, ...], words: frozenset[str], need: int,
                    width: int) -> bool:
    """Whether some ``width`` consecutive words of ``text`` hold ``need`` of ``words``."""
    counts: dict[str, int] = {}
    for index, word in enumerate(text):
        if word in words:
            counts[word] = counts.get(word, 0) + 1
        if index >= width and (gone := text[index - width]) in words:
            counts[gone] -= 1
            if not counts[gone]:
                del counts[gone]
        if len(counts) >= need:
            return True
    return False
