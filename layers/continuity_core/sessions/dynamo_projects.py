"""The projects page's record: one item per project of an agent (A#{agent}#PROJECTS, P#{hash}).

A session's creation adds one session, its harness and its machine (string sets) in the write it
makes anyway. Each open hand-off is an attribute of its own (``OPEN_HANDOFF_ATTRIBUTE_PREFIX`` + its
id, holding its TTL): the hand-off's write sets it and removes the ones it closes, the start that
consumes it removes it in its own transaction, a forgotten session's hand-offs take theirs along.
One attribute each, not a set, because one update cannot both add to a set and delete from it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from continuity_core.kernel.dynamo_items import (
    from_attributes,
    item_key,
    parse_timestamp,
    project_hash,
    projects_pk,
    timestamp,
)
from continuity_core.kernel.dynamo_update import UpdateBuilder
from continuity_core.kernel.expiry import expiry, is_expired
from continuity_core.kernel.names import OPEN_HANDOFF_ATTRIBUTE_PREFIX, PROJECT_RECORD_PREFIX, TTL_ATTRIBUTE
from continuity_core.models.projects import ProjectRecord
from continuity_core.models.state import SessionIdentity

if TYPE_CHECKING:
    from continuity_core.models.handoff import Handoff


def project_record_key(agent_id: str, project_normalized: str) -> dict[str, Any]:
    return item_key(projects_pk(agent_id), PROJECT_RECORD_PREFIX + project_hash(project_normalized))


def machine_label(identity: SessionIdentity) -> str | None:
    """How the page names a session's machine: the name the user set, else its stable id."""
    return identity.machine_name or identity.machine_id


def session_started(identity: SessionIdentity, now: datetime, ttl: timedelta) -> UpdateBuilder:
    """The record's update for a new session: one more session, its harness and machine, newest start."""
    assert identity.project_normalized is not None
    update = UpdateBuilder()
    update.set("project_normalized", identity.project_normalized)
    if identity.project:
        update.set("project", identity.project)
    update.set("last_session_at", timestamp(now))
    update.set("last_session_key", identity.session_key)
    update.set_if_missing("first_seen", timestamp(now))
    update.set(TTL_ATTRIBUTE, expiry(now, ttl).ttl_epoch)
    update.add("sessions", 1)
    for name, label in (("harnesses", identity.harness), ("machines", machine_label(identity))):
        if label:
            update.adds.append(f"{update.name(name)} {update.value({label})}")
    return update


def handoff_attribute(handoff_id: str) -> str:
    # Letters and digits only: the name doubles as its expression placeholder (#name).
    return OPEN_HANDOFF_ATTRIBUTE_PREFIX + "".join(c for c in handoff_id if c.isalnum())


def handoffs_gone(update: UpdateBuilder, handoff_ids: Iterable[str]) -> None:
    """Into ``update``: these hand-offs are open no more (consumed, closed or deleted)."""
    update.removes.extend(update.name(handoff_attribute(handoff_id)) for handoff_id in handoff_ids)


def handoff_opened(handoff: Handoff, closed: list[Handoff], retention: timedelta) -> UpdateBuilder:
    """The record's update for a new open hand-off. A record expired or deleted meanwhile is made
    again from the hand-off (its session started the project), so the page never reads half a record."""
    until = expiry(handoff.created_at, retention).ttl_epoch
    update = UpdateBuilder()
    update.set(handoff_attribute(handoff.id), until)
    handoffs_gone(update, [old.id for old in closed if old.id != handoff.id])
    update.set_if_missing("project_normalized", handoff.project_normalized)
    update.set_if_missing("project", handoff.project)
    update.set_if_missing("first_seen", timestamp(handoff.created_at))
    update.set_if_missing("last_session_at", timestamp(handoff.created_at))
    update.set_if_missing("last_session_key", handoff.session_key)
    # The newest thing in the project: the record lives at least as long as the hand-off.
    update.set(TTL_ATTRIBUTE, until)
    return update


def project_record(item: dict[str, Any], now: datetime) -> ProjectRecord | None:
    """The record as the page shows it; None for an item holding no session (only a consumed
    hand-off's removal, which creates the bare key when the record is gone)."""
    values = from_attributes(item)
    if "last_session_key" not in values:
        return None
    return ProjectRecord(
        project=values.get("project"),
        project_normalized=values["project_normalized"],
        sessions=values.get("sessions", 0),
        harnesses=sorted(values.get("harnesses") or ()),
        machines=sorted(values.get("machines") or ()),  # none in records written before machines
        open_handoffs=sum(
            1
            for name, ttl_epoch in values.items()
            if name.startswith(OPEN_HANDOFF_ATTRIBUTE_PREFIX) and not is_expired(int(ttl_epoch), now)
        ),
        first_seen=parse_timestamp(values["first_seen"]),
        last_session_at=parse_timestamp(values["last_session_at"]),
        last_session_key=values["last_session_key"],
    )
