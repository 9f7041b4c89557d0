"""Who wrote the lines of a person's message: their own words, or text they pasted.

A message the person sends often carries text someone else wrote: a code-review bot's comment
or a reviewer's finding pasted to be fixed, the agent's own earlier message pasted back, a
program's output. Stored as the person's ``decided`` or ``convention``, such text becomes a
standing decision nobody made (a bot's suggestion the session chose not to follow, the agent's
own design note read back as an order). Nothing here reads what the words say; the shape of the
message decides (docs/capture.md, "Text the person pasted from another author"):

- **markup a person does not type in a chat** (an HTML comment, a ``<details>`` or ``<summary>``
  block, an image link such as a review bot's badge, a line opening with a bot's handle,
  ``name[bot]``, a mail address in angle brackets): it marks a pasted comment or mail. The
  paste runs from the end of the person's lead-in (their paragraphs up to one that ends with a
  colon, "fix this:"), or from the message's start when there is none, to the end of the
  message; a short last paragraph right after the markup closes (``</details>``, ``-->``: "is
  this valid?") is the person's again;
- **a program's screen** (``without_screen``): two or more lines opening with a symbol no one
  types in a chat (a check mark, a spinner's frame, a terminal's bullet, a tool's emoji): those
  lines, and the lines indented under each (the rest of its entry), are the program's; so are
  two or more lines with a tab between their words (a table or a tool's output, copied);
- **a note handed over by a colon** that the person asks about (``asked_about``): their
  paragraph asks a question and ends with a colon, and what follows is prose, not their list
  of points: what they asked about, not what they said;
- **the agent's own earlier text pasted back**, rewrapped as a terminal copies it: a line whose
  words (case, list marks, emphasis and spacing aside) occur in what the agent wrote earlier in
  the session, at least ``ECHO_MIN_CHARS`` long, and the shorter lines between such lines
  (``without_agent_text``). Only the agent's own messages are compared, never a file or a
  tool's output: a person may well repeat a rule of their own project.

Pure: text in, text out.
"""

from __future__ import annotations

import re
import unicodedata

from claimgraph.capture.extract.prose import is_prose_line
from claimgraph.logic.lazy_regex import lazy_regex

#: Markup a person does not type in a chat message, on a line: an HTML comment, a block element
#: of a rendered comment (a collapsible section, sub- or superscript around a badge), an image
#: link (``![P1 Badge](https://…)``), a line that opens with a bot's handle, a mail address in
#: angle brackets (a mail client's header or "… <ann@example.org> wrote:"). Never read inside a
#: fenced block: code the person pasted may hold any of it.
_PASTED_MARKUP = lazy_regex(
    r"<!--|-->|^\s*</?(?:details|summary|sub|sup)\b[^>\n]*>|"
    r"!\[[^\]\n]*\]\(https?://|^\s*(?:\*\*|@)?[\w-]+\[bot\]|<[^<>\s@]+@[\w-]+(?:\.[\w-]+)+>",
    re.IGNORECASE | re.MULTILINE)
_FENCE = lazy_regex(r"^\s*(?:```|~~~)")
_FENCED = lazy_regex(r"^\s*(?P<fence>```|~~~).*?(?:^\s*(?P=fence)|\Z)", re.MULTILINE | re.DOTALL)
_ITEM = lazy_regex(r"^\s*(?:[-*•+]|\d+[.)]|[a-z][.)])\s+")
#: A last paragraph after a paste at most this long is the person's own request about it.
AFTERWORD_CHARS = 160
#: A block the person asked about is at least this long (a sentence quoted back is shorter).
ASKED_ABOUT_CHARS = 200
#: Lines opening with a symbol no one types that make a block a program's screen.
SCREEN_LINES = 2


def paragraphs_of(text: str) -> list[str]:
    """The message's paragraphs, split at blank lines outside fenced blocks (a fence keeps
    its blank lines), each as written."""
    out: list[str] = []
    current: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        if not line.strip() and not fenced:
            if current:
                out.append("\n".join(current))
            current = []
            continue
        current.append(line)
    if current:
        out.append("\n".join(current))
    return out


