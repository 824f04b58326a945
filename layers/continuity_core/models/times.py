"""Date-times a request carries as text: ISO 8601 only, as the OpenAPI document says (``date-time``).

pydantic's lax mode also reads a bare number as Unix time (``since=5`` is 1970-01-01T00:00:05Z), a
request the schema calls invalid: it is refused with the other validation errors (422) instead.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

from pydantic import BeforeValidator

_NUMBER = re.compile(r"\s*[+-]?\d+(?:\.\d+)?\s*")


def _not_a_number(value: object) -> object:
    if isinstance(value, int | float) or (isinstance(value, str) and _NUMBER.fullmatch(value)):
        raise ValueError("expected an ISO 8601 date-time (2026-11-27T09:00:00Z), not a number")
    return value


IsoDatetime = Annotated[datetime, BeforeValidator(_not_a_number)]
