"""`python -m pyemu timeline FILE.json -o timeline.png`: a Gantt chart of a trace.

Reads a trace that PYEMU_TRACE (pyemu/runtime/trace.py) wrote, in the Chrome
trace-event format, and draws one lane per stream or queue (what ran on it,
from start to end) and one per worker thread (which worker ran the blocks
or copy slices of what), coloured by kind: kernels, copies, fills, host
functions; an event record (cudaEventRecord, "event N") and the other
instants (markers) are ticks on their stream's lane.  The legend names the
four work kinds and whichever other kinds the trace holds.  PNG and PDF need matplotlib (`pip install matplotlib`); SVG
(`-o timeline.svg`) is written without it.  The same file opens in
Perfetto (ui.perfetto.dev) or chrome://tracing for zooming.
"""
from __future__ import annotations

import argparse
import json
import sys
from html import escape

COLORS = {"kernel": "#4C72B0", "copy": "#DD8452", "fill": "#55A868",
          "host function": "#C44E52", "event": "#DA8BC3", "marker": "#8172B3",
          "user event": "#937860", "command": "#7f7f7f"}
WORK = ("kernel", "copy", "fill", "host function")     # always in the legend


def lanes_of(doc: dict):
    """[(lane label, [(start_ms, dur_ms, category, name), ...]), ...]: the
    streams of process 0, then the workers of process 1.  An instant (an
    event record, a marker: "ph": "i") has dur_ms None."""
    events = doc.get("traceEvents", doc if isinstance(doc, list) else [])
    names, rows = {}, {}
    for e in events:
        key = (e.get("pid", 0), e.get("tid", 0))
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[key] = e["args"]["name"]
        elif e.get("ph") in ("X", "i"):
            dur = e.get("dur", 0) / 1e3 if e["ph"] == "X" else None
            rows.setdefault(key, []).append((e["ts"] / 1e3, dur,
                                             e.get("cat", "command"), e.get("name", "")))
    out = []
    for key in sorted(set(rows) | {k for k in names if k in rows}):
        label = names.get(key, f"{'worker' if key[0] == 1 else 'queue'} {key[1]}")
        out.append((label, sorted(rows.get(key, []), key=lambda r: (r[0], r[1] or 0.0))))
    return out


def legend_kinds(lanes) -> list:
    """The kinds the legend names: the four work kinds, then the others the
    trace holds (event, marker, ...), in COLORS' order."""
    present = {cat for _, rows in lanes for _, _, cat, _ in rows}
    return list(WORK) + [c for c in COLORS if c not in WORK and c in present]


def _span(lanes):
    t_lo = min((s for _, r in lanes for s, _, _, _ in r), default=0.0)
    t_hi = max((s + (d or 0.0) for _, r in lanes for s, d, _, _ in r), default=1.0)
    return t_lo, max(t_hi - t_lo, 1e-6)


def draw_svg(lanes, path: str, title: str) -> None:
    """The chart as an SVG file, with no third-party module."""
    t_lo, span = _span(lanes)
    left, width, row_h, top = 230, 900, 24, 40
    height = top + row_h * len(lanes) + 50
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" '
             f'height="{height}" font-family="sans-serif" font-size="12">',
             f'<text x="10" y="20" font-size="14">{escape(title)}</text>']
    for i, (label, rows) in enumerate(lanes):
        y = top + i * row_h
        parts.append(f'<text x="10" y="{y + 16}">{escape(label)}</text>')
        parts.append(f'<line x1="{left}" x2="{left + width}" y1="{y + row_h}" '
                     f'y2="{y + row_h}" stroke="#ddd"/>')
        for s, d, cat, name in rows:
            x = left + (s - t_lo) / span * width
            if d is None:       # an instant: a tick across the lane
                parts.append(f'<rect x="{x - 1:.2f}" y="{y + 1}" width="2" height="{row_h - 2}" '
                             f'fill="{COLORS.get(cat, COLORS["command"])}">'
                             f'<title>{escape(name)}</title></rect>')
                continue
            w = max(d / span * width, 0.5)
            parts.append(f'<rect x="{x:.2f}" y="{y + 3}" width="{w:.2f}" height="{row_h - 6}" '
                         f'fill="{COLORS.get(cat, COLORS["command"])}">'
                         f'<title>{escape(name)}: {d:.3f} ms</title></rect>')
    y = top + row_h * len(lanes) + 20
    parts.append(f'<text x="{left}" y="{y}">0 ms</text>')
    parts.append(f'<text x="{left + width - 60}" y="{y}">{span:.2f} ms</text>')
    x = left + 120
    for cat in legend_kinds(lanes):
        parts.append(f'<rect x="{x}" y="{y - 10}" width="12" height="12" fill="{COLORS[cat]}"/>'
                     f'<text x="{x + 16}" y="{y}">{cat}</text>')
        x += 110
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts))


def figure(lanes, title: str):
    """The chart as a matplotlib Figure (draw_matplotlib saves it)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    t_lo, _ = _span(lanes)
    fig, ax = plt.subplots(figsize=(12, 0.45 * len(lanes) + 1.5))
    for i, (label, rows) in enumerate(lanes):
        bars = [r for r in rows if r[1] is not None]
        ax.broken_barh([(s - t_lo, max(d, 1e-4)) for s, d, _, _ in bars], (i - 0.4, 0.8),
                       facecolors=[COLORS.get(c, COLORS["command"]) for _, _, c, _ in bars])
        ticks = [r for r in rows if r[1] is None]
        if ticks:
            ax.vlines([s - t_lo for s, _, _, _ in ticks], i - 0.45, i + 0.45, linewidth=2,
                      colors=[COLORS.get(c, COLORS["command"]) for _, _, c, _ in ticks])
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([label for label, _ in lanes])
    ax.invert_yaxis()
    ax.set_xlabel("ms")
    ax.set_title(title)
    ax.legend(handles=[Patch(color=COLORS[c], label=c) for c in legend_kinds(lanes)],
              loc="upper right", fontsize="small")
    fig.tight_layout()
    return fig


def draw_matplotlib(lanes, path: str, title: str) -> None:
    """The chart with matplotlib (PNG, PDF, ...)."""
    import matplotlib.pyplot as plt
    fig = figure(lanes, title)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m pyemu timeline",
        description="Draw a trace written with PYEMU_TRACE=file.json as a Gantt chart: one "
                    "lane per stream or queue and one per worker thread.")
    p.add_argument("trace", help="the trace file (Chrome trace-event JSON)")
    p.add_argument("-o", "--output", default="timeline.png",
                   help="the picture: .svg (no dependency), or .png/.pdf (needs matplotlib); "
                        "default timeline.png")
    p.add_argument("--title", default=None, help="the chart's title (default: the file name)")
    return p


def main(argv) -> int:
    args = _parser().parse_args(argv)
    try:
        with open(args.trace) as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        print(f"timeline: cannot read {args.trace}: {exc}", file=sys.stderr)
        return 1
    lanes = lanes_of(doc)
    if not lanes:
        print(f"timeline: {args.trace} holds no commands", file=sys.stderr)
        return 1
    title = args.title or args.trace
    if args.output.lower().endswith(".svg"):
        draw_svg(lanes, args.output, title)
    else:
        try:
            draw_matplotlib(lanes, args.output, title)
        except ImportError:
            print("timeline: matplotlib is not installed (pip install matplotlib); "
                  "-o FILE.svg needs no module", file=sys.stderr)
            return 1
    print(f"{args.output}: {len(lanes)} lanes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
