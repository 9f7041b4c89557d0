"""The module-level caches a capture pass fills, let go once no later stage reads them.

Several rule helpers keep answers across calls in module-level caches (``functools``'
``lru_cache``, the sentence features' buckets): a dozen rules tokenize the same command
lines, and the sentence model looks up the same words and word pairs again and again. Each
cache is bounded, but bounded at thousands of entries, and each lives as long as the process:
at the 200 MB benchmark they held ~12 MB once the rules had run (the shell lexer's tokens and
simple commands ~5.5 MB, the features' word and pair buckets ~3.7 MB, the lessons' command
keys ~1.8 MB), beside the events, through ``digest``, ``reconcile`` and the store's write,
where the pass peaks (issue 29). The view's own memos were let go as their last reader ran
(``builtin.LAST_READ_BY``); these were not, since they are not the view's.

Every cache named here is pure (the same question gets the same answer computed again), so
letting one go changes no output, only what is held: a later question computes its answer
anew. ``after_rule`` lets go of what no rule after the one named reads much, and
``after_rules`` of what only the rules read, before ``digest``; ``after_pass`` of the rest
once extraction is over, so the store's write reuses that memory instead of adding to it.
"""

from __future__ import annotations

from typing import Any, Callable

from claimgraph.capture.classify import features, model
from claimgraph.capture.extract.lessons import same_command_key
from claimgraph.capture.extract.pick_scope import _mention
from claimgraph.capture.extract.reconcile import _retiring_patterns
from claimgraph.capture.extract.shell import _parsed, _unwrapped, invocations
from claimgraph.capture.extract.statements import statement_candidates
from claimgraph.capture.extract.unseen_edits import _anywhere

#: Caches whose users are all the named rule or earlier: let go once it has run. Only the
#: statements rule reads the sentence model and its buckets (a later rule asks a sentence's
#: cues, ``features.cue_names``, which reads neither): the model's weights (~1.4 MB, one
#: integer per feature) load again in ~15 ms in a process that captures again, and a capture
#: has a process of its own (``daemon.sweep``, the hooks).
_AFTER_RULE: dict[Callable[..., Any], tuple[Callable[[], None], ...]] = {
    statement_candidates: (features.clear_buckets, model.shipped.cache_clear),
}

#: Read by the rules; ``digest`` and ``reconcile`` read what the rules left in the view
#: (``builtin.READ_LATER``), and ask these of a few commands at most.
_AFTER_RULES: tuple[Callable[[], None], ...] = (
    same_command_key.cache_clear, _unwrapped.cache_clear, _mention.cache_clear,
    _anywhere.cache_clear, features.clear_buckets)

#: The rest: the shell's tokens and simple commands (``reconcile`` asks which commands ran),
#: and ``reconcile``'s own compiled patterns.
_AFTER_PASS: tuple[Callable[[], None], ...] = (
    *_AFTER_RULES, invocations.cache_clear, _parsed.cache_clear, _retiring_patterns.cache_clear)


def after_rule(rule: Callable[..., Any]) -> None:
    """Let go of the caches no rule after ``rule`` reads (``_AFTER_RULE``)."""
    for clear in _AFTER_RULE.get(rule, ()):
        clear()


def after_rules() -> None:
    """Let go of the caches only the rules read, before ``digest``."""
    for clear in _AFTER_RULES:
        clear()


def after_pass() -> None:
    """Let go of every cache a pass filled: what is left is the next pass's to fill."""
    for clear in _AFTER_PASS:
        clear()
