"""Stores a session's transcript: appended in order, read back, redacted, long bodies in S3."""
