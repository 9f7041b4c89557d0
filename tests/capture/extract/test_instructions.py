"""Rules written in the project's instruction files and loud comments the session saw."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.instructions import (
    addresses_reader, comment_rules, doc_page_rules, doc_rules, is_instruction_file, obligation)

from .extract_helpers import ROOT, Session, only

CLAUDE_MD = """# Project

Modern TypeScript monorepo.

## Key Patterns

- **Error handling**: Always use `@repo/result` for Result types
- **Testing**: Always set `NODE_ENV=test` when running tests
- **No barrel exports**: Avoid index.ts re-exports
- The dashboard shows metrics.

```bash
pnpm test   # never run this without NODE_ENV
```
"""


def test_rules_in_an_instruction_file_the_agent_read_are_conventions():
    session = Session(agent="codex")
    session.tool("shell", {"command": ["bash", "-lc", "sed -n '1,200p' CLAUDE.md"],
                           "workdir": ROOT}, output=CLAUDE_MD, extras={"exit_code": 0})
    found = only(session.extract(), "x/convention")
    assert [c["object"] for c in found] == [
        "Error handling: Always use `@repo/result` for Result types",
        "Testing: Always set `NODE_ENV=test` when running tests",
        "No barrel exports: Avoid index.ts re-exports"]
    assert found[0]["evidence"] == [
        "CLAUDE.md: `- **Error handling**: Always use `@repo/result` for Result types`"]


def test_a_claude_read_with_line_numbers_is_the_same_file():
    numbered = "\n".join(f"{i + 1:>6}→{line}" for i, line in enumerate(CLAUDE_MD.splitlines()))
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"}, output=numbered)
    assert len(only(session.extract(), "x/convention")) == 3


def test_a_loud_comment_in_code_is_a_convention_and_a_quiet_one_is_not():
    code = ("// CRITICAL: Always update schemas when the database changes\n"
            "// always returns a promise\nexport const x = 1\n")
    assert [rule for _, rule in comment_rules(code)] == [
        "Always update schemas when the database changes"]


def test_only_docs_are_instruction_files():
    assert is_instruction_file("CLAUDE.md") and is_instruction_file("docs/conventions.md")
    assert is_instruction_file(".cursor/rules/style.mdc")
    assert not is_instruction_file("src/app.ts") and not is_instruction_file("NOTES.md")


def test_code_blocks_and_descriptions_in_a_doc_are_not_rules():
    assert list(doc_rules("The app never sleeps.\n```\n- Always use x\n```\n")) == []
    assert [rule for _, rule in doc_rules("- Always use x\n")] == ["Always use x"]


def test_an_instruction_file_of_someone_elses_code_is_not_the_projects():
    for folder in ("node_modules/left-pad", "vendor/github.com/x/y", ".venv/lib/python3.12/"
                   "site-packages/pkg", "venv/lib/pkg", "lib/python3.12/site-packages/pkg"):
        session = Session()
        session.tool("Read", {"file_path": f"{ROOT}/{folder}/CLAUDE.md"}, output=CLAUDE_MD)
        assert only(session.extract(), "x/convention") == [], folder


def test_an_instruction_file_outside_the_project_root_is_not_the_projects():
    session = Session()
    session.tool("Read", {"file_path": "/home/dev/other/CLAUDE.md"}, output=CLAUDE_MD)
    session.tool("Read", {"file_path": f"{ROOT}/../other/AGENTS.md"}, output=CLAUDE_MD)
    assert only(session.extract(), "x/convention") == []


def test_the_projects_own_instruction_file_still_counts():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"}, output=CLAUDE_MD)
    assert len(only(session.extract(), "x/convention")) == 3


def test_a_line_cut_from_a_wrapped_sentence_is_not_a_rule():
    from claimgraph.capture.extract.instructions import doc_rules

    doc = ("Generated clients must not be edited by hand, except when\n"
           "the generator itself is being fixed.\n\n"
           "- Always run the linter before committing.\n"
           "- Keep handlers thin: parse, call a service,\n"
           "  and render.\n")
    assert [rule for _, rule in doc_rules(doc)] == ["Always run the linter before committing"]


def test_a_line_whose_subject_is_named_above_it_is_not_a_rule_alone():
    from claimgraph.capture.extract.instructions import doc_rules

    doc = ("```bash\nmise run fmt\nmise run check\nmise run test\n```\n\n"
           "All three must pass before committing.\n\n"
           "These must stay in sync with the schema.\n\n"
           "Always run the formatter before committing.\n")
    assert [rule for _, rule in doc_rules(doc)] == ["Always run the formatter before committing"]


def test_a_template_slot_is_not_a_rule():
    from claimgraph.capture.extract.instructions import doc_rules

    doc = ("## Invariants\n\n<One paragraph: what is true and must remain true.>\n\n"
           "- {{ a rule that must always hold }}\n"
           "- [TODO: say what must never be committed]\n"
           "- Never commit generated files.\n")
    assert [rule for _, rule in doc_rules(doc)] == ["Never commit generated files"]


def test_plans_and_brainstorms_are_not_the_projects_rules():
    from claimgraph.capture.extract.instructions import is_instruction_file

    assert not is_instruction_file("docs/adr/0007-queue.md")  # a record, may be superseded
    assert is_instruction_file("docs/testing.md")
    assert not is_instruction_file("docs/plans/2026-01-02-storage.md")
    assert not is_instruction_file("docs/brainstorms/search-index.md")


def test_a_numbered_step_of_a_procedure_is_not_a_rule():
    from claimgraph.capture.extract.instructions import doc_rules

    doc = ("## Deploying\n\n1. Build the worker.\n2. Run `node --run check`.\n"
           "3. **Type imports**: Use `import type`.\n4. Never deploy on a Friday.\n"
           "5. Use pnpm, not npm.\n")
    assert [rule for _, rule in doc_rules(doc)] == [
        "Type imports: Use `import type`", "Never deploy on a Friday", "Use pnpm, not npm"]


def test_aims_under_a_product_direction_heading_are_not_rules():
    from claimgraph.capture.extract.instructions import doc_rules
    doc = ("# Guide\n\n## Product Direction\n\n"
           "- Zero-setup: keep the default path lightweight so it runs on a laptop.\n"
           "### Details\n- Keep the core small and composable.\n\n"
           "## Conventions\n\n- Use `bun` for package and script operations.\n")
    assert [rule for _, rule in doc_rules(doc)] == [
        "Use `bun` for package and script operations"]


def test_a_docs_page_the_agent_created_is_its_report_not_a_project_rule():
    session = Session()
    session.write(f"{ROOT}/docs/cleanup-report.md", "# Report\n\n- Keep the current history\n"
                  "- Use read-only keys when possible\n")
    session.write(f"{ROOT}/CLAUDE.md", "# Rules\n\n- Always use pathlib for paths in `src/`\n")
    assert [c["object"] for c in only(session.extract(), "x/convention")] == [
        "Always use pathlib for paths in `src/`"]


def test_a_docs_page_the_project_had_still_counts_when_the_session_edits_it():
    """Its own lines that bind (``obligation``) do, and so do the lines the session added --
    except one giving a command the session never ran of a program it did run: the agent
    documenting what it did not do.
    A program the session never ran at all is outside what it can judge: the line stays."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/docs/dev.md"},
                 output="# Dev\n\n- Always use read-only keys\n")
    session.write(f"{ROOT}/docs/dev.md", "# Dev\n\n- Always use read-only keys\n"
                  "- Keep every migration reversible\n")
    session.edit(f"{ROOT}/docs/dev.md", "- Keep every migration reversible\n",
                 "- Keep every migration reversible\n- `shop slice --model M` must be run "
                 "before every export\n")
    session.tool("Read", {"file_path": f"{ROOT}/docs/dev.md"},
                 output="# Dev\n\n- Always use read-only keys\n"
                        "- Keep every migration reversible\n"
                        "- `shop slice --model M` must be run before every export\n")
    objects = {c["object"] for c in only(session.extract(), "x/convention")}
    assert "`shop slice --model M` must be run before every export" in objects  # shop never ran
    session.bash("shop export --out x.zip", output="exported")
    objects = {c["object"] for c in only(session.extract(), "x/convention")}
    assert objects == {"Always use read-only keys", "Keep every migration reversible"}
    session.bash("shop slice --model M --out x.gcode", output="sliced")
    objects = {c["object"] for c in only(session.extract(), "x/convention")}
    assert "`shop slice --model M` must be run before every export" in objects


