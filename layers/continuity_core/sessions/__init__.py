"""Lets a person find and read sessions: reads, search, projects and the dashboard."""
