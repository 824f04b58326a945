"""The sealed held-out recovery set: Claude Code transcripts and their facts (docs/BENCHMARKS.md)."""
