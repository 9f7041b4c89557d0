"""What a fix commit's message says broke, why, and what the change was, in one line.

A commit that fixes something is where an agent writes its settled understanding of a failure:
by convention the subject names the change (``fix(cache): key pages by locale``) and the
body's first paragraph explains the problem it fixes, before any paragraph that says what was
done ("The cache key held only the version, so every language was served the first page
rendered."). This module only reads the message: whether the session's record
bears it out (a failure seen before the commit, a check passing after) is the capture rule's
question (``capture/extract/fix_commits.py``).

Read here:

- the message of a ``git commit`` command line: its ``-m`` values (each a paragraph, as git
  joins them), a ``$(cat <<'EOF' … EOF)`` heredoc's text included;
- a fix subject: the conventional ``fix:``/``fix(scope):`` type, or a subject opening with
  "Fix"/"Fixes"/"Fixed"; anything else (a feature, a refactor, docs) is no lesson here;
- the stated cause: the body's first prose paragraph, when it says what went wrong (a failure
  or cause word) and says it as settled (no hedge, no advice, no question, no first person).
  A paragraph that opens with the change itself (an imperative: "Drop …", "Replace …") is the
  fix, not the cause; lists and trailers (``Co-Authored-By:``) are never read as the cause.

Pure logic: no I/O.
"""

from __future__ import annotations

import re

from claimgraph.logic.lazy_regex import lazy_regex

#: The longest cause kept: one line the next agent reads at a glance.
MAX_CAUSE_CHARS = 320
#: A paragraph this short says too little to be a cause ("Fixes CI.").
MIN_CAUSE_WORDS = 6

_COMMIT = lazy_regex(r"\bgit\s+(?:-\S+\s+)*commit\b")
_HEREDOC = (r"""\$\(\s*cat\s+<<-?\s*(['"]?)(?P<tag>\w+)\1\s*\n(?P<body>.*?)\n"""
            r"""\s*(?P=tag)\s*\n?\s*\)""")
#: One ``-m`` value (``-am``: short flags bundled before it): a ``$(cat <<'EOF' … EOF)``
#: heredoc (quoted or not), else a quoted string.
_MESSAGE = lazy_regex(r"""(?:^|\s)(?:-[a-zA-Z]*m|--message)(?:\s+|=)(?:"?""" + _HEREDOC + r"""|"""
                      r""""(?P<double>(?:[^"\\]|\\.)*)"|'(?P<single>[^']*)')""", re.DOTALL)
#: Between two values of one command: a shell operator or a line break (not one a backslash
#: continues) ends the command.
_COMMAND_END = lazy_regex(r"&&|\|\||[;|]|(?<!\\)\n")
_FIX_SUBJECT = lazy_regex(r"^(?:fix(?:\([^)\n]*\))?!?:\s*|fix(?:e[sd])?\s+)(?P<what>\S.*)$",
                          re.IGNORECASE)
_TRAILER = lazy_regex(r"^[A-Z][\w-]*(?:-[A-Za-z]+)*:\s+\S")
_LIST_ITEM = lazy_regex(r"^\s*(?:[-*•+]|\d+[.)])\s+")
#: What went wrong, or why: a paragraph saying neither is no cause.
_WRONG = lazy_regex(
    r"\b(?:because|caus(?:e[sd]?|ing)|due to|so that|fail(?:s|ed|ing|ure)?|error\w*|broke\w*|"
    r"break\w*|crash\w*|wrong|missing|never|silently|only|ignor\w+|stale|blocking|blocked|"
    r"rejected|refused|without|instead|no longer|(?:was|were|is|are|did|does|do)(?:n'?t| not))\b",
    re.IGNORECASE)
#: A guess, a condition, advice, a question or the speaker: not a settled cause.
_UNSETTLED = lazy_regex(
    r"\b(?:might|may|maybe|perhaps|probably|possibly|likely|presumably|apparently|suspect\w*|"
    r"guess|seems?|seemed|appears?|appeared|could|would|should|if|whether|unless|hopefully|"
    r"I|I'm|I'll|I've|we|we're|we'll|we've|our|us|you|your)\b|\?", re.IGNORECASE)
