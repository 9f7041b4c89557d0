"""defined-in: from successful writes only, as the session left the files, and only for the
names the conversation talks about (a file's language and its other names are one glance away)."""

from __future__ import annotations

import pytest

from claimgraph.capture.extract.code import definitions, is_test_file

from .extract_helpers import ROOT, Session, facts, only

#: What the user asks about: every name these tests expect to be remembered.
TALK = ("Added Cart, add_item, keep_me, legacy_total, new_total, run_agent, "
        "make_cart and func_0 … func_29 " + " ".join(
            f"func_{i}" for i in range(30)))


#: Plain lower-case words name code only inside the person's code spans.
TALK_SPANS = "Please also check `slugify`, `vat`, `third`, `helper` and `compute`."


def talked(session: Session) -> Session:
    session.prompt(TALK)
    session.prompt(TALK_SPANS)
    return session

PY = f"{ROOT}/src/shop/cart.py"
CART = '''"""Cart."""


class Cart:
    def total(self):
        return 0


def add_item(cart, item):
    cart.items.append(item)


def _private_helper():
    pass


def main():
    pass
'''


def test_a_written_python_file_gives_its_top_level_definitions():
    session = talked(Session())
    session.write(PY, CART)
    found = session.extract()
    assert facts(found) == {
        ("Cart", "core/defined-in", "src/shop/cart.py"),
        ("add_item", "core/defined-in", "src/shop/cart.py"),
    }
    cart = next(c for c in found if c["subject"] == "Cart")
    assert cart["evidence"][0] == "src/shop/cart.py: `class Cart:`"
    assert cart["evidence"][1] == f"transcript#L3: Write {PY}"
    assert (cart["subject_type"], cart["object_type"], cart["object_kind"]) == (
        "class", "file", "entity")
    assert only(found, "core/written-in") == []


def test_a_failed_write_produces_nothing():
    session = talked(Session())
    session.write(PY, CART, error=True, output="Error: permission denied")
    assert session.extract() == []


def test_an_unanswered_or_refused_write_produces_nothing():
    session = talked(Session())
    session.write(PY, CART, answered=False)
    session.write(f"{ROOT}/b.py", "def b_func():\n    pass\n", error=True,
                  output="The user doesn't want to proceed with this tool use.")
    assert session.extract() == []


def test_a_definition_removed_by_a_later_edit_is_not_emitted():
    session = talked(Session())
    session.write(PY, CART)
    session.edit(PY, "def add_item(cart, item):\n    cart.items.append(item)\n", "")
    assert ("add_item", "core/defined-in", "src/shop/cart.py") not in facts(session.extract())


def test_a_definition_removed_from_a_file_known_only_by_edits_is_not_emitted():
    session = talked(Session())
    session.edit(PY, "x = 1", "def legacy_total(cart):\n    return 0\n\nx = 1")
    session.edit(PY, "def legacy_total(cart):\n    return 0\n", "")
    assert facts(session.extract()) == set()


def test_a_renamed_definition_is_cited_by_its_new_line():
    session = talked(Session())
    session.write(PY, CART)
    session.edit(PY, "def add_item(cart, item):", "def add_item(cart, item, quantity=1):")
    [add] = [c for c in session.extract() if c["subject"] == "add_item"]
    assert add["evidence"][0] == "src/shop/cart.py: `def add_item(cart, item, quantity=1):`"


def test_a_failed_edit_does_not_remove_a_definition():
    session = talked(Session())
    session.write(PY, CART)
    session.edit(PY, "def add_item(cart, item):\n    cart.items.append(item)\n", "", error=True,
                 output="<tool_use_error>String to replace not found in file.")
    assert ("add_item", "core/defined-in", "src/shop/cart.py") in facts(session.extract())


def test_a_file_deleted_later_in_the_session_yields_nothing():
    session = talked(Session())
    session.write(PY, CART)
    session.write(f"{ROOT}/src/shop/keep.py", "def keep_me():\n    pass\n")
    session.bash("rm -r src/shop/cart.py && git status")
    assert facts(session.extract()) == {
        ("keep_me", "core/defined-in", "src/shop/keep.py")}


