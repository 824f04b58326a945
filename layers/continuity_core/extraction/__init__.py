"""Reads what a session's text says (decisions, paths, pasted text, verdicts): rules the digest uses."""