def test_an_instruction_file_keeps_what_the_session_added():
    """A line the session put into an instruction file counts even in the file its own agent
    loads (tests/capture/extract/test_loaded_anyway.py): what the project now says."""
    session = Session(agent="codex")
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"},
                 output="# Rules\n\n- Always use pathlib for paths in `src/`\n")
    session.edit(f"{ROOT}/CLAUDE.md", "- Always use pathlib for paths in `src/`\n",
                 "- Always use pathlib for paths in `src/`\n- Never edit `gen/` by hand\n")
    objects = {c["object"] for c in only(session.extract(), "x/convention")}
    assert objects == {"Always use pathlib for paths in `src/`", "Never edit `gen/` by hand"}


def test_a_read_look_keeps_the_shown_output_and_gives_the_file_text():
    """What a session read is held once (by its result event), not again without its
    line numbers: the file's text is derived each time it is asked for."""
    from claimgraph.capture.extract.reads import surviving_looks
    from claimgraph.capture.extract.reconcile import digest
    from claimgraph.capture.extract.session import SessionView

    numbered = "\n".join(f"{i + 1:>6}→{line}" for i, line in enumerate(CLAUDE_MD.splitlines()))
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"},
                 output=numbered + "\n\n<system-reminder>\nMalware check.\n</system-reminder>")
    view = SessionView.of(session.transcript(), ROOT)
    result = next(e for e in view.transcript.events if e.kind == "tool_result")
    [look] = surviving_looks(view)[f"{ROOT}/CLAUDE.md"]
    assert look.shown is result  # the result event itself (it may hold its text compressed)
    assert look.text == CLAUDE_MD.rstrip("\n")
    [change] = digest(view).files["CLAUDE.md"]
    assert (change.kind, change.new) == ("read", CLAUDE_MD.rstrip("\n"))


