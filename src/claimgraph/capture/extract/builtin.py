"""The built-in extractor: deterministic, offline rules that keep what a careful reviewer would.

Each source of knowledge is its own module, in the order a reviewer values them:

- ``statements``: what the user said -- conventions, decisions, preferences, as whole sentences;
- ``answers``: the user's answers to the agent's questions and verdicts on its plans;
- ``picks``: the user naming, in a sentence of their own, one of the alternatives the agent
  just laid out ("let's go with …");
- ``gates``: hooks and pre-commit checks that block until a rule holds, and how a block cleared;
- ``lessons``: a command that failed, what changed, the same command then working;
- ``ci_lessons``: a CI step that failed, the commit that followed, a later run past it;
- ``reported``: a failure log the user pasted, the session's fix, and proof that it held;
- ``fix_commits``: a fix commit whose message states the cause, a failure seen before it and
  a check passing after it;
- ``git_ignored``: a path ``git add`` refused because the project ignores it;
- ``out_of_reach``: a step the agent's shell could not take here (a refused SSH key, no Docker
  daemon, a program not installed) that stood to the end and the person took up;
- ``git_state``: where the session left the work in git (commits, pushes, PRs), from git's output;
- ``left_open``: a check whose last run failed and nothing later shows passing, and a version
  or release a registry's own output shows published;
- ``refutations``: a claim a tool's outcome proved wrong, kept as the correction;
- ``instructions``: rules written in the project's instruction files, docs and loud comments;
- ``workflow``: the task-runner recipes, scripts and CI steps, as the session left them;
- ``dependencies``: what the manifests the session wrote or read declare;
- ``summaries``: the agent's own summaries (decisions, fixes, what files are for), trusted least;
- ``approved_plan``: the decisions of a plan the person approved (the agent's words, trusted as
  such, with a record of the approval);
- ``tooling``: the test/lint/build commands that worked and packages installed;
- ``checks``: the checks the session ran together in one passing line, its gate;
- ``structure``: where the names the conversation talks about are defined.

What they share is deliberate: every candidate cites the transcript line or the file line it
came from, and carries the time of that line (the fact is valid from then). Candidates saying
the same thing (subject, predicate, object, scope) are merged, their evidence pooled, so a
runner used twenty times is one fact with a few citations, and a claim another candidate
says whole (its text that one's beginning) is left out as the same claim cut short. Then
``reconcile`` holds every candidate against how the session ended (what it reverted,
rewrote or did anyway), after ``quiet`` has left out what is true but not worth a line (a
convention another one says in more words), and ``diagnosis`` attaches to each lesson the
record proved the cause the session stated for it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from claimgraph.capture.events import Transcript
from claimgraph.capture.extract.answers import answer_candidates
from claimgraph.capture.extract.approved_plan import approved_plan_candidates
from claimgraph.capture.extract.attached_evidence import noted
from claimgraph.capture.extract.causes import cause_candidates
from claimgraph.capture.extract.check_chains import check_chain_candidates
from claimgraph.capture.extract.ci_lessons import ci_lesson_candidates
from claimgraph.capture.extract.dependencies import dependency_candidates
from claimgraph.capture.extract.fix_commits import fix_commit_candidates, one_lesson_per_failure
from claimgraph.capture.extract.forbidden import screen_forbidden
from claimgraph.capture.extract.diagnosis import attach_diagnoses
from claimgraph.capture.extract.gates import gate_candidates
from claimgraph.capture.extract.git_done import screen_finished, still_told
from claimgraph.capture.extract.git_ignored import git_ignored_candidates
from claimgraph.capture.extract.git_state import git_state_candidates
from claimgraph.capture.extract.instructions import instruction_candidates
from claimgraph.capture.extract.left_open import left_open_candidates
from claimgraph.capture.extract.lessons import lessons_of
from claimgraph.capture.extract.out_of_reach import out_of_reach_candidates
from claimgraph.capture.extract.pass_caches import after_pass, after_rule, after_rules
from claimgraph.capture.extract.picks import pick_candidates
from claimgraph.capture.extract.quiet import quiet
from claimgraph.capture.extract.reconcile import digest, reconcile
from claimgraph.capture.extract.refutations import refutation_candidates
from claimgraph.capture.extract.reported import reported_lesson_candidates
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.shell_edited import screen_shell_edited
from claimgraph.capture.extract.statements import statement_candidates
from claimgraph.capture.extract.structure import module_index_candidates, structure_candidates
from claimgraph.capture.extract.summaries import summary_candidates
from claimgraph.capture.extract.workflow import one_fact_per_command, recipe_candidates
from claimgraph.capture.extract.working_forms import check_candidates

RULES: tuple[Callable[[SessionView], Iterable[dict[str, Any]]], ...] = (
    statement_candidates, answer_candidates, pick_candidates, gate_candidates, lessons_of,
    ci_lesson_candidates, reported_lesson_candidates, cause_candidates, fix_commit_candidates,
    git_ignored_candidates, out_of_reach_candidates,
    refutation_candidates, git_state_candidates, left_open_candidates,
    instruction_candidates, recipe_candidates, dependency_candidates, summary_candidates,
    approved_plan_candidates, check_candidates, check_chain_candidates, structure_candidates,
    module_index_candidates)
MAX_EVIDENCE = 3
#: What the view remembers that ``digest`` reads again after the rules
#: (``SessionView.forget_except``); the rest (the summaries' failed outputs, the requests'
#: turns, the statements' indexes, ...) is let go before it, and these once it has run:
#: ``reconcile`` reads only what ``digest`` gathered, ``attach_diagnoses`` only the events, and
#: a long session's extraction peaks in ``reconcile`` (held through it, these kept ~3.5 MB
#: of a 200 MB pass's peak). A key missing here is only computed again (a test checks that
#: none is).
READ_LATER = frozenset({"calls", "call_by_id", "judged", "actions", "file_ops",
                        "surviving_looks", "statements.user_texts", "typed_in_results",
                        "observations"})


#: What the view remembers that no rule after the one named, nor any stage after the rules,
#: reads: let go as soon as that rule has run. Every rule's indexes were held together until
#: all had run, so a long session's pass peaked with the statements' names of everything the
#: tools touched (~23 MB at 200 MB), the answers' work after each question (~11 MB) and the
#: summaries' failed outputs all alive at once (issue 29). Like ``READ_LATER``, a key read
#: again after it was let go is only computed again, the same (a test checks that none is).
LAST_READ_BY: dict[Callable[..., Any], frozenset[str]] = {
    statement_candidates: frozenset({
        "said.session_names", "said.changes", "said.agent_before", "said.turning",
        "statements.not_english",
        "statements.after_options", "statements.after_refusal", "statements.after_offer",
        "statements.brief_rules", "statements.removed_by_turn", "corrections.prompts",
        "requests.turns"}),
    answer_candidates: frozenset({"exchanges.replies", "afterwards.work",
                                  "afterwards.prompts"}),
    pick_candidates: frozenset({"offered.last_agent_text"}),
    gate_candidates: frozenset({"action_index"}),
    git_state_candidates: frozenset({"git_observed.unseen_commits",
                                     "git_observed.last_tried"}),
    summary_candidates: frozenset({"summaries.outputs", "summaries.program_runs",
                                   "summaries.failing_lines", "held.outside"}),
    structure_candidates: frozenset({"structure.named"}),
}


def extract(transcript: Transcript, *, project_root: str | None = None) -> list[dict[str, Any]]:
    """Candidate facts for one transcript segment; ``project_root`` (else the session's
    starting directory) names the project and anchors relative file citations."""
    view = SessionView.of(transcript, project_root)
    found = screen_shell_edited(view, screen_forbidden(view, quiet(one_fact_per_command(
        screen_finished(merge(rule_candidates(view)))))))
    found = noted(view, found, MAX_EVIDENCE)  # a file the person attached (attached.py)
    view.forget_except(READ_LATER)
    after_rules()  # the module caches only the rules read (pass_caches.py)
    later = digest(view)
    view.forget_except(frozenset())  # reconcile reads ``later``; the diagnoses, the events
    # one failure, one lesson: after the end-state checks, so a lesson they drop leaves the
    # other standing
    # a finished git state another fact told is left out only if that fact is still here
    found = still_told(one_lesson_per_failure(attach_diagnoses(view, reconcile(found, later))))
    after_pass()
    return found


def rule_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    """Every rule's candidates in ``RULES`` order, each rule's last-read memos let go once it
    has run (``LAST_READ_BY``)."""
    for rule in RULES:
        yield from rule(view)
        view.forget(LAST_READ_BY.get(rule, frozenset()))
        after_rule(rule)


def merge(candidates: Iterator[dict[str, Any]]) -> list[dict[str, Any]]:
    """One candidate per claim, in first-seen order, with the strongest confidence."""
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for found in candidates:
        key = (found["subject"], found["predicate"], found["object"], found["scope"])
        known = merged.setdefault(key, found)
        if known is not found:
            pooled = [*known["evidence"], *found["evidence"]]
            known["evidence"] = list(dict.fromkeys(pooled))[:MAX_EVIDENCE]
            known["confidence"] = max(known["confidence"], found["confidence"])
            if found.get("valid_from") is not None:
                known["valid_from"] = min(known.get("valid_from") or found["valid_from"],
                                          found["valid_from"])
    return _whole_only(list(merged.values()))


#: Words a claim needs before another that starts with it is the same claim said whole.
MIN_CONTAINED_WORDS = 5


def _whole_only(candidates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A claim that another candidate of the same capture says whole (same subject,
    predicate, scope and source, its text the other's beginning) is that one cut short: left
    out, its evidence added to the whole one's. Only prose is read so: a command or a name
    that begins another is a different one (``tox -e lint`` is not ``tox -e lint,type`` cut
    short). Sorted, the texts that start with a text follow it at once, so each is held
    against its next one only."""
    groups: dict[tuple[Any, ...], list[tuple[str, int]]] = {}
    for index, found in enumerate(candidates):
        if found.get("object_kind") != "literal":
            continue
        said = " ".join(str(found["object"]).split()).rstrip(" .;:").lower()
        key = (found["subject"], found["predicate"], found["scope"], found["source_type"])
        groups.setdefault(key, []).append((said, index))
    dropped: set[int] = set()
    for texts in groups.values():
        texts.sort()
        for (said, index), (other, whole) in zip(texts, texts[1:]):
            if len(said.split()) >= MIN_CONTAINED_WORDS and other.startswith(said) \
                    and len(other) > len(said) and not other[len(said)].isalnum():
                dropped.add(index)
                pooled = [*candidates[whole]["evidence"], *candidates[index]["evidence"]]
                candidates[whole]["evidence"] = list(dict.fromkeys(pooled))[:MAX_EVIDENCE]
    return [found for index, found in enumerate(candidates) if index not in dropped]
