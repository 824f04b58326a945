"""One handler per hook event; ``hooks.ingest`` routes each hook to its handler."""
