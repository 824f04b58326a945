"""``python -m infra.local --port P --token T``: run the local stack until SIGINT/SIGTERM."""

from infra.local.main import main

raise SystemExit(main())
