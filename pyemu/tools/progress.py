"""Progress of a command that runs many cases (examples, bench, conformance).

When stdout is a terminal (and stderr too), one line on stderr is rewritten
with `\\r` as cases start and finish, and erased at the end: the table that
follows is all that stays.  Otherwise (a CI log, a pipe, a file) one line is
printed per case as it finishes, so a long run is never silent.
"""
from __future__ import annotations

import shutil
import sys
from typing import Optional, TextIO


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """Reports `total` cases.  `lines` is where the per-case lines go when
    not on a terminal (default stdout; stderr when stdout carries a table
    meant for a machine, like Markdown)."""

    def __init__(self, total: int, lines: Optional[TextIO] = None):
        self.total = total
        self.count = 0
        self.interactive = _isatty(sys.stdout) and _isatty(sys.stderr)
        self.lines = lines
        self._width = 0

    def _counter(self) -> str:
        return f"[{self.count}/{self.total}]"

    def _status(self, text: str) -> None:
        text = text[:max(20, shutil.get_terminal_size().columns - 1)]
        pad = max(0, self._width - len(text))
        sys.stderr.write("\r" + text + " " * pad)
        sys.stderr.flush()
        self._width = len(text)

    def start(self, name: str) -> None:
        """A case begins (shown on a terminal only)."""
        if self.interactive:
            self._status(f"[{self.count + 1}/{self.total}] {name} ...")

    def done(self, line: str) -> None:
        """A case finished; `line` says how."""
        self.count += 1
        if self.interactive:
            self._status(f"{self._counter()} {line}")
        else:
            out = self.lines or sys.stdout
            print(f"{self._counter()} {line}", file=out, flush=True)

    def close(self) -> None:
        """Erase the terminal line (nothing to do otherwise)."""
        if self.interactive and self._width:
            sys.stderr.write("\r" + " " * self._width + "\r")
            sys.stderr.flush()
            self._width = 0
