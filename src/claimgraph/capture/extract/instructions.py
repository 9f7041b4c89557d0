"""Rules the project writes down for whoever works on it, from the files the session saw.

Who a file speaks to decides. An agent instruction file or contributor guide speaks to whoever
works on the code, so its rules count. A docs page most often describes the product -- a
design, a spec, a plan -- and its "must" binds what it describes; its lines count only when an
instruction file sends the reader there (``_named_by_instructions``), or when the line binds
the reader (``addresses_reader``); a page named as a record (a plan, a report, a dated or
numbered entry) never counts.

Agent instruction files (CLAUDE.md, AGENTS.md, GEMINI.md, .cursorrules, Copilot's
instructions), contributor guides and the project's own docs state conventions ("Always set
NODE_ENV=test when running tests", "No barrel exports"); code states them as loud comments
("// CRITICAL: Always update schemas when database changes"). Each agent loads only its own
instruction file, so a rule one agent read is news to the next agent on the project (the
SessionStart block leaves it out for an agent that loads the file itself:
``logic.own_instructions``). A line that was already in a file the session's own agent loads
on its own (``loaded_anyway``: CLAUDE.md read by Claude Code, AGENTS.md by Codex) is what the
next agent of that harness loads before it starts: not stored; a line the session put there is.

Only lines that read as a rule count (the same test as the user's own conventions, after a
"**Label**:" prefix is set aside), never under a heading that says where the product is going
or what it is ("Direction", "Vision", "Goals", "Overview": aims, not rules), at most a
few per file, and a comment only when it is marked
(CRITICAL / IMPORTANT / NOTE / WARNING). Each is cited as ``path: `quoted line``` so the audit
can check the file still says it. What the session itself wrote into such a file counts too
(it is what the project now says) -- except a docs page the session created: a page whose
first look is the agent writing it whole is the agent's own report or plan (its "Use …",
"No … needed" are its advice of the day), not a rule the project had; an instruction file
(CLAUDE.md, AGENTS.md, CONTRIBUTING.md …) written in the session still counts. A line the
session added to a docs page that was there before (``session_added_lines``) is the agent
documenting its own work, which may overstate it: when it gives a command the session never
ran (a subcommand it wrote into the CLI reference and never registered), it is not kept.

A guide's line (and a marked comment) counts only when it names something of this project
(``logic.binds_project``): a path, a command the session ran or the line says to run, a setting,
the project's name, or a file or folder of it the session saw. "Prefer composition over
inheritance", "Never raise `ValueError`", "Think before a large change" name nothing of it:
advice any guide could give, which the next agent follows or hears anyway. The lines the
session wrote are held to the same test (generic advice the agent added is no project rule),
unless a prompt of the person holds most of the line's words (``binds_project.said_in``: a
rule they dictated, "never push to main"); a file the person attached to a prompt is not
(they asked the work to follow it), nor a guide the session created after the person named
it in a prompt (the rules they asked to have written down).

A line keeps the part of the project its item label, parent bullet or heading names
(``instruction_scope``): "No direct CLI or I/O concerns" under "- **core-lib**:" is a rule
of that crate, not of the project.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Iterable, Iterator
from claimgraph.logic.lazy_regex import lazy_regex

from claimgraph.capture.extract.instruction_scope import line_scopes, project_parts, scoped
from claimgraph.capture.extract.loaded_anyway import loaded_anyway
from claimgraph.capture.extract.prose import (injected_files, split_sentences,
                                              without_injected)
from claimgraph.capture.extract.reads import SeenFile, surviving_looks
from claimgraph.capture.extract.session import OK, SessionView, candidate, file_evidence
from claimgraph.capture.extract.shell import call_cwd, command_text, invocations
from claimgraph.capture.extract.statements import CONVENTION, classify
from claimgraph.logic.binds_project import anchor, said_in, said_words

MAX_PER_DOC = 10
MAX_PER_CODE_FILE = 3
#: How deep a folder the session saw must lie for its name, as a word, to tie a line to the
#: project (``_domain_folders``).
MIN_FOLDER_DEPTH = 2
INSTRUCTION_FILES = frozenset({
    "claude.md", "agents.md", "gemini.md", ".cursorrules", ".windsurfrules",
    "copilot-instructions.md", "contributing.md", "conventions.md", "style.md",
    "styleguide.md", "development.md", "hacking.md"})
_DOC_DIRS = ("docs/", "doc/", ".cursor/rules/", ".github/", ".claude/")
#: Folders of designs still being weighed or decided: their "must" is a requirement of a
#: proposal, even in a CLAUDE.md kept there.
_DESIGN_FOLDERS = frozenset({"plans", "plan", "brainstorms", "brainstorm", "proposals", "proposal",
                             "drafts", "draft", "notes", "ideas", "scratch", "wip", "todo",
                             "archive", "archived", "decisions"})
#: Words that say a docs page is a record of its moment, not a standing guide, in its own name
#: or a folder's (``BUILD_PLAN.md``, ``cycle-3-introspection.md``, ``DISCUSSION.md``,
#: ``agent_artifacts/``): a plan's requirement, a report's finding, what someone said while the
#: work went on. Records named by their date or number (``docs/adr/0007-queue.md``,
#: ``2026-06-05-index-research.md``, a retro, a journal entry) are known by that name
#: (``_DATED``), so their genres need no word here; neither do specs and designs, whose
#: "X must …" binds the thing they describe and is left out line by line (``addresses_reader``).
_RECORD_WORDS = _DESIGN_FOLDERS | frozenset({
    "report", "findings", "introspection", "roadmap", "handoff", "artifact", "artifacts",
    "discussion", "discussions", "conversation", "conversations", "transcript", "transcripts",
    "chat", "minutes", "postmortem", "retro"})
#: A page named by its date or its number in a series: a decision record, a dated plan, a
#: retro, a journal entry -- true of its day, often superseded by a later one.
_DATED = lazy_regex(r"^(?:\d{4}-\d{2}(?:-\d{2})?|\d{2,4})(?=[-_ .])")
#: The agent folders (``.claude/``, ``.github/``, ``.gemini/``, ``.codex/``, ``.cursor/``) and,
#: within them, the folders of prompts the harness hands to a sub-agent, a skill or a command when
#: one is invoked (``.claude/agents/reviewer.md``, ``.claude/skills/x/SKILL.md``,
#: ``.github/prompts/``).
#: Their "YOU MUST ALWAYS RETURN OUTPUT" speaks to that sub-agent while it runs; in a project that
#: develops such prompts it is the product being written. Neither is a rule for whoever works on
#: the project (its CLAUDE.md / AGENTS.md and docs are).
_AGENT_HOMES = frozenset({".claude", ".github", ".gemini", ".codex", ".cursor", ".opencode"})
_PROMPT_DIRS = frozenset({"agents", "skills", "commands", "prompts", "output-styles", "chatmodes",
                          "plugins", "hooks", "workflows"})
_PROMPT_FILES = frozenset({"skill.md"})
#: "No overallocation", "No per-user quotas": in a docs page, a property of the design it
#: describes, not a rule for whoever works on the code -- unless it names the thing in a code
#: span. (An instruction file's "No …" is a rule, and is read as one.)
_BARE_NO = lazy_regex(r"^no\s+(?!\w+ing\b)(?:\S+\s+){0,4}\S+?(?:\s+exists?)?[.!]?$",
                      re.IGNORECASE)
#: A line whose subject is a count or a demonstrative of things named before it ("All three
#: must pass", "Both run in CI", "These must stay in sync"): what it binds is not in the line.
_REFERS_BACK = lazy_regex(r"^(?:(?:all|the)\s+(?:two|three|four|five|six)|both|these|those|"
                          r"(?:all|each|either|neither|none) of (?:them|these|those))\b",
                          re.IGNORECASE)
_CODE_SPAN = lazy_regex(r"`([^`\n]+)`")
#: "Don't worry if …", "Do not hesitate to …", "Never fear": the words of a prohibition that
#: reassure or encourage the reader -- nothing is forbidden. ("Don't worry about formatting,
#: the hook runs it" says what the reader need not do: a rule of sorts, kept.)
_REASSURES = lazy_regex(r"^(?:please\s+)?(?:do not|don't|dont|never|no need to)\s+"
                        r"(?:worry\s+(?:if|when|that)|panic|hesitate|fret|fear|be afraid)\b",
                        re.IGNORECASE)
#: "… must stay in sync", "should be kept in sync": an obligation to agree with something the
#: line does not name (the item beside it in a list, the section's other file) unless the line
#: names both sides ("with …", "A and B …") or says when or how to keep them so ("Run `make
#: gen` after editing the proto so the client stays in sync": that is the rule).
_HALF_SYNC = lazy_regex(r"\bin (?:sync|step)\s*[.!]?$", re.IGNORECASE)
_BOTH_SIDES = lazy_regex(r"\b(?:and|both|with|between|two|three|all|every|each|copies|after|"
                         r"before|when|whenever|once|so|run|regenerate)\b|&",
                         re.IGNORECASE)
#: A line that is wholly a slot of a template, to be filled in ("<One paragraph: what is
#: true>", "{{ describe the rule }}", "[TODO: the constraint]"): the file says what a rule there
#: would look like, not a rule.
_TEMPLATE_SLOT = lazy_regex(r"^(?:<[^<>]+>|\{\{[^{}]+\}\}|\[(?:TODO|TBD|FIXME)\b[^\]]*\])[.:]?$",
                            re.IGNORECASE)
_PROGRAM = lazy_regex(r"^[a-z][\w.-]*$")
_NUMBERED = lazy_regex(r"^\s*\d+[.)]\s+")
#: What a numbered step of a procedure does (a numbered "Use …" / "Avoid …" is still a rule).
_STEP = lazy_regex(r"^(?:run|put|place|write|name|import|open|build|deploy|install|create|"
                   r"push|merge|tag|wait|go|click|copy|set|start|stop|check|verify)\b",
                   re.IGNORECASE)
_LIST_ITEM = lazy_regex(r"^\s*(?:[-*•+]|\d+[.)])\s+")
_LABEL = lazy_regex(r"^(?P<label>\*\*[^*]{1,40}\*\*|[A-Z][\w /-]{1,30}):\s+(?P<rest>.+)$")
_MARKED_COMMENT = lazy_regex(r"^\s*(?://+|#+|--|/?\*+|;+)\s*(?P<mark>CRITICAL|IMPORTANT|NOTE|"
                             r"WARNING|NB)\b[:!-]?\s*(?P<rest>.+)$")
#: The marks ``_MARKED_COMMENT`` knows, as written (it matches case and all).
_COMMENT_MARKS = ("CRITICAL", "IMPORTANT", "NOTE", "WARNING", "NB")
_DOC_IMPERATIVE = lazy_regex(r"^(?:use|avoid|prefer|keep|put|name|write|run|place|import|"
                             r"do not|don't)\s+\S+.*\S", re.IGNORECASE)
#: Words that make a docs page's sentence an obligation rather than a description.
_OBLIGATION = lazy_regex(r"\b(?:must|never|always|required|requires|shall|do not|don't|"
                         r"should not|shouldn't|may not|forbidden|mandatory)\b", re.IGNORECASE)
#: The opening of a sentence addressed to its reader: an imperative with its obligation up
#: front ("Always use …", "Never write …", "Do not …", "Only …"), or "you"/"we" as the subject.
_TO_READER = lazy_regex(r"^(?:please\s+)?(?:always|never|only|do not|don't|must|make sure|"
                        r"ensure|remember)\b|^(?:you|we)\b(?:\s+\w+)?\s+(?:must|should|shall|"
                        r"need|have to|never|always|are required|may not|cannot|can't|do not|"
                        r"don't)\b", re.IGNORECASE)
#: The contributor's own work as the subject of an obligation ("Changes that alter the request
#: shape must be deployed first", "Both implementations must produce identical JSON",
#: "A CHANGELOG section must exist before tagging"): a rule on how the work is done.
_WORK = lazy_regex(r"\b(?:changes?|commits?|pull requests?|PRs?|implementations?|migrations?|"
                   r"tests?|changelog|releases?|branch(?:es)?)\b", re.IGNORECASE)
#: An obligation on what a contributor does to a thing, in the passive ("Generated files must
#: never be edited by hand", "Schema changes must be reviewed"): the reader is the one bound.
_DONE_BY_READER = lazy_regex(r"\b(?:must|should|shall)\s+(?:not\s+|never\s+|always\s+|only\s+)?"
                             r"be\s+(?:edited|committed|modified|changed|touched|regenerated|"
                             r"reviewed|merged|pushed|deployed|tested|formatted|linted|run)\b",
                             re.IGNORECASE)
#: A leading clause that sets when a rule applies ("When running E2E tests, …"), up to its comma.
_OCCASION = lazy_regex(r"^(?:when|whenever|if|before|after|while|once|unless|for|in|on)\b"
                       r"[^,]{0,80},\s*", re.IGNORECASE)
#: File names too common to say which page a guide means.
_GENERIC_NAMES = frozenset({"readme.md", "index.md"})
_MARKDOWN = lazy_regex(r"\*\*|__|(?<!\w)_(?=\w)|(?<=\w)_(?!\w)")
_HEADING_LINE = lazy_regex(r"^(?P<marks>#{1,6})\s+(?P<title>.+)$")
#: Sections that say where a product is going or what it is, not how to work on it: their
#: lines are aims ("Laptop-first: keep the default path light …"), not rules.
_ASPIRATION = lazy_regex(r"^(?:the\s+)?(?:product\s+|project\s+)?(?:direction|vision|mission|"
                         r"goals?|aims?|strategy|roadmap|overview|about|introduction|background|"
                         r"motivation|philosophy|why)\b", re.IGNORECASE)


def instruction_candidates(view: SessionView) -> Iterator[dict[str, Any]]:
    if not view.project:
        return
    seen = surviving_looks(view)
    named = _named_by_instructions(view, seen)
    anyway = loaded_anyway(view, seen)
    parts = project_parts([looks[-1].cited for looks in seen.values() if looks[-1].cited],
                          view.project)
    seen_folders = _domain_folders(looks[-1].cited for looks in seen.values() if looks[-1].cited)
    for looks in seen.values():
        cited = looks[-1].cited
        if cited is None or " " in cited:
            continue
        if looks[0].how == "write" and _docs_page(cited):
            continue  # the agent's own new page (module docstring)
        if not is_instruction_file(cited) and _prose(cited):
            continue  # a prompt template, spec or note: its **IMPORTANT** is not a code comment
        rules = (doc_page_rules if _docs_page(cited) else doc_rules) \
            if is_instruction_file(cited) else comment_rules
        limit = MAX_PER_CODE_FILE if rules is comment_rules else MAX_PER_DOC
        wrote = session_added_lines(looks)
        added = wrote if _docs_page(cited) else frozenset()
        own = wrote if cited in anyway else None
        pointed = any(look.attached for look in looks) or (  # the person asked to follow it
            looks[0].how == "write" and _named_by_person(view, cited))  # or to write it
        folders = seen_folders - frozenset(cited.lower().split("/")[:-1])
        found: dict[str, str] = {}
        for look in looks:
            scopes = line_scopes(look.text, _own_names(view, cited), parts) \
                if rules is not comment_rules else {}
            for line, rule in rules(look.text):
                if not_a_rule(rule):
                    continue
                if _docs_page(cited) and (_NUMBERED.match(line) or (
                        line not in added and not obligation(rule)) or (
                        line not in added and cited not in named
                        and not addresses_reader(rule))):
                    continue  # a procedure's step; a design doc's line; a spec's MUST
                if own is not None and line not in own:
                    continue  # the next agent of this harness loads the file: a repeat
                if not _docs_page(cited) and not pointed and anchor(
                        line, view.project, parts, _programs(view), folders) is None and not (
                        line in wrote and said_in(line, _requests(view))):
                    continue  # names nothing of this project: advice any guide could give
                stored = scoped(rule, scopes.get(line, ""))
                if stored is None:
                    continue  # binds a part the look did not show or cannot be named
                if line not in added or not unrun_commands(line, _ran(view)):
                    found.setdefault(stored, line)
        for rule, line in list(found.items())[:limit]:
            yield _candidate(view, looks[-1], line, rule)


def not_a_rule(rule: str) -> bool:
    """A line that has a rule's words and binds nothing (pure): it reassures the reader
    ("Don't worry if a tool is missing, the installer finds what is there"), or its first
    sentence asks something to stay in sync without naming with what ("`Order` in
    `models/order.ts` -- public, must stay in sync": the other side is the list item beside
    it, which the line alone does not carry)."""
    labelled = _LABEL.match(rule)
    body = _MARKDOWN.sub("", labelled["rest"] if labelled else rule).strip()
    sentences = list(split_sentences(body)) or [body]
    first = sentences[0]
    if _REASSURES.match(_OCCASION.sub("", first, count=1)) and not re.search(r"[:;]", first) \
            and not any(obligation(later) for later in sentences[1:]):
        return True  # "don't panic: run `make clean`", "… Never skip it." still tell
    half = _HALF_SYNC.search(first)
    return half is not None and not _BOTH_SIDES.search(first[:half.start()])


def _own_names(view: SessionView, cited: str) -> tuple[str, ...]:
    """The names a file's title may give the whole it speaks for: its own, the project's."""
    name = posixpath.basename(cited)
    return name, posixpath.splitext(name)[0], view.project or ""


def _named_by_instructions(view: SessionView, seen: dict[str, list[SeenFile]]) -> frozenset[str]:
    """The docs pages (``cited`` paths) an instruction file the session saw links or names:
    its own looks at CLAUDE.md, AGENTS.md, CONTRIBUTING.md …, and the file a harness injected
    into a prompt (Codex's "# AGENTS.md instructions"). Such a page is where the guide sends
    whoever works on the code ("Testing conventions: see the testing page"), so its rules are
    the guide's; a page nothing sends anyone to is most often a design, a spec or a record."""
    pages = {looks[-1].cited for looks in seen.values()
             if looks[-1].cited and _docs_page(looks[-1].cited)}
    if not pages:
        return frozenset()
    guides = [(looks[-1].cited, look.text) for looks in seen.values()
              if looks[-1].cited and is_instruction_file(looks[-1].cited)
              and not _docs_page(looks[-1].cited) for look in looks]
    guides += [("", text) for event in view.transcript.events
               if event.kind in ("meta", "prompt") and not event.is_sidechain
               for text in injected_files(event.text)]
    return frozenset(page for page in pages
                     if any(_names(text, page, posixpath.dirname(guide)) for guide, text in guides))


def _names(text: str, page: str, folder: str) -> bool:
    """Whether ``text`` names ``page``: by its path from the root, from the guide's folder
    (a relative link), or by its file name when that name is not a generic one."""
    forms = {page, posixpath.relpath(page, folder or ".")}
    if posixpath.basename(page).lower() not in _GENERIC_NAMES:
        forms.add(posixpath.basename(page))
    return any(re.search(r"(?<![\w.-])" + re.escape(form) + r"(?![\w-])", text, re.IGNORECASE)
               for form in forms)


def addresses_reader(rule: str) -> bool:
    """Whether a docs page's obligation binds the reader -- whoever works on the code -- rather
    than a thing the page describes. "Always run the linter", "Never edit generated files",
    "You must add a changeset": an imperative, or "you"/"we" as its subject. "The server MUST
    reply 400", "`count` must be a non-negative integer", "Rust and TypeScript implementations
    must agree": a subject before the obligation is what the page specifies (a product's
    behaviour, a format's field), a property of the design, not a rule for the contributor --
    unless that subject is the contributor's own work (``_WORK``: changes, commits, tests,
    implementations, releases) or the obligation is what someone does to it (``_DONE_BY_READER``:
    "must never be edited by hand"). A clause that sets the occasion ("When running E2E tests,
    always use …") is set aside first, and the obligation must be in what is left."""
    labelled = _LABEL.match(rule)
    body = labelled["rest"] if labelled else rule
    for sentence in split_sentences(body):
        if not _OBLIGATION.search(sentence):
            continue
        main = _OCCASION.sub("", _MARKDOWN.sub("", sentence).strip(), count=1)
        bound = _OBLIGATION.search(main)
        if bound and (_TO_READER.match(main) or _DOC_IMPERATIVE.match(main)
                      or _WORK.search(main[:bound.start()]) or _DONE_BY_READER.search(main)):
            return True
    return False


def session_added_lines(looks: list[SeenFile]) -> frozenset[str]:
    """The lines (stripped) the session itself put into a file that was there before it: an
    edit's new lines its old text lacked, a rewrite's lines no earlier look showed. In a docs
    page such a line is the agent's account of its own work; when it gives a command the
    session never ran (``unrun_commands``: "`tool slice …` — slice via the CLI", documented
    for a subcommand never registered) it overstates the end state and is not kept. The
    file's own lines, and added lines that give no such command (a contract the user decided,
    written down), still count."""
    before: set[str] = set()
    added: set[str] = set()
    for look in looks:
        lines = {line.strip() for line in look.text.splitlines() if line.strip()}
        if look.how == "read":
            before |= lines - added
            continue
        old = {line.strip() for line in look.replaced.splitlines()} if look.how == "edit" \
            else before
        added |= lines - old - before
    return frozenset(added)


def unrun_commands(line: str, ran: list[str]) -> list[str]:
    """The commands a line gives in code spans (``opk slice --model M``: a program and a
    subcommand or a flag) that no command the session ran begins with, of a program the
    session did run in another form. Only then does the session show what it claims: it had
    the tool at hand and never ran that. A tool the session never ran at all (a release step
    the person runs by hand, ``changeset version`` inside a script) is outside what the
    session can judge, so its line is kept."""
    found = []
    for span in _CODE_SPAN.findall(line):
        words = span.split()
        if len(words) < 2 or not _PROGRAM.match(words[0]) or not (
                words[1].startswith("-") or _PROGRAM.match(words[1])):
            continue
        head = " ".join(words[:2]) if not words[1].startswith("-") else words[0]
        used = [command for command in ran if _starts_command(command, words[0])]
        if used and not any(_starts_command(command, head) for command in used):
            found.append(span)
    return found


def _starts_command(command: str, head: str) -> bool:
    return re.search(r"(?:^|[;&|(]\s*|\s)" + re.escape(head) + r"(?![\w-])", command) is not None


def _ran(view: SessionView) -> list[str]:
    """The command lines the session ran that worked (a shell call with a verdict of ok)."""
    def compute(v: SessionView) -> list[str]:
        return [text for call in v.calls() for text in [command_text(call)]
                if text and v.outcome(call) == OK]
    return list(view.remembered("instructions.ran", compute))


def _named_by_person(view: SessionView, cited: str) -> bool:
    """A prompt the person typed names the file ("Write our contribution rules down in
    CONTRIBUTING.md"): a guide the session then created holds the rules they asked for."""
    return any(_names(text, cited, "") for text in _prompts(view))


def _requests(view: SessionView) -> list[tuple[str, ...]]:
    """The words of each prompt the person typed (``said_in``): a line the session wrote in
    their words is a rule they dictated."""
    return list(view.remembered("instructions.requests", lambda v: [
        said_words(text) for text in _prompts(v)]))


def _prompts(view: SessionView) -> list[str]:
    """The prompts the person typed, without what the harness injected into them."""
    return list(view.remembered("instructions.prompts", lambda v: [
        without_injected(event.text) for event in v.transcript.events if event.is_human_prompt]))


def _domain_folders(paths: Iterable[str]) -> frozenset[str]:
    """The names (lowercase) of the folders the session saw two or more levels below the root
    (``ledger`` of ``src/domain/shared/ledger/x.ts``): a part of what this project is about. The
    root's folders and theirs (``tests``, ``docs``, ``src/components``) are the scaffolding of
    any project, and their names are common words of generic advice ("Keep tests fast")."""
    return frozenset(folder.lower() for path in paths
                     for folder in path.split("/")[:-1][MIN_FOLDER_DEPTH:])


def _programs(view: SessionView) -> frozenset[str]:
    """The programs the session ran in calls that worked (``pnpm``, ``make``, ``check.sh``):
    each simple command's first word as the shell reads it, never a word of a quoted script
    (``python -c "…; import x"`` runs ``python``, not ``import``)."""
    def compute(v: SessionView) -> frozenset[str]:
        return frozenset(posixpath.basename(run.argv[0]) for call in v.calls()
                         if v.outcome(call) == OK and (text := command_text(call))
                         for run in invocations(text, call_cwd(call)) if run.argv[0] != "cd")
    return frozenset(view.remembered("instructions.programs", compute))


def _prose(cited: str) -> bool:
    """A prose file (markdown, text). Outside the instruction files and docs pages it is a
    command's prompt template, a spec or a note -- its "**IMPORTANT** You must only ever run
    this script once" speaks to whoever runs that command, not for the project -- and it has
    no code comments to read marked rules from."""
    return cited.lower().endswith((".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc"))


def _docs_page(cited: str) -> bool:
    """A page of the docs, not one of the named instruction files."""
    return is_instruction_file(cited) \
        and posixpath.basename(cited).lower() not in INSTRUCTION_FILES \
        and not cited.lower().endswith(".mdc")


def is_instruction_file(cited: str) -> bool:
    """An agent instruction file or contributor guide anywhere in the project, or a page of
    its docs -- but not a plan, proposal, brainstorm, draft or note: what is being weighed
    there is not yet a rule of the project."""
    name = posixpath.basename(cited).lower()
    folders = [part.lower() for part in cited.split("/")[:-1]]
    if _DESIGN_FOLDERS & set(folders):
        return False
    if name in _PROMPT_FILES or _prompt_definition(cited):
        return False  # a sub-agent's, skill's or command's prompt, not the project's rules
    if name in INSTRUCTION_FILES or name.endswith(".mdc"):
        return True
    if not (name.endswith(".md") and cited.lower().startswith(_DOC_DIRS)):
        return False
    words = {word for part in [*folders, name.rsplit(".", 1)[0]]
             for word in re.split(r"[^a-z]+", part)}
    return not (_DATED.match(name) or _RECORD_WORDS & words)  # BUILD_PLAN.md, adr/0007-queue.md


def _prompt_definition(cited: str) -> bool:
    """A file inside an agent folder's prompt definitions (``.claude/Agents/Engineer.md``,
    ``.github/prompts/review.prompt.md``): read when that sub-agent or command runs."""
    parts = [part.lower() for part in cited.split("/")[:-1]]
    return any(home in _AGENT_HOMES and below in _PROMPT_DIRS
               for home, below in zip(parts, parts[1:]))


def doc_rules(text: str) -> Iterator[tuple[str, str]]:
    """(verbatim line, the rule as a sentence) for each line of a doc that states one; a
    line that is only part of a wrapped sentence (the sentence goes on on the next line, or
    began on the one before) is not a rule on its own: cut there, it says something else."""
    fenced = False
    aims_below: int | None = None  # the level of an aspiration heading we are under
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING_LINE.match(line.strip())
        if heading:
            level = len(heading["marks"])
            if aims_below is not None and level <= aims_below:
                aims_below = None
            if aims_below is None and _ASPIRATION.match(_MARKDOWN.sub("", heading["title"])):
                aims_below = level
            continue
        if fenced or aims_below is not None or not line.strip() \
                or line.lstrip().startswith(("#", "|", ">")):
            continue
        if _wrapped(lines, index):
            continue
        item = _MARKDOWN.sub("", _LIST_ITEM.sub("", line)).strip()
        labelled = _LABEL.match(item)
        body = labelled["rest"] if labelled else item
        if _NUMBERED.match(line) and not labelled and _STEP.match(body) \
                and not any(classify(s) == CONVENTION for s in split_sentences(body)):
            continue  # "3. Run `node --run check`.": one step of a procedure, not a rule
        if _REFERS_BACK.match(body):
            continue  # "All three must pass before committing": the three are above it
        if _TEMPLATE_SLOT.match(body):
            continue  # "<One paragraph: what must remain true.>": a slot, not a rule
        if not body.endswith(":") and any(_is_rule(s) for s in split_sentences(body)):
            yield line.strip(), item.rstrip(".")


def doc_page_rules(text: str) -> Iterator[tuple[str, str]]:
    """``doc_rules`` of a docs page: a bare "No X" there describes the design (``_BARE_NO``)."""
    for line, rule in doc_rules(text):
        labelled = _LABEL.match(rule)
        body = labelled["rest"] if labelled else rule
        sentences = [s for s in split_sentences(body) if _is_rule(s)]
        if sentences and all(_BARE_NO.match(s.strip()) and "`" not in s for s in sentences):
            continue
        yield line, rule


def obligation(rule: str) -> bool:
    """Whether a line of a docs page, as the session found it, binds whoever works on the code:
    it says what must, must never or always be done (``must``, ``never``, ``always``,
    ``required``, ``do not``). A docs page is most often a design or a spec: its "Show the last
    3 runs", "Toast only", "No going back" describe what was built. Read is not decided: only
    what the page states as an obligation is a rule of the project (the lines the session
    itself added to a page are read as written, ``session_added_lines``). A numbered item of
    a docs page, whoever wrote it, is a step of a procedure ("3. **Check branch** - must be on
    `main`": what a script does, in order), never a rule on its own."""
    return any(_OBLIGATION.search(sentence) for sentence in split_sentences(rule))


def _wrapped(lines: list[str], index: int) -> bool:
    """The line continues the one before, or the next line continues it: prose lines of one
    paragraph or of one list item, neither a new item, a heading nor a blank."""
    def starts_block(text: str) -> bool:
        return not text.strip() or bool(_LIST_ITEM.match(text)) \
            or text.lstrip().startswith(("#", "|", ">", "```", "~~~"))

    after = lines[index + 1] if index + 1 < len(lines) else ""
    before = lines[index - 1] if index > 0 else ""
    continued = not starts_block(after) and not lines[index].rstrip().endswith((".", ":", "!", "?"))
    continues = not starts_block(lines[index]) and bool(before.strip()) \
        and not before.rstrip().endswith((".", ":", "!", "?")) and not before.lstrip().startswith(
            ("#", "|", ">"))
    return continued or continues or (not starts_block(lines[index]) and lines[index][:1] == " "
                                      and lines[index].lstrip()[:1].islower())


def _is_rule(sentence: str) -> bool:
    """A convention, or (in a doc, where sentences are addressed to the contributor) an
    imperative to use, avoid or prefer something."""
    return classify(sentence) == CONVENTION or bool(_DOC_IMPERATIVE.match(sentence))


def comment_rules(text: str) -> Iterator[tuple[str, str]]:
    """A marked comment that states a rule ("// CRITICAL: Always update schemas …"). A text
    naming no mark has no such line: it is not split and matched line by line."""
    if not any(mark in text for mark in _COMMENT_MARKS):
        return
    for line in text.splitlines():
        marked = _MARKED_COMMENT.match(line)
        if marked and classify(marked["rest"].strip(" */")) == CONVENTION:
            yield line.strip(), marked["rest"].strip(" */").rstrip(".")


def _candidate(view: SessionView, look: SeenFile, line: str, rule: str) -> dict[str, Any]:
    evidence = [file_evidence(look.cited or look.path, line)]
    return candidate("instructions", view.project or "", CONVENTION, rule, evidence=evidence,

                     object_kind="literal", subject_type="project", at=look.call.timestamp)
