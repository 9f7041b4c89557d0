"""Each memory_* tool's arguments and description: what the agent reads in ``tools/list``.

Descriptions say WHEN to call the tool (the agent decides from them alone), then what it
returns. docs/mcp.md describes the tools for users.
"""

from __future__ import annotations

from claimgraph.mcp.arguments import Arg

#: What an agent may say a fact comes from: itself. The user's own word is the user's to
#: give (the CLI's ``claimgraph assert``), never a tool call's (docs/sync.md, "Trust").
AGENT_SOURCE_TYPES = ("agent-note", "inferred")

SCOPE_NOTE = ("Memory is scoped: by default this project's facts and the user's cross-project "
              "ones.")

ENTITY = Arg("entity", "string", "the entity's name, e.g. a module, service, library or person "
             "(aliases and spelling variants like auth-service/AuthService resolve)", required=True)
ENTITY_SCOPE = Arg("entity_scope", "string", "the scope the name lives in: a project id or "
                   "'user' (default: this project, then user)")
PREDICATE = Arg("predicate", "string", "only this predicate, e.g. prefers, depends-on, "
                "failure-mode, decided-against")
AS_OF = Arg("as_of", "time", "what was believed valid at this instant (ISO date or date-time; "
            "default now)")
SCOPE = Arg("scope", "string", "only facts in this scope (default: this project and user)")
MIN_CONFIDENCE = Arg("min_confidence", "fraction", "only facts whose confidence after decay is "
                     "at least this (0..1)")
QUERY = Arg("query", "string", "words to look for: names, topics, error text", required=True)
LIMIT = Arg("limit", "integer", "at most this many facts (default 10)", minimum=1, maximum=100)

SEARCH_DOC = (
    "Search long-term memory (facts learned in earlier sessions) by words. Call this FIRST "
    "whenever the task touches something that may have history: before changing a module, "
    "choosing a library or tool, or repeating a command that failed before, and whenever the "
    "user asks what we know, decided or prefer about something. Returns the best facts "
    f"(subject, predicate, object, confidence, when) ranked by relevance. {SCOPE_NOTE}")
SEARCH = (QUERY, LIMIT)

RECALL_DOC = (
    "Recall what memory holds about a topic when memory_search finds too little: it escalates "
    "from facts to summaries of earlier sessions, then to the raw transcript lines of those "
    "sessions that mention the words. Use it for 'did we ever discuss/try X?' questions. "
    "Returns the tier that answered (facts, episodes, evidence or nothing); each fact says in "
    "'learned' how it was: 'you said' (the user's words), 'seen', the file it cites, or "
    f"'agent's note' (an earlier agent's words, weigh them lower). {SCOPE_NOTE}")
RECALL = (QUERY, Arg("min_hits", "integer", "escalate past facts when fewer than this many are "
                     "found (default 1)", minimum=1), LIMIT)

FACTS_DOC = (
    "List what memory believes about one named entity (a module, service, library, person, "
    "the project itself). Call this when you know the name and want everything recorded about "
    "it, including decisions and known failure modes; use as_of to see what was believed at an "
    f"earlier time, include_invalidated for superseded values too. {SCOPE_NOTE}")
FACTS = (ENTITY, ENTITY_SCOPE, PREDICATE,
         Arg("direction", "choice", "out: facts about the entity (default); in: facts pointing "
             "at it; both", choices=("out", "in", "both")),
         AS_OF, SCOPE, Arg("include_invalidated", "boolean", "also superseded and invalidated "
                           "facts (default false)"), MIN_CONFIDENCE)

NEIGHBOR_DOC = (
    "Explore the graph around an entity: what it depends on, contains, is tested by, and what "
    "points at it, within a few hops. Call this to understand how a component connects before "
    "changing it. With query, walks toward facts mentioning those words instead of "
    f"breadth-first. {SCOPE_NOTE}")