def test_files_outside_the_project_and_non_code_files_yield_nothing():
    session = talked(Session())
    session.write("/home/dev/.claude/plans/plan.py", "def plan():\n    pass\n")
    session.write(f"{ROOT}/README.md", "# Shop\n")
    session.write(f"{ROOT}/node_modules/x/index.js", "function vendored() {}\n")
    assert session.extract() == []


def test_test_files_yield_nothing():
    session = talked(Session())
    session.write(f"{ROOT}/tests/test_cart.py", "def make_cart():\n    pass\n")
    assert facts(session.extract()) == set()


def test_a_name_defined_in_two_files_is_left_out():
    session = talked(Session())
    session.write(f"{ROOT}/a.py", "def helper():\n    pass\n")
    session.write(f"{ROOT}/b.py", "def helper():\n    pass\n")
    assert only(session.extract(), "core/defined-in") == []


def test_definitions_are_capped_per_file():
    session = talked(Session())
    session.write(PY, "".join(f"def func_{i}():\n    pass\n" for i in range(30)))
    assert len(only(session.extract(), "core/defined-in")) == 20


def test_a_codex_patch_adds_and_updates_files():
    session = talked(Session(agent="codex"))
    patch = ("*** Begin Patch\n*** Add File: src/shop/tax.py\n+def vat(amount):\n"
             "+    return amount\n*** Update File: src/shop/cart.py\n@@\n-def old_total():\n"
             "+def new_total():\n     return 0\n*** End Patch\n")
    session.tool("shell", {"command": ["apply_patch", patch], "workdir": ROOT},
                 extras={"exit_code": 0})
    assert facts(session.extract()) == {
        ("vat", "core/defined-in", "src/shop/tax.py"),
        ("new_total", "core/defined-in", "src/shop/cart.py")}


def test_a_failed_codex_patch_produces_nothing():
    session = talked(Session(agent="codex"))
    patch = "*** Begin Patch\n*** Add File: tax.py\n+def vat(amount):\n*** End Patch\n"
    session.tool("apply_patch", {"raw": patch}, error=True, extras={"exit_code": 1})
    assert session.extract() == []


def test_a_shell_heredoc_write_counts_after_following_cd():
    session = talked(Session())
    session.bash("cd src && cat > tools.py <<'EOF'\ndef slugify(text):\n    return text\nEOF")
    assert facts(session.extract()) == {
        ("slugify", "core/defined-in", "src/tools.py")}


def test_gemini_write_file_and_replace_are_writes():
    session = talked(Session(agent="gemini"))
    session.tool("write_file", {"file_path": f"{ROOT}/agent.py",
                                "content": "def run_agent():\n    pass\n"})
    session.tool("replace", {"file_path": f"{ROOT}/agent.py", "old_string": "def run_agent():",
                             "new_string": "def run_agent(task):"})
    found = session.extract()
    [run] = only(found, "core/defined-in")
    assert run["evidence"][0] == "agent.py: `def run_agent(task):`"


def test_multiedit_applies_its_edits_in_order():
    session = talked(Session())
    session.write(PY, "def first():\n    pass\n")
    session.tool("MultiEdit", {"file_path": PY, "edits": [
        {"old_string": "def first():", "new_string": "def second():"},
        {"old_string": "def second():", "new_string": "def third():"}]})
    assert {c["subject"] for c in only(session.extract(), "core/defined-in")} == {"third"}


@pytest.mark.parametrize("language, code, expected", [
    ("Rust", "pub fn parse(s: &str) {}\nimpl X {\n    fn fmt(&self) {}\n}\npub struct Token;\n"
             "pub(crate) enum Kind {}\ntrait Visitor {}\n",
     ["parse", "Token", "Kind", "Visitor"]),
    ("Go", "func Serve(addr string) error {\nfunc (s *Server) Close() error {\n"
           "type Server struct {\nfunc main() {\n", ["Serve", "Server.Close", "Server"]),
    ("TypeScript", "export function NavUser({\nexport const useCart = (id: string) => {\n"
                   "export default class Store {\nexport interface Props {\n"
                   "export type Id = string;\nconst _hidden = () => 1\n  function nested() {\n",
     ["NavUser", "useCart", "Store", "Props", "Id"]),
    ("Elixir", "defmodule Shop.Cart do\n  def total(cart), do: 0\nend\n", ["Shop.Cart"]),
    ("Python", "async def fetch(url):\n    def inner():\n        pass\nclass __Meta:\n",
     ["fetch"]),
])
def test_definitions_are_top_level_public_names(language, code, expected):
    assert [d.name for d in definitions(code, language)] == expected


