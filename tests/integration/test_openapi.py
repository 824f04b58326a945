"""The OpenAPI document is generated from the handlers; it must not drift from them."""

from infra import openapi


def test_the_committed_openapi_document_matches_the_handlers() -> None:
    assert openapi.DOCUMENT.read_text() == openapi.render(), "run `make openapi` and commit the document"


def test_every_routed_path_of_the_wiring_is_documented() -> None:
    from infra.wiring import FUNCTIONS

    documented = openapi.build()["paths"]

    for spec in FUNCTIONS:
        for route in spec.routes:
            if route.documented:
                assert route.method.lower() in documented[route.path]
