"""Whether a line of an instruction file is a concrete rule of this project or generic advice.

An instruction file mixes the project's own rules ("Always use `@repo/result` for Result
types", "Use British English for comments", "Never edit `api/src/generated/`") with style
advice any careful agent follows anyway ("Keep modules cohesive", "Prefer named exports",
"Use absolute imports", "No trailing whitespace"). Stored, the advice is noise: it tells the
next agent nothing about this project. A rule is concrete when it names something -- a code
span, a path or a file, an identifier (``camelCase``, ``snake_case``, ``NODE_ENV``), a tool
the command vocabulary knows (``pnpm``, ``ruff``), a thing every repository has (its main
branch, commits, releases, migrations, generated and secret files: "Never push to main"), or a
term written as a name (a capitalized word inside a sentence: "British English", "Supabase",
"GitHub Actions") -- or when the file scopes it to a part of the project
(``instruction_scope``). Only an instruction file (CLAUDE.md, AGENTS.md, CONTRIBUTING.md …)
is held to this; a docs page's lines pass their own, stricter tests (an obligation that binds
the reader). A line the session
itself wrote into the file is not held to this: a rule the user had written down is theirs,
however generic it reads.
"""

from __future__ import annotations

import re

from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.commands import VOCABULARY
from claimgraph.capture.extract.prose import split_sentences

#: Programs of the command vocabulary that are also English words ("make everything
#: standalone", "just", "go"): in prose they name nothing.
_WORDS_TOO = frozenset({"black", "bundle", "coverage", "go", "just", "make", "mix", "next",
                        "stack", "swift"})
_TOOLS = frozenset(key[0] for key in VOCABULARY if len(key[0].split()) == 1) - _WORDS_TOO
#: What every repository has and a rule names in plain words: its branches, history,
#: releases, generated and secret files ("Never push to main", "Never commit secrets", "Do
#: not hand-edit generated files").
_REPOSITORY = frozenset({
    "main", "master", "branch", "branches", "commit", "commits", "push", "merge", "rebase",
    "changelog", "changeset", "changesets", "migration", "migrations", "schema", "lockfile",
    "release", "releases", "tag", "tags", "version", "secret", "secrets", "credentials",
    "generated", "vendored", "dependency", "dependencies", "deploy", "production", "staging",
    "ci"})
_LABEL = lazy_regex(r"^[^:`]{1,40}:\s+(?=\S)")
_CODE = lazy_regex(r"`[^`\n]+`")
#: A path or a file: ``src/app.ts``, ``web/``, ``.env``, ``index.ts``.
_PATH = lazy_regex(r"\w/\w|\w/(?![\w-])|(?<![\w.])\.[a-z]{2,6}\b|"
                   r"\w\.(?:md|ts|tsx|js|jsx|mjs|py|rs|go|rb|java|kt|sql|json|toml|ya?ml|sh)\b")
#: An identifier: ``camelCase``, ``PascalCase`` with an inner capital, ``snake_case``,
#: ``SCREAMING_CASE``.
_IDENTIFIER = lazy_regex(r"\b[a-z]+[A-Z]\w*|\b[A-Z][a-z]+[A-Z]\w*|\b[A-Za-z]\w*_\w+\b")
_TOKEN = lazy_regex(r"[\w'’.+-]+")
_PLURAL_ACRONYM = lazy_regex(r"^[A-Z]+s$")
#: Where a capital may open a clause rather than name a thing: a colon, a quote, a bracket.
_OPENS = lazy_regex(r"[:;\"“”(\[—]")


def concrete(rule: str) -> bool:
    """Whether a rule names a thing of the project (see the module's docstring)."""
    if _CODE.search(rule) or _PATH.search(rule) or _IDENTIFIER.search(rule):
        return True
    body = _LABEL.sub("", rule, count=1)  # "Atomic writes: …": a label's capitals name nothing
    words = [token.strip(".") for token in _TOKEN.findall(body)]
    if any(word.lower() in _TOOLS or word.lower() in _REPOSITORY for word in words):
        return True
    return any(_named(token) for sentence in split_sentences(body)
               for clause in _OPENS.split(sentence) for token in _TOKEN.findall(clause)[1:])


def _named(token: str) -> bool:
    """A word written as a name inside a sentence: capitalized, not shouted ("NEVER", "CLI"),
    not an acronym's plural ("PRs")."""
    word = token.strip(".'’")
    return len(word) > 1 and word[0].isupper() and any(c.islower() for c in word) \
        and not _PLURAL_ACRONYM.match(word) and re.match(r"^[A-Za-z]", word) is not None
