"""`python -m pyemu timeline FILE.json -o timeline.png`: a Gantt chart of a trace.

Reads a trace that PYEMU_TRACE (pyemu/runtime/trace.py) wrote, in the Chrome
trace-event format, and draws one lane per stream or queue (what ran on it,
from start to end) and one per worker thread (which worker ran the blocks
or copy slices of what), coloured by kind: kernels, copies, fills, host
functions.  PNG and PDF need matplotlib (`pip install matplotlib`); SVG
(`-o timeline.svg`) is written without it.  The same file opens in
Perfetto (ui.perfetto.dev) or chrome://tracing for zooming.
"""
from __future__ import annotations

import argparse
import json
import sys
from html import escape

COLORS = {"kernel": "#4C72B0", "copy": "#DD8452", "fill": "#55A868",
          "host function": "#C44E52", "marker": "#8172B3", "user event": "#937860",
          "command": "#7f7f7f"}


def lanes_of(doc: dict):
    """[(lane label, [(start_ms, dur_ms, category, name), ...]), ...]: the
    streams of process 0, then the workers of process 1."""
    events = doc.get("traceEvents", doc if isinstance(doc, list) else [])
    names, rows = {}, {}
    for e in events:
        key = (e.get("pid", 0), e.get("tid", 0))
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[key] = e["args"]["name"]
        elif e.get("ph") == "X":
            rows.setdefault(key, []).append((e["ts"] / 1e3, e.get("dur", 0) / 1e3,
                                             e.get("cat", "command"), e.get("name", "")))
    out = []
    for key in sorted(set(rows) | {k for k in names if k in rows}):
        label = names.get(key, f"{'worker' if key[0] == 1 else 'queue'} {key[1]}")
        out.append((label, sorted(rows.get(key, []))))
    return out


def draw_svg(lanes, path: str, title: str) -> None:
    """The chart as an SVG file, with no third-party module."""
    t_lo = min((s for _, r in lanes for s, _, _, _ in r), default=0.0)
    t_hi = max((s + d for _, r in lanes for s, d, _, _ in r), default=1.0)
    span = max(t_hi - t_lo, 1e-6)
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
            w = max(d / span * width, 0.5)
            parts.append(f'<rect x="{x:.2f}" y="{y + 3}" width="{w:.2f}" height="{row_h - 6}" '
                         f'fill="{COLORS.get(cat, COLORS["command"])}">'
                         f'<title>{escape(name)}: {d:.3f} ms</title></rect>')
    y = top + row_h * len(lanes) + 20
    parts.append(f'<text x="{left}" y="{y}">0 ms</text>')
    parts.append(f'<text x="{left + width - 60}" y="{y}">{span:.2f} ms</text>')
    x = left + 120
    for cat in ("kernel", "copy", "fill", "host function"):
        parts.append(f'<rect x="{x}" y="{y - 10}" width="12" height="12" fill="{COLORS[cat]}"/>'
                     f'<text x="{x + 16}" y="{y}">{cat}</text>')
        x += 110
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts))


def draw_matplotlib(lanes, path: str, title: str) -> None:
    """The chart with matplotlib (PNG, PDF, ...)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    t_lo = min((s for _, r in lanes for s, _, _, _ in r), default=0.0)
    fig, ax = plt.subplots(figsize=(12, 0.45 * len(lanes) + 1.5))
    for i, (label, rows) in enumerate(lanes):
        ax.broken_barh([(s - t_lo, max(d, 1e-4)) for s, d, _, _ in rows], (i - 0.4, 0.8),
                       facecolors=[COLORS.get(c, COLORS["command"]) for _, _, c, _ in rows])
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([label for label, _ in lanes])
    ax.invert_yaxis()
    ax.set_xlabel("ms")
    ax.set_title(title)
    ax.legend(handles=[Patch(color=COLORS[c], label=c)
                       for c in ("kernel", "copy", "fill", "host function")],
              loc="upper right", fontsize="small")
    fig.tight_layout()
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
