"""The projects page's record as DynamoDB holds it: records written before machines and hand-offs
were kept still render."""

from __future__ import annotations

from datetime import UTC, datetime

from continuity_core.kernel.dynamo_items import to_attributes
from continuity_core.sessions.dynamo_projects import handoff_attribute, project_record

NOW = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)


def test_a_record_written_before_machines_and_handoffs_renders_with_none() -> None:
    # Given a record as the session start wrote it before this change (sessions, harnesses, times)
    item = to_attributes(
        {
            "pk": "A#agent#PROJECTS",
            "sk": "P#0123456789abcdef",
            "project_normalized": "github.com/acme/shop",
            "project": "github.com/acme/shop",
            "sessions": 3,
            "harnesses": {"claude-code"},
            "first_seen": "2026-11-20T09:00:00.000000Z",
            "last_session_at": "2026-11-26T09:00:00.000000Z",
            "last_session_key": "s3",
        }
    )

    # When it is read
    record = project_record(item, NOW)

    # Then it shows no machine and no open hand-off, and the rest as before
    assert record is not None
    assert (record.machines, record.open_handoffs) == ([], 0)
    assert (record.sessions, record.harnesses, record.last_session_key) == (3, ["claude-code"], "s3")


def test_a_bare_key_left_by_a_taken_handoff_of_a_deleted_record_is_not_a_project() -> None:
    item = to_attributes({"pk": "A#agent#PROJECTS", "sk": "P#0123456789abcdef"})
    assert project_record(item, NOW) is None


def test_an_open_handoffs_attribute_name_is_its_own_expression_placeholder() -> None:
    name = handoff_attribute("6f1c-2b7e-4a9d")
    assert name.endswith("6f1c2b7e4a9d")
    assert name.replace("_", "").isalnum()
