"""The project page draws its rows with ``present.bar_html`` and ``present.fact_html`` instead of
the ``bar``, ``fact_link`` and ``tags`` macros (hundreds of macro calls were most of a big
page's render time): the same bytes, for every kind of fact a row can show."""

from __future__ import annotations

import itertools

import pytest

from claimgraph.logic.trust_tiers import SYNC_SOURCE, TEAMMATE
from claimgraph.viewer.app import templates
from claimgraph.viewer.present import bar_html, fact_html

MACROS = ('{% from "macros.html" import bar, fact_link, tags with context %}'
          "{{ fact_link(fact) }} {{ tags(fact) }}|{{ bar(confidence) }}")


def facts():
    subjects = [{"id": "e-1", "name": "api"}, {"id": "e-2", "name": "<b>x</b> & `co`"}]
    kinds = [{"object_kind": "literal", "object_lit": 'uses "REST" <script>'},
             {"object_kind": "literal", "object_lit": "run `make test` & 'ok'"},
             {"object_kind": "entity", "object_ref": {"id": "e-9", "name": "db&<core>"}}]
    extras = [{}, {"scope": "user"}, {"dormant_since": 5},
              {"source_type": SYNC_SOURCE + "w-ada", TEAMMATE: "Ada <a@x>"},
              {"source_type": SYNC_SOURCE + "w-bob", "scope": "user", "dormant_since": 1}]
    for subject, kind, extra, pred, ident in itertools.product(
            subjects, kinds, extras, ("core/prefers", "team/owned-by", 'x/"odd"'),
            ("f-1", "f-2/3 &x", "f-é")):
        yield {"id": ident, "subject": subject, "predicate": pred, "epistemic": "observation",
               "scope": "/work/p", "source_type": "session-log", "dormant_since": None,
               "t_valid": 0, "confidence": 0.5, **kind, **extra}


@pytest.mark.parametrize("base", ["/tok", "/a&b"])
def test_a_rows_html_is_the_macros_own(base):
    env = templates()
    template = env.from_string(MACROS)
    for n, fact in enumerate(facts()):
        confidence = (n % 23) / 22
        expected = template.render(base=base, fact=fact, confidence=confidence)
        assert f"{fact_html(fact, base)}|{bar_html(confidence)}" == expected, fact
