"""The agent's own summaries: lessons, decisions, what files are for -- trusted least."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.summaries import claims, corroborated, read_bullet

from .extract_helpers import ROOT, Session

SUMMARY = """Done. Summary:

### Key decisions:
- Used `Result<T, E>` instead of raising exceptions for `parse()`
- Kept the CLI flags stable for existing users

### Errors encountered:
- BadMapError with the exporter config → fixed by using `traces_exporter: :stdout`
- Compile error for undefined `row_classes/3` → added the function
- Credo flagged nesting depth

### Files:
- `src/db.ts:14` exports the singleton service-role client consumed by every service
- `src/old.ts` holds the legacy adapter

### Next steps:
- Migrate the payments module instead of the users module
"""


def _wrote_what_it_summarizes(session: Session) -> None:
    """The session's record that bears SUMMARY's claims out (the agent's note stands only on
    it): the files it names written (and named by the user: a file's role is kept only for
    a file they asked about), the kept behaviour asked for by the user."""
    session.prompt("Refactor the db layer in db.ts and old.ts; keep the CLI flags stable for "
                   "existing users.")
    session.write(f"{ROOT}/src/db.ts", "export const client = createClient(serviceRoleKey)\n")
    session.write(f"{ROOT}/src/old.ts", "// the legacy adapter\nexport function adapt() {}\n")
    session.write(f"{ROOT}/src/parse.rs", "pub fn parse(s: &str) -> Result<T, E> {}\n")


def _claims(text: str) -> set[tuple[str, str | None, str]]:
    return {(c.predicate, c.subject, c.text) for c in claims(text)}


def test_bullets_are_read_by_their_section_and_shape():
    assert _claims(SUMMARY) == {
        ("x/decided", None, "Used `Result<T, E>` instead of raising exceptions for `parse()`"),
        ("x/decided", None, "Kept the CLI flags stable for existing users"),
        ("core/failure-mode", None, "BadMapError with the exporter config; fixed: using "
                                    "`traces_exporter: :stdout`"),
        ("x/role", "src/db.ts", "exports the singleton service-role client consumed by every "
                                "service"),
        ("x/role", "src/old.ts", "holds the legacy adapter"),
    }


def test_plans_and_next_steps_are_not_facts():
    assert not any("payments" in text for _, _, text in _claims(SUMMARY))


def test_failed_attempts_listed_under_tried_are_not_decisions():
    text = ("- **Dialyzer false positive**: tried several approaches:\n"
            "  - Using `with` instead of `case`\n  - Adding a spec\n"
            "- Used `with` instead of nested case in the parser\n")
    assert [c.text for c in claims(text)] == ["Used `with` instead of nested case in the parser"]


def test_a_slip_in_the_sessions_own_code_is_not_a_lesson():
    assert read_bullet("Typo in `handle/2` → renamed the variable", "core/failure-mode") is None


def test_the_closing_summary_and_compactions_are_read_with_low_trust():
    session = Session()
    _wrote_what_it_summarizes(session)
    session.bash("mix test", error=True, output="** (BadMapError) expected a map, got: nil\n"
                 "    (exporter config) config/runtime.exs:12")
    session.edit(f"{ROOT}/config/runtime.exs", "traces_exporter: nil",
                 "traces_exporter: :stdout")
    session.bash("mix test", output="12 tests, 0 failures")
    summary_line = session.event("assistant", text=SUMMARY).line
    session.event("meta", derived=True, text="Stop hook feedback:\n[x.sh]: commit first")
    session.event("assistant", text="Committed.")
    found = [c for c in session.extract() if c["rule"] == "summaries"]
    assert len(found) == 5
    assert all(c["source_type"] == "agent-note" and c["confidence"] <= 0.5 for c in found)
    assert all(c["evidence"][0].startswith(f"transcript#L{summary_line}: ") for c in found)


@pytest.mark.parametrize("after, kept", [
    ([("mix test", True, "** (KeyError) key :pool not found")], False),  # failed again
    ([], False),  # never run again: nobody saw the fix work
    ([("mix format", False, ""), ("mix test", False, "12 tests, 0 failures")], False),
    ([("edit", False, ""), ("mix test", False, "12 tests, 0 failures")], True),
])
def test_a_summary_lesson_holds_only_when_the_next_run_of_its_failure_passed(after, kept):
    session = Session()
    session.bash("mix test", error=True, output="** (BadMapError) expected a map, got: nil\n"
                 "    (exporter config) config/runtime.exs:12")
    for command, error, output in after:
        if command == "edit":
            session.edit(f"{ROOT}/config/runtime.exs", "traces_exporter: nil",
                         "traces_exporter: :stdout")
        else:
            session.bash(command, error=error, output=output)
    session.event("assistant", text=SUMMARY)
    lessons = [c for c in session.extract()
               if c["rule"] == "summaries" and c["predicate"] == "core/failure-mode"]
    assert bool(lessons) is kept


def test_a_lesson_nobody_saw_fail_is_the_agents_story():
    session = Session()
    _wrote_what_it_summarizes(session)
    session.bash("mix test", output="12 tests, 0 failures")
    session.event("assistant", text=SUMMARY)
    found = [c for c in session.extract() if c["rule"] == "summaries"]
    assert not any(c["predicate"] == "core/failure-mode" for c in found)
    assert len(found) == 4


def test_a_failure_seen_after_the_summary_does_not_back_it():
    session = Session()
    session.event("assistant", text=SUMMARY)
    session.bash("mix test", error=True, output="** (BadMapError) expected a map")
    assert not any(c["predicate"] == "core/failure-mode" for c in session.extract())


@pytest.mark.parametrize("bullet", [
    "Reduced secret findings by 97.6% (16,684 → 392)",  # a before/after figure
    "Cut the image size by 91% (9.0M → 784K)",
    "`fix: use the 22.04 runner for the image build`",  # a commit's subject
    "`3f2a9c1 fix: pin the runner image`",
    "Build broke → pinned",  # the fix told in one word
])
def test_what_is_not_shaped_like_an_error_and_its_fix(bullet):
    assert read_bullet(bullet, "core/failure-mode") is None


@pytest.mark.parametrize(("problem", "failures", "expected"), [
    ("BadMapError with the exporter config", ["** (BadMapError) expected a map"], True),
    ("Timeout reaching the staging database", ["connect: timeout reaching staging host"], True),
    ("Timeout reaching the staging database", ["1 test failed"], False),
    ("The build failed with an error", ["error: build failed"], False),  # generic words only
    ("`--resource` flag rejected by the packer", ["unrecognized arguments: --resource"], True),
    ("BadMapError with the exporter config", [], False),
])
def test_a_lesson_must_point_at_a_failure_the_session_saw(problem, failures, expected):
    assert corroborated(problem, failures) is expected


def test_a_claim_about_a_file_deleted_later_is_dropped():
    session = Session()
    _wrote_what_it_summarizes(session)
    session.event("assistant", text=SUMMARY)
    session.bash(f"rm {ROOT}/src/old.ts")
    subjects = {c["subject"] for c in session.extract() if c["rule"] == "summaries"}
    assert "src/old.ts" not in subjects and "src/db.ts" in subjects


def test_a_remark_is_not_a_summary():
    session = Session()
    session.event("assistant", text="I used `with` instead of `case` here.")
    assert [c for c in session.extract() if c["rule"] == "summaries"] == []


FUNCTIONS = """Done:

