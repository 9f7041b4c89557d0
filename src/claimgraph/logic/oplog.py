"""The operation log's rules, decided purely: envelopes, canonical order, high-water marks.

Every write a store commits is recorded as effect lines in its writer's log
(``<db>.oplog/<writer>.jsonl``, docs/sync.md)::

    {"t": "<verb>", ...payload, "writer": W, "seq": N, "hlc": H, "format": 1}

``seq`` is dense from 1 per writer; ``hlc`` is a single integer clock, never below the
wall clock, the writer's previous value or any peer clock it has seen. All lines of one
committed transaction share one ``hlc``, so in the canonical order (hlc, writer, seq) a
transaction's effects stay together and never interleave with another writer's.

A replica's synced content is the fold of every effect it knows, applied in canonical
order; this module decides which lines are usable, in which order, and how far each
writer's contiguous high-water mark reaches.
"""

from __future__ import annotations

import json
import operator
from json.encoder import encode_basestring as _encode_text
from typing import Any, Iterable, Mapping, Sequence

from claimgraph.logic.model import FACT_FIELDS

#: The line format this claimgraph writes and reads; a higher one is held, never guessed at.
FORMAT = 1
VERBS = (
    "ensure-entity", "update-entity", "repoint-facts", "repoint-predicate", "delete-entity",
    "insert-fact", "invalidate", "link-conflicts", "unlink-conflicts", "reinforce",
    "open-episode", "close-episode", "register-predicate",
    # beyond the graph's own writes: curation state, and a purge's deletions and tombstones
    "set-dormant", "revive", "delete-facts", "delete-episodes", "update-episode",
    "set-mark", "delete-marks",
    # what a purge leaves where a line named purged data: the seq stays taken, the words go
    "purged",
    # what a writer published in place of a line about a project it does not share
    "withheld",
)
ENVELOPE = ("t", "writer", "seq", "hlc", "format")
#: After this many passes in which a line could not be applied, it is reported as stuck.
STUCK_AFTER_PASSES = 3
#: Marks whose keys are global (a purge's tombstones) travel in the log; the rest are local.
SYNCED_MARK_PREFIX = "tombstone:"

Line = dict[str, Any]
#: Built once: ``json.dumps`` with options builds an encoder per call (a batch writes a
#: line per fact).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
#: The same without sorting, for a dict whose keys were inserted in sorted order already.
_IN_ORDER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)
#: An insert-fact line's fact, keys sorted: the stored fact's fields and the "record" tag.
#: ``oplog.baseline.fact_effect`` builds its dict in this order, so ``encode`` need not sort
#: the 22 keys of every fact of a batch (a line per fact; sorting was a fifth of the line).
FACT_LINE_KEYS = tuple(sorted((*FACT_FIELDS, "record")))
#: The fact's fields that are lists (of strings); every other value is a JSON scalar.
_FACT_LISTS = ("conflicts", "evidence")
_FACT_SCALARS = operator.itemgetter(*(k for k in FACT_LINE_KEYS if k not in _FACT_LISTS))
_SCALARS = frozenset((str, int, float, bool, type(None)))
_STRINGS = frozenset((str,))


#: An insert-fact effect as the outbox keeps it (``fact_row``): the fact's values in this
#: order, "record" left out (it is always "fact"). A batch's outbox holds one such row per
#: fact, not its line: the line is derived from the row at append (``outbox_lines``).
FACT_ROW_KEYS = tuple(k for k in FACT_LINE_KEYS if k != "record")
_RECORD_AT = FACT_LINE_KEYS.index("record")
_ROW_LISTS = tuple(FACT_ROW_KEYS.index(k) for k in _FACT_LISTS)
_ROW_SCALARS = operator.itemgetter(*(i for i, k in enumerate(FACT_ROW_KEYS)
                                     if k not in _FACT_LISTS))


def next_hlc(wall_ms: int, last: int, floor: int) -> int:
    """max(wall clock, last + 1, every peer clock seen + 1)."""
    return max(int(wall_ms), int(last) + 1, int(floor) + 1)


