"""The predicate vocabulary: the curated core/* seed, and the rules for coining x/*
(docs/data-model.md).

The seed is data, not a schema: extractors and the judge read the labels and definitions, and the
write path reads cardinality, exclusion groups and object shape to decide conflicts and admission.
Pure: the shell passes in the registry rows it read; nothing here touches a store.
"""

from __future__ import annotations

from claimgraph.errors import ClaimgraphError
from claimgraph.logic.model import EPISTEMIC_STRENGTH, PREDICATE_FIELDS

TYPE_CHECKING = False  # ``typing`` is not imported just to learn that it is False
if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping

CORE_NAMESPACE = "core"
EXPERIMENTAL_NAMESPACE = "x"
OBJECT_KINDS = ("entity", "literal", "either")
OBJECT_SHAPES = ("prose", "value")
CARDINALITIES = ("one", "many")
STATUSES = ("stable", "testing", "deprecated")

# name, category, object_kind, cardinality, inverse_of, exclusion_group, value_exclusivity,
# object_shape, default_epistemic, maps_to, definition
_SEED = (
    ("depends-on", "structural", "entity", "many", "core/dependency-of", None, None, None,
     "observation", ["spdx:DEPENDS_ON"], "The subject needs the object in order to build or run."),
    ("dependency-of", "structural", "entity", "many", "core/depends-on", None, None, None,
     "observation", ["spdx:DEPENDENCY_OF"], "The subject is needed by the object to build or run."),
    ("imports", "structural", "entity", "many", None, None, None, None,
     "observation", ["codeontology:imports"], "The subject's source code imports the object."),
    ("defined-in", "structural", "entity", "one", None, None, None, None,
     "observation", ["spdx:CONTAINED_BY"],
     "The subject is defined in exactly one place, the object."),
    ("contains", "structural", "entity", "many", "core/part-of", None, None, None,
     "observation", ["spdx:CONTAINS", "dcterms:hasPart"],
     "The subject holds the object as a component."),
    ("part-of", "structural", "entity", "many", "core/contains", None, None, None,
     "observation", ["dcterms:isPartOf"], "The subject is a component held by the object."),
    ("implements", "structural", "entity", "many", None, None, None, None,
     "observation", ["doap:implements", "seon:implements"],
     "The subject provides an implementation of the object (an interface, protocol or spec)."),
    ("written-in", "structural", "either", "many", None, None, None, None,
     "observation", ["doap:programming-language"],
     "The subject is written in the object language."),
    ("has-version", "structural", "literal", "one", None, None, None, None,
     "observation", ["dcterms:hasVersion"], "The subject is currently at the object version."),
    ("tested-by", "procedural", "entity", "many", None, None, None, None,
     "observation", ["spdx:hasTest"],
     "The subject is checked by the object test, suite or command."),
    ("built-with", "procedural", "entity", "many", None, None, None, None,
     "observation", ["spdx:BUILD_DEPENDENCY_OF"], "The subject is built using the object tool."),
    ("generated-from", "procedural", "entity", "many", None, None, None, None,
     "observation", ["spdx:GENERATED_FROM", "prov:wasGeneratedBy"],
     "The subject is produced mechanically from the object."),
    ("deployed-via", "procedural", "either", "many", None, None, None, None,
     "observation", ["LOCAL"], "The subject is deployed through the object platform or process."),
    ("failure-mode", "procedural", "literal", "many", None, None, None, "prose",
     "observation", ["LOCAL"],
     "A way the subject is known to fail, and the lesson learned from it."),
    ("supersedes", "decision", "entity", "many", "core/superseded-by", "revision", None, None,
     "commitment", ["prov:wasRevisionOf", "dcterms:replaces"],
     "The subject replaces the object as the current decision or artifact."),
    ("superseded-by", "decision", "entity", "many", "core/supersedes", "revision", None, None,
     "commitment", ["dcterms:isReplacedBy"], "The subject has been replaced by the object."),
    ("decided-against", "decision", "either", "many", None, "stance", None, "prose",
     "commitment", ["LOCAL"],
     "The subject deliberately rejected the object (an ADR's rejected alternative)."),
    ("prefers", "decision", "either", "many", None, "stance", "exclusive", "prose",
     "preference", ["LOCAL"], "The subject favours the object over its alternatives."),
    ("motivated-by", "decision", "either", "many", None, None, None, "prose",
     "observation", ["prov:wasInfluencedBy"],
     "The subject was chosen or done because of the object."),
    ("has-status", "decision", "literal", "one", None, None, None, None,
     "commitment", ["LOCAL"],
     "The subject decision currently has the object status, as an ADR's status line records it."),
    ("derived-from", "provenance", "entity", "many", None, None, None, None,
     "observation", ["prov:wasDerivedFrom", "dcterms:source"],
     "The subject was derived from the object."),
    ("asserted-by", "provenance", "entity", "many", None, None, None, None,
     "observation", ["prov:wasAttributedTo"],
     "The subject claim or artifact is attributed to the object."),
    ("primary-source", "provenance", "either", "many", None, None, None, None,
     "observation", ["prov:hadPrimarySource", "dcterms:provenance"],
     "The object is the original source the subject's information came from."),
)