def test_a_definition_line_with_a_backtick_is_quoted_up_to_it():
    [found] = definitions("export const tag = (s) => `<${s}>`\n", "TypeScript")
    assert found.quote == "export const tag = (s) =>"


@pytest.mark.parametrize("path, expected", [
    # Python
    ("tests/test_cart.py", True), ("shop/test_cart.py", True), ("shop/cart_test.py", True),
    ("conftest.py", True), ("src/contest.py", False), ("src/cart.py", False),
    ("shop/testing.py", False), ("shop/attest.py", False),
    # Go
    ("src/cart_test.go", True), ("internal/cart/testdata/order.json", True),
    ("internal/cart/cart.go", False), ("cmd/latest/main.go", False),
    # JavaScript, TypeScript
    ("web/Nav.test.tsx", True), ("web/nav.spec.js", True), ("web/__tests__/nav.ts", True),
    ("web/Nav.tsx", False), ("web/contest.ts", False),
    # Swift: SwiftPM's capitalised Tests/, Xcode's AppTests/ and AppUITests/, XCTest names
    ("Tests/ShopTests/CartTests.swift", True), ("Tests/LinuxMain.swift", True),
    ("ShopTests/CartTests.swift", True), ("ShopUITests/LaunchTests.swift", True),
    ("Sources/Shop/CartTests.swift", True), ("Sources/Shop/Cart.swift", False),
    ("Sources/Shop/Contest.swift", False), ("Sources/Shop/Test.swift", False),
    # Java, Kotlin (Gradle and Maven source sets)
    ("src/test/java/shop/CartTest.java", True), ("src/main/java/shop/Cart.java", False),
    ("app/src/androidTest/java/shop/CartFlow.kt", True),
    ("shared/src/commonTest/kotlin/A.kt", True),
    ("src/main/kotlin/shop/CartTest.kt", True), ("src/integrationTest/kotlin/Db.kt", True),
    ("src/main/java/shop/CartIT.java", True), ("src/main/java/shop/GIT.java", False),
    ("src/main/kotlin/shop/Latest.kt", False),
    # C#
    ("Shop.Tests/CartTests.cs", True), ("Shop.UnitTests/Cart.cs", True), ("Shop/Cart.cs", False),
    ("Shop\\Shop.Tests\\CartTests.cs", True),
    # Ruby
    ("spec/models/cart_spec.rb", True), ("test/models/cart_test.rb", True),
    ("app/models/cart.rb", False), ("app/models/latest.rb", False),
    # Elixir
    ("test/shop/cart_test.exs", True), ("lib/shop/cart.ex", False),
    # Rust, C and C++, Dart, PHP
    ("tests/integration.rs", True), ("src/cart.rs", False), ("src/cart_unittest.cc", True),
    ("lib/cart_test.dart", True), ("tests/Unit/CartTest.php", True), ("src/Cart.php", False),
    ("integration_tests/run.py", True), ("e2e-tests/login.ts", True),
])
def test_test_files_are_recognised_in_each_ecosystems_convention(path, expected):
    assert is_test_file(path) is expected


def test_a_definition_line_no_single_write_contains_is_not_cited():
    """A mid-line edit composes a line that no text of the session holds verbatim: the
    quote could not be re-found in the session's own writes, so the fact is left out."""
    session = talked(Session())
    session.write(PY, "def compute(a):\n    return a\n")
    session.edit(PY, "compute(a)", "compute(a, b)")
    assert only(session.extract(), "core/defined-in") == []