def encode(effect: Mapping[str, Any], writer: str, seq: int, hlc: int) -> str:
    """One log line, keys sorted so the same effect always reads the same."""
    verb = effect.get("t")
    if verb == "insert-fact" and len(effect) == 2:
        line = _fact_line(effect.get("fact"), writer, seq, hlc)
        if line is not None:
            return line
    elif verb == "ensure-entity" and len(effect) == 2:
        line = _entity_line(effect.get("entity"), writer, seq, hlc)
        if line is not None:
            return line
    return _CANONICAL.encode({**effect, "writer": writer, "seq": seq, "hlc": hlc,
                              "format": FORMAT})


def _fact_line(fact: Any, writer: Any, seq: Any, hlc: Any) -> str | None:
    """An insert-fact line written out in canonical order without sorting anything, or None
    when the fact is not in the shape that allows it (``encode`` then sorts as for any line):
    the same text either way (tests/oplog/test_log.py holds the two side by side).

    The envelope's keys ("format", "hlc", "seq", "t", "writer") all sort after "fact", and
    the fact's own keys come in ``FACT_LINE_KEYS`` order; its values are scalars but for its
    two lists of strings (a dict anywhere could hold keys that need sorting). The checks are
    set operations over the types, not a loop: this runs once per fact of a batch."""
    if (type(fact) is not dict or tuple(fact) != FACT_LINE_KEYS or type(seq) is not int
            or type(hlc) is not int or type(writer) is not str
            or not _SCALARS.issuperset(map(type, _FACT_SCALARS(fact)))):
        return None
    for key in _FACT_LISTS:
        values = fact[key]
        if type(values) is not list or not _STRINGS.issuperset(map(type, values)):
            return None
    body = "".join(_C_IN_ORDER(fact, 0)) if _C_IN_ORDER is not None else _IN_ORDER.encode(fact)
    return (f'{{"fact":{body},"format":{FORMAT},"hlc":{hlc},"seq":{seq},'
            f'"t":"insert-fact","writer":{_encode_text(writer)}}}')


#: An ensure-entity line's entity, keys sorted: the entity's fields and the "record" tag.
_ENTITY_LINE_KEYS = ("aliases", "id", "name", "record", "scope", "type")
_ENTITY_SCALARS = operator.itemgetter("id", "name", "record", "scope", "type")
_TEXT_OR_NULL = frozenset((str, type(None)))


def _entity_line(entity: Any, writer: Any, seq: Any, hlc: Any) -> str | None:
    """An ensure-entity line written out in canonical order without sorting anything (a batch
    writes one per new entity), or None when the entity is not in the shape that allows it:
    the tag and the five fields, text or null, the aliases a list of text (the same text
    either way: tests/oplog/test_log.py holds the two side by side)."""
    if (type(entity) is not dict or len(entity) != len(_ENTITY_LINE_KEYS)
            or type(seq) is not int or type(hlc) is not int or type(writer) is not str):
        return None
    try:
        scalars = _ENTITY_SCALARS(entity)
        aliases = entity["aliases"]
    except KeyError:
        return None
    if (not _TEXT_OR_NULL.issuperset(map(type, scalars)) or type(aliases) is not list
            or not _STRINGS.issuperset(map(type, aliases))):
        return None
    id_, name, record, scope, type_ = (
        "null" if value is None else _encode_text(value) for value in scalars)
    listed = ",".join(map(_encode_text, aliases))
    return (f'{{"entity":{{"aliases":[{listed}],"id":{id_},"name":{name},"record":{record},'
            f'"scope":{scope},"type":{type_}}},"format":{FORMAT},"hlc":{hlc},"seq":{seq},'
            f'"t":"ensure-entity","writer":{_encode_text(writer)}}}')


