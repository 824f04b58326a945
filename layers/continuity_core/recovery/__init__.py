"""Gives a session back its context after a compaction or a new start: recovery block, hand-offs."""
