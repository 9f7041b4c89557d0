"""Held-out sentences for the sentence model: never in train/data (a test copied into the
training data would test nothing). The first ten state a standing rule (issue 23's ten);
the requests are one-off tasks for today, written for this test."""

RULES = (
    "Quick context for this repo: we always use uv, never pip.",
    "FYI we use uv for everything, not pip.",
    "Please remember: tests run with `uv run pytest`, never plain pytest.",
    "Our convention is ruff for formatting and linting.",
    "We deploy with fly.io; don't touch the Dockerfile by hand.",
    "let's make sure we're using US English everywhere",
    "the entire cli should handle that automatically for the user, not you",
    "Always run the linter before committing.",
    "Never commit directly to main.",
    "We use tabs for indentation in this repo.",
)

REQUESTS = (
    "fix the failing test",
    "make the button blue",
    "now commit that",
    "run the test suite again",
    "can you add a docstring to that function?",
    "rename the variable to user_count",
    "open a PR for this change",
    "delete the old migration file",
    "show me the diff",
    "try it again with the verbose flag",
)

#: Ten more one-off requests, written for the retrained model (the model never saw them): the
#: hard kind, with the words a rule uses ("make sure", "never", "always", "we need to", "go
#: with") but about the change in hand.
MORE_REQUESTS = (
    "make sure the build passes before you hand it back",
    "never mind, revert that last edit",
    "always show me the diff first this time",
    "use the staging config for this run",
    "let's rename this function to parse_header",
    "don't touch the tests in this PR",
    "We need to bump the version for this release",
    "go with the second approach for this bug",
    "add a retry around that HTTP call",
    "update the screenshot in the README",
)

#: A second probe, written after the retrained model of issue 23's second round was frozen and
#: never used to change it (docs/capture.md, "Known limits"): ten rules in shapes and topics
#: the written training sentences do not use, and ten one-off requests with rule words.
FRESH_RULES = (
    "The staging bucket is read-only for everyone except the deploy bot, keep it that way.",
    "Just to be clear, pull requests need a linked ticket before review, that applies to "
    "everything going forward.",
    "As a general thing, prefer returning errors over panicking in the daemon code.",
    "Our docs are versioned alongside the code, each release gets its own folder.",
    "For future reference, the mobile team owns everything under apps/ios.",
    "Going forward let's keep configuration in environment variables, not in files.",
    "Anything that talks to the payment API uses the sandbox key locally, never the live one.",
    "I want every new module to come with a short README explaining what it's for.",
    "Please don't introduce new global state, we've been burned by it before.",
    "The rule of the house is: if it's not in the changelog, it didn't happen.",
)

FRESH_REQUESTS = (
    "make sure you rerun the benchmarks after this refactor",
    "never mind the docs for now, just get the tests green",
    "we should add an index on that column before tomorrow's load test",
    "always print the full stack trace while we debug this",
    "please keep the logging in until we've found the bug",
    "our next step is to wire the form to the API",
    "let's make sure the migration script works on a copy first",
    "use the mock server while the real one is down",
    "don't merge this until QA signs off",
    "remember to update the snapshot after you change the component",
)
