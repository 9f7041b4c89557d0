"""Whether a "fixed by" lesson is the project's, and held: what the failure-mode rules ask
before they store one.

A lesson pairs a failure with the next success of the same thing and names what changed in
between as the fix (``lessons``, ``ci_lessons``, ``reported``, ``summaries``). The pair alone
can lie, in three general ways this module answers for all of them:

- **The change was not the project's.** A command against a cluster, a cloud or another
  machine (``kubectl apply``, ``aws …``, ``ssh host …``), one that changed a package
  registry or the repository's host (``npm publish``, ``docker push``, ``gh secret set``),
  the machine itself (``brew install``, ``sudo …``, a global install, ``systemctl
  restart``), a container outside the project (``docker restart db``): whatever made the
  next run pass, the next session cannot repeat it as a lesson about the project, and a
  later result often shows it did not hold. A command that only asks (``npm view``,
  ``kubectl get``, ``--version``) changed nothing: it is never the fix, nor a reason to doubt
  one; nor is ``git push`` (it ships the project's commits: how a CI fix arrives). An
  edit of a file outside the project (a home config, ``node_modules/``, site-packages) is
  the same: not the project's fix. Scratch files (``/tmp``) change nothing a command reads.
  And a failure whose error reports a remote's state (a registry's ``404 Not Found``, a
  timeout, a refused credential) that then passed without an edit of the project passed
  because the remote changed (``remote_error``).
- **The person did it.** Between the failure and the success the person said they acted
  ("I published 1.2.0", "I changed the setting, try again", "done") or ran a command
  themselves at the prompt (Claude Code's ``!cmd``): what the agent ran meanwhile is not what
  fixed it.
- **It did not hold** (the same failure later in the session) is each rule's own check,
  since each knows what "the same failure" is for its kind of run.

When unsure, no lesson: every answer here only ever removes one.
"""

from __future__ import annotations

import bisect
import re

from claimgraph.capture.events import Event
from claimgraph.capture.extract.session import SessionView
from claimgraph.capture.extract.shell import (
    call_cwd, command_text, invocations, only_reads, positional, unwrap)
from claimgraph.capture.extract.writes import file_ops
from claimgraph.logic.lazy_regex import lazy_regex

#: Programs whose every run acts on a cluster, a cloud, a remote service or another machine.
_REMOTE = frozenset({
    "kubectl", "helm", "oc", "minikube", "kind", "k3d", "eksctl", "istioctl", "argocd", "flux",
    "skaffold", "kubectx", "kubens", "ssh", "scp", "sftp", "mosh", "ansible", "ansible-playbook",
    "aws", "gcloud", "gsutil", "az", "doctl", "flyctl", "fly", "heroku", "vercel", "netlify",
    "wrangler", "firebase", "railway"})
#: Programs that change the machine, not the project: system package managers, services,
#: toolchain managers. (Not a terminal multiplexer: ``tmux send-keys`` may drive the
#: project's own workers, and submitting what they were sent can be the lesson.)
_MACHINE = frozenset({
    "apt", "apt-get", "aptitude", "brew", "yum", "dnf", "pacman", "apk", "zypper", "port",
    "choco", "winget", "scoop", "snap", "flatpak", "systemctl", "service", "launchctl",
    "pipx", "sysctl", "defaults", "xcode-select", "softwareupdate", "update-alternatives",
    "rustup", "sudo", "doas"})
#: (program, verb) pairs that change a registry, a remote or remote infrastructure.
_PUBLISHES = frozenset({
    ("npm", "publish"), ("npm", "unpublish"), ("npm", "deprecate"), ("npm", "dist-tag"),
    ("npm", "owner"), ("npm", "login"), ("npm", "adduser"), ("npm", "access"), ("npm", "token"),
    ("pnpm", "publish"), ("yarn", "publish"), ("yarn", "npm"),
    ("bun", "publish"), ("cargo", "publish"), ("cargo", "yank"), ("cargo", "owner"),
    ("cargo", "login"), ("gem", "push"), ("gem", "yank"), ("twine", "upload"),
    ("poetry", "publish"), ("uv", "publish"),
    ("flit", "publish"), ("hatch", "publish"), ("mvn", "deploy"),
    ("gradle", "publish"), ("dotnet", "nuget"), ("terraform", "apply"),
    ("terraform", "destroy"), ("terraform", "import"), ("tofu", "apply"), ("tofu", "destroy"),
    ("pulumi", "up"), ("pulumi", "destroy")})
