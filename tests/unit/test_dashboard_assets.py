"""The dashboard's page names every module it will load, so the browser fetches them side by side."""

from __future__ import annotations

import re

from functions.dashboard.handler import ENTRY, INDEX, assets, lambda_handler


def test_the_page_preloads_every_module_but_the_entry_point_and_each_is_served() -> None:
    # Given the files the dashboard function serves
    served = assets()

    # When the page is read
    page = served[INDEX].body
    preloaded = re.findall(r'<link rel="modulepreload" href="/dashboard/([^"]+)">', page)

    # Then every module of static/ is preloaded once (the entry point is the page's own script),
    # inside <head>, and each link names a file the function serves as JavaScript
    modules = sorted(name for name in served if name.endswith(".js") and name != ENTRY)
    assert sorted(preloaded) == modules and len(modules) > 5
    assert page.index("modulepreload") < page.index("</head>")
    assert all(served[name].content_type.startswith("text/javascript") for name in preloaded)
    assert f'<script type="module" src="/dashboard/{ENTRY}">' in page


def test_the_favicon_is_served_at_the_origins_root_and_named_by_the_page() -> None:
    # Given a browser asking the origin's root for its icon, as browsers do
    event = {"rawPath": "/favicon.ico", "requestContext": {"http": {"method": "GET"}}}

    # When the dashboard function answers
    answer = lambda_handler(event, None)

    # Then it is the dashboard's icon (not a 404), and the page links the same file
    assert answer["statusCode"] == 200
    assert answer["headers"]["Content-Type"].startswith("image/svg+xml")
    assert answer["body"].startswith("<svg")
    assert '<link rel="icon" href="/dashboard/favicon.svg"' in assets()[INDEX].body
