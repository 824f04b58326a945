"""Keeps a session's state: the checkpoints written for it and the rolling digest built from them."""