- `rand_hex()` prefers openssl and falls back to /dev/urandom
- `make_trace()` generates the traceparent header for each hook call
- `src/trace.sh` holds the tracing helpers for every hook script
"""


def test_what_a_function_does_is_kept_only_when_the_user_names_it():
    session = Session()
    session.prompt("Add tracing to the hooks in trace.sh; make_trace must stay cheap.")
    session.write(f"{ROOT}/src/trace.sh", "make_trace() { rand_hex 16; }\n")
    session.event("assistant", text=FUNCTIONS)
    roles = {c["subject"] for c in session.extract() if c["predicate"] == "x/role"}
    assert roles == {"make_trace", "src/trace.sh"}


PROPOSAL = """<proposed_plan>
# Fix the audience handling

## Key Changes
- Keep form `audience` required; it must stay the canonical app URL.
- Add an `oidc-audience` input, defaulting to `svc`.
- Always validate `azp` against the configured audience.
</proposed_plan>"""


def test_a_proposed_plan_is_not_a_summary_of_what_happened():
    session = Session()
    session.prompt("Plan the audience fix.")
    session.event("assistant", text=PROPOSAL)
    assert [c for c in session.extract() if c["rule"] == "summaries"] == []


def test_a_numbered_step_of_a_design_is_not_a_decision_on_its_own():
    text = ("For the service, the right design is:\n\n1. Accept trace payloads over HTTP.\n"
            "2. Parse them as OpenTelemetry spans.\n3. Store artifacts in object storage and "
            "index them in SQLite.\n4. Used SQLite instead of Elasticsearch for the index.\n")
    assert _claims(text) == {
        ("x/decided", None, "Used SQLite instead of Elasticsearch for the index")}


def test_reports_of_work_and_comparison_fragments_are_not_rules_or_lessons():
    assert read_bullet("`av-dsc`: clarified that object storage must hold traces", "") is None
    assert read_bullet("No 5 KB variable limit", "") is None
    assert read_bullet("Updated `docs.yml` checkout SHA: `34e1148` → `11bd719`",
                       "core/failure-mode") is None
    assert read_bullet("Never log tokens in the workers", "") is not None


def test_a_reported_replacement_is_what_the_session_decided():
    said = "Replaced inline `timeout` option with `retry-policy`, defaulting to `short`."
    assert read_bullet(said, "") == read_bullet(said, "x/decided")
    assert read_bullet(said, "").predicate == "x/decided"
    assert read_bullet("Replaced the placeholder text with real values", "") is None
    assert read_bullet("No backward compatibility for `.cache/runs/`", "") is not None


def test_the_agents_report_of_its_turn_is_not_a_convention():
    report = """Wrapped up.