def own_words(text: str, agent_text: "AgentText | None" = None) -> str:
    """``text`` without what the person pasted from another author (a review comment, a
    program's screen, the agent's own earlier lines), by the message's shape only."""
    if agent_text is not None:
        text = without_agent_text(text, agent_text)
    if "\n" not in text.strip():
        return text  # one line: nothing is handed over to, nothing pasted around it
    kept = _without_pasted_comment(paragraphs_of(text))
    if kept is not None:
        return "\n\n".join(kept)
    text = without_screen(text)
    kept = _without_asked_about(paragraphs_of(text))
    return text if kept is None else "\n\n".join(kept)


def _lead_end(paragraphs: list[str], before: int) -> int:
    """How many paragraphs, before index ``before``, are the person's lead-in: up to the last
    one whose text ends with a colon (0 when none does)."""
    return max((index + 1 for index in range(before) if _hands_over(paragraphs[index])),
               default=0)


def _hands_over(paragraph: str) -> bool:
    return paragraph.rstrip().rstrip("\\").rstrip().endswith(":")


def _with_afterword(paragraphs: list[str], lead: int) -> list[str]:
    """The lead-in's ``lead`` paragraphs, and the last paragraph when a short one of the
    person's follows the paste (at least one paragraph after the lead-in)."""
    kept = paragraphs[:lead]
    last = paragraphs[-1]
    if (len(paragraphs) - lead >= 2 and len(last.strip()) <= AFTERWORD_CHARS
            and not _PASTED_MARKUP.search(last) and not _is_screen(last)):
        kept.append(last)
    return kept


#: A line that only closes a comment's markup: a closing tag, the end of an HTML comment.
_CLOSES = lazy_regex(r"^\s*(?:</[\w-]+>\s*)+$|-->\s*$")


def _without_pasted_comment(paragraphs: list[str]) -> list[str] | None:
    """The person's paragraphs of a message carrying a pasted comment (``_PASTED_MARKUP``), or
    None when nothing in it is such markup. A short last paragraph is the person's only right
    after the comment's markup closes (``</details>``, ``-->``): a comment opening with a
    badge or a handle goes on with its text, however short."""
    marked = [index for index, paragraph in enumerate(paragraphs)
              if _PASTED_MARKUP.search(_FENCED.sub("", paragraph))]
    if not marked:
        return None
    lead = _lead_end(paragraphs, marked[0])
    closed = len(paragraphs) >= 2 and bool(_CLOSES.search(paragraphs[-2].rstrip().split("\n")[-1]))
    return _with_afterword(paragraphs, lead) if closed else paragraphs[:lead]


def _without_asked_about(paragraphs: list[str]) -> list[str] | None:
    """The person's paragraphs of a message whose lead-in, ending with a colon, hands over to
    prose they asked about (``asked_about``): to the end of the message, but for a short last
    paragraph of theirs; None for any other message."""
    lead = next((index + 1 for index, paragraph in enumerate(paragraphs[:-1])
                 if _hands_over(paragraph)), 0)
    if not lead or not asked_about(paragraphs[:lead], paragraphs[lead:]):
        return None
    return _with_afterword(paragraphs, lead)


def without_screen(text: str) -> str:
    """``text`` without the lines of a program's screen pasted into it: each line opening with
    a symbol no one types in a chat (``_screen_lines``), when the message holds
    ``SCREEN_LINES`` or more, and the lines right under it indented deeper (the rest of that
    entry: a tool call's output under its bullet); and lines with a tab between their words
    (``_TABBED``), when two or more are (a table copied). Other lines keep their tests: a line a
    program printed in plain words is still for ``prose`` to weigh, and a line the person
    typed right after the screen is theirs."""
    lines = text.split("\n")
    marked = [index for index, line in enumerate(lines) if _screen_lines(line)]
    tabbed = [index for index, line in enumerate(lines) if _TABBED.search(line)]
    marked = marked if len(marked) >= SCREEN_LINES else []
    tabbed = tabbed if len(tabbed) >= SCREEN_LINES else []
    if not marked and not tabbed:
        return text
    dropped = set(marked) | set(tabbed)
    for index in marked:
        depth = _depth(lines[index])
        below = index + 1
        while below < len(lines) and lines[below].strip() and _depth(lines[below]) > depth:
            dropped.add(below)
            below += 1
    return "\n".join(line for index, line in enumerate(lines) if index not in dropped)


