"""``python -m infra.local --port P --token T``: run the local stack until SIGINT/SIGTERM."""

import logging
import os
import sys

from infra.local.main import main

code = main()
# main() has stopped, written and closed everything; tearing the interpreter down (moto's, botocore's
# and pydantic's module graphs) would take another second or two and keep nothing.
logging.shutdown()
sys.stdout.flush()
sys.stderr.flush()
os._exit(code)