def test_a_page_named_as_a_plan_or_a_report_is_not_the_projects_rules():
    for cited in ("docs/BUILD_PLAN.md", "docs/cycle-3-introspection.md", "docs/audit-report.md",
                  "docs/agent_artifacts/notes.md", "docs/codex_artifacts/run.md",
                  "docs/DISCUSSION.md", "docs/chat-log.md", "docs/meeting-minutes.md"):
        assert not is_instruction_file(cited), cited
    for cited in ("docs/planning.md", "docs/testing.md", "CONTRIBUTING.md", "docs/reporting.md",
                  "docs/audit.md", "docs/static-analysis.md"):
        assert is_instruction_file(cited), cited


def test_a_bare_no_in_a_docs_page_describes_the_design_not_a_rule():
    page = ("# Model\n\n- No overallocation\n- No per-user access controls\n\n"
            "**No Week table exists.** The week window is computed.\n\n"
            "- No `any` in public types\n- Always use the helpers in `crud.ts` for writes.\n")
    assert [rule for _, rule in doc_page_rules(page)] == [
        "No `any` in public types", "Always use the helpers in `crud.ts` for writes"]
    assert "No overallocation" in [rule for _, rule in doc_rules(page)]  # CLAUDE.md & co.


def test_a_prose_file_outside_the_instruction_files_gives_no_marked_rules():
    """A command's prompt template the agent read (``.codex/prompts/x.md``) says
    "**IMPORTANT** You must …" to whoever runs that command: markdown emphasis, not a marked
    code comment, and not a rule of the project. A code file's marked comment still is."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/.codex/prompts/specify.md"},
                 output="Do this:\n\n1. Run the script once.\n"
                        "  **IMPORTANT** You must always run the script from the root.\n")
    session.tool("Read", {"file_path": f"{ROOT}/src/db.ts"},
                 output="// IMPORTANT: Always update schema.sql when the table changes\n")
    objects = {c["object"] for c in only(session.extract(), "x/convention")}
    assert objects == {"Always update schema.sql when the table changes"}


DESIGN_PAGE = """# Widgets

