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
