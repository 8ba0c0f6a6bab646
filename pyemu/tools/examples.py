"""`python -m pyemu examples`: run the example programs.

The programs are shipped inside the package (pyemu/examples/cuda/*.py,
pyemu/examples/opencl/*.py, copied from the repository's examples/ when the
package is built); an editable install or a source checkout runs the
repository's examples/ itself.  `--dir DIR` runs another folder.  Each
program runs in its own process with this interpreter and the same pyemu.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from .progress import Progress

DIALECTS = ("cuda", "opencl")


def _package_dir() -> Path:
    """The folder of the pyemu package actually running."""
    import pyemu
    return Path(list(pyemu.__path__)[0]).resolve()


def shipped_examples_dir() -> Path | None:
    """pyemu/examples/ of an installed package, else the source tree's
    examples/ (editable install or checkout); None if neither exists."""
    pkg = _package_dir()
    if (pkg / "examples").is_dir():
        return pkg / "examples"
    tree = pkg.parent
    if (tree / "examples").is_dir() and (tree / "setup.py").is_file():
        return tree / "examples"
    return None


def find_programs(root: Path, dialects=DIALECTS) -> list[Path]:
    """The programs under `root`: `root/<dialect>/*.py` for each dialect
    folder there is, else `root/*.py`; files starting with `_` are helpers."""
    def programs(folder: Path):
        return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))
    if any((root / d).is_dir() for d in DIALECTS):
        files = []
        for d in dialects:
            if (root / d).is_dir():
                files += programs(root / d)
        return files
    return programs(root)


def _label(root: Path, f: Path) -> str:
    return f.relative_to(root).with_suffix("").as_posix()


def _select(root: Path, files: list[Path], names: list[str]):
    """The files named (stem or folder/stem); the names that match nothing."""
    chosen, unknown = [], []
    for name in names:
        name = name[:-3] if name.endswith(".py") else name
        hits = [f for f in files if name in (f.stem, _label(root, f))]
        if not hits:
            unknown.append(name)
        chosen += [f for f in hits if f not in chosen]
    return [f for f in files if f in chosen], unknown


def _child_env() -> dict:
    """The environment of a program: the pyemu running here comes first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_package_dir().parent),
                                                      env.get("PYTHONPATH")]))
    return env


def run(args) -> int:
    """Run the selected programs; one line per program; 1 if one failed,
    2 for a name or folder that does not exist."""
    if args.dir:
        root = Path(args.dir).expanduser().resolve()
        if not root.is_dir():
            print(f"pyemu examples: error: --dir {args.dir}: no such directory",
                  file=sys.stderr)
            return 2
    else:
        root = shipped_examples_dir()
        if root is None:
            print("pyemu examples: error: this installation of pyemu has no examples "
                  f"(looked in {_package_dir() / 'examples'}); pass --dir DIR",
                  file=sys.stderr)
            return 2
    files = find_programs(root, args.dialect or DIALECTS)
    if not files:
        print(f"pyemu examples: error: no programs (*.py) in {root}", file=sys.stderr)
        return 2
    if args.names:
        files, unknown = _select(root, files, args.names)
        if unknown:
            valid = sorted({f.stem for f in find_programs(root)})
            print(f"pyemu examples: error: no example named {', '.join(unknown)}; "
                  f"valid names: {', '.join(valid)}", file=sys.stderr)
            return 2
    if args.list:
        for f in files:
            print(_label(root, f))
        return 0
    return _run_all(root, files, quiet=args.quiet)


def _run_all(root: Path, files: list[Path], quiet: bool) -> int:
    env = _child_env()
    failed = []
    progress = Progress(len(files)) if quiet else None
    for i, f in enumerate(files, 1):
        name = _label(root, f)
        if progress:
            progress.start(name)
        else:
            print(f"==> [{i}/{len(files)}] {name}", flush=True)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, str(f)], env=env, capture_output=quiet,
                              text=True)
        dt = time.perf_counter() - t0
        status = "ok" if proc.returncode == 0 else f"FAILED (exit {proc.returncode})"
        if proc.returncode:
            failed.append(name)
        if progress:
            progress.done(f"{name}: {status} in {dt:.1f} s")
            if proc.returncode:
                progress.close()
                sys.stdout.write(proc.stdout or "")
                sys.stderr.write(proc.stderr or "")
        else:
            print(f"<== {name}: {status} in {dt:.1f} s\n", flush=True)
    if progress:
        progress.close()
    print(f"{len(files) - len(failed)} passed, {len(failed)} failed"
          + (f": {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0
