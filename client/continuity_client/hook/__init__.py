"""The hook path: everything ``continuity hook <event>`` loads, and the local state it keeps.

Standard library only, and only cheap modules of it (``tests/client/test_client_commands.py``
holds the import budget): the hook runs inside the agent's loop on every prompt.
"""