#: A tab between a line's words: a table's row or a tool's ``key:<TAB>value`` copied; a chat's
#: input box takes a tab as a key press, not as text.
_TABBED = lazy_regex(r"\S\t")


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip())


def asked_about(lead: list[str], block: list[str]) -> bool:
    """Is ``block``, after a lead-in ending with a colon, prose the person asked about (a
    question in the lead-in), not their own list of points? Its last paragraph, when short,
    is the person's own and not weighed."""
    body = block[:-1] if len(block) >= 2 and len(block[-1].strip()) <= AFTERWORD_CHARS \
        else block
    asked = any("?" in paragraph for paragraph in lead)
    listed = any(_ITEM.match(line) for paragraph in body for line in paragraph.split("\n"))
    return asked and not listed and sum(len(p) for p in body) >= ASKED_ABOUT_CHARS


def _is_screen(paragraph: str) -> bool:
    """A paragraph of a program's screen: a line opening with a symbol (``_screen_lines``),
    or mostly lines that are not prose (indented output, a banner, a log)."""
    if _screen_lines(paragraph):
        return True
    lines = [line for line in paragraph.split("\n") if line.strip()]
    return sum(not is_prose_line(line) for line in lines) * 2 > len(lines)


def _screen_lines(paragraph: str) -> int:
    """Lines opening with a symbol a person does not type in a chat (a check mark, a
    spinner's frame, an emoji a tool prints): a program's screen, copied."""
    count = 0
    for line in paragraph.split("\n"):
        stripped = line.strip()
        if stripped and not stripped[0].isascii() \
                and unicodedata.category(stripped[0]) == "So":
            count += 1
    return count


#: Lines shorter than this are only dropped between two longer ones found in the agent's text.
ECHO_MIN_CHARS = 24
_MARKS = lazy_regex(r"^\s*(?:[-*•+>]|\d+[.)]|#{1,6})\s*", re.MULTILINE)
_EMPHASIS = str.maketrans("", "", "*`_")
_MIN_ECHO_LINES = 3


#: ``AgentText``'s filter: the pieces of ``_PIECE`` characters of the agent's flattened text
#: that start every ``_STRIDE`` characters are marked in a bit array. Where a text of
#: ``_PIECE + _STRIDE - 1`` characters or more occurs there, one of its first ``_STRIDE``
#: offsets is such a start, and from it every ``_STRIDE``-th piece that fits in the text is
#: marked; a text with no offset so marked is not there, and needs no full search. A shorter
#: text (less than ``ECHO_MIN_CHARS``) could be missed, so the filter is never asked of one.
_PIECE, _STRIDE = 12, 13
_FILTER_BITS = 1 << 23  # 1 MB; a longer session only makes more pieces look marked
_FILTER_MASK = _FILTER_BITS - 1