- No config files touched by me
- No source file was modified in the shared clone
- The branch is still 3 commits behind `main`, so it must rebase before review
- Every merge to `main` must go through a pull request with passing checks
"""
    assert _claims(report) == {
        ("x/convention", None, "Every merge to `main` must go through a pull request with "
                               "passing checks")}


def test_a_recommended_approach_or_a_fix_plan_is_a_proposal_not_a_decision():
    """A proposal's words outrank a decision's or a lesson's in a heading: nothing under
    "Recommended approach" was done yet."""
    text = ("Recommended approach\n\n- Unified model\n  - Loader: load(path) -> Config\n"
            "  - Start with the minimal field set for every backend\n\n"
            "Fix plan:\n- Timeout in the sync job → fixed by raising the pool size\n\n"
            "Design decisions\n- Kept the loader synchronous for the CLI users\n")
    assert _claims(text) == {
        ("x/decided", None, "Kept the loader synchronous for the CLI users")}


@pytest.mark.parametrize("bullet", [
    "`ERROR_ANALYSIS.md` was not updated for this case",
    "`runner.py` does NOT pass criteria to the reviewer",
    "`src/app.ts` lacks a retry on the upload path",
])
def test_what_happened_to_a_file_or_what_it_lacks_is_not_its_role(bullet):
    assert read_bullet(bullet, "") is None
    role = read_bullet("`src/app.ts` wraps the upload client with retries", "")
    assert role is not None and role.predicate == "x/role"


def test_a_summary_lesson_naming_a_fix_other_than_the_command_that_made_it_pass_is_dropped():
    """The agent's diagnosis ("import before patching") against what made the run pass (an
    install chained before the rerun, no file edited in between)."""
    account = ("Done.\n\n### Errors fixed:\n- Alerting tests failing with import errors "
               "→ fixed by {fix}\n- one\n- two\n")
    for fix, kept in (("importing the modules before patching", False),
                      ("installing the missing aiosmtplib package", True)):
        session = Session()
        session.bash("pytest tests/alerting", error=True,
                     output="E   ModuleNotFoundError: No module named 'aiosmtplib'\n"
                            "ERROR collecting tests/alerting/test_mail.py (import errors)")
        session.bash("pip install aiosmtplib && pytest tests/alerting", output="5 passed")
        session.event("assistant", text=account.format(fix=fix))
        lessons = [c for c in session.extract()
                   if c["rule"] == "summaries" and c["predicate"] == "core/failure-mode"]
        assert bool(lessons) is kept, fix


def test_advice_to_the_person_and_a_bare_quotation_are_not_the_agents_facts():
    text = ("### Key decisions:\n"
            "- Used `httpx` instead of `requests` for the client\n"
            '- "We already keep the archive elsewhere so just link it"\n'
            "- If you cut tags, a CI check on the version would prevent drift\n"
            "\n### Files:\n"
            "- `scripts/bump.sh` exists but nothing runs it; your release flow could call it\n")
    assert _claims(text) == {
        ("x/decided", None, "Used `httpx` instead of `requests` for the client")}


def test_a_heading_that_introduces_reasons_lists_no_decisions():
    """"Why it is faster" lists the reasons (counts, causes), not what was decided; a heading
    of decisions that also promises the why still lists decisions."""
    reasons = ("### Why the page loads faster:\n"
               "- The payload went from 16,684 tokens to 392 tokens\n"
               "- The cache now holds the rendered rows for an hour\n")
    assert _claims(reasons) == set()
    assert _claims("### Reasons\n- The cache now holds the rendered rows for an hour\n") == set()
    decided = "### Key decisions and why:\n- Kept the CLI flags stable for existing users\n"
    assert _claims(decided) == {("x/decided", None, "Kept the CLI flags stable for existing users")}


def test_a_rule_nested_under_an_item_of_a_report_says_what_that_item_does():
    text = ("Added the new checks.\n\n- Checks added (app/rules.py)\n"
            "  - speed_limit must be between 0 and 100\n"
            "  - Sanity checks:\n"
            "    - fan_speed must never be negative in a profile\n"
            "- Always run the linter before pushing changes\n")
    assert [(c.predicate, c.text) for c in claims(text)] == [
        ("x/convention", "Always run the linter before pushing changes")]


def test_a_troubleshooting_section_and_a_summarys_concepts_are_read_as_any_other():
    """Their notes on the setup or a library are often the lesson."""
    text = ("If you see a 404:\n- Make sure the site is enabled in the settings page\n\n"
            "2. Key Technical Concepts:\n"
            "   - The version object must be read with its major number, never as text\n")
    assert [c.predicate for c in claims(text)] == ["x/convention", "x/convention"]


def test_the_agents_tradeoffs_and_options_are_not_decisions():
    """A list of pros and cons or of options in the agent's message weighs choices; nothing in
    it was picked (only what the user picked, or what the session built, is decided)."""
    text = """Here is how they compare:

### Trade-offs
- Storing sessions in SQLite keeps queries simple but adds a migration step
- A JSON file per session is easy to inspect but slow to search

### Alternatives considered
- Redis as the cache store, fastest of the three but needs a server running

### Design
- **Pro:** the cache stays warm across restarts of the worker
- Con: the cache file grows without bound over a long session
- Option B: write-through caching with a TTL of five minutes
- Downside: every write waits for the disk to flush
- Used a write-ahead log instead of rewriting the whole file
"""
    assert [(c.predicate, c.text) for c in claims(text)] == [
        ("x/decided", "Used a write-ahead log instead of rewriting the whole file")]


def test_a_noun_phrase_whose_only_rule_is_its_relative_clause_is_a_fragment():
    """"Order ids in the exports (CSV, JSON) that must stay stable" names a thing of a list
    whose head line said what the list is; alone it is no rule."""
    assert read_bullet("Order ids in the exports (CSV, JSON) that must stay stable", "") is None
    assert read_bullet("Anything that must run on boot goes in scripts/init.sh", "") is not None
    assert read_bullet("Order ids must stay stable across exports", "") is not None


@pytest.mark.parametrize("bullet", [
    "`docs/spec.md` updates the entity definitions so they name the shared queue",
    "`docs/spec.md` refreshes the edge cases to describe the single worker pool",
    "`src/api.ts` adds a retry around the upload call",
])
def test_what_the_turn_changed_in_a_file_is_not_its_role(bullet):
    """A change verb says what the session did to the file today, not what the file is for."""
    assert read_bullet(bullet, "") is None


@pytest.mark.parametrize("path", ["tests/test_gen_process.py", "src/upload.test.ts",
                                  "pkg/upload_test.go", "spec/upload_spec.rb"])
def test_what_a_test_file_verifies_is_not_kept_as_its_role(path):
    """A test file's name already says what it checks: a glance finds it."""
    assert read_bullet(f"`{path}` verifies layer heights, speeds and brim mapping", "") is None
    kept = read_bullet("`src/upload.ts` verifies the checksum of every chunk it sends", "")
    assert kept is not None and kept.predicate == "x/role"


