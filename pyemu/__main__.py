"""python -m pyemu: see pyemu/cli.py."""
import sys

from .cli import main

sys.exit(main())