def row_fits(row: Any) -> bool:
    """``row`` can stand for an insert-fact effect: a list of ``FACT_ROW_KEYS``' length whose
    values are JSON scalars but for the two lists of strings. Then its line is the same text
    before and after a JSON round trip through the outbox, and ``row_line`` writes the line
    ``encode`` writes for the same fact (anything else is kept as a whole line instead)."""
    if type(row) is not list or len(row) != len(FACT_ROW_KEYS):
        return False
    if not _SCALARS.issuperset(map(type, _ROW_SCALARS(row))):
        return False
    for at in _ROW_LISTS:
        values = row[at]
        if type(values) is not list or not _STRINGS.issuperset(map(type, values)):
            return False
    return True


def row_fact(row: list[Any]) -> dict[str, Any]:
    """The insert-fact effect's fact a row stands for, keys in ``FACT_LINE_KEYS`` order."""
    return dict(zip(FACT_LINE_KEYS, (*row[:_RECORD_AT], "fact", *row[_RECORD_AT:])))


def row_line(row: list[Any], writer: str, seq: int, hlc: int) -> str:
    """The insert-fact line of a row that ``row_fits``: ``encode``'s text for its fact.

    A batch's facts differ in a few values (ids, object, times, confidence) and repeat the
    rest (predicate, episode, scope, source type, the empty and null fields), which the
    encoder otherwise wrote out again for every fact (about a tenth of a batch ingest): the
    line of each shape is encoded once as a template (``_template``), and a fact fills in its
    own values. A row it does not cover is encoded whole, to the same text."""
    if (not row[_ROW_CONFLICTS] and not row[_ROW_EVIDENCE] and type(seq) is int
            and type(hlc) is int):
        values = _VARYING_VALUES(row)
        types = tuple(map(type, values))
        try:
            key = (_REPEATED_VALUES(row), types)
            made = _TEMPLATES.get(key)
        except TypeError:  # an unhashable value: not a shape a template is made for
            made = False
        if made is None:
            made = _template(key)
        if made:
            text, strings, floats, filled = made
            args = list(values)
            for at in strings:
                args[at] = _encode_text(args[at])
            for at in floats:
                if args[at] - args[at] != 0:  # NaN or an infinity: encoded whole
                    break
            else:
                line: str = text % (*filled(args), hlc, seq, _encode_text(writer))
                return line
    return _encoded_row_line(row, writer, seq, hlc)


def _template(key: tuple[tuple[Any, ...], tuple[type, ...]]) -> Any:
    """``row_line``'s template for rows whose repeated values are ``key[0]`` and whose varying
    values have the types ``key[1]``: (the line with a ``%s`` per varying value that is not
    None, the varying values that are text to escape, those that are floats, what picks the
    ones to fill in); False when the row is not one it covers (then it is encoded whole).

    The template is ``encode``'s own text for a row with markers in place of the varying
    values, so it cannot differ from it; markers are strings no repeated value holds."""
    repeated, types = key
    made: Any = False
    if (_TEMPLATE_REPEATED.issuperset(map(type, repeated))
            and _TEMPLATE_VARYING.issuperset(types)
            and not any(value is not None and "\0" in value for value in repeated)):
        row: list[Any] = [None] * len(FACT_ROW_KEYS)
        for at, value in zip(_REPEATED_AT, repeated):
            row[at] = value
        row[_ROW_CONFLICTS], row[_ROW_EVIDENCE] = [], []
        filled = [j for j, kind in enumerate(types) if kind is not type(None)]
        for j in filled:
            row[_VARYING_AT[j]] = f"\0{j}\0"
        body = _encoded_row_line(row, "\0w\0", 0, 0).rsplit(',"format":', 1)[0]
        body = body.replace("%", "%%")
        for j in filled:
            body = body.replace(_encode_text(f"\0{j}\0"), "%s")
        text = (f'{body},"format":{FORMAT},"hlc":%s,"seq":%s,"t":"insert-fact",'
                '"writer":%s}')
        pick = (operator.itemgetter(*filled) if len(filled) > 1
                else (lambda args: tuple(args[j] for j in filled)))
        made = (text, tuple(j for j in filled if types[j] is str),
                tuple(j for j in filled if types[j] is float), pick)
    if len(_TEMPLATES) >= _MAX_TEMPLATES:
        _TEMPLATES.clear()
    _TEMPLATES[key] = made
    return made