def _seed_row(name: str, category: str, kind: str, cardinality: str, inverse: str | None,
              group: str | None, exclusivity: str | None, shape: str | None, epistemic: str,
              maps_to: list[str], definition: str) -> dict[str, Any]:
    """Expand one compact seed tuple into a full registry row (every PREDICATE_FIELDS key)."""
    return {
        "id": f"{CORE_NAMESPACE}/{name}", "label": name.replace("-", " "), "category": category,
        "object_kind": kind, "object_shape": shape, "cardinality": cardinality,
        "inverse_of": inverse, "status": "stable", "replaced_by": None, "definition": definition,
        "maps_to": list(maps_to), "default_epistemic": epistemic, "exclusion_group": group,
        "value_exclusivity": exclusivity,
    }


CORE_PREDICATES: tuple[dict[str, Any], ...] = tuple(_seed_row(*entry) for entry in _SEED)
CORE_BY_ID: dict[str, dict[str, Any]] = {row["id"]: row for row in CORE_PREDICATES}


def split_id(pred_id: str) -> tuple[str | None, str]:
    """("core", "prefers") for "core/prefers"; (None, "prefers") for a bare name."""
    namespace, sep, name = pred_id.rpartition("/")
    return (namespace, name) if sep else (None, pred_id)


def object_shape(row: Mapping[str, Any]) -> str:
    """A row's own shape wins; old stores without the field fall back to the seed's shape."""
    seed = CORE_BY_ID.get(row.get("id") or "") or {}
    return row.get("object_shape") or seed.get("object_shape") or "value"


def auto_row(pred_id: str) -> dict[str, Any]:
    """The permissive row an x/* predicate gets on first use, so agents can coin vocabulary."""
    row: dict[str, Any] = dict.fromkeys(PREDICATE_FIELDS)
    row.update(id=pred_id, label=split_id(pred_id)[1].replace("-", " "), category="experimental",
               object_kind="either", object_shape="value", cardinality="many", status="testing")
    return row


def check_predicate(pred_id: str, row: Mapping[str, Any] | None) -> dict[str, Any]:
    """Whether a write may use this predicate; a deprecated row points at its replacement."""
    if row is not None and row.get("status") == "deprecated":
        return {"error": {"type": "deprecated-predicate", "replaced_by": row.get("replaced_by")}}
    if row is not None:
        return {"ok": row}
    if split_id(pred_id)[0] == EXPERIMENTAL_NAMESPACE:
        return {"register": auto_row(pred_id)}
    return {"error": {"type": "unknown-predicate"}}


