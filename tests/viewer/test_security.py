"""What the viewer refuses: no token or a wrong one, a foreign Host, any write, a path that
climbs out of where a parameter may point, and any address but loopback."""

from __future__ import annotations

import hashlib

import pytest

from claimgraph.errors import ClaimgraphError
from claimgraph.viewer.serve import check_host
from viewer_helpers import TOKEN
from viewer_store import PROJECT

ROUTES = ["/", f"/project?id={PROJECT}", f"/asof?id={PROJECT}", "/fact/{fact}", "/activity",
          "/review", "/static/viewer.css", "/static/viewer.js"]
WRITES = ["POST", "PUT", "PATCH", "DELETE"]
TRAVERSALS = ["../../../../etc/passwd", "..%2f..%2f..%2fetc%2fpasswd", "%2e%2e/%2e%2e/etc/passwd",
              "....//....//etc/passwd", "/etc/passwd", "..\\..\\windows\\win.ini"]


@pytest.fixture
def routes(built) -> list[str]:
    return [r.replace("{fact}", built.ids["new_version"]) for r in ROUTES]


def store_files(built) -> dict[str, str]:
    """Every file of the store (the db and its sidecars) with a hash of its bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(built.db.parent.iterdir()) if p.is_file()
            and not p.name.endswith(("-shm", "-wal"))}


def test_every_route_answers_with_the_token(client, routes):
    for route in routes:
        assert client.get(f"/{TOKEN}{route}").status_code == 200, route


@pytest.mark.parametrize("prefix", ["", "/wrong-token", f"/{TOKEN[:-1]}", f"/{TOKEN}x",
                                    f"/x{TOKEN}", f"/{TOKEN.upper()}", "/%20"])
def test_a_request_with_a_wrong_or_missing_token_is_refused(client, routes, prefix):
    for route in routes:
        response = client.get(f"{prefix}{route}")
        assert response.status_code == 403, (prefix, route)
        assert "token" in response.text


def test_the_token_is_also_refused_as_a_query_parameter_or_header(client):
    assert client.get("/", params={"token": TOKEN}).status_code == 403
    assert client.get("/", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 403


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example", "10.0.0.5:8731",
                                  "0.0.0.0"])
def test_a_request_for_another_host_is_refused_even_with_the_token(client, host):
    response = client.get(f"/{TOKEN}/", headers={"Host": host})
    assert response.status_code == 403


@pytest.mark.parametrize("method", WRITES)
def test_a_write_method_is_refused_on_every_route_and_nothing_changes(client, routes, built,
                                                                       method):
    before = store_files(built)
    for route in routes:
        allowed = client.request(method, f"/{TOKEN}{route}", data={"x": "1"})
        assert allowed.status_code == 405, (method, route)
        assert allowed.headers["allow"] == "GET, HEAD"
        assert client.request(method, route).status_code == 403
    assert store_files(built) == before


def test_head_is_answered_like_get(client, routes):
    for route in routes:
        assert client.head(f"/{TOKEN}{route}").status_code == 200, route


@pytest.mark.parametrize("attempt", TRAVERSALS)
def test_a_path_traversal_in_any_parameter_is_refused(get, attempt):
    answers = {
        "fact": get(f"/fact/{attempt}"),
        "asset": get(f"/static/{attempt}"),
        "project": get("/project", id=attempt),
        "as-of project": get("/asof", id=attempt),
        "as-of time": get("/asof", id=PROJECT, at=attempt),
        "predicate": get("/project", id=PROJECT, predicate=attempt),
        "class": get("/project", id=PROJECT, **{"class": attempt}),
        "review project": get("/review", id=attempt),
    }
    for where, response in answers.items():
        assert response.status_code in (400, 403, 404), (where, response.status_code)
        assert "root:" not in response.text and "[fonts]" not in response.text, where


def test_free_text_is_only_ever_matched_as_text(get):
    response = get("/project", id=PROJECT, text="../../../../etc/passwd")
    assert response.status_code == 200
    assert "root:" not in response.text
    assert 'id="no-sections"' in response.text and "Nothing matches the filter" in response.text


def test_asset_names_cannot_reach_the_package_sources(get):
    for name in ("app.py", "../app.py", "..%2fapp.py", "__init__.py", "../templates/base.html"):
        response = get(f"/static/{name}")
        assert response.status_code == 404 and "import" not in response.text


def test_every_answer_keeps_the_page_to_itself(client):
    for response in (client.get(f"/{TOKEN}/"), client.get("/"),
                     client.post(f"/{TOKEN}/")):
        policy = response.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "no-referrer"
        assert "server" not in response.headers


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "example.com", "::1", ""])
def test_binding_anything_but_loopback_is_refused(host):
    with pytest.raises(ClaimgraphError) as refused:
        check_host(host)
    assert refused.value.type == "not-loopback" and "127.0.0.1 only" in refused.value.message


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "LOCALHOST"])
def test_loopback_names_bind_127_0_0_1(host):
    assert check_host(host) == "127.0.0.1"
