"""Tokens back to text for the generated code of pyemu/compiler/regions/
(block functions in gen.py, fiber variants in variant.py): each user token
keeps its file and line through #line markers, so diagnostics and faults
point at the user's source."""
from __future__ import annotations


def cstr(s: str) -> str:
    """A C string literal of `s`."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Writer:
    """Collects output text in `parts`, placing #line markers as tokens move."""

    def __init__(self, toks: list, files: list):
        self.toks, self.files = toks, files
        self.parts: list = []
        self.file, self.line = None, 0

    def raw(self, s: str):
        self.parts.append(" " + s)

    def tok(self, t, text=None):
        if t.kind == "pragma":
            self.parts.append(f"\n#line {t.line} {cstr(self.files[t.file])}\n{t.text}\n")
            self.file = None
            return
        if self.file != t.file or t.line < self.line or t.line > self.line + 8:
            self.parts.append(f"\n#line {t.line} {cstr(self.files[t.file])}\n")
            self.file, self.line = t.file, t.line
        elif t.line > self.line:
            self.parts.append("\n" * (t.line - self.line))
            self.line = t.line
        self.parts.append(" " + (t.text if text is None else text))
        self.line += t.text.count("\n")