#: A paragraph that opens with the change (an imperative), not with what was wrong.
_CHANGE_VERB = lazy_regex(
    r"^(?:add|drop|remove|replace|use|stage|switch|move|rename|update|change|make|set|"
    r"bump|pin|revert|skip|guard|handle|wrap|pass|call|keep|ensure|avoid|apply|apply|"
    r"rewrite|restore|introduce|delete|disable|enable|fix|return|check|convert|split)\b",
    re.IGNORECASE)
_SENTENCE_END = lazy_regex(r"(?<=[.!])\s+(?=[A-Z`\"'(])")
_CLAUSE_END = lazy_regex(r"\s+[—–]\s+|;\s+")


def commit_message(command: str) -> str | None:
    """The message a ``git commit`` command line gives with ``-m`` (its paragraphs joined by
    a blank line, as git does), else None (an editor, ``-F``, ``--amend`` without one). Only
    the commit's own values: a ``gh pr create --body`` heredoc or a ``git tag -m`` later in
    the chain is another command's text."""
    commit = _COMMIT.search(command)
    if commit is None:
        return None
    rest, end, parts = command[commit.end():], 0, []
    for match in _MESSAGE.finditer(rest):
        if _COMMAND_END.search(rest[end:match.start()]):
            break
        end = match.end()
        if match["body"] is not None:
            parts.append(match["body"])
        else:
            parts.append(match["double"].replace('\\"', '"') if match["double"] is not None
                         else match["single"])
    parts = [part.strip() for part in parts if part and part.strip()]
    return "\n\n".join(parts) or None


def fix_subject(subject: str) -> str | None:
    """What a fix commit's subject says the change was (its ``fix:`` type or "Fix" dropped),
    else None."""
    match = _FIX_SUBJECT.match(subject.strip())
    if not match:
        return None
    what = match["what"].strip().rstrip(".")
    return what if len(what.split()) >= 2 else None


def stated_cause(body: str) -> str | None:
    """The body's first prose paragraph when it states, settled, what went wrong; cut to
    whole sentences (else a clause) of at most ``MAX_CAUSE_CHARS``."""
    for paragraph in _paragraphs(body):
        if _CHANGE_VERB.match(paragraph):
            return None  # the body opens with the change: it never says the cause
        if len(paragraph.split()) < MIN_CAUSE_WORDS or not _WRONG.search(paragraph) \
                or _UNSETTLED.search(paragraph):
            return None
        return _cut(paragraph)
    return None


def fix_lesson(message: str) -> tuple[str, str] | None:
    """(the change, the cause) of a fix commit's message that states both, else None."""
    subject, _, body = message.strip().partition("\n")
    what = fix_subject(subject)
    if what is None:
        return None
    cause = stated_cause(body)
    return (what, cause) if cause else None


def _paragraphs(body: str) -> list[str]:
    """The body's prose paragraphs, each on one line: lists and trailers left out."""
    found: list[str] = []
    for block in re.split(r"\n\s*\n", body):
        lines = [line.strip() for line in block.strip().splitlines() if line.strip()]
        if not lines or any(_LIST_ITEM.match(line) or _TRAILER.match(line)
                            or line.startswith("#") for line in lines):
            continue
        found.append(" ".join(" ".join(lines).split()))
    return found


def _cut(paragraph: str) -> str:
    """Whole sentences while they fit; the first that does not, cut at a clause's end
    (" — ", "; ") when its opening clauses fit, and nothing after it."""
    kept = ""
    for sentence in _SENTENCE_END.split(paragraph):
        joined = f"{kept} {sentence}".strip()
        if len(joined) <= MAX_CAUSE_CHARS:
            kept = joined
            continue
        clauses = _CLAUSE_END.split(sentence)
        opening = ""
        for clause in clauses[:-1]:
            longer = f"{opening}; {clause}" if opening else clause
            if len(f"{kept} {longer}.") > MAX_CAUSE_CHARS:
                break
            opening = longer
        if opening:
            kept = f"{kept} {opening.rstrip(',;:')}.".strip()
        break
    return kept
