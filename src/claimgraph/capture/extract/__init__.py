"""Extractors: a transcript in, candidate facts out, for the capture pass to screen.

Every extractor has the same interface, ``extract(transcript, *, project_root) -> list[dict]``,
so the capture pass picks one by name from ``EXTRACTORS`` (config ``extractor``) and never
learns how it works. A candidate is a plain dict: subject, predicate, object, object_kind,
epistemic, confidence, scope ("project" or "user"), source_type, subject_type/object_type
where known, evidence (at least one "path: quote" string) and the ``rule`` that produced it.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping, Protocol

from claimgraph.capture.events import Transcript
from claimgraph.capture.extract import builtin
from claimgraph.errors import ClaimgraphError


class Extractor(Protocol):
    def __call__(self, transcript: Transcript, *,
                 project_root: str | None) -> list[dict[str, Any]]: ...


EXTRACTORS: dict[str, Extractor] = {"builtin": builtin.extract}


#: Extractors built per pass from settings (they carry a budget), by name.
CONFIGURED: dict[str, Callable[[Mapping[str, str]], Extractor]] = {}


def _model_extractor(environ: Mapping[str, str]) -> Extractor:
    """The opt-in model extractor, its budget fresh for this pass (settings from env/file)."""
    from claimgraph.capture.extract.model import ModelExtractor
    from claimgraph.config import load_settings
    return ModelExtractor.from_settings(load_settings(environ=dict(environ)))


CONFIGURED["model"] = _model_extractor


def get_extractor(spec: str, environ: Mapping[str, str] | None = None) -> Extractor:
    """The extractor(s) a setting names: "builtin", "model", or both ("builtin,model").

    Several names run in order and their candidates are concatenated; screening and the
    write path's reinforcement take care of overlaps.
    """
    names = [n for n in re.split(r"[\s,+;]+", (spec or "").strip().lower()) if n]
    chosen = [_one(name, environ or {}) for name in names or ["builtin"]]
    if len(chosen) == 1:
        return chosen[0]

    def combined(transcript: Transcript, *, project_root: str | None) -> list[dict[str, Any]]:
        return [c for ex in chosen for c in ex(transcript, project_root=project_root)]
    return combined


def _one(name: str, environ: Mapping[str, str]) -> Extractor:
    if name in EXTRACTORS:
        return EXTRACTORS[name]
    if name in CONFIGURED:
        return CONFIGURED[name](environ)
    raise ClaimgraphError("unknown-extractor", f"no extractor named {name!r}",
                          hint="use one of: " + ", ".join(sorted({*EXTRACTORS, *CONFIGURED})),
                          extractor=name)
