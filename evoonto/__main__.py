"""``python -m evoonto`` runs the command line."""
import sys

from evoonto.cli import main

sys.exit(main())
