"""The service's pydantic models."""

# The most any integer a client sends may be: what a JSON reader in JavaScript holds exactly (the
# dashboard's), and far under Python's 4,300-digit conversion limit (docs/SECURITY.md, Hostile input).
MAX_SAFE_INTEGER = 2**53 - 1
