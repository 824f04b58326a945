"""Lets stored data expire on schedule: the expiry rules and the pruner that applies them."""