## Decisions

- **Alerts**: Banner only. No email digest
- Show the last 5 builds on the status page
- Generated files must never be edited by hand

## Release

1. **Check branch** - must be on `trunk`
2. **Publish** - runs the upload
"""


def test_a_docs_page_only_read_gives_its_obligations_not_its_design():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/docs/widgets.md"}, output=DESIGN_PAGE)
    assert [c["object"] for c in only(session.extract(), "x/convention")] == [
        "Generated files must never be edited by hand"]


def test_obligation_needs_a_binding_word():
    assert obligation("Always run the linter")
    assert obligation("Generated files are required to carry a header. Keep them small")
    assert not obligation("Show the last 5 builds")
    assert not obligation("Banner only. No email digest")


def _conventions_after_edit(old: str, new: str) -> list[str]:
    """The conventions of a session that read the design page, then edited it."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/docs/widgets.md"}, output=DESIGN_PAGE)
    session.edit(f"{ROOT}/docs/widgets.md", old, new)
    return [c["object"] for c in only(session.extract(), "x/convention")]


def test_a_numbered_step_the_session_added_to_a_docs_page_is_no_rule():
    assert _conventions_after_edit(
        "2. **Publish** - runs the upload\n",
        "2. **Publish** - runs the upload\n3. **Ensure tags** - always push tags\n") == [
        "Generated files must never be edited by hand"]


def test_a_docs_page_the_session_wrote_into_keeps_what_it_added():
    assert _conventions_after_edit(
        "## Release\n", "## Release\n\nUse the release script to publish.\n") == [
        "Generated files must never be edited by hand", "Use the release script to publish"]


def test_an_instruction_file_read_still_gives_its_imperatives():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/AGENTS.md"},
                 output="# Rules\n\n- Use tabs for indentation in `*.go` files\n")
    assert [c["object"] for c in only(session.extract(), "x/convention")] == [
        "Use tabs for indentation in `*.go` files"]


def test_prompts_for_sub_agents_skills_and_commands_are_not_the_projects_rules():
    """A sub-agent's, skill's or command's prompt speaks to that agent while it runs."""
    for cited in (".claude/agents/reviewer.md", ".claude/Agents/Engineer.md",
                  ".claude/skills/release/SKILL.md", ".claude/Skills/CORE/SKILL.md",
                  ".claude/commands/ship.md", ".github/prompts/review.prompt.md",
                  ".gemini/commands/plan.md", "tools/lint/SKILL.md"):
        assert not is_instruction_file(cited), cited
    for cited in ("CLAUDE.md", ".claude/CLAUDE.md", ".github/copilot-instructions.md",
                  ".claude/rules/testing.md", "docs/agents/overview.md", "agents/AGENTS.md"):
        assert is_instruction_file(cited), cited


SPEC_PAGE = """# Token service

- The server must reply 400 to a request without `aud`.
- `count` must be a non-negative integer
- Both implementations must produce identical JSON for the same data.
- Always run `make check` before committing.
- You must add a changeset before a release.
- When running the E2E suite, never stream its output.
- If an override must exist, keep it on the legacy option.
"""


