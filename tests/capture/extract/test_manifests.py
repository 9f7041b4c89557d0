"""Dependency manifests read from text: whole files, Edit fragments, Read-tool renderings, junk."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimgraph.capture.extract.lenient_json import MAX_FAILURES as JSON_FAILURES
from claimgraph.capture.extract.lenient_toml import MAX_SLOW_FAILURES, MAX_STATEMENT_LINES
from claimgraph.capture.extract.manifest_common import MAX_DEPENDENCIES
from claimgraph.capture.extract.manifests import (
    Manifest, manifest_format, parse_manifest, strip_line_numbers)

from .transcript_lines import codex_output, tool_input, tool_result

SUBAGENT = "claude-code/subagent.jsonl"
PORT = "claude-code/python-to-rust-port.jsonl"
SPOTTER_4TE = "claude-code/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
SPOTTER_FUM = "claude-code/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
CODEX = "codex/rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl"


def parse(path: str, text: str) -> Manifest:
    """Parse and check the invariant every caller relies on: each quote is verbatim in the text."""
    manifest = parse_manifest(path, textwrap.dedent(text))
    assert manifest is not None
    for dep in manifest.dependencies:
        assert dep.quote and dep.quote in textwrap.dedent(text), dep
    if manifest.runtime_quote:
        assert manifest.runtime_quote in textwrap.dedent(text)
    return manifest


def deps(manifest: Manifest) -> dict[str, tuple[str | None, str]]:
    return {d.name: (d.constraint, d.kind) for d in manifest.dependencies}


# --- which files are manifests ---------------------------------------------------------------

@pytest.mark.parametrize("path, expected", [
    ("/p/pyproject.toml", "pyproject.toml"), ("package.json", "package.json"),
    ("/p/Cargo.toml", "cargo.toml"), ("go.mod", "go.mod"), ("/p/mix.exs", "mix.exs"),
    ("Gemfile", "gemfile"), ("app/build.gradle", "build.gradle"),
    ("build.gradle.kts", "build.gradle.kts"), ("pom.xml", "pom.xml"),
    ("requirements.txt", "requirements"), ("requirements-dev.txt", "requirements"),
    ("dev-requirements.txt", "requirements"), ("requirements/test.txt", "requirements"),
    ("requirements.in", "requirements"), ("C:\\proj\\package.json", "package.json"),
    ("README.md", None), ("package-lock.json", None), ("Cargo.lock", None),
    ("notes/requirements.md", None), ("src/mix.ex", None), ("", None),
])
def test_manifests_are_recognised_by_file_name(path, expected):
    assert manifest_format(path) == expected


def test_a_path_that_names_no_manifest_yields_nothing_whatever_the_text():
    assert parse_manifest("src/app.py", 'dependencies = ["requests"]') is None


# --- pyproject.toml ---------------------------------------------------------------------------

PEP_621 = """\
    [build-system]
    requires = ["hatchling>=1.18"]

    [project]
    name = "shop"
    requires-python = ">=3.10"
    dependencies = [
        "httpx>=0.27,<1",  # the client
        "pydantic[email]>=2",
        "tomli>=2.0; python_version < '3.11'",
        "mylib @ https://example.com/mylib.whl",
    ]

    [project.optional-dependencies]
    test = ["pytest>=8", "pytest-cov"]
    postgres = ["psycopg>=3"]

    [dependency-groups]
    dev = ["ruff>=0.6", {include-group = "test"}]

    [tool.ruff]
    line-length = 100