def test_only_a_name_the_user_types_is_remembered_not_one_the_agent_mentions():
    session = Session()
    session.write(PY, CART)
    session.event("assistant", text="I added add_item and Cart to the cart module.")
    session.prompt("Why does add_item mutate the cart?")
    assert facts(session.extract(), "defined-in") == {
        ("add_item", "core/defined-in", "src/shop/cart.py")}


def test_a_name_a_lesson_names_is_remembered():
    session = Session()
    session.bash("pytest tests/test_cart.py", error=True,
                 output="E   ImportError: cannot import name 'add_item' from 'shop.cart'")
    session.edit(PY, "class Cart:\n", "class Cart:\n    pass\n\n\ndef add_item(cart, item):\n"
                 "    cart.items.append(item)\n")
    session.bash("pytest tests/test_cart.py", output="1 passed")
    found = session.extract()
    assert any("add_item" in c["object"] for c in only(found, "core/failure-mode"))
    assert facts(found, "defined-in") == {("add_item", "core/defined-in", "src/shop/cart.py")}


def test_a_package_root_the_session_wrote_states_its_modules():
    session = Session()
    session.write(f"{ROOT}/src/lib.rs", "//! Shop.\n\npub mod cart;\npub mod tax;\nmod util;\n")
    [index] = only(session.extract(), "x/role")
    assert (index["subject"], index["object"]) == (
        "src/lib.rs", "declares the modules cart, tax, util")
    assert index["evidence"][0] == "src/lib.rs: `pub mod cart;`"


def test_the_roots_of_several_crates_the_session_wrote_are_a_scaffold_not_a_layout():
    """A workspace written from scratch: each member's module list is its scaffold's; a
    binary and a library root of one crate are still one crate."""
    session = Session()
    session.write(f"{ROOT}/crates/core/src/lib.rs", "pub mod engine;\npub mod risk;\n")
    session.write(f"{ROOT}/crates/service/src/main.rs", "mod config;\nmod server;\n")
    assert only(session.extract(), "x/role") == []
    one = Session()
    one.write(f"{ROOT}/src/lib.rs", "pub mod engine;\npub mod risk;\n")
    one.write(f"{ROOT}/src/main.rs", "mod config;\nmod server;\n")
    assert {c["subject"] for c in only(one.extract(), "x/role")} == {"src/lib.rs", "src/main.rs"}


def test_a_plain_word_in_prose_is_not_a_name_but_in_a_code_span_it_is():
    """"add a config command and a db group": words of the request, not names to locate."""
    code = "def config():\n    pass\n\n\ndef db():\n    pass\n\n\ndef load_rows():\n    pass\n"
    session = Session()
    session.prompt("Add a config command, a db group and load_rows; keep `db` small.")
    session.write(f"{ROOT}/src/cli.py", code)
    assert {c["subject"] for c in only(session.extract(), "core/defined-in")} == {
        "db", "load_rows"}


def test_a_plain_word_of_a_command_in_a_code_span_is_a_subcommand_not_a_name():
    """"run `shop init` once": ``init`` is what one types, its handler a glance away."""
    code = "def init():\n    pass\n\n\ndef sync():\n    pass\n\n\ndef load_rows():\n    pass\n"
    session = Session()
    session.prompt("Make `shop init` create the folder, and `sync()` and `shop load_rows` "
                   "skip it.")
    session.write(f"{ROOT}/src/cli.py", code)
    assert {c["subject"] for c in only(session.extract(), "core/defined-in")} == {
        "sync", "load_rows"}


@pytest.mark.parametrize(("path", "content"), [
    ("src/shop/mod.rs", "pub mod cart;\npub mod tax;\n"),
    ("src/shop/__init__.py", "from .cart import Cart\nfrom .tax import rate\n"),
    ("src/shop/index.ts", "export * from './cart';\nexport { rate } from './tax';\n"),
])
def test_a_folder_index_that_lists_its_submodules_says_nothing_new(path, content):
    """A folder's index lists the files beside it: a glance at the folder says as much."""
    session = Session()
    session.write(f"{ROOT}/{path}", content)
    assert only(session.extract(), "x/role") == []