def test_a_docs_page_nothing_sends_the_reader_to_gives_only_what_binds_the_reader():
    """A spec's MUST binds the thing it describes; the reader's rules are imperatives, "you"
    or "we", or the contributor's own work (changes, implementations, commits)."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/docs/token-service.md"}, output=SPEC_PAGE)
    assert [c["object"] for c in only(session.extract(), "x/convention")] == [
        "Always run `make check` before committing",
        "You must add a changeset before a release"]


def test_a_docs_page_an_instruction_file_names_gives_its_obligations():
    for guide, text in (("CLAUDE.md", "Read docs/token-service.md before changing the API.\n"),
                        ("docs/CONTRIBUTING.md", "See [the service](token-service.md).\n")):
        session = Session()
        session.tool("Read", {"file_path": f"{ROOT}/{guide}"}, output=text)
        session.tool("Read", {"file_path": f"{ROOT}/docs/token-service.md"}, output=SPEC_PAGE)
        objects = [c["object"] for c in only(session.extract(), "x/convention")]
        assert "The server must reply 400 to a request without `aud`" in objects, guide
        assert "`count` must be a non-negative integer" in objects, guide


def test_a_page_named_in_an_instruction_file_the_harness_injected_counts_too():
    session = Session(agent="codex")
    session.event("meta", derived=True, text="# AGENTS.md instructions for /repo\n\n"
                  "<INSTRUCTIONS>\nAPI rules: docs/token-service.md\n</INSTRUCTIONS>")
    session.tool("shell", {"command": ["bash", "-lc", "cat docs/token-service.md"],
                           "workdir": ROOT}, output=SPEC_PAGE, extras={"exit_code": 0})
    objects = [c["object"] for c in only(session.extract(), "x/convention")]
    assert "The server must reply 400 to a request without `aud`" in objects


def test_a_generic_name_or_another_page_is_not_a_link():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/CLAUDE.md"},
                 output="See README.md and docs/other-service.md.\n")
    session.tool("Read", {"file_path": f"{ROOT}/docs/README.md"}, output=SPEC_PAGE)
    objects = [c["object"] for c in only(session.extract(), "x/convention")]
    assert "The server must reply 400 to a request without `aud`" not in objects
    assert "Always run `make check` before committing" in objects


def test_lines_the_session_added_to_a_docs_page_count_as_written():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/docs/token-service.md"}, output="# Token\n")
    session.edit(f"{ROOT}/docs/token-service.md", "# Token\n",
                 "# Token\n\n- The `aud` claim must be the service's own name.\n")
    assert [c["object"] for c in only(session.extract(), "x/convention")] == [
        "The `aud` claim must be the service's own name"]


def test_addresses_reader():
    assert addresses_reader("Never edit generated files")
    assert addresses_reader("Generated files must never be edited by hand")
    assert addresses_reader("We always squash commits")
    assert addresses_reader("Testing: Always set `NODE_ENV=test`")
    assert addresses_reader("Changes to the schema must be deployed before the clients")
    assert addresses_reader("Both implementations must produce identical JSON for the same data")
    assert addresses_reader("When running the E2E suite, never stream its output")
    assert not addresses_reader("If an override must exist, keep it on the legacy option")
    assert not addresses_reader("The API never returns null")
    assert not addresses_reader("`status` must be one of three values")
    assert not addresses_reader("Requests must be signed with the client key")
    assert not addresses_reader("Use the cache")  # no obligation: the page's line as read


def test_a_page_named_by_its_date_or_number_is_a_record():
    for cited in ("docs/adr/0007-queue.md", "docs/2026-06-05-index-research.md",
                  "docs/retros/2026-08-19-outage.md", "docs/rfcs/0012-sync.md",
                  "docs/codex_artifacts/run.md", "docs/DECISIONS.md"):
        assert not is_instruction_file(cited), cited
    for cited in ("docs/v2-migration.md", "docs/http2.md", "packages/chat/CLAUDE.md"):
        assert is_instruction_file(cited), cited


STYLE_GUIDE = """# Contributing

## Style