class AgentText:
    """What the agent wrote so far in the session, to find it pasted back: its messages,
    each flattened (``flat``) when a message needs them, once. ``holds`` asks whether a text
    occurs in it: each line of a long prompt was searched for in all the agent had written,
    which grows with the session (~6.5 GB scanned, 1.2 s, at 200 MB, issue 29); a filter of
    its pieces (``_PIECE``) answers "no" for most of them without the search, never wrongly.
    The text is held as UTF-8 in one growing buffer (``flat`` gives a view that answers
    ``key in``): as one ``str`` each message added copied all of it (the old and the new
    string alive together, ~10 MB at the 200 MB benchmark, the statements rule's peak), and
    one emoji made it four bytes a character. A str is in the text exactly when its UTF-8 is
    in the text's UTF-8. The filter's pieces are cut from each message as it is added, with
    the last ``_PIECE`` characters before it kept, so a piece across two messages is marked
    as it was in the one string."""

    def __init__(self) -> None:
        self._pending: list[str] = []
        self._flat = _Utf8()
        self._marked = bytearray(_FILTER_BITS // 8)
        self._next_piece = 0  # where the next piece to mark starts (a multiple of _STRIDE)
        self._length = 0  # characters of the flattened text so far
        self._tail = ""  # its last _PIECE characters

    def add(self, text: str) -> None:
        self._pending.append(text)

    def flat(self) -> _Utf8:
        if self._pending:
            for text in self._pending:  # " " + " ".join(...) of them, appended in place
                part = " " + flat(text)
                self._mark_pieces(part)
                self._flat.data += part.encode("utf-8", "surrogatepass")
            self._pending.clear()
        return self._flat

    def holds(self, key: str) -> bool:
        """``key in self.flat()``, the filter asked first when ``key`` is long enough."""
        said = self.flat()
        if len(key) >= _PIECE + _STRIDE - 1 and not any(
                all(self._is_marked(key[start:start + _PIECE])
                    for start in range(offset, len(key) - _PIECE + 1, _STRIDE))
                for offset in range(_STRIDE)):
            return False
        return key in said

    def _mark_pieces(self, part: str) -> None:
        """Mark the pieces that end in ``part``, the text appended next: offsets count from
        the start of the whole flattened text, as if it were one string."""
        window = self._tail + part
        base = self._length - len(self._tail)  # where ``window`` starts in the whole text
        end = self._length + len(part)
        start, marked = self._next_piece, self._marked
        while start + _PIECE <= end:  # _bits, inlined: a long session has ~10^5 pieces
            code = hash(window[start - base:start - base + _PIECE])
            first, second = code & _FILTER_MASK, (code >> 23) & _FILTER_MASK
            marked[first >> 3] |= 1 << (first & 7)
            marked[second >> 3] |= 1 << (second & 7)
            start += _STRIDE
        self._next_piece, self._length, self._tail = start, end, window[-_PIECE:]

    def _is_marked(self, piece: str) -> bool:
        marked = self._marked
        return all(marked[bit >> 3] & (1 << (bit & 7)) for bit in _bits(piece))


def _bits(piece: str) -> tuple[int, int]:
    """The filter's two bits for a piece (from its hash: the filter lives in one process)."""
    code = hash(piece)
    return code & _FILTER_MASK, (code >> 23) & _FILTER_MASK


class _Utf8:
    """A text held as UTF-8 (``surrogatepass``: a lone surrogate stays): ``key in`` it and
    ``bool`` of it as of the ``str``."""

    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data = bytearray()

    def __contains__(self, key: str) -> bool:
        return key.encode("utf-8", "surrogatepass") in self.data

    def __bool__(self) -> bool:
        return bool(self.data)


def flat(text: str) -> str:
    """Text as compared for a paste: list marks, emphasis, case and line breaks aside."""
    return " ".join(_MARKS.sub("", text).translate(_EMPHASIS).lower().split())


def without_agent_text(text: str, agent_text: AgentText) -> str:
    """``text`` without the lines the agent wrote earlier, found however a terminal rewrapped
    them: a line of ``ECHO_MIN_CHARS`` or more whose flattened words occur in the agent's
    flattened messages, and a shorter line between two such lines (the rest of a wrapped
    line). Only a message of ``_MIN_ECHO_LINES`` lines or more is read so: a line typed
    alone that repeats the agent is the exact-line test's (``prose.without_echo``)."""
    lines = text.split("\n")
    if sum(bool(line.strip()) for line in lines) < _MIN_ECHO_LINES:
        return text
    if not agent_text.flat():
        return text
    keys = [flat(line) for line in lines]
    found = [len(key) >= ECHO_MIN_CHARS and agent_text.holds(key) for key in keys]
    if not any(found):
        return text
    filled = [index for index, hit in enumerate(found) if hit]
    for before, after in zip(filled, filled[1:]):
        between = range(before + 1, after)
        if all(not keys[index] or agent_text.holds(keys[index]) for index in between):
            for index in between:
                found[index] = True
    for index in filled:  # the wrapped line's first or last piece, on a line of its own
        for near in (index - 1, index + 1):
            if 0 <= near < len(keys) and keys[near] and not found[near]:
                pair = (keys[near], keys[index]) if near < index else (keys[index], keys[near])
                found[near] = agent_text.holds(" ".join(pair))
    return "\n".join(line for line, hit in zip(lines, found) if not hit)