def _route(session: Session, path: str) -> None:
    session.write(f"{ROOT}/{path}", "export async function GET(request) {\n  return ok()\n}\n\n"
                  "export function parseQuery(url) {\n  return url.search\n}\n")


def test_names_in_a_paste_are_not_the_persons():
    """A pasted review or log names what its author saw; the person named only what they
    typed in their own prose."""
    review = ("Please address this review:\n\n"
              "> The handler parseQuery drops repeated keys; consider URLSearchParams.getAll\n\n"
              "```\nparseQuery(url) -> Error: getAll is undefined\n```\n")
    session = Session()
    session.prompt(review)
    _route(session, "src/app/api/items/route.ts")
    assert only(session.extract(), "core/defined-in") == []
    typed = Session()
    typed.prompt("Why does parseQuery drop repeated keys?")
    _route(typed, "src/app/api/items/route.ts")
    assert facts(typed.extract(), "defined-in") == {
        ("parseQuery", "core/defined-in", "src/app/api/items/route.ts")}


def test_an_acronym_in_prose_is_a_word_not_a_name():
    session = Session()
    session.prompt("The GET route returns stale items; fix parseQuery too.")
    _route(session, "src/app/api/items/route.ts")
    assert {c["subject"] for c in only(session.extract(), "core/defined-in")} == {"parseQuery"}


def test_a_name_the_session_saw_defined_in_another_file_has_no_one_place():
    """defined-in says exactly one place: a file of the project the session read that
    defines the name too makes it two."""
    session = Session()
    session.prompt("Why does `GET` return stale items? And parseQuery?")
    session.tool("Read", {"file_path": f"{ROOT}/src/app/api/users/route.ts"},
                 output="     1\texport async function GET(request) {\n     2\t  return users()\n"
                        "     3\t}\n")
    _route(session, "src/app/api/items/route.ts")
    assert {c["subject"] for c in only(session.extract(), "core/defined-in")} == {"parseQuery"}


def test_a_definition_the_session_only_changed_in_place_is_where_it_was():
    """The person names ``add_item`` and the session edits its signature: where it lives is
    what the person and the code said already, not something the session settled."""
    session = Session()
    session.prompt("Update `add_item` so it takes a quantity.")
    session.edit(PY, "def add_item(cart, item):", "def add_item(cart, item, quantity=1):")
    assert facts(session.extract(), "defined-in") == set()


def test_a_file_read_then_rewritten_keeps_its_old_names_out():
    """A whole-file write over a file the session read: the names the read showed were
    there already; the one the rewrite adds is the session's."""
    session = Session()
    session.prompt("Move `total_price` into the cart module; keep `Cart` as it is.")
    session.tool("Read", {"file_path": PY}, output="     1\tclass Cart:\n     2\t    pass\n")
    session.write(PY, "class Cart:\n    pass\n\n\ndef total_price(cart):\n    return 0\n")
    assert facts(session.extract(), "defined-in") == {
        ("total_price", "core/defined-in", "src/shop/cart.py")}


def test_the_survivor_of_two_named_definitions_is_where_the_session_settled_it():
    """The person names two types that do the same; the session removes one: the place of
    the one left is the outcome, though the session only edited around it."""
    other = f"{ROOT}/src/shop/basket.py"
    session = Session()
    session.prompt("`CartView` and `BasketView` do the same thing. Get rid of one.")
    session.edit(PY, "class CartView:\n    pass\n", "class CartView:\n    items = ()\n")
    session.edit(other, "class BasketView:\n    pass\n", "")
    assert facts(session.extract(), "defined-in") == {
        ("CartView", "core/defined-in", "src/shop/cart.py")}


def test_kept_of_merges_names_the_survivors_of_a_message_that_names_a_removed_one():
    from claimgraph.capture.extract.structure import kept_of_merges
    removed = frozenset({"Old"})
    assert kept_of_merges([frozenset({"Old", "New"}), frozenset({"Other"})], removed) == {"New"}
    assert kept_of_merges([frozenset({"New", "Other"})], removed) == frozenset()