- Prefer composition over inheritance
- Never raise `ValueError` for a missing key
- Do not hand-edit generated files in `dist/`
- Run `pnpm test` before pushing
- Keep billing code free of network calls
"""


def test_a_guide_keeps_only_the_lines_that_name_something_of_the_project():
    """Advice any guide of the language could give is not a rule of this project; a line
    naming a path, a command, or a folder the session saw is (logic/binds_project.py)."""
    session = Session(agent="codex")
    session.tool("Read", {"file_path": f"{ROOT}/src/domain/billing/invoice.ts"},
                 output="export {}\n")
    session.tool("Read", {"file_path": f"{ROOT}/CONTRIBUTING.md"}, output=STYLE_GUIDE)
    objects = {c["object"] for c in only(session.extract(), "x/convention")}
    assert objects == {"Do not hand-edit generated files in `dist/`",
                       "Run `pnpm test` before pushing",
                       "Keep billing code free of network calls"}


def test_generic_advice_the_session_wrote_into_a_guide_is_not_kept_either():
    session = Session()
    session.write(f"{ROOT}/AGENTS.md", "# Rules\n\n- Think before every large change\n"
                  "- Never edit `gen/` by hand\n")
    assert {c["object"] for c in only(session.extract(), "x/convention")} == {
        "Never edit `gen/` by hand"}


def test_a_marked_comment_needs_a_name_of_the_project_beyond_its_own_folder():
    """A comment in ``src/auth/`` that says "auth" names only where it stands."""
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/src/auth/service.ts"},
                 output="// CRITICAL: The auth key must match the user's key\n"
                        "// IMPORTANT: Always update schema.sql when a table changes\n")
    assert {c["object"] for c in only(session.extract(), "x/convention")} == {
        "Always update schema.sql when a table changes"}


def test_a_word_of_a_quoted_script_is_not_a_program_the_session_ran():
    """``python -c "…; import x"`` ran python: "Use `import module` …" names no command."""
    session = Session(agent="codex")
    session.tool("shell", {"command": ["bash", "-lc", "python -c 'import os; import sys'"],
                           "workdir": ROOT}, output="", extras={"exit_code": 0})
    session.tool("shell", {"command": ["bash", "-lc", "tox -e lint"], "workdir": ROOT},
                 output="ok", extras={"exit_code": 0})
    session.tool("Read", {"file_path": f"{ROOT}/CONTRIBUTING.md"},
                 output="# Style\n\n- Use `import module` rather than `from module import x`\n"
                        "- Use `tox -e lint` before pushing\n")
    assert {c["object"] for c in only(session.extract(), "x/convention")} == {
        "Use `tox -e lint` before pushing"}


def test_a_folder_word_ties_a_line_only_for_a_folder_below_the_scaffolding():
    """``src/domain/shared/ledger/`` is this project's; ``tests/`` and ``src/components/`` are
    every project's, and "Keep tests fast" is advice, not a rule of the project."""
    session = Session(agent="codex")
    for path in ("src/domain/shared/ledger/entries.ts", "tests/unit/a.test.ts",
                 "src/components/x.tsx"):
        session.tool("Read", {"file_path": f"{ROOT}/{path}"}, output="export {}\n")
    session.tool("Read", {"file_path": f"{ROOT}/CONTRIBUTING.md"},
                 output="# Style\n\n- Ledger entries: Use the ledger helpers for every write\n"
                        "- Always keep components small\n- Never skip tests\n")
    assert {c["object"] for c in only(session.extract(), "x/convention")} == {
        "Ledger entries: Use the ledger helpers for every write"}


def test_a_guide_the_person_asked_the_session_to_write_keeps_all_its_rules():
    """What the person asked to have written down is theirs; the same file written on the
    agent's own initiative is held to the test like any guide."""
    guide = "# Rules\n\n- Keep the API stable\n- Never edit `gen/` by hand\n"
    asked = Session()
    asked.prompt("Write our contribution rules down in CONTRIBUTING.md.")
    asked.write(f"{ROOT}/CONTRIBUTING.md", guide)
    assert {c["object"] for c in only(asked.extract(), "x/convention")} == {
        "Keep the API stable", "Never edit `gen/` by hand"}
    unasked = Session()
    unasked.prompt("Tidy the repository.")
    unasked.write(f"{ROOT}/CONTRIBUTING.md", guide)
    assert {c["object"] for c in only(unasked.extract(), "x/convention")} == {
        "Never edit `gen/` by hand"}


