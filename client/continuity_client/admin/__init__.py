"""Administration: ``continuity token`` and ``continuity local``."""