#: A review tool's findings, forwarded whole: its markup tags on lines of their own.
TAGGED_REVIEW = (
    "Fix what this review found:\n## Findings\n\n"
    "### Comment 1\n<location path=\"src/app/api/items/route.ts\" line_range=\"4-9\" />\n"
    "<code_context>\nexport function parseQuery(url) {\n</code_context>\n<issue_to_address>\n"
    "**suggestion:** The parseQuery helper drops repeated keys, which looks like a bug and\n"
    "makes the search page lose filters when a person picks two of them at once. It would be\n"
    "clearer to read every value with getAll and keep the GET handler as short as it is now.\n"
    "</issue_to_address>\n")
#: ... or its findings anchored at a file's lines, all prose.
ANCHORED_REVIEW = (
    "Go through what the review bot found and fix what still holds.\n"
    "Inline comments:\nIn `@src/app/api/items/route.ts`:\n"
    "- Around line 4-9: The parseQuery helper drops repeated keys, so the search page loses\n"
    "filters when a person picks two of them; read every value with getAll and keep the\n"
    "GET handler short, then update the callers that rely on the first value only.\n"
    "- Line 12: The debug call logs the full query string, which can leak data; log its\n"
    "length and a hash of it instead so the raw text is never written to the logs.\n")


@pytest.mark.parametrize("review", [TAGGED_REVIEW, ANCHORED_REVIEW])
def test_names_in_a_forwarded_review_tools_findings_are_not_the_persons(review):
    """A review tool's findings, forwarded whole, name what the tool read (its markup tags,
    its findings anchored at a file's lines): the person pointed at none of it."""
    session = Session()
    session.prompt(review)
    _route(session, "src/app/api/items/route.ts")
    assert only(session.extract(), "core/defined-in") == []


def test_a_person_who_mentions_a_line_still_names_what_they_type():
    from claimgraph.logic.review_findings import carries_findings
    assert not carries_findings("Why does `parseQuery` at lines 4-9 of route.ts drop keys?")
    assert not carries_findings("Fix the crash on line 3: parseQuery returns None")
    assert carries_findings("In `route.ts`:\n- Line 3: parseQuery returns None")


def test_a_persons_html_block_is_no_review_and_its_names_are_theirs():
    """A tag alone on its line (the HTML the person writes about) carries no file: it is no
    review tool's markup, so the names the person typed beside it count."""
    session = Session()
    session.prompt("Move parseQuery into its own module, then wrap the list in\n<section>\n"
                   "as before.")
    _route(session, "src/app/api/items/route.ts")
    assert facts(session.extract(), "defined-in") == {
        ("parseQuery", "core/defined-in", "src/app/api/items/route.ts")}


def test_a_capitalised_word_that_opens_a_line_or_runs_in_title_case_is_prose():
    """"- Region Filters: filter the report by region" sets words in Title Case; the type
    ``Region`` the session then writes is no name the person pointed at. "Added Cart, …"
    mid-sentence still names the class."""
    session = Session()
    session.prompt("Build a sales report page:\n- Region Filters: filter the report by region\n"
                   "- Export: download the rows as CSV")
    session.write(f"{ROOT}/src/types/index.ts",
                  "export interface Region {\n  id: string\n}\n\n"
                  "export interface Export {\n  rows: string[]\n}\n")
    assert only(session.extract(), "core/defined-in") == []
    named = Session()
    named.prompt("Please keep Region in its own module.")
    named.write(f"{ROOT}/src/types/index.ts", "export interface Region {\n  id: string\n}\n")
    assert facts(named.extract(), "defined-in") == {
        ("Region", "core/defined-in", "src/types/index.ts")}


def test_a_class_name_that_only_opens_a_sentence_is_still_named():
    """"Config should load once" opens a sentence with the class's name: no Title Case run,
    no list item's label, so the person pointed at it."""
    session = Session()
    session.prompt("Config should load once at start up. Keep it out of the handlers.")
    session.write(f"{ROOT}/src/settings.py", "class Config:\n    debug = False\n")
    assert facts(session.extract(), "defined-in") == {
        ("Config", "core/defined-in", "src/settings.py")}
