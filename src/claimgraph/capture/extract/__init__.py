"""Extractors: a transcript in, candidate facts out, for the capture pass to screen.

Every extractor has the same interface, ``extract(transcript, *, project_root) -> list[dict]``,
so the capture pass picks one by name from ``EXTRACTORS`` (config ``extractor``) and never
learns how it works. A candidate is a plain dict: subject, predicate, object, object_kind,
epistemic, confidence, scope ("project" or "user"), source_type, subject_type/object_type
where known, evidence (at least one "path: quote" string) and the ``rule`` that produced it.
"""

from __future__ import annotations

from typing import Any, Protocol

from claimgraph.capture.events import Transcript
from claimgraph.capture.extract import builtin
from claimgraph.errors import ClaimgraphError


class Extractor(Protocol):
    def __call__(self, transcript: Transcript, *,
                 project_root: str | None) -> list[dict[str, Any]]: ...


EXTRACTORS: dict[str, Extractor] = {"builtin": builtin.extract}


def get_extractor(name: str) -> Extractor:
    """The extractor registered under ``name``, or an error that lists the known ones."""
    try:
        return EXTRACTORS[name]
    except KeyError:
        raise ClaimgraphError("unknown-extractor", f"no extractor named {name!r}",
                              hint="use one of: " + ", ".join(sorted(EXTRACTORS)),
                              extractor=name) from None
