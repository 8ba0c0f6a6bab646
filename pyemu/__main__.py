"""python -m pyemu: see pyemu/tools/cli.py."""
import sys

from .tools.cli import main

sys.exit(main())