#: ``gh`` verbs that send the project's own commits on or run its CI (``gh pr create``, ``gh run
#: rerun``): like ``git push`` ("ships"), they change nothing a local run reads and are how a
#: CI fix reaches CI.
_GH_SHIPS = frozenset({"pr", "run", "workflow"})
#: ``gh api`` flags that send a body.
_GH_API_BODY = frozenset({"-f", "-F", "--field", "--raw-field", "--input"})
#: (program, verb) pairs that install for the whole machine or the user, not the project.
_INSTALLS_FOR_MACHINE = frozenset({
    ("cargo", "install"), ("go", "install"), ("gem", "install"), ("uv", "tool"),
    ("npm", "link"), ("yarn", "global"), ("pnpm", "setup"), ("corepack", "enable"),
    ("corepack", "disable")})
#: A container tool's verbs that build from the project's own files; its other verbs act on
#: containers, images and registries outside it (``docker restart db``, ``docker push``).
_CONTAINERS = frozenset({"docker", "podman", "nerdctl"})
_CONTAINER_BUILDS = frozenset({"build", "buildx", "compose"})
#: Flags that install for the whole machine or the user, not the project's environment.
_GLOBAL = frozenset({"-g", "--global", "--user", "--system", "--break-system-packages",
                     "--location=global"})
#: Verbs that only ask: nothing changed, so a run passing after one was fixed by something else.
_ASKS = frozenset({
    "view", "show", "info", "list", "ls", "get", "describe", "status", "logs", "log", "search",
    "outdated", "why", "explain", "version", "help", "doctor", "whoami", "ping", "inspect",
    "history", "top", "ps", "events", "tree", "audit", "query", "check-config", "env",
    "config", "wait"})
#: An asking verb followed by one that acts (``npm audit fix``, ``poetry env use 3.12``).
_ACTS_AFTER_ALL = frozenset({("audit", "fix"), ("env", "use"), ("env", "remove")})
#: A config verb that writes (``npm config set``): the user's settings, not the project's.
_CONFIG_WRITES = frozenset({"set", "delete", "edit", "rm", "unset"})
_ASKING_FLAGS = frozenset({"--version", "-V", "--help", "-h", "version", "help"})
#: HTTP clients, and their flags that send something (a request that may change a service).
_HTTP = frozenset({"curl", "wget", "http", "https", "xh"})
_WRITES = frozenset({"-X", "--request", "-d", "--data", "--data-raw", "--data-binary", "-F",
                     "--form", "-T", "--upload-file", "--json", "--post-data", "POST", "PUT",
                     "PATCH", "DELETE"})
#: ``rsync src host:dst``: a remote path.
_REMOTE_PATH = lazy_regex(r"^[\w.-]+@?[\w.-]*:[^/]?")
#: Folders of scratch files: nothing a project's command reads (an agent's plan notes too).
_SCRATCH = ("/tmp/", "/private/tmp/", "/var/tmp/", "/var/folders/", "/dev/")
_NOTES = ("/.claude/plans/",)


def outside_change(argv: tuple[str, ...]) -> str | None:
    """Why a command that ran between a failure and a success cannot be the project's fix --
    "remote", "machine", "registry", "container"; "asks" (it changed nothing) or "ships" (it
    sent the project's commits on: ``git push``) -- or None when it may be."""
    if not argv:
        return None
    if argv[0] in ("sudo", "doas"):
        return "machine"
    words = unwrap(argv)
    if not words:
        return None
    program = words[0]
    names = positional(words)
    verb = names[1] if len(names) > 1 else ""
    if program == "gh" and (_ASKS & set(names[1:3]) or "watch" in names[1:3]):
        return "asks"
    if (program, verb) == ("git", "push") or (program == "gh" and verb in _GH_SHIPS):
        return "ships"
    if verb == "config" and _CONFIG_WRITES & set(names[2:3]):
        return "machine"
    if (verb in _ASKS and (verb, *names[2:3]) not in _ACTS_AFTER_ALL) \
            or _ASKING_FLAGS & set(words[1:2]):
        return "asks"
    if program in _REMOTE or (program == "rsync" and any(
            _REMOTE_PATH.match(word) for word in names[1:])):
        return "remote"
    if program in _MACHINE:
        return "machine"
    if (program, verb) in _PUBLISHES:
        return "registry"
    if (program, verb) in _INSTALLS_FOR_MACHINE:
        return "machine"
    if program in _CONTAINERS and verb not in _CONTAINER_BUILDS:
        return "container"
    if program == "gh" and verb == "api":
        return "remote" if _sends(words) else "asks"
    if program == "gh":
        return "remote"  # a secret, a variable, a setting, a release: the repository's host
    if program in _HTTP and _WRITES & set(words[1:]):
        return "remote"
    if _GLOBAL & set(words[1:]):
        return "machine"
    return None


