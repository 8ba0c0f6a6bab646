"""Applying the front end's edits to the text it parsed, where a
character of that text is afterwards (Moved), and c_string, the C string
literal of a text that the edits and the generated code write."""
from __future__ import annotations

import bisect
from typing import Iterable


def apply(text: str, edits: Iterable) -> str:
    """`text` with each Edit made; edits must not overlap (an insertion may
    sit at the start or end of a replacement).  Insertions at one offset keep
    their order."""
    ordered = sorted(enumerate(edits), key=lambda ie: (ie[1].start, ie[1].end > ie[1].start, ie[0]))
    out, last = [], 0
    for _, e in ordered:
        if e.start < last:
            raise ValueError(f"overlapping edits at offset {e.start} ({e.why})")
        out.append(text[last:e.start])
        out.append(e.text)
        last = e.end
    out.append(text[last:])
    return "".join(out)


class Moved:
    """Where the character at offset p of a text is after replacements in it:
    Moved(spans)(p), spans being (start, end, length of the new text) of the
    replaced ranges, not overlapping.  Text inserted at p (start == end == p)
    comes before that character; a character a replacement removed maps to
    where the replacement starts."""

    def __init__(self, spans: Iterable):
        spans = sorted(spans, key=lambda s: (s[0], s[1]))
        self.starts = [s[0] for s in spans]
        self.ends = [s[1] for s in spans]
        self.shift, total = [], 0
        for start, end, length in spans:
            total += length - (end - start)
            self.shift.append(total)

    @classmethod
    def of(cls, edits: Iterable) -> "Moved":
        """The Moved of apply(text, edits)."""
        return cls((e.start, e.end, len(e.text)) for e in edits)

    @classmethod
    def sub(cls, pattern, repl: str, text: str, count: int = 0) -> tuple:
        """(text with `pattern`'s matches replaced by `repl`, a plain string;
        its Moved); at most `count` of them when count > 0."""
        spans, out, last = [], [], 0
        for n, m in enumerate(pattern.finditer(text)):
            if count and n >= count:
                break
            spans.append((m.start(), m.end(), len(repl)))
            out += [text[last:m.start()], repl]
            last = m.end()
        out.append(text[last:])
        return "".join(out), cls(spans)

    def left(self, p: int) -> int:
        """Where text that starts at offset p starts afterwards: before the
        text inserted at p (a replaced range: where its replacement starts)."""
        i = bisect.bisect_left(self.ends, p)        # the spans that end before p ...
        while i < len(self.ends) and self.ends[i] == p and self.starts[i] < p:
            i += 1                                  # ... or replace text up to p
        if i < len(self.starts) and self.starts[i] < p < self.ends[i]:
            return self.starts[i] + (self.shift[i - 1] if i else 0)
        return p + (self.shift[i - 1] if i else 0)

    def last(self, p: int) -> int:
        """Where the last character of a text, at offset p, is afterwards: a
        character a replacement removed maps to the replacement's last one."""
        i = bisect.bisect_right(self.ends, p)
        if i < len(self.starts) and self.starts[i] <= p < self.ends[i]:
            base = self.shift[i - 1] if i else 0
            return self.starts[i] + base + max(self.shift[i] - base + self.ends[i]
                                               - self.starts[i], 1) - 1
        return self(p)

    def __call__(self, p: int) -> int:
        i = bisect.bisect_right(self.ends, p)       # the spans that end at or before p
        base = p + (self.shift[i - 1] if i else 0)
        if i < len(self.starts) and self.starts[i] < p:   # inside a replaced range
            return self.starts[i] + (self.shift[i - 1] if i else 0)
        return base


def c_string(s: str) -> str:
    """`s` as a C string literal ("kernel.cu" in a #line directive, a kernel's
    name in the generated table)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
