"""Applying the front end's edits to the text it parsed."""
from __future__ import annotations

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