def _encoded_row_line(row: list[Any], writer: str, seq: int, hlc: int) -> str:
    """``row_line`` by encoding the row's whole fact."""
    fact = row_fact(row)
    body = "".join(_C_IN_ORDER(fact, 0)) if _C_IN_ORDER is not None else _IN_ORDER.encode(fact)
    return (f'{{"fact":{body},"format":{FORMAT},"hlc":{hlc},"seq":{seq},'
            f'"t":"insert-fact","writer":{_encode_text(writer)}}}')


#: ``row_line``'s templates: the values that vary between a batch's facts (the rest repeat),
#: and the types a template covers. Kept per process, at most ``_MAX_TEMPLATES`` of them.
_VARYING = frozenset(("id", "subject", "object_lit", "object_ref", "t_valid", "t_invalid",
                      "recorded_at", "last_reinforced_at", "confidence"))
_VARYING_AT = tuple(at for at, key in enumerate(FACT_ROW_KEYS) if key in _VARYING)
_REPEATED_AT = tuple(at for at, key in enumerate(FACT_ROW_KEYS)
                     if key not in _VARYING and key not in _FACT_LISTS)
_VARYING_VALUES = operator.itemgetter(*_VARYING_AT)
_REPEATED_VALUES = operator.itemgetter(*_REPEATED_AT)
_ROW_CONFLICTS, _ROW_EVIDENCE = _ROW_LISTS
_TEMPLATE_REPEATED = frozenset((str, type(None)))
_TEMPLATE_VARYING = frozenset((str, int, float, type(None)))
_MAX_TEMPLATES = 256
_TEMPLATES: dict[Any, Any] = {}


def outbox_items(effects: Iterable[Any], writer: str, first: int, hlc: int) -> list[Any]:
    """What the outbox keeps for one transaction's effects, numbered from ``first``: a fact
    row as it is (``row_fits``), any other effect as its whole line (they are few)."""
    return [effect if type(effect) is list else encode(effect, writer, seq, hlc)
            for seq, effect in enumerate(effects, start=first)]


def outbox_lines(items: Sequence[Any], writer: str, first: int, hlc: int,
                 above: int = 0) -> list[str]:
    """The log lines of an outbox's items (``outbox_items``), those with a seq above
    ``above`` only: the text ``encode`` gives each effect."""
    skip = max(0, above + 1 - first)
    return [row_line(item, writer, seq, hlc) if type(item) is list else item
            for seq, item in enumerate(items[skip:], start=first + skip)]


def _c_in_order() -> Any:
    """``_IN_ORDER``'s C encoder, made once (``JSONEncoder.encode`` makes one per call: a fifth
    of a fact line's time), or None where the C accelerator is missing or differs."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    try:
        made = make(None, _IN_ORDER.default, json.encoder.encode_basestring, None, ":", ",",
                    False, False, True)
        sample = {"a": [1, "é\n"], "b": 0.7, "c": None, "d": True, "e": 1e300}
        return made if "".join(made(sample, 0)) == _IN_ORDER.encode(sample) else None
    except Exception:  # another interpreter's signature: the plain encoder it is
        return None


_C_IN_ORDER = _c_in_order()


def parse(text: str) -> Line | None:
    """A line's JSON object, or None when it is not one (a torn or garbled line)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # garbled, or nested past what the parser can take
        return None
    return value if isinstance(value, dict) else None


def envelope_problem(line: Mapping[str, Any]) -> str | None:
    """Why a parsed line cannot be placed: no-seq, bad-seq, bad-hlc, bad-format, no-writer."""
    if not isinstance(line.get("writer"), str) or not line["writer"]:
        return "no-writer"
    if "seq" not in line:
        return "no-seq"
    if not _count(line["seq"]) or line["seq"] < 1:
        return "bad-seq"
    if not _count(line.get("hlc")):
        return "bad-hlc"
    if not _count(line.get("format")) or line["format"] < 1:
        return "bad-format"
    return None


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def is_future(line: Mapping[str, Any]) -> bool:
    return bool(line["format"] > FORMAT)


