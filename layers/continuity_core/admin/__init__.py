"""Runs the service: tokens, health, forgetting a session or a project, and rate limits."""