def resolve_predicate_id(name: str, known_ids: Iterable[str]) -> str:
    """Let people type "prefers", ":depends_on" or "core/prefers" and mean the same row."""
    cleaned = name.strip().lstrip(":").replace("_", "-")
    if "/" not in cleaned and f"{CORE_NAMESPACE}/{cleaned}" in set(known_ids):
        return f"{CORE_NAMESPACE}/{cleaned}"
    return cleaned


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insert, delete, substitute), row by row in O(len(b)) memory."""
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (char_a != char_b)))
        previous = current
    return previous[-1]


def did_you_mean(name: str, known_ids: Iterable[str], limit: int = 3,
                 max_distance: int = 5) -> list[str]:
    """Near-miss ids by the name part only, so a wrong or missing namespace still finds its row."""
    wanted = split_id(name.lstrip(":"))[1]
    scored = sorted((levenshtein(wanted, split_id(known)[1]), known) for known in set(known_ids))
    return [known for distance, known in scored if distance <= max_distance][:limit]


def prepare_registration(row: Mapping[str, Any]) -> dict[str, Any]:
    """Validate a runtime registration: only x/* may be added, because core/* is curated."""
    pred_id = row.get("id")
    namespace, name = split_id(pred_id) if isinstance(pred_id, str) else (None, "")
    if not namespace or not name:
        raise ClaimgraphError("invalid-predicate-id", f"predicate id {pred_id!r} is not namespaced",
                              hint="register ids of the form x/<name>, e.g. x/owned-by", id=pred_id)
    if namespace != EXPERIMENTAL_NAMESPACE:
        raise ClaimgraphError("curated-predicate",
                              f"cannot register {pred_id}: {namespace}/* is curated",
                              hint=f"coin it as x/{name} and promote it later", id=pred_id)
    unknown = sorted(set(row) - set(PREDICATE_FIELDS))
    if unknown:
        raise ClaimgraphError("invalid-predicate-row",
                              f"unknown predicate fields: {', '.join(unknown)}",
                              hint="allowed fields: " + ", ".join(PREDICATE_FIELDS), fields=unknown)
    prepared = auto_row(str(pred_id))  # a str: split_id found its namespace
    prepared.update({key: value for key, value in row.items() if value is not None})
    _check_choices(prepared)
    return prepared


_CHOICES = {
    "object_kind": OBJECT_KINDS, "object_shape": OBJECT_SHAPES, "cardinality": CARDINALITIES,
    "status": STATUSES, "default_epistemic": tuple(EPISTEMIC_STRENGTH),
}


def _check_choices(row: Mapping[str, Any]) -> None:
    """Enumerated fields must hold a known value, or later decisions would silently misread them."""
    for field, allowed in _CHOICES.items():
        if row.get(field) is not None and row[field] not in allowed:
            raise ClaimgraphError("invalid-predicate-row", f"{field} {row[field]!r} is not allowed",
                                  hint=f"use one of: {', '.join(allowed)}", field=field)


def group_mates(row: Mapping[str, Any], rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Predicates that can contradict this one across predicates (e.g. prefers vs
    decided-against)."""
    group = row.get("exclusion_group")
    if group is None:
        return []
    return sorted(other["id"] for other in rows
                  if other.get("exclusion_group") == group and other["id"] != row.get("id"))


def predicate_error(pred_id: str, result: Mapping[str, Any],
                    known_ids: Iterable[str]) -> ClaimgraphError:
    """Turn a failed check into a message that names the fix, not just the failure."""
    error = result.get("error") or {}
    if error.get("type") == "deprecated-predicate":
        replacement = error.get("replaced_by")
        return ClaimgraphError("deprecated-predicate", f"predicate {pred_id} is deprecated",
                               hint=f"use {replacement} instead" if replacement else None,
                               predicate=pred_id, replaced_by=replacement)
    suggestions = did_you_mean(pred_id, known_ids)
    hint = f"did you mean {', '.join(suggestions)}?" if suggestions else \
        "use a core/* predicate, or coin one as x/<name>"
    return ClaimgraphError(error.get("type") or "unknown-predicate", f"unknown predicate {pred_id}",
                           hint=hint, predicate=pred_id, did_you_mean=suggestions)


def _capture_row(name: str, category: str, definition: str,
                 epistemic: str = "observation", cardinality: str | None = None
                 ) -> dict[str, Any]:
    return prepare_registration({
        "id": f"{EXPERIMENTAL_NAMESPACE}/{name}", "category": category, "object_kind": "literal",
        "object_shape": "prose", "default_epistemic": epistemic, "definition": definition,
        "cardinality": cardinality})


#: The experimental rows capture coins for what it learns beyond the curated core. They are
#: seeded (registered when missing, never reconciled: a user may amend x/* rows) so that their
#: whole-sentence objects are screened and stored as prose from the first capture on.
CAPTURE_PREDICATES: tuple[dict[str, Any], ...] = (
    _capture_row("convention", "procedural",
                 "A rule for how work on the subject is done or accepted: a directive, a gate "
                 "that blocks until it holds, or a documented convention.", "commitment"),
    _capture_row("decided", "decision",
                 "The subject settled on the object, a decision kept in the words it was made.",
                 "commitment"),
    _capture_row("role", "structural", "What the subject (a file or module) is for."),
    _capture_row("runs", "procedural",
                 "The subject (a task-runner recipe or script) runs the object command."),
    # One value per subject: a later session's state of the same repository (or pull
    # request) replaces the earlier one, so the context never shows a stale "PR #12 open"
    # beside the session that saw it merged (history still keeps every version).
    _capture_row("state", "state",
                 "Where a session left the subject's work, as git and gh reported it: its "
                 "branch, commits, pushes, pull requests and uncommitted changes, on a date.",
                 cardinality="one"),
)
