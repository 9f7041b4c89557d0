"""A fact as a row: its values in ``logic.oplog.FACT_ROW_KEYS`` order, its ends as entity ids.

The row is the outbox's form of an insert-fact effect (``oplog.own_log``), and what a batch
ingest builds for a plain insert and hands to ``Store.insert_fact_rows``
(``core.batch_writer``): one row serves the statement's parameters and the log, where a whole
fact was turned into each of them in turn. Its own module, so a read (the SessionStart hook)
never imports what only writes use.
"""

from __future__ import annotations

import json
import operator

from claimgraph.logic.model import REQUIRED_FACT_FIELDS
from claimgraph.logic.oplog import FACT_ROW_KEYS, row_fact
from claimgraph.store.records import check_fact, ref_id
from claimgraph.store.sql_dialect import INSERT_COLUMNS

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Mapping, Sequence

_ROW_VALUES = operator.itemgetter(*FACT_ROW_KEYS)
_AT = {key: at for at, key in enumerate(FACT_ROW_KEYS)}
ID, SUBJECT, PREDICATE = _AT["id"], _AT["subject"], _AT["predicate"]
_OBJECT_REF, _CONFIDENCE = _AT["object_ref"], _AT["confidence"]
CONFLICTS, EVIDENCE = _AT["conflicts"], _AT["evidence"]
_REQUIRED = operator.itemgetter(*(_AT[field] for field in REQUIRED_FACT_FIELDS))
#: INSERT_FACT's columns but the last (evidence, stored as JSON text) as row positions.
_COLUMN_KEYS = {"subject_id": "subject", "object_ref_id": "object_ref"}
_SCALAR_PARAMS = operator.itemgetter(*(_AT[_COLUMN_KEYS.get(column, column)]
                                       for column in INSERT_COLUMNS[:-1]))
assert INSERT_COLUMNS[-1] == "evidence"


def fact_row(fact: Mapping[str, Any], checked: bool = False) -> list[Any]:
    """A whole fact as its row (a field the fact lacks is None), taken in one C call where the
    fact has every field, as a built fact does."""
    if not checked:
        check_fact(fact)
    try:
        row = list(_ROW_VALUES(fact))
    except KeyError:
        row = [fact.get(key) for key in FACT_ROW_KEYS]
    row[SUBJECT] = ref_id(row[SUBJECT])
    row[_OBJECT_REF] = ref_id(row[_OBJECT_REF])
    row[_CONFIDENCE] = float(fact["confidence"])
    conflicts, evidence = row[CONFLICTS], row[EVIDENCE]
    row[CONFLICTS] = sorted(set(conflicts)) if conflicts else []
    row[EVIDENCE] = list(evidence) if evidence else []
    return row


def check_fact_row(row: Sequence[Any]) -> None:
    """``records.check_fact`` for a fact given as its row (the same refusal, the same words)."""
    if None in _REQUIRED(row):
        check_fact(row_fact(list(row)))


def row_params(row: Sequence[Any]) -> tuple[Any, ...]:
    """INSERT_FACT's parameters from a checked row: what ``sql_dialect.fact_params`` takes
    from the whole fact."""
    evidence = row[EVIDENCE]
    return (*_SCALAR_PARAMS(row), json.dumps(evidence) if evidence else "[]")