def order_key(line: Mapping[str, Any]) -> tuple[Any, ...]:
    """The canonical order every replica applies effects in."""
    return (line["hlc"], line["writer"], line["seq"])


def same_effect(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return canonical_text(a) == canonical_text(b)


def canonical_text(line: Mapping[str, Any]) -> str:
    return _CANONICAL.encode(line)


def dedupe(lines: Iterable[Line]) -> tuple[dict[tuple[str, int], Line], list[dict[str, Any]]]:
    """One line per (writer, seq). Two different effects under one seq are a fork: the first
    in canonical order (then by text) wins everywhere, and the fork is reported. A ``purged``
    placeholder always wins: what a purge took stays taken."""
    chosen: dict[tuple[str, int], Line] = {}
    forks: list[dict[str, Any]] = []
    for line in lines:
        key = (line["writer"], line["seq"])
        held = chosen.get(key)
        if held is None:
            chosen[key] = line
        elif not same_effect(held, line):
            winner = _fork_winner(held, line)
            if not ({held["t"], line["t"]} & {"purged", "withheld"}):
                forks.append({"warning": "duplicate-seq", "writer": key[0], "seq": key[1]})
            chosen[key] = winner
    return chosen, forks


def _fork_winner(a: Line, b: Line) -> Line:
    if (a["t"] == "purged") != (b["t"] == "purged"):
        return a if a["t"] == "purged" else b
    if (a["t"] == "withheld") != (b["t"] == "withheld"):
        return b if a["t"] == "withheld" else a  # the line itself, once it is shared
    return min(a, b, key=lambda line: (order_key(line), canonical_text(line)))


def high_water(settled: Iterable[int], start: int = 0) -> tuple[int, list[int]]:
    """The highest seq reached by an unbroken run from ``start`` and the settled seqs beyond
    it (which wait in ``applied-beyond`` until the hole below them fills)."""
    done = set(settled)
    mark = start
    while mark + 1 in done:
        mark += 1
    return mark, sorted(s for s in done if s > mark)


def seq_gaps(seqs: Iterable[int], mark: int) -> list[tuple[int, int]]:
    """Holes (first, last missing) between ``mark`` and the highest seq a writer has shown."""
    present = sorted(set(s for s in seqs if s > mark))
    gaps, expected = [], mark + 1
    for seq in present:
        if seq > expected:
            gaps.append((expected, seq - 1))
        expected = seq + 1
    return gaps


def is_synced_mark(key: str) -> bool:
    return str(key).startswith(SYNCED_MARK_PREFIX)


# --- seq ranges (applied.json keeps the seqs settled as ``withheld`` this way) ---------------
def in_ranges(ranges: Any, seq: int) -> bool:
    """Whether ``seq`` lies in one of the [first, last] ranges (anything else holds none)."""
    if not isinstance(ranges, list):
        return False
    return any(isinstance(r, list) and len(r) == 2 and r[0] <= seq <= r[1] for r in ranges)


def add_to_ranges(ranges: list[list[int]], seq: int) -> list[list[int]]:
    """The ranges with ``seq`` added, merged and sorted."""
    return _merged([*([list(r) for r in ranges]), [seq, seq]])


def remove_from_ranges(ranges: list[list[int]], seq: int) -> list[list[int]]:
    """The ranges without ``seq`` (a range it splits becomes two)."""
    out: list[list[int]] = []
    for first, last in ranges:
        if first <= seq <= last:
            out += [r for r in ([first, seq - 1], [seq + 1, last]) if r[0] <= r[1]]
        else:
            out.append([first, last])
    return out


def _merged(ranges: list[list[int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], last)
        else:
            out.append([first, last])
    return out