def changed_outside(view: SessionView, call: Event,
                    allowed: frozenset[str] = frozenset()) -> bool:
    """The call changed something outside the project: edited a file there, or ran a command
    against a cluster, a remote, a registry or the machine, unless its kind is ``allowed``. A
    command that only asks, or ships the project's commits (``git push``), changed nothing a
    run reads: no fix, and no reason to doubt one."""
    if any(op.kind != "delete" and outside_edit(view, op.path) for op in file_ops(view, call)):
        return True
    command = command_text(call)
    found = invocations(command, call_cwd(call)) if command else ()
    return any(outside_change(invocation.argv) not in (None, "asks", "ships", *allowed)
               for invocation in found)


def _sends(words: tuple[str, ...]) -> bool:
    """``gh api`` with a body or a method other than GET (``-X PUT``, ``--method=POST``)."""
    if _GH_API_BODY & set(words):
        return True
    for flag, value in zip(words, (*words[1:], "")):
        if flag in ("-X", "--method") and value.upper() != "GET":
            return True
        if flag.startswith(("--method=", "-X")) and flag not in ("-X", "-XGET", "--method=GET"):
            return True
    return False


def changed_outside_between(view: SessionView, after: int, before: int) -> bool:
    """Did a call between transcript lines ``after`` and ``before`` (exclusive) change
    something outside the project (``changed_outside``)?"""
    lines = view.remembered("held.outside", lambda v: [
        call.line for call in v.calls() if changed_outside(v, call)])
    index = bisect.bisect_right(lines, after)
    return index < len(lines) and lines[index] < before


def remote_change(view: SessionView, call: Event) -> bool:
    """The call changed a remote, a registry or a container outside the project -- what a CI
    run may read besides the commits (``gh secret set``, ``docker push``); the machine the
    agent runs on and its files are no part of a CI run."""
    command = command_text(call)
    found = invocations(command, call_cwd(call)) if command else ()
    return any(outside_change(invocation.argv) in ("remote", "registry", "container")
               for invocation in found)


def outside_edit(view: SessionView, path: str) -> bool:
    """An edit the project's lesson cannot name: a file outside the project or in someone
    else's code inside it (``node_modules/``, a virtualenv). Scratch files are not counted:
    nothing the failed command reads."""
    if view.own(path) is not None:
        return False
    return not path.startswith(_SCRATCH) and not any(notes in path for notes in _NOTES)


#: The person saying they changed something themselves: "I published 1.2.0", "I've changed
#: the secret", "we just restarted it", "it's deployed now".
_CHANGED = (
    r"\b(?:i|we)\s*(?:'ve|’ve| have| just| already| now)*\s+(?:just\s+|already\s+|now\s+)?"
    r"(?:published|released|pushed|deployed|changed|updated|set|enabled|disabled|added|"
    r"removed|deleted|installed|uninstalled|reinstalled|restarted|rebooted|configured|created|"
    r"granted|fixed|merged|upgraded|downgraded|rotated|reset|cleared|logged|signed|started|"
    r"stopped|made|turned|switched|bumped|tagged|approved|rebuilt|activated|"
    r"killed|edited|modified|applied|generated|uploaded|connected|authenticated|authorized|"
    r"accepted|increased|raised|allowed|unblocked|renewed|regenerated|re-?enabled|"
    r"re-?deployed|re-?installed|re-?started|re-?created|re-?published)\b"
    r"|\b(?:is|are|it'?s|that'?s)\s+(?:now\s+)?(?:published|released|deployed|live|up|"
    r"enabled|installed|running|merged)\s+now\b")
