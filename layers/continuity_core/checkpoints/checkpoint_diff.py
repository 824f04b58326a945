"""What changed in a session's rolling digest from one checkpoint to the next.

A fact is the same fact when its kind and its words (case and spacing folded) are: the digest
counts repetitions (``seen``) and moves ``last_prompt`` on, which is no change a reader cares for.
Of the facts active before: one still there but superseded or closed now is *superseded*; one no
longer there at all was evicted by the digest's size bound and is *dropped*. Active now and not
active before (or not there) is *added*.
"""

from __future__ import annotations

import re

from continuity_core.models.dashboard import DigestDiff, FactChange
from continuity_core.models.session_digest import Fact, FactKind, FactStatus, SessionDigest

_SPACES = re.compile(r"\s+")


def fact_key(fact: Fact) -> tuple[FactKind, str]:
    return fact.kind, _SPACES.sub(" ", fact.text).strip().casefold()


def diff_digests(previous: SessionDigest | None, current: SessionDigest | None) -> DigestDiff:
    """``current`` against ``previous`` (either may be missing: a checkpoint from before digests)."""
    before = {fact_key(f): f for f in (previous.facts if previous else [])}
    now = {fact_key(f): f for f in (current.facts if current else [])}
    added: list[Fact] = []
    superseded: list[FactChange] = []
    unchanged = 0
    for key, fact in now.items():
        old = before.get(key)
        was_active = old is not None and old.status is FactStatus.ACTIVE
        if fact.status is FactStatus.ACTIVE:
            if was_active:
                unchanged += 1
            else:
                added.append(fact)
        elif was_active:
            superseded.append(FactChange(fact=fact, previous=old))
    dropped = [f for key, f in before.items() if key not in now and f.status is FactStatus.ACTIVE]
    return DigestDiff(added=added, dropped=dropped, superseded=superseded, unchanged=unchanged)