def test_the_failed_runs_read_once_answer_every_problem_as_a_fresh_reading_would():
    """``fix_held`` reads each failed run's output once for every problem of every summary
    (its lines that report a failure, its words): asked in turn about several problems, and
    about the same ones again, the answers are what reading the output afresh gives."""
    from claimgraph.capture.extract import summaries
    from claimgraph.capture.extract.session import SessionView

    def fresh_fails_on(view: SessionView, problem: str, call) -> bool:
        result = view.results.get(call.call_id or "")
        terms = [span.lower() for span in summaries._CODE_SPAN.findall(problem)] + \
            [token.lower().strip(".:") for token in summaries._NAMING.findall(problem)
             if len(token.strip(".:")) >= 4]
        return result is not None and bool(terms) and any(
            summaries._FAILING_LINE.search(line) and any(term in line.lower() for term in terms)
            for line in result.text.splitlines())

    session = Session()
    session.bash("mix test", error=True, output="** (BadMapError) expected a map\n"
                 "  config/Runtime.exs:12 FAILED\nok: lib/pool.ex passed")
    session.bash("pytest", error=True, output="tests/test_db.py::test_pool ERROR\n"
                 "== 1 failed ==\nSee `docs/pool.md` for the pool_size setting")
    session.bash("make", output="built lib/pool.ex")
    problems = ["BadMapError in `config/runtime.exs`", "lib/pool.ex was missing",
                "the pool_size setting in `docs/pool.md` broke tests/test_db.py",
                "`test_pool` failed", "nothing named here", "BadMapError in `config/runtime.exs`"]
    view = SessionView.of(session.transcript(), ROOT)
    runs = summaries._program_runs(view)
    failed = [(output, call) for _, _, verdict, output, call in runs
              if verdict == summaries.FAILED]
    assert len(failed) == 2
    # the summaries' failures and these runs read each failed output once, into one reading
    assert [output for output, _ in failed] == [
        summaries._output_of(view, result) for _, result in summaries.failed_results(view)]
    assert all(output is summaries._output_of(view, view.results[call.call_id])
               for output, call in failed)
    answers = [(summaries._fails_on(view, problem, call), fresh_fails_on(view, problem, call),
                summaries._Terms(problem).shown_by(output),
                summaries.corroborated(problem, [view.results[call.call_id].text]))
               for problem in problems for output, call in failed]
    assert [ours for ours, _, _, _ in answers] == [fresh for _, fresh, _, _ in answers]
    assert [ours for _, _, ours, _ in answers] == [fresh for _, _, _, fresh in answers]
    for column in range(4):  # each answer is asked both ways
        assert {answer[column] for answer in answers} == {True, False}


@pytest.mark.parametrize("closing", [
    "Which of these would you like me to go with?",
    "Do you prefer the first or the second layout?",
    "Shall I proceed?",
    "Want me to implement this plan?",
    "Does this approach look right to you?",
    "Let me know which one fits best.",
    "I'll hold off until you confirm, before I start on the migration.",
])
def test_a_message_that_asks_the_person_to_choose_or_approve_offers_what_it_lists(closing):
    """Its bullets are proposals the user has not picked from or approved: what holds of them
    is what the session then builds, not the agent's list."""
    from claimgraph.capture.extract.summaries import asks_to_choose
    message = ("Here is where things stand:\n\n"
               "- Keep the importer single-threaded instead of the worker pool\n"
               "- Store the cache key with the schema version\n"
               "- Always validate rows before the bulk insert\n\n" + closing)
    assert asks_to_choose(message)