_CHANGED_RE = lazy_regex(_CHANGED, re.IGNORECASE)
#: ... or that they did what was asked, or asking to run it again as it is: "done", "I ran
#: it", "try again", "should work now".
_ACTED = lazy_regex(
    _CHANGED + r"|\b(?:i|we)\s*(?:'ve|’ve| have| just| already)*\s+(?:ran|re-?ran|did)\b"
    r"|^\W*(?:ok(?:ay)?\W+)?(?:done|did it|it'?s done|all done|finished)\b"
    r"|\b(?:try|run|check|test)\s+(?:it\s+|that\s+|this\s+)?(?:again|now)\b|\bretry\b"
    r"|\bshould (?:work|be (?:fixed|fine|ok|okay|good|there|up|live|available|working)) now\b",
    re.IGNORECASE | re.MULTILINE)
_USER_SHELL = "<bash-input>"
#: The person saying they sent the session's commits on ("never mind, I pushed", "I merged
#: it", "I re-ran the job"): for a CI run that is how the session's fix got there, no other.
_SHIPPED = lazy_regex(r"\b(?:i|we)\s*(?:'ve|’ve| have| just| already)*\s+(?:just\s+|already\s+)?"
                      r"(?:pushed|merged|re-?ran|re-?triggered|triggered)\b", re.IGNORECASE)


#: An error that reports the state of something remote: a registry or service answering with
#: a 4xx/5xx status, the network, a host's credentials. What changed when the same command
#: then passed is that remote state (a release published, a token granted, the network back),
#: which no command the agent ran in between can be credited with.
_REMOTE_ERROR = lazy_regex(
    r"\b(?:[45]\d\d (?:Not Found|Forbidden|Unauthorized|Bad Gateway|Service Unavailable|"
    r"Too Many Requests|Internal Server Error|Gateway Time-?out|Bad Request)|"
    r"HTTP(?:/[\d.]+)?:? [45]\d\d|status(?: code)?:? [45]\d\d|"
    r"E(?:TIMEDOUT|CONNRESET|NOTFOUND|AI_AGAIN|HOSTUNREACH|NETUNREACH)|"
    r"Could not resolve host|Temporary failure in name resolution|name or service not known|"
    r"rate limit|Network is unreachable|no such host|unable to access 'https?://|"
    r"Permission denied \(publickey|authentication (?:failed|required)|"
    r"(?:connection|read|operation|request) timed out)", re.IGNORECASE)


def remote_error(error: str) -> bool:
    """Does a failure's error line report a remote state (a registry's 404, a timeout, a
    refused credential)? Then a fix other than an edit of the project is the remote's."""
    return bool(_REMOTE_ERROR.search(error or ""))


def user_acted(text: str, shipping: bool = True) -> bool:
    """Do the person's words say they changed something themselves, did what was asked, or
    ask to retry as is? (Between a failure and a success: what the agent ran meanwhile is
    not then what fixed it.) With ``shipping`` False, sending the session's commits on
    ("I pushed") does not count: for a CI run that is how the session's own fix arrived."""
    text = text or ""
    return bool(_ACTED.search(text if shipping else _SHIPPED.sub(" ", text)))


def user_changed(text: str) -> bool:
    """Do the person's words say they changed something themselves ("I restarted the server
    and it works")? Narrower than ``user_acted``: "I ran it again and it works" is how a
    person proves a fix, not a fix of their own."""
    return bool(_CHANGED_RE.search(text or ""))


def acted_between(view: SessionView, after: int, before: int, shipping: bool = True) -> bool:
    """Did the person act outside the agent's calls between transcript lines ``after`` and
    ``before`` (exclusive): said so in a prompt or while turning a call down, or ran a
    command of their own at the prompt that does more than look? (``shipping``: see
    ``user_acted``.)"""
    lines = view.remembered(f"held.acted.{shipping}",
                            lambda v: _acted_lines(v, shipping))
    index = bisect.bisect_right(lines, after)
    return index < len(lines) and lines[index] < before


def _acted_lines(view: SessionView, shipping: bool) -> list[int]:
    found = []
    for event in view.transcript.events:
        if event.is_human_prompt and user_acted(event.text, shipping):
            found.append(event.line)
        elif event.kind == "meta" and event.text.lstrip().startswith(_USER_SHELL):
            command = event.text.split(_USER_SHELL, 1)[1].split("</bash-input>", 1)[0]
            if command.strip() and not only_reads(command.strip()) and (
                    shipping or outside_change(tuple(command.split())) != "ships"):
                found.append(event.line)
    found += [result.line for result, said in view.typed_in_results()
              if user_acted(said, shipping)]
    return sorted(found)