NEIGHBOR = (ENTITY, ENTITY_SCOPE,
            Arg("depth", "integer", "hops from the entity (default 1, at most 6)", minimum=0,
                maximum=6),
            PREDICATE, SCOPE, AS_OF, MIN_CONFIDENCE,
            Arg("query", "string", "walk toward facts mentioning these words"),
            Arg("budget", "integer", "with query: at most this many facts (default 25)", minimum=1),
            Arg("beam", "integer", "with query: facts expanded per round (default 8)", minimum=1))

HISTORY_DOC = (
    "Show every version of one belief (subject + predicate), oldest first, including superseded "
    "ones with when and why they changed. Call this when a fact looks outdated or when the "
    "user asks how a decision evolved.")
HISTORY = (Arg("subject", "string", "the entity the belief is about", required=True),
           Arg("subject_scope", "string", "the scope the subject lives in (default: this "
               "project, then user)"),
           Arg("predicate", "string", "the predicate, e.g. prefers, has-version", required=True))

CONFLICTS_DOC = (
    "List open conflicts: pairs of recorded beliefs that contradict each other and await a "
    "human ruling, plus claims whose cited code no longer backs them. Call this before relying "
    "on a decision that might be contested, or when the user asks what memory is unsure about.")

COACH_DOC = (
    "Get a short briefing for a task: the standing decisions and preferences, the hazards "
    "(lessons from earlier failures) and the open conflicts that touch it. Call this at the "
    "start of a non-trivial task, with the task in your own words. push=false means memory has "
    "nothing relevant to say.")
COACH = (Arg("task", "string", "the task at hand, in a sentence or two", required=True),)

ASSERT_DOC = (
    "Record a fact in long-term memory so later sessions know it. Call this when the user "
    "states a lasting decision, preference or convention ('we use uv', 'never call the billing "
    "API in tests'), or when you learn something durable the hard way (a failure mode and its "
    "fix). Do not record guesses or things true only for this task. The conflict policy "
    "decides: created, reinforced (already known), superseded (replaces an older value) or "
    "flagged (contradicts a decision; left for review). Facts go to this project's scope "
    "unless scope is 'user' (the user's habits across projects).")


def assert_args(classes: tuple[str, ...], source_types: tuple[str, ...]) -> tuple[Arg, ...]:
    return (
        Arg("subject", "string", "what the fact is about, e.g. billing-api, the project, user",
            required=True),
        Arg("subject_type", "string", "e.g. service, library, module, person"),
        Arg("subject_scope", "string", "the subject's scope (default: scope)"),
        Arg("predicate", "string", "e.g. prefers, decided-against, depends-on, failure-mode, "
            "tested-by, built-with (or your own as x/name)", required=True),
        Arg("object", "string", "the value: an entity name or a short statement", required=True),
        Arg("object_type", "string", "e.g. library, tool"),
        Arg("object_scope", "string", "the object's scope (default: scope)"),
        Arg("object_kind", "choice", "for predicates taking either: entity or literal",
            choices=("entity", "literal")),
        Arg("class", "choice", "epistemic class (default: the predicate's own)", choices=classes),
        Arg("scope", "string", "this project's id (default); 'user' only when the user enabled "
            "it (mcp_user_scope)"),
        Arg("confidence", "fraction", "0..1 (default 0.8; capped by the source type)"),
        Arg("source_type", "choice", "where the claim comes from: you (agent-note, the "
            "default) or your inference", choices=source_types),
        Arg("episode", "string", "only this session's episode (the default)"),
        Arg("on_conflict", "choice", "override the policy",
            choices=("supersede", "flag", "ignore")),
        Arg("valid_from", "time", "when it becomes true (default now; never earlier)"),
        Arg("valid_until", "time", "when it stopped being true"),
    )


FORGET_DOC = (
    "Forget a fact that is wrong, outdated or should never have been recorded. Call this when "
    "the user says to forget something, or when you find a recorded fact is false. It stops "
    "being shown in context, search and coach; its history keeps it with your reason. Give the "
    "fact's id from memory_search or memory_facts. This only hides the fact: deleting it for "
    "good (a leaked secret) is for the user, with `claimgraph purge`.")
FORGET = (Arg("fact_id", "string", "the fact's id, as memory_search or memory_facts show it",
              required=True),
          Arg("reason", "string", "why it should be forgotten (kept with the fact)"))
