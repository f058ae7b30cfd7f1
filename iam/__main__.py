"""``python -m iam`` runs the command line."""

import sys

from iam.cli import main

sys.exit(main())