"""


def test_a_pep_621_pyproject_yields_each_dependency_with_its_kind_and_constraint():
    manifest = parse("pyproject.toml", PEP_621)
    assert (manifest.ecosystem, manifest.package) == ("python", "shop")
    assert manifest.runtime == ("Python", ">=3.10")
    assert manifest.runtime_quote == 'requires-python = ">=3.10"'
    assert deps(manifest) == {
        "hatchling": (">=1.18", "build"), "httpx": (">=0.27,<1", "runtime"),
        "pydantic": (">=2", "runtime"), "tomli": (">=2.0", "runtime"),
        "mylib": (None, "runtime"), "pytest": (">=8", "test"), "pytest-cov": (None, "test"),
        "psycopg": (">=3", "optional"), "ruff": (">=0.6", "dev")}


def test_a_dependency_in_a_multi_line_array_is_quoted_by_its_own_line():
    manifest = parse("pyproject.toml", PEP_621)
    quotes = {d.name: d.quote for d in manifest.dependencies}
    assert quotes["httpx"] == '"httpx>=0.27,<1",  # the client'
    assert quotes["pytest"] == 'test = ["pytest>=8", "pytest-cov"]'
    by_name = {d.name: d for d in manifest.dependencies}
    assert by_name["mylib"].flags == ("url",)
    assert by_name["pytest"].section == "project.optional-dependencies.test"


def test_a_poetry_pyproject_yields_python_and_grouped_dependencies():
    manifest = parse("pyproject.toml", """\
        [tool.poetry]
        name = "api"
        [tool.poetry.dependencies]
        python = "^3.11"
        fastapi = "^0.110"
        redis = { version = "^5", optional = true }
        mylib = { git = "https://example.com/mylib.git" }
        [tool.poetry.group.test.dependencies]
        pytest = "^8"
        [tool.poetry.group.lint.dependencies]
        mypy = "*"
        [tool.poetry.dev-dependencies]
        black = "^24"
        [tool.poetry.dependencies.django]
        version = "^5"
        extras = ["bcrypt"]
    """)
    assert manifest.runtime == ("Python", "^3.11") and manifest.package == "api"
    assert deps(manifest) == {
        "fastapi": ("^0.110", "runtime"), "redis": ("^5", "optional"), "mylib": (None, "runtime"),
        "pytest": ("^8", "test"), "mypy": ("*", "dev"), "black": ("^24", "dev"),
        "django": ("^5", "runtime")}
    by_name = {d.name: d for d in manifest.dependencies}
    assert by_name["mylib"].flags == ("git",)
    assert by_name["django"].quote == "[tool.poetry.dependencies.django]"


def test_an_edit_that_adds_one_requirement_line_yields_it_without_a_section():
    manifest = parse("pyproject.toml", '''\
        "filelock>=3.12",
        "httpx>=0.27",
    ]
    ''')
    assert deps(manifest) == {"filelock": (">=3.12", "runtime"), "httpx": (">=0.27", "runtime")}
    assert all(d.section is None for d in manifest.dependencies)


def test_a_fragment_that_shows_its_table_header_keeps_the_kind_it_implies():
    manifest = parse("pyproject.toml", """\
        [project.optional-dependencies]
        test = [
            "pytest>=8",
            "hypothesis>=6.80",
    """)
    assert deps(manifest) == {"pytest": (">=8", "test"), "hypothesis": (">=6.80", "test")}


def test_a_fragment_holding_only_requires_python_yields_the_runtime():
    manifest = parse("pyproject.toml", 'requires-python = ">=3.12"\n')
    assert manifest.runtime == ("Python", ">=3.12") and manifest.dependencies == ()


def test_a_pyproject_with_only_tool_settings_declares_nothing():
    assert parse_manifest("pyproject.toml", "[tool.ruff]\nline-length = 100\n") is None


# --- requirements files -----------------------------------------------------------------------

def test_a_requirements_file_skips_options_includes_urls_paths_and_comments():
    manifest = parse("requirements.txt", """\
        # runtime
        -r base.txt
        -c constraints.txt
        -e .
        --index-url https://pypi.example/simple
        requests>=2.31  # http
        Django==5.0 ; python_version >= "3.10"
        uvicorn[standard]
        git+https://github.com/x/y.git#egg=y
        https://example.com/pkg.whl
        ./vendor/pkg
        numpy==1.26.4 \\
            --hash=sha256:abc
    """)
    assert deps(manifest) == {"requests": (">=2.31", "runtime"),
                              "Django": ("==5.0", "runtime"), "uvicorn": (None, "runtime"),
                              "numpy": ("==1.26.4", "runtime")}
    assert {d.name: d.quote for d in manifest.dependencies}["numpy"] == "numpy==1.26.4 \\"


@pytest.mark.parametrize("path, kind", [
    ("requirements.txt", "runtime"), ("requirements-dev.txt", "dev"),
    ("dev-requirements.txt", "dev"), ("requirements_test.txt", "test"),
    ("requirements/test.txt", "test"), ("requirements/base.txt", "runtime"),
    ("requirements/docs.txt", "dev"), ("requirements-prod.txt", "runtime"),
])
def test_a_requirements_file_name_says_which_kind_its_dependencies_are(path, kind):
    [dep] = parse(path, "pytest>=8\n").dependencies
    assert dep.kind == kind


# --- package.json -----------------------------------------------------------------------------

PACKAGE_JSON = """\
    {
      "name": "@acme/web",
      "version": "1.0.0",
      "packageManager": "pnpm@9.12.0",
      "engines": { "node": ">=20", "pnpm": ">=9" },
      "workspaces": [
        "apps/*",
        "packages/*"
      ],
      "scripts": {
        "test": "vitest run"
      },
      "dependencies": {
        "react": "^19.0.0",
        "@acme/ui": "workspace:*"
      },
      "devDependencies": {
        "vitest": "^3.2.4",
        "typescript": "5.8.3"
      },
      "peerDependencies": {
        "react-dom": ">=18"
      },
      "optionalDependencies": {
        "fsevents": "~2.3.3"
      }
    }
"""


def test_a_package_json_yields_every_dependency_section_with_its_kind():
    manifest = parse("package.json", PACKAGE_JSON)
    assert (manifest.ecosystem, manifest.package) == ("node", "@acme/web")
    assert manifest.runtime == ("Node", ">=20")
    assert deps(manifest) == {
        "react": ("^19.0.0", "runtime"), "@acme/ui": ("workspace:*", "runtime"),
        "vitest": ("^3.2.4", "dev"), "typescript": ("5.8.3", "dev"),
        "react-dom": (">=18", "peer"), "fsevents": ("~2.3.3", "optional")}
    assert {d.name: d.flags for d in manifest.dependencies}["@acme/ui"] == ("workspace",)


def test_a_package_json_reports_its_package_manager_engines_and_workspaces():
    settings_ = {s.key: (s.value, s.quote) for s in parse("package.json", PACKAGE_JSON).settings}
    assert settings_["packageManager"] == ("pnpm@9.12.0", '"packageManager": "pnpm@9.12.0",')
    assert settings_["engines.pnpm"][0] == ">=9"
    assert settings_["workspaces"] == ("apps/*, packages/*", '"workspaces": [')


def test_a_minified_package_json_is_read_as_one_line():
    text = '{"name":"x","dependencies":{"lodash":"^4.17.21"},"workspaces":{"packages":["a/*"]}}'
    manifest = parse("package.json", text)
    assert deps(manifest) == {"lodash": ("^4.17.21", "runtime")}
    assert manifest.dependencies[0].quote == text
    assert [(s.key, s.value) for s in manifest.settings] == [("workspaces", "a/*")]


def test_a_package_json_fragment_without_its_section_key_cannot_tell_dev_from_runtime():
    manifest = parse("package.json", '    "vitest": "^3.2.4",\n')
    [dep] = manifest.dependencies
    assert (dep.name, dep.constraint, dep.kind) == ("vitest", "^3.2.4", "runtime")
    assert dep.section is None


def test_a_package_json_fragment_that_shows_its_section_key_keeps_the_kind():
    manifest = parse("package.json", """\
          "devDependencies": {
            "@xterm/headless": "^6.0.0",
            "vitest": "^4.0.18"
          }
    """)
    assert deps(manifest) == {"@xterm/headless": ("^6.0.0", "dev"), "vitest": ("^4.0.18", "dev")}


def test_a_package_json_fragment_ignores_fields_and_scripts_that_are_not_dependencies():
    manifest = parse("package.json", """\
        "name": "assets",
        "version": "1.0.0",
        "main": "index.js",
        "test": "vitest run",
        "node": ">=20",
    """)
    assert (manifest.package, manifest.dependencies) == ("assets", ())
    assert parse_manifest("package.json", '"test": "vitest run",\n"main": "index.js"\n') is None


def test_a_fragment_closing_one_section_and_opening_another_reads_both():
    manifest = parse("package.json", """\
        "esbuild": "^0.27.3",
        "highlight.js": "^11.11.1"
      },
      "devDependencies": {
        "vitest": "^4.0.18"
    """)
    assert deps(manifest) == {"esbuild": ("^0.27.3", "runtime"),
                              "highlight.js": ("^11.11.1", "runtime"),
                              "vitest": ("^4.0.18", "dev")}
    assert {d.name: d.section for d in manifest.dependencies}["vitest"] == "devDependencies"


# --- Cargo.toml -------------------------------------------------------------------------------

def test_a_cargo_manifest_yields_edition_dependency_tables_and_lint_levels():
    manifest = parse("Cargo.toml", """\
        [package]
        name = "ported"
        version = "0.1.0"
        edition = "2024"
        rust-version = "1.85"

        [dependencies]
        serde = { version = "1.0", features = ["derive"] }
        anyhow = "1"
        tokio.workspace = true
        local = { path = "../local" }
        mac = { version = "0.3", optional = true }

        [dependencies.regex]
        features = ["unicode"]
        version = "1.10"

        [dev-dependencies]
        proptest = "1.4"

        [build-dependencies]
        cc = "1"

        [target.'cfg(unix)'.dependencies]
        libc = "0.2"

        [lints.rust]
        missing_docs = "warn"
        unsafe_code = { level = "forbid", priority = -1 }
    """)
    assert (manifest.ecosystem, manifest.package) == ("rust", "ported")
    assert manifest.runtime == ("Rust edition", "2024")
    assert deps(manifest) == {
        "serde": ("1.0", "runtime"), "anyhow": ("1", "runtime"), "tokio": (None, "runtime"),
        "local": (None, "runtime"), "mac": ("0.3", "optional"), "regex": ("1.10", "runtime"),
        "proptest": ("1.4", "dev"), "cc": ("1", "build"), "libc": ("0.2", "runtime")}
    flags = {d.name: d.flags for d in manifest.dependencies}
    assert flags["tokio"] == ("workspace",) and flags["local"] == ("path",)
    settings_ = {s.key: s.value for s in manifest.settings}
    assert settings_["lints.rust.missing_docs"] == "warn"
    assert settings_["lints.rust.unsafe_code"] == "forbid"
    assert settings_["rust-version"] == "1.85"


def test_a_cargo_workspace_declares_shared_dependencies_and_lints():
    manifest = parse("Cargo.toml", """\
        [workspace]
        members = ["crates/*"]
        [workspace.package]
        edition = "2021"
        [workspace.dependencies]
        serde = "1"
        [workspace.lints.clippy]
        pedantic = "warn"
    """)
    assert manifest.runtime == ("Rust edition", "2021")
    [dep] = manifest.dependencies
    assert (dep.name, dep.section) == ("serde", "workspace.dependencies")
    assert ("workspace.lints.clippy.pedantic", "warn") in [(s.key, s.value)
                                                            for s in manifest.settings]


def test_a_cargo_manifest_without_edition_takes_rust_version_as_the_runtime():
    assert parse("Cargo.toml", '[package]\nrust-version = "1.80"\n').runtime == ("Rust", "1.80")


def test_a_headerless_cargo_line_counts_only_when_it_reads_as_a_dependency():
    manifest = parse("Cargo.toml", """\
        serde = "1"
        tokio = { version = "1", features = ["full"] }
        version = "0.2.0"
        missing_docs = "warn"
    """)
    assert deps(manifest) == {"serde": ("1", "runtime"), "tokio": ("1", "runtime")}
    assert all(d.section is None for d in manifest.dependencies)


# --- go.mod -----------------------------------------------------------------------------------

def test_a_go_mod_yields_the_go_version_and_requirements_with_indirect_marked():
    manifest = parse("go.mod", """\
        module github.com/acme/tool

        go 1.22
        toolchain go1.22.3

        require github.com/spf13/cobra v1.8.0

        require (
        \tgithub.com/stretchr/testify v1.9.0
        \tgolang.org/x/sys v0.20.0 // indirect
        )

        replace github.com/acme/lib v1.0.0 => ../lib
        exclude (
        \tgithub.com/bad/mod v0.0.1
        )
    """)
    assert (manifest.package, manifest.runtime) == ("github.com/acme/tool", ("Go", "1.22"))
    assert deps(manifest) == {"github.com/spf13/cobra": ("v1.8.0", "runtime"),
                              "github.com/stretchr/testify": ("v1.9.0", "runtime"),
                              "golang.org/x/sys": ("v0.20.0", "runtime")}
    flags = {d.name: d.flags for d in manifest.dependencies}
    assert flags["golang.org/x/sys"] == ("indirect",) and flags["github.com/spf13/cobra"] == ()
    assert [(s.key, s.value) for s in manifest.settings] == [("toolchain", "go1.22.3")]


def test_a_go_mod_fragment_of_requirement_lines_still_yields_them():
    manifest = parse("go.mod", "\tgithub.com/google/uuid v1.6.0\n"
                               "\tgithub.com/a/b v0.1.0 // indirect\n")
    assert [d.name for d in manifest.dependencies] == ["github.com/google/uuid", "github.com/a/b"]


# --- mix.exs ----------------------------------------------------------------------------------

def test_a_mix_exs_yields_app_elixir_version_and_deps_with_their_environments():
    manifest = parse("mix.exs", """\
        defmodule Shop.MixProject do
          use Mix.Project

          def project do
            [app: :shop, version: "0.1.0", elixir: "~> 1.17", deps: deps()]
          end

          defp deps do
            [
              {:phoenix, "~> 1.7"},
              {:credo, "~> 1.7", only: [:dev, :test], runtime: false},
              {:lazy_html, ">= 0.1.0", only: :test},
              {:live_debugger, "~> 0.1", only: :dev},
              {:jason, "~> 1.4", optional: true},
              {:heroicons, github: "tailwindlabs/heroicons", tag: "v2.1.1", sparse: "optimized"},
              {:core, in_umbrella: true}
              # {:dep_from_hexpm, "~> 0.3.0"},
            ]
          end

          defp helpers, do: {:ok, "not a dep"}
        end
    """)
    assert (manifest.package, manifest.runtime) == ("shop", ("Elixir", "~> 1.17"))
    assert deps(manifest) == {
        "phoenix": ("~> 1.7", "runtime"), "credo": ("~> 1.7", "dev"),
        "lazy_html": (">= 0.1.0", "test"), "live_debugger": ("~> 0.1", "dev"),
        "jason": ("~> 1.4", "optional"), "heroicons": (None, "runtime"),
        "core": (None, "runtime")}
    flags = {d.name: d.flags for d in manifest.dependencies}
    assert flags["credo"] == ("runtime: false",)
    assert flags["heroicons"] == ('github: "tailwindlabs/heroicons"',)


def test_a_single_mix_dep_line_from_an_edit_still_says_it_is_dev_only():
    manifest = parse("mix.exs", '      {:credo, "~> 1.7", only: [:dev, :test], runtime: false},\n')
    [dep] = manifest.dependencies
    assert (dep.name, dep.constraint, dep.kind) == ("credo", "~> 1.7", "dev")
    assert dep.quote == '{:credo, "~> 1.7", only: [:dev, :test], runtime: false},'


# --- Gemfile ----------------------------------------------------------------------------------

def test_a_gemfile_yields_gems_with_versions_and_group_kinds():
    manifest = parse("Gemfile", """\
        source "https://rubygems.org"
        ruby "3.3.0"

        gem "rails", "~> 7.1", ">= 7.1.2"
        gem "pg", group: :production
        gem "bootsnap", require: false

        group :development, :test do
          gem "rspec-rails", "~> 6.1"
        end

        group :test do
          gem "capybara"
          platforms :mri do
            gem "simplecov", require: false
          end
        end
        gem "rubocop", groups: [:development], require: false
        gem "mylib", github: "acme/mylib"
    """)
    assert manifest.runtime == ("Ruby", "3.3.0") and manifest.package is None
    assert deps(manifest) == {
        "rails": ("~> 7.1, >= 7.1.2", "runtime"), "pg": (None, "runtime"),
        "bootsnap": (None, "runtime"), "rspec-rails": ("~> 6.1", "dev"),
        "capybara": (None, "test"), "simplecov": (None, "test"), "rubocop": (None, "dev"),
        "mylib": (None, "runtime")}
    assert {d.name: d.flags for d in manifest.dependencies}["mylib"] == ("github",)


# --- Gradle and Maven -------------------------------------------------------------------------

def test_a_groovy_build_gradle_yields_coordinates_by_configuration():
    manifest = parse("build.gradle", """\
        java {
            sourceCompatibility = JavaVersion.VERSION_17
        }
        dependencies {
            implementation 'org.springframework.boot:spring-boot-starter-web'
            implementation "com.google.guava:guava:33.0.0-jre"
            compileOnly group: 'org.projectlombok', name: 'lombok', version: '1.18.30'
            annotationProcessor 'org.projectlombok:lombok:1.18.30'
            testImplementation 'org.junit.jupiter:junit-jupiter:5.10.2'
            implementation project(':core')
            implementation fileTree(dir: 'libs', include: ['*.jar'])
        }
    """)
    assert manifest.runtime == ("Java", "17")
    assert deps(manifest) == {
        "org.springframework.boot:spring-boot-starter-web": (None, "runtime"),
        "com.google.guava:guava": ("33.0.0-jre", "runtime"),
        "org.projectlombok:lombok": ("1.18.30", "build"),
        "org.junit.jupiter:junit-jupiter": ("5.10.2", "test")}


def test_a_kotlin_build_gradle_yields_platforms_catalog_aliases_and_the_toolchain():
    manifest = parse("build.gradle.kts", """\
        kotlin { jvmToolchain(21) }
        dependencies {
            implementation(platform("org.springframework.boot:spring-boot-dependencies:3.3.0"))
            implementation(libs.kotlinx.coroutines.core)
            testRuntimeOnly("org.junit.platform:junit-platform-launcher")
            debugImplementation("com.squareup.leakcanary:leakcanary-android:2.14")
        }
    """)
    assert manifest.runtime == ("Java", "21")
    assert deps(manifest) == {
        "org.springframework.boot:spring-boot-dependencies": ("3.3.0", "runtime"),
        "libs.kotlinx.coroutines.core": (None, "runtime"),
        "org.junit.platform:junit-platform-launcher": (None, "test"),
        "com.squareup.leakcanary:leakcanary-android": ("2.14", "dev")}


POM = """\
    <?xml version="1.0" encoding="UTF-8"?>
    <project xmlns="http://maven.apache.org/POM/4.0.0">
      <modelVersion>4.0.0</modelVersion>
      <groupId>com.acme</groupId>
      <artifactId>orders</artifactId>
      <properties>
        <maven.compiler.release>21</maven.compiler.release>
        <jackson.version>2.17.1</jackson.version>
      </properties>
      <dependencyManagement>
        <dependencies>
          <dependency>
            <groupId>org.springframework.boot</groupId>
            <artifactId>spring-boot-dependencies</artifactId>
            <version>3.3.0</version>
            <scope>import</scope>
            <type>pom</type>
          </dependency>
        </dependencies>
      </dependencyManagement>
      <dependencies>
        <dependency>
          <groupId>com.fasterxml.jackson.core</groupId>
          <artifactId>jackson-databind</artifactId>
          <version>${jackson.version}</version>
        </dependency>
        <dependency>
          <groupId>jakarta.servlet</groupId>
          <artifactId>jakarta.servlet-api</artifactId>
          <scope>provided</scope>
        </dependency>
        <dependency>
          <groupId>org.junit.jupiter</groupId>
          <artifactId>junit-jupiter</artifactId>
          <scope>test</scope>
        </dependency>
        <dependency>
          <groupId>org.postgresql</groupId>
          <artifactId>postgresql</artifactId>
          <optional>true</optional>
        </dependency>
      </dependencies>
    </project>
"""


def test_a_pom_yields_dependencies_by_scope_with_property_versions_resolved():
    manifest = parse("pom.xml", POM)
    assert (manifest.ecosystem, manifest.package) == ("maven", "orders")
    assert manifest.runtime == ("Java", "21")
    assert deps(manifest) == {
        "org.springframework.boot:spring-boot-dependencies": ("3.3.0", "runtime"),
        "com.fasterxml.jackson.core:jackson-databind": ("2.17.1", "runtime"),
        "jakarta.servlet:jakarta.servlet-api": (None, "build"),
        "org.junit.jupiter:junit-jupiter": (None, "test"),
        "org.postgresql:postgresql": (None, "optional")}
    by_name = {d.name: d for d in manifest.dependencies}
    assert by_name["org.springframework.boot:spring-boot-dependencies"].flags == (
        "scope: import", "managed")
    assert by_name["com.fasterxml.jackson.core:jackson-databind"].quote == \
        "<artifactId>jackson-databind</artifactId>"


def test_a_pom_fragment_of_dependency_blocks_is_read_block_by_block():
    manifest = parse("pom.xml", """\
            <dependency>
              <groupId>org.slf4j</groupId>
              <artifactId>slf4j-api</artifactId>
              <version>2.0.13</version>
            </dependency>
          </dependencies>
          <build>
    """)
    assert deps(manifest) == {"org.slf4j:slf4j-api": ("2.0.13", "runtime")}


def test_a_pom_with_a_doctype_or_entities_is_refused_unparsed():
    text = '<?xml version="1.0"?><!DOCTYPE p [<!ENTITY x SYSTEM "http://example.com/x">]>' \
           "<project><artifactId>&x;</artifactId></project>"
    assert parse_manifest("pom.xml", text) is None


# --- the Read tool's numbered lines -----------------------------------------------------------

def test_read_tool_line_numbers_are_removed_and_other_lines_left_alone():
    text = "     1→[package]\n     2→name = \"x\"\n    10→\n\n<system-reminder>\n1→ kept\n"
    assert strip_line_numbers(text) == '[package]\nname = "x"\n\n\n<system-reminder>\n kept\n'


def test_cat_n_numbering_is_removed_only_when_the_numbers_run_on():
    assert strip_line_numbers("     1\tgo 1.22\n     2\t\n     3\tmodule x\n") == \
        "go 1.22\n\nmodule x\n"
    tsv = "1\tapple\n7\tpear\n"
    assert strip_line_numbers(tsv) == tsv


@pytest.mark.parametrize("text", [
    "plain text\n  8→ an arrow later\n", "", "\n\n", "name\tvalue\n", "→ only an arrow\n"])
def test_text_without_a_leading_line_number_prefix_is_unchanged(text):
    assert strip_line_numbers(text) == text


def test_a_manifest_rendered_by_the_read_tool_parses_like_the_file():
    numbered = ('     1→[project]\n     2→requires-python = ">=3.11"\n'
                '     3→dependencies = ["rich>=13"]\n')
    manifest = parse("pyproject.toml", numbered)
    assert manifest.runtime == ("Python", ">=3.11")
    assert deps(manifest) == {"rich": (">=13", "runtime")}
    assert manifest.dependencies[0].quote == 'dependencies = ["rich>=13"]'


# --- real lines from the fixture transcripts --------------------------------------------------

def test_the_mix_exs_an_agent_read_yields_elixir_1_19_and_its_dev_only_deps():
    text = tool_result(SUBAGENT, 26)
    manifest = parse("/home/marco/projects/spotter/mix.exs", text)
    assert manifest.package == "spotter"
    assert manifest.runtime == ("Elixir", "~> 1.19")
    found = deps(manifest)
    assert found["ash"] == ("~> 3.0", "runtime")
    assert found["tidewave"] == ("~> 0.5", "dev") and found["igniter"] == ("~> 0.6", "dev")
    assert "dep_from_hexpm" not in found and "dep_from_git" not in found


def test_an_edit_that_added_opentelemetry_deps_to_mix_exs_yields_them():
    new_text = tool_input(SPOTTER_4TE, 129)["new_string"]
    found = deps(parse("mix.exs", new_text))
    assert found["opentelemetry"] == ("~> 1.7", "runtime")
    assert found["lazy_html"] == (">= 0.1.0", "test")
    assert found["mix_audit"] == ("~> 2.1", "dev")


def test_a_one_line_mix_exs_edit_yields_the_test_only_dependency_it_added():
    new_text = tool_input(SPOTTER_FUM, 1253)["new_string"]
    assert deps(parse("mix.exs", new_text))["lazy_html"] == (">= 0.1.0", "test")


def test_the_package_json_an_agent_read_yields_runtime_and_dev_dependencies():
    manifest = parse("assets/package.json", tool_result(SPOTTER_FUM, 646))
    found = deps(manifest)
    assert found["esbuild"] == ("^0.27.3", "runtime")
    assert found["vitest"] == ("^4.0.18", "dev")
    assert manifest.package == "assets"


def test_the_cargo_edit_of_the_rust_port_yields_edition_2024_and_a_lint_level():
    manifest = parse("/tmp/x/Cargo.toml", tool_input(PORT, 12)["new_string"])
    assert manifest.runtime == ("Rust edition", "2024") and manifest.package == "python_utils"
    assert ("lints.rust.missing_docs", "warn") in [(s.key, s.value) for s in manifest.settings]


def test_the_monorepo_package_json_a_codex_session_printed_yields_pnpm_and_node_18():
    manifest = parse("package.json", codex_output(CODEX, 333))
    assert manifest.runtime == ("Node", ">=18")
    assert deps(manifest)["turbo"] == ("^2.5.8", "dev")
    assert {s.key: s.value for s in manifest.settings}["packageManager"].startswith("pnpm@10")


# --- bounded work -----------------------------------------------------------------------------

def test_a_dependency_array_longer_than_one_statement_is_read_item_by_item():
    lines = [f'    "pkg{i}>=1.{i}",' for i in range(MAX_STATEMENT_LINES + 200)]
    text = "[project]\ndependencies = [\n" + "\n".join(lines[:300]) + "\n" + \
        "\n".join(lines[300:]) + "\n]\n"
    manifest = parse("pyproject.toml", text)
    assert len(manifest.dependencies) == MAX_DEPENDENCIES
    first = manifest.dependencies[0]
    assert (first.name, first.constraint, first.kind, first.section) == (
        "pkg0", ">=1.0", "runtime", "project.dependencies")


@pytest.mark.parametrize("path, line", [
    ("requirements.txt", "pkg{i}=={i}.0"), ("go.mod", "require example.com/m{i} v1.{i}.0"),
    ("package.json", '"pkg{i}": "^{i}.0.0",'), ("mix.exs", '{{:dep_{i}, "~> {i}.0"}},'),
    ("Cargo.toml", 'crate_{i} = {{ version = "{i}" }}'), ("Gemfile", 'gem "g{i}", "~> {i}.0"'),
])
def test_a_manifest_with_more_dependencies_than_the_bound_reports_the_first_ones(path, line):
    text = "\n".join(line.format(i=i) for i in range(MAX_DEPENDENCIES + 50))
    manifest = parse(path, text)
    assert len(manifest.dependencies) == MAX_DEPENDENCIES
    assert manifest.dependencies[0].quote == line.format(i=0)


def test_toml_junk_stops_costing_tomllib_calls_but_plain_values_are_still_read():
    junk = "\n".join(f"dependencies = [{{x = ({i}, ]" for i in range(MAX_SLOW_FAILURES + 10))
    manifest = parse("pyproject.toml", junk + '\nrequires-python = ">=3.12"\n')
    assert manifest.runtime == ("Python", ">=3.12")
    escaped = parse_manifest("pyproject.toml", junk + '\nrequires-python = ">=3.\\u0031"\n')
    assert escaped is None  # a value only tomllib can read is no longer tried after the junk


def test_json_junk_stops_costing_json_calls_but_plain_members_are_still_read():
    junk = "\n".join(f'"k{i}": tru{i},' for i in range(JSON_FAILURES + 10))
    manifest = parse("package.json", junk + '\n"vitest": "^3.2.4"\n')
    assert deps(manifest) == {"vitest": ("^3.2.4", "runtime")}
    escaped = parse_manifest("package.json", junk + '\n"vitest": "^3.\\u0032"\n')
    assert escaped is None  # a value only json can read is no longer tried after the junk


# --- junk never raises ------------------------------------------------------------------------

MANIFEST_PATHS = ["pyproject.toml", "requirements.txt", "package.json", "Cargo.toml", "go.mod",
                  "mix.exs", "Gemfile", "build.gradle", "pom.xml"]


@pytest.mark.parametrize("path", MANIFEST_PATHS)
def test_binary_text_is_not_a_manifest(path):
    assert parse_manifest(path, "PK\x03\x04\x00\x00binary\x00data") is None


@pytest.mark.parametrize("path", MANIFEST_PATHS)
def test_an_oversized_text_is_not_read(path):
    assert parse_manifest(path, "a = 1\n" * 400_000) is None


@pytest.mark.parametrize("path", MANIFEST_PATHS)
def test_a_large_text_of_noise_parses_without_error(path):
    noise = "".join(f'"k{i}": [{{"x": ({i}, ]]] \\ "unterminated\n' for i in range(3000))
    result = parse_manifest(path, noise)
    assert result is None or isinstance(result, Manifest)


@pytest.mark.parametrize("path", MANIFEST_PATHS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400))
def test_any_text_parses_without_error_and_quotes_stay_verbatim(path, text):
    manifest = parse_manifest(path, text)
    if manifest is not None:
        stripped = strip_line_numbers(text)
        assert all(d.quote in stripped for d in manifest.dependencies)


@pytest.mark.parametrize("path", MANIFEST_PATHS)
@settings(max_examples=40, deadline=None)
@given(lines=st.lists(st.sampled_from([
    "[project]", "dependencies = [", '"a>=1",', "]", "{", "}", '"dependencies": {',
    '"x": "^1",', "require (", ")", "github.com/a/b v1.0.0", "{:a, \"~> 1\"},", "group :test do",
    "end", 'gem "x"', "implementation 'a:b:1'", "<dependency>", "</dependency>",
    "<artifactId>a</artifactId>", "[dependencies]", 'serde = "1"', '"""', "'''", "[[", "x = {",
]), max_size=30))
def test_shuffled_manifest_lines_parse_without_error(path, lines):
    result = parse_manifest(path, "\n".join(lines))
    assert result is None or isinstance(result, Manifest)