@pytest.mark.parametrize("closing", [
    "All checks pass; the branch is pushed.",
    "Want me to go ahead and push the branch?",
    "Should I also update the changelog?",
])
def test_a_report_that_offers_one_more_step_still_reports(closing):
    from claimgraph.capture.extract.summaries import asks_to_choose
    message = ("Done:\n\n- Kept the importer single-threaded instead of the worker pool\n"
               "- Stored the cache key with the schema version\n"
               "- Rows are validated before the bulk insert\n\n" + closing)
    assert not asks_to_choose(message)


@pytest.mark.parametrize(("closing", "read"), [
    ("Which would you like me to start with?", False),
    ("All three are in; the benchmark is green.", True),
])
def test_a_message_asking_for_a_choice_is_no_summary_of_the_session(closing, read):
    from claimgraph.capture.extract.session import SessionView
    from claimgraph.capture.extract.summaries import summary_events
    session = Session()
    session.prompt("The importer is slow, what can we do?")
    session.event("assistant", text="There are a few things in play:\n\n"
                  "- A worker pool instead of the single importer thread\n"
                  "- Inserts batched in groups of 500 rows instead of one by one\n"
                  "- The index disabled during the bulk load\n\n" + closing)
    session.prompt("Thanks.")
    events = list(summary_events(SessionView.of(session.transcript(), ROOT)))
    assert bool(events) is read


@pytest.mark.parametrize("lead_in", [
    "There are two ways to handle the stale cache:",
    "We could go one of three directions:",
    "Ideas for the flaky test:",
    "### Pros",
    "### Cons",
    "### Redis vs SQLite",
])
def test_a_lead_in_to_possibilities_or_one_side_of_a_comparison_lists_no_decisions(lead_in):
    """Under a line that announces possibilities, or a heading of pros, cons or "A vs B",
    bullets are weighed, not picked (a pattern of backspace characters once kept "Pros",
    "Cons" and "vs" headings from ever matching)."""
    text = (f"{lead_in}\n"
            "- The cache key must carry the schema version so old entries never match\n"
            "- Used a write-ahead log instead of rewriting the whole file\n")
    assert list(claims(text)) == []


@pytest.mark.parametrize("heading", [
    "### Key design choices in this strategy:", "**Design choices:**", "### Choices made",
    "### Key choices",
])
def test_a_heading_naming_the_choices_made_lists_decisions(heading):
    """"Choices" announces possibilities only when nothing says they were made: a heading of
    design choices, key choices or choices made reports what was picked, as "Design
    decisions" does (the lead-in rule once dropped every such section)."""
    text = (f"{heading}\n"
            "- The cache key must carry the schema version so old entries never match\n"
            "- Used a write-ahead log instead of rewriting the whole file\n")
    assert [c.predicate for c in claims(text)] == ["x/decided", "x/decided"]


@pytest.mark.parametrize("lead_in", ["Choices for the cache layer:", "Two choices here:",
                                     "### Possible choices"])
def test_a_heading_offering_choices_lists_no_decisions(lead_in):
    text = (f"{lead_in}\n"
            "- The cache key must carry the schema version so old entries never match\n"
            "- Used a write-ahead log instead of rewriting the whole file\n")
    assert list(claims(text)) == []


def test_a_decision_section_keeps_what_is_settled_and_drops_what_a_reviewer_would_doubt():
    """Every bullet below names only what the session wrote and left (so the record bears
    each out); the reviewer's guards (``logic.agent_said``) still drop those said as a guess,
    an offer, the agent's own activity or what the code does today."""
    session = Session()
    session.prompt("Make the exporter write one CSV per table.")
    session.write(f"{ROOT}/src/export.py",
                  "def export_table(rows):\n    write_csv(rows)  # one file per table\n")
    session.event("assistant", text="Done. Summary:\n\n### Key decisions:\n"
                  "- `export_table()` writes with `write_csv()` instead of a pandas frame\n"
                  "- `export_table()` could call `write_csv()` lazily per chunk\n"
                  "- One option is `write_csv()` streaming from `export_table()`\n"
                  "- Let me wire `write_csv()` into `export_table()` next\n"
                  "- `export_table()` calls `write_csv()` once per table\n")
    kept = [c["object"] for c in session.extract() if c["rule"] == "summaries"]
    assert kept == ["`export_table()` writes with `write_csv()` instead of a pandas frame"]