def test_a_rule_the_person_dictated_into_a_guide_is_kept_though_it_names_nothing():
    """"Add to CONTRIBUTING.md: never push to main" is the person's rule, in their words; the
    session's own additions beside it, which they did not say, are held to the test."""
    session = Session()
    session.prompt("Add a rule to CONTRIBUTING.md: never push to main, open a pull request.")
    session.tool("Read", {"file_path": f"{ROOT}/CONTRIBUTING.md"},
                 output="# Rules\n\n- Never edit `gen/` by hand\n")
    session.edit(f"{ROOT}/CONTRIBUTING.md", "- Never edit `gen/` by hand\n",
                 "- Never edit `gen/` by hand\n- Never push to main; open a pull request\n"
                 "- Keep modules cohesive\n")
    assert {c["object"] for c in only(session.extract(), "x/convention")} == {
        "Never edit `gen/` by hand", "Never push to main; open a pull request"}


def test_a_guide_line_the_person_only_echoes_in_a_prompt_is_still_held_to_the_test():
    """The person's words tie a line the SESSION wrote to them; a line the guide already had
    is the guide's, whatever a prompt repeats."""
    session = Session()
    session.prompt("Remember: never push to main.")
    session.tool("Read", {"file_path": f"{ROOT}/CONTRIBUTING.md"},
                 output="# Rules\n\n- Never push to main\n- Never edit `gen/` by hand\n")
    assert {c["object"] for c in only(session.extract(), "x/convention")
            if c["evidence"][0].startswith("CONTRIBUTING.md")} == {"Never edit `gen/` by hand"}


GUIDE_WITH_NON_RULES = """# Working on shop

- Never edit files in `dist/` by hand

**Two order types exist:**
- `Order` in `src/orders/order.ts` — internal, canonical
- `OrderView` in `src/api/order_view.ts` — public, must stay in sync
- Keep `src/orders/order.ts` and `src/api/order_view.ts` in sync
"""


def test_a_line_that_half_names_a_pairing_binds_nothing():
    """"must stay in sync" with nothing named to agree with leans on the list item beside it;
    a line naming both sides is kept."""
    session = Session(agent="codex")
    session.tool("shell", {"command": ["bash", "-lc", "cat CLAUDE.md"], "workdir": ROOT},
                 output=GUIDE_WITH_NON_RULES, extras={"exit_code": 0})
    assert [c["object"] for c in only(session.extract(), "x/convention")] == [
        "Never edit files in `dist/` by hand",
        "Keep `src/orders/order.ts` and `src/api/order_view.ts` in sync"]


def test_a_docs_page_that_reassures_its_reader_forbids_nothing():
    session = Session()
    session.tool("Read", {"file_path": f"{ROOT}/docs/setup.md"},
                 output="# Setup\n\nDon't worry if you lack some linters — `make lint` "
                        "detects what is installed.\n\nNever commit `.env` files.\n")
    assert [c["object"] for c in only(session.extract(), "x/convention")] == [
        "Never commit `.env` files"]


def test_a_wording_rule_binds_the_project_that_picked_the_variety():
    session = Session(agent="codex")
    session.tool("shell", {"command": ["bash", "-lc", "cat CLAUDE.md"], "workdir": ROOT},
                 output="# Style\n\n- Use American English in comments and docs\n"
                        "- Use clear English in comments\n", extras={"exit_code": 0})
    assert [c["object"] for c in only(session.extract(), "x/convention")] == [
        "Use American English in comments and docs"]


@pytest.mark.parametrize("rule, dropped", [
    ("`Invoice` in `models/invoice.ts` -- public, must stay in sync", True),
    ("Run `make gen` after editing the proto so the generated client stays in sync.", False),
    ("Regenerate the client whenever the schema changes, to keep them in sync.", False),
    ("Don't worry if a tool is missing, the installer finds what is there.", True),
    ("Don't worry if the suite is slow. Never skip it before a merge.", False),
])
def test_a_sync_that_says_when_and_a_reassurance_before_a_rule_are_rules(rule, dropped):
    """A line that says when or how to keep two things in step is the rule itself; a
    reassurance followed by an obligation still carries that obligation."""
    from claimgraph.capture.extract.instructions import not_a_rule
    assert not_a_rule(rule) is dropped
