"""Whole sentences out of text a person or an agent wrote, and the lines that are not prose.

A remembered statement is only as good as its boundaries: a sentence cut at a comma loses its
condition ("use X, but only for Y"), and one cut at a line break (prompts pasted from a narrow
terminal wrap mid-sentence) loses its object. So lines of one paragraph are joined first and
split only at sentence ends; list items, headings and blank lines end a paragraph.

What is not prose never becomes a sentence: fenced code, quoted lines, tables, and lines that
look like code, a log, a stack trace or a shell session. A prompt that is mostly such lines is
a paste, and its few prose-looking lines are skipped with it.

A prompt may also carry a **document** the person did not write there: a plan or a spec pasted
from elsewhere (a markdown heading, then a long run of headings and list items), or the agent's
own earlier message pasted back ("PLEASE IMPLEMENT THIS PLAN: …"). Those are the document's
words, not the person's standing ones (``typed_part``, ``without_echo``).
"""

from __future__ import annotations

import re
from typing import Iterator
from claimgraph.logic.lazy_regex import lazy_regex

MAX_SENTENCE_CHARS = 400
#: Codex prefixes the request with the IDE's open tabs; only the request is the user's.
_REQUEST_MARKS = ("## My request for Codex:",)
_FENCE = lazy_regex(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
_INLINE_TAGS = lazy_regex(r"</?[a-z][\w-]*(?:\s[^<>]*)?>")
_ITEM = lazy_regex(r"^\s*(?:[-*•+]|\d+[.)]|[a-z][.)])\s+")
_HEADING = lazy_regex(r"^\s*#{1,6}\s|^\s*[=-]{3,}\s*$")
#: A line of code, by how it opens (tried at its start only) ...
_CODE_START = lazy_regex(
    r"^\s*[{}\])]|^\s*from\s+\S+\s+import\b|"
    # A keyword opens English sentences too ("class names are PascalCase here", "return
    # early rather than nest"): code only with code's punctuation, or as keyword + one token
    r"^\s*(?:import|const|var|def|function|class|return|export|public|private|fn|pub|"
    r"package|#include)\b(?:.*(?:[(){}\[\]=;<>]|:\s*$)|\s+\S+\s*$|\s*$)|"
    # "let" and "use" open English sentences too ("let's make sure …", "use the staging
    # config"): code only in a binding's shape (a Rust or PHP "use …;" ends with ";" below)
    r"^\s*let\s+(?:mut\s+)?(?:\w+|[{\[(][^=]*[}\])])\s*(?::[^=]+)?=(?!=)|"
    r"^\s*(?:\$|>>>|%|PS>)\s|^\s{4,}\S|^\t")
#: ... or by code's punctuation anywhere in it, which needs one of ``_CODE_MARKS``: a line
#: without any is not searched (one pattern of both kinds was tried at every position of every
#: line, the most of ``is_prose_line``'s time: ~1 s of a 200 MB pass, issue 29).
_CODE_ANYWHERE = lazy_regex(r"[{};]\s*$|=>|</|/>|\w+\([^()]*\)\s*[;{]")
_CODE_MARKS = ("(", ";", "{", "}", "=>", "</", "/>")
_LOG_LINE = lazy_regex(
    r"^\s*(?:\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\d\d:\d\d:\d\d|at\s+\S+\s+\(|File \"|"
    r"Traceback|(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL)\b|\[(?:error|warn|info|debug)\]|"
    r"npm ERR!|E\s{2,}|\s*\^+\s*$)")
_SENTENCE_END = lazy_regex(r"(?<=[.!?])[\"')\]]*\s+(?=\S)")
_ABBREVIATIONS = lazy_regex(r"\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|resp|fig|no)\.$",
                            re.IGNORECASE)
#: "etc." ends its sentence when a capital follows ("… flags, etc. Always run …"); after
#: "e.g." or "vs." a capital is a name ("e.g. React").
_ENDS_A_SENTENCE = lazy_regex(r"\betc\.$", re.IGNORECASE)
_PASTE_SHARE = 0.5
_MD_HEADING = lazy_regex(r"^\s*#{1,6}\s+\S")
#: A pasted document: at least this many non-empty lines from its first heading on, this many
#: of them headings or list items (a typed prompt with one heading and two bullets is not one).
_DOCUMENT_LINES = 8
_DOCUMENT_STRUCTURE = 6
#: Shorter lines ("Summary", "- Tests") repeat by chance; longer ones repeat because they were
#: copied.
_ECHO_MIN_CHARS = 24
_BULLET_MARK = lazy_regex(r"^\s*(?:[-*•+>]|\d+[.)]|#{1,6})\s*")


def request_text(text: str) -> str:
    """The part of a prompt the person typed (an IDE preamble dropped)."""
    for mark in _REQUEST_MARKS:
        if mark in text:
            return text.split(mark, 1)[1]
    return text


#: Blocks an agent's harness puts into a user-role message (an instruction file's text, the
#: environment, a skill, a shell command's echo): the file's or the harness's words, never
#: the person's, wherever in the message they sit.
_HARNESS_BLOCK = lazy_regex(
    r"<(?P<tag>environment_context|user_instructions|instructions|system-reminder|skill|"
    r"turn_aborted|user_shell_command|local-command-stdout|local-command-caveat)\b[^>]*>"
    r".*?(?:</(?P=tag)>|\Z)", re.IGNORECASE | re.DOTALL)
#: The heading a harness puts before an instruction file it injects ("# AGENTS.md
#: instructions for /repo"), with the file's text: its ``<INSTRUCTIONS>`` block, or without
#: one, everything up to the next heading.
_INJECTED_FILE = lazy_regex(r"^#{1,6}\s+(?:agents|claude|gemini)\.md\s+instructions\b[^\n]*"
                            r"(?:\s*<instructions>.*?(?:</instructions>|\Z)|.*?(?=^#{1,6}\s|\Z))",
                            re.IGNORECASE | re.DOTALL | re.MULTILINE)


def injected_files(text: str) -> list[str]:
    """The instruction files a harness injected into a message (``_INJECTED_FILE``): Codex's
    "# AGENTS.md instructions for /repo" block holds the file the agent was told to follow."""
    if ".md" not in text.lower():
        return []
    return [found.group(0) for found in _INJECTED_FILE.finditer(text)]


def without_injected(text: str) -> str:
    """``text`` without what the harness injected into the message (``_HARNESS_BLOCK``,
    ``_INJECTED_FILE``): an instruction file's rules are the file's, not "you said"."""
    if "<" not in text and ".md" not in text.lower():
        return text
    return _HARNESS_BLOCK.sub("", _INJECTED_FILE.sub("", text))


#: A line that is a link and nothing else (a page's menu, its "see also" list), as a web page
#: copied from a browser reads: ``[About](https://…)``, ``* [Docs](https://…)``.
_LINK_LINE = re.compile(r"^\s*(?:[-*•+]\s+)?\[[^\]\n]*\]\(https?://[^)\s]+\)\s*$")
_LINK = re.compile(r"\[[^\]\n]*\]\(https?://")
#: A copied web page shows at least this many such lines.
_PAGE_LINKS = 3


def typed_part(text: str) -> str:
    """What the person typed of a prompt that carries a pasted document: the lines before the
    document's first heading ("Implement the following plan:"), or before the first link of
    a copied web page (``_LINK_LINE``); the whole text otherwise. A plan written elsewhere is
    a proposal and a page is its authors', not the person's standing words: the session
    decides what of it was carried out (docs/capture.md, "Pasted documents")."""
    if "](http" in text and sum(bool(_LINK_LINE.match(line))
                                for line in text.splitlines()) >= _PAGE_LINKS:
        first_link = _LINK.search(text)
        text = text[:first_link.start()] if first_link else text
    lines = text.splitlines()
    first = next((index for index, line in enumerate(lines) if _MD_HEADING.match(line)), None)
    if first is None:
        return text
    body = [line for line in lines[first:] if line.strip()]
    structured = sum(bool(_MD_HEADING.match(line) or _ITEM.match(line)) for line in body)
    if len(body) >= _DOCUMENT_LINES and structured >= _DOCUMENT_STRUCTURE:
        return "\n".join(lines[:first])
    return text


def echo_key(line: str) -> str | None:
    """A line as compared with the agent's earlier messages (list marks, case and spacing
    aside); None for lines too short to show they were copied."""
    key = " ".join(_BULLET_MARK.sub("", line).split()).lower()
    return key if len(key) >= _ECHO_MIN_CHARS else None


def without_echo(text: str, agent_said: set[str] | frozenset[str]) -> str:
    """``text`` without the lines the agent wrote earlier in the session: a plan pasted back
    to approve it is still the agent's proposal, not the person's words."""
    return "\n".join(line for line in text.splitlines() if echo_key(line) not in agent_said
                     or echo_key(line) is None)


def is_prose_line(line: str) -> bool:
    """A line a person wrote as words, not code, a log line, a table row or a quote."""
    stripped = line.strip()
    if not stripped or stripped.startswith((">", "|", "<")):
        return False
    if _code_line(line) or _LOG_LINE.search(line):
        return False
    if stripped.isascii():  # most lines: the same count, without a test per character
        letters = len(stripped) - len(stripped.encode().translate(None, _ASCII_WORDS))
    else:
        letters = sum(ch.isalpha() or ch.isspace() for ch in stripped)
    return letters / len(stripped) >= 0.7


def _code_line(line: str) -> bool:
    """A line of code: it opens as code (``_CODE_START``) or holds code's punctuation
    (``_CODE_ANYWHERE``)."""
    return _CODE_START.match(line) is not None or (
        any(mark in line for mark in _CODE_MARKS) and _CODE_ANYWHERE.search(line) is not None)


#: The ASCII characters ``is_prose_line`` counts (letters and spaces), as bytes to delete.
_ASCII_WORDS = bytes(code for code in range(128) if chr(code).isalpha() or chr(code).isspace())


def is_paste(text: str) -> bool:
    """Mostly non-prose lines: pasted code, logs or tool output, not instructions."""
    lines = [line for line in _FENCE.sub("\n", text).splitlines() if line.strip()]
    fenced = len(text) - len(_FENCE.sub("", text))
    if not lines:
        return fenced > 0
    other = sum(not is_prose_line(line) and not _ITEM.match(line) and not _HEADING.match(line)
                for line in lines)
    return other / len(lines) > _PASTE_SHARE or fenced > len(text) * _PASTE_SHARE


#: A line of the person's that hands over to what follows ("… got this error:", with a shell's
#: line-continuation mark left on it when copied from a terminal).
_LEADS_IN = lazy_regex(r":[\s\\]*$")
#: A line only a program or a terminal prints: a log line, a shell prompt with its command.
_PROGRAM_LINE = lazy_regex(_LOG_LINE.pattern + r"|^\s*(?:[$%]|[\w.@~/:\\-]+[$#>])\s+\S|^\s*PS[> ]")
_FENCE_OPEN = lazy_regex(r"^\s*(?P<fence>```|~~~)")


def split_paste(text: str) -> tuple[str, str] | None:
    """(the person's words, the paste) for a message whose prose hands over to something the
    person pasted, by the lines' shapes, never by what the words say:

    - a fenced block after the person's prose lines: the block is the paste, the lines before
      and after it are theirs;
    - else the prose lines up to the first line that is not prose, the last of them ending
      with a colon ("I got this error when running the build:"), then a paste: from that line
      on, text that opens with a line a program prints (a log line, a shell prompt with its
      command) or is mostly such lines (``is_paste``).

    None for any other text (no prose before, or nothing pasted). The person's sentences keep
    their voice; the paste is a tool's output, whatever prose-looking lines it holds."""
    lines = text.splitlines()
    first = next((index for index, line in enumerate(lines) if line.strip() and (
        not is_prose_line(line) or _PROGRAM_LINE.match(line))), None)
    if first is None:
        return None
    lead = [line for line in lines[:first] if line.strip()]
    if not lead:
        return None
    fence = _FENCE_OPEN.match(lines[first])
    if fence:
        close = next((index for index in range(first + 1, len(lines))
                      if lines[index].lstrip().startswith(fence["fence"])), len(lines) - 1)
        after = [line for line in lines[close + 1:] if line.strip()]
        return "\n".join(lead + after), "\n".join(lines[first:close + 1])
    pasted = "\n".join(lines[first:])
    if not _LEADS_IN.search(lead[-1]) or not (_PROGRAM_LINE.match(lines[first])
                                               or is_paste(pasted)):
        return None
    return "\n".join(lead), pasted


def paragraphs(text: str) -> Iterator[str]:
    """Runs of prose lines joined with spaces; list items and headings stand alone."""
    current: list[str] = []
    for raw in _FENCE.sub("\n\n", text).replace("\u2019", "'").splitlines():
        starts_item = bool(_ITEM.match(raw))
        if not raw.strip() or _HEADING.match(raw) or starts_item or not is_prose_line(raw):
            if current:
                yield " ".join(current)
            current = []
            if starts_item and is_prose_line(_ITEM.sub("", raw)):
                current = [_ITEM.sub("", raw).strip()]
            continue
        current.append(raw.strip())
    if current:
        yield " ".join(current)


def sentences(text: str) -> Iterator[str]:
    """Whole sentences of a text's prose, whitespace collapsed, inline tags removed."""
    for paragraph in paragraphs(text):
        for sentence in split_sentences(_INLINE_TAGS.sub("", paragraph)):
            if len(sentence) <= MAX_SENTENCE_CHARS:
                yield sentence


#: A stop missing between two dictated sentences: a lower-case word, then a capitalised word
#: that only opens a sentence (never a name: "If", "Our", "The"), then more words.
_RUN_ON = lazy_regex(r"(?<=[a-z,])\s+(?=(?:If|When|Our|The|We|It|This|That|But|So|Then|Also|"
                     r"Please|Can|Should|Do|Don't|Let's|My|You|They|And|There|Maybe|Now)\s+\w)")


def split_run_on(sentence: str) -> list[str]:
    """A sentence dictated without its stops, cut where the next one visibly starts ("… every
    release The script should post them …" is two sentences)."""
    return [part.strip(" ,") for part in _RUN_ON.split(sentence) if part.strip(" ,")]


def split_sentences(paragraph: str) -> list[str]:
    """Split at ``. ! ?`` before a new sentence, never after "e.g." or inside a file name;
    after "etc." only before a capital."""
    flat = " ".join(paragraph.split())
    out: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(flat):
        piece = flat[start:match.start()].strip()
        if (_ABBREVIATIONS.search(piece) and match.end() < len(flat)
                and not (_ENDS_A_SENTENCE.search(piece) and flat[match.end()].isupper())):
            continue
        if piece:
            out.append(piece)
        start = match.end()
    tail = flat[start:].strip()
    if tail:
        out.append(tail)
    return out
