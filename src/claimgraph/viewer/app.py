"""The viewer's web app: routes, templates and the error pages, behind ``guard.Guard``.

Starlette (a small, well-kept ASGI toolkit: routing, requests, a test client) and Jinja2 (with
autoescaping on, since every string shown came from a transcript and may hold markup) run in
uvicorn. Each route is a plain function from the request's parameters to a page's data
(``overview``, ``project``, ``timeline``, ``fact``, ``activity``) and a template; the pages do
the reading, the routes only parse and render. Every asset (one stylesheet, one script) ships
in the package and is served from memory by name; nothing is fetched from any network.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from importlib import resources
from typing import Any, Callable

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from claimgraph import __version__
from claimgraph.errors import ClaimgraphError
from claimgraph.viewer import activity, overview, present, timeline
from claimgraph.viewer.cache import PageCache
from claimgraph.viewer.fact import fact_page
from claimgraph.viewer.guard import Guard
from claimgraph.viewer.held import HeldWatch
from claimgraph.viewer.project import project
from claimgraph.viewer.source import BadRequest, NotFound, Source

ASSETS = {"viewer.css": "text/css; charset=utf-8", "viewer.js": "text/javascript; charset=utf-8"}
PLACEMENTS_KEPT = 8
#: A placement older than the cache's 30 s is still served (rebuilt behind the reader) up to
#: this age, while the store is unchanged: decay moves a page's numbers slowly.
PLACEMENT_REFRESH_S = 300.0
#: Timelines kept (one per project and store state), and for how long while nothing is
#: written (only a write changes one; the age is a bound, not a need).
TIMELINES_KEPT = 4
TIMELINE_KEEP_S = 600.0
NAV = (("", "Projects"), ("activity", "Activity"), ("review", "Review"))


def templates() -> Environment:
    env = Environment(loader=PackageLoader("claimgraph.viewer", "templates"),
                      autoescape=select_autoescape(default=True), undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters.update(present.FILTERS, fact_html=present.kept_fact_html())
    env.globals.update(href=present.href, version=__version__, nav=NAV,
                       bar_max=present.BAR_WIDTH)
    return env


def load_assets() -> dict[str, bytes]:
    folder = resources.files("claimgraph.viewer").joinpath("static")
    return {name: folder.joinpath(name).read_bytes() for name in ASSETS}


def create_app(source: Source, token: str) -> Guard:
    """The app for one start of the viewer: every URL under ``/<token>/``."""
    env, assets, base = templates(), load_assets(), f"/{token}"

    def page(name: str, status: int = 200, active: str = "", **data: Any) -> HTMLResponse:
        html = env.get_template(name).render(base=base, active=active, **data)
        return HTMLResponse(html, status_code=status)

    def handle(build: Callable[[Request], tuple[str, dict[str, Any]]]
               ) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            try:
                name, data = build(request)
                return page(name, **data)
            except NotFound as err:
                return page("error.html", 404, title="Not found", message=str(err), hint=None)
            except BadRequest as err:
                return page("error.html", 400, title="Bad request", message=str(err), hint=None)
            except ClaimgraphError as err:
                return page("error.html", 503, title="Cannot read the store",
                            message=err.message, hint=err.hint)
        return endpoint

    def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in assets:
            return page("error.html", 404, title="Not found", message="no such asset", hint=None)
        return Response(assets[name], media_type=ASSETS[name])

    routes = [Route(path, handle(build), methods=["GET"]) for path, build in pages(source)]
    routes.append(Route("/static/{name}", asset, methods=["GET"]))
    app = Starlette(routes=routes)
    return Guard(app, token)


def other_state(state: Any) -> Callable[[Any], bool]:
    """Whether a kept page's key (a tuple ending with the store's state) is of another state
    than ``state``: a write made it stale for good."""
    return lambda kept: bool(kept[-1] != state)


def pages(src: Source) -> list[tuple[str, Callable[[Request], tuple[str, dict[str, Any]]]]]:
    kept = PageCache()
    held = HeldWatch()  # the facts held for review, advanced write by write (``viewer.held``)
    # Each project's placement (``project.placement``), shared by all its pages: few, since
    # one holds every id of a project's sections.
    placements = PageCache(size=PLACEMENTS_KEPT, refresh_s=PLACEMENT_REFRESH_S)

    # The last placement made for each (project, filters) of the store's file, whatever its
    # state: the next one is advanced from it (``viewer.advance``), so a write costs what it
    # touched. A file replaced by another (a restored backup) starts again: its write counter
    # and touches are another store's.
    latest: OrderedDict[Any, Any] = OrderedDict()
    lock = threading.Lock()

    def shared(key: Any, build: Callable[[Any], Any]) -> Any:
        state = src.state()
        placements.drop(other_state(state))  # a write made them stale for good
        lineage = (key, state[1])

        def made() -> Any:
            with lock:
                base = latest.get(lineage)
            value = build(base)
            with lock:
                latest[lineage] = value
                latest.move_to_end(lineage)
                while len(latest) > PLACEMENTS_KEPT:
                    latest.popitem(last=False)
            return value
        return placements.get((*key, state), made)

    # Each project's timeline (``timeline.as_of``: every begin and end of validity), kept per
    # store state: the slider's steps each ask another instant of the same timeline.
    times = PageCache(ttl_s=TIMELINE_KEEP_S, size=TIMELINES_KEPT)

    def timelines(key: Any, build: Callable[[], Any]) -> Any:
        state = src.state()
        times.drop(other_state(state))  # a write made them stale for good
        return times.get((*key, state), build)

    def projects(request: Request) -> tuple[str, dict[str, Any]]:
        return "projects.html", {"page": overview.projects(src), "active": ""}

    def one_project(request: Request) -> tuple[str, dict[str, Any]]:
        name = overview.named_project(request.query_params.get("id"))
        params = request.query_params
        key = ("project", name, tuple(sorted(params.multi_items())), src.state())
        return "project.html", {"page": kept.get(key, lambda: project(src, name, params, shared)),
                                "active": ""}

    def as_of(request: Request) -> tuple[str, dict[str, Any]]:
        name = overview.named_project(request.query_params.get("id"))
        at = request.query_params.get("at")
        key = ("asof", name, tuple(sorted(request.query_params.multi_items())), src.state())
        data = kept.get(key, lambda: timeline.as_of(src, name, at, timelines))
        partial = request.query_params.get("part") == "facts"
        return ("asof_facts.html" if partial else "asof.html"), {"page": data, "active": ""}

    def one_fact(request: Request) -> tuple[str, dict[str, Any]]:
        return "fact.html", {"page": fact_page(src, request.path_params["fact_id"]),
                             "active": ""}

    def activity_page(request: Request) -> tuple[str, dict[str, Any]]:
        paths, now = src.log_paths(), src.clock()
        found = activity.runs(paths, now)
        return "activity.html", {"page": {"runs": found, "days": activity.per_day(paths, now),
                                          "summary": activity.summary(found), "now": now,
                                          "plot_height": activity.PLOT_HEIGHT},
                                 "active": "activity"}

    def review(request: Request) -> tuple[str, dict[str, Any]]:
        wanted = request.query_params.get("id") or None
        return "review.html", {"page": overview.review(src, wanted, held),
                               "active": "review"}

    return [("/", projects), ("/project", one_project), ("/asof", as_of),
            ("/fact/{fact_id}", one_fact), ("/activity", activity_page), ("/review", review)]
