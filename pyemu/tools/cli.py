"""The command-line tool: `python -m pyemu <command>`, or `pyemu <command>`.

    examples     run the example programs shipped with pyemu (the slides' programs)
    bench        pyemu against PoCL on the examples' kernels (pyemu/tools/bench.py)
    info         pyemu's installation and the emulated device
    terms        CUDA and OpenCL terms side by side (pyemu/tools/terms.py)
    conformance  the OpenCL C corpus on pyemu and on PoCL (pyemu/tools/conformance/runner.py)
    cache        the compiled-kernel cache: --info, --clear
    timeline     draw a PYEMU_TRACE trace as a Gantt chart (pyemu/tools/timeline.py)

bench, terms and conformance keep their own parsers in their modules: this
one knows their names and summaries, and hands them every argument after
the name.  Exit status: 0 success, 1 a failure of the work (a failed example,
a failed case, a missed target with `bench --check`), 2 a usage error.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from .. import __version__
from . import cache_command, examples, info, prog

DESCRIPTION = ("Run CUDA and OpenCL programs on the CPU. Commands: run the shipped "
               "examples, benchmark against PoCL, show the installation and the "
               "emulated device, print the CUDA/OpenCL terms, run the OpenCL C "
               "conformance corpus, manage the kernel cache.")

EPILOG = "`python -m pyemu COMMAND --help` describes a command's options."


def _delegate(module: str):
    """A command whose parser lives in its own module: `module.main(argv)`."""
    def run(argv) -> int:
        main = importlib.import_module(module, __package__).main
        try:
            return main(list(argv))
        except SystemExit as exc:      # a module's argparse exiting on -h or an error
            if exc.code is None or isinstance(exc.code, int):
                return exc.code or 0
            print(exc.code, file=sys.stderr)
            return 1
    return run


# name -> (summary, runner)
DELEGATED = {
    "bench": ("time pyemu (CUDA and OpenCL) against PoCL on the examples' kernels",
              _delegate(".bench")),
    "terms": ("CUDA and OpenCL terms side by side", _delegate(".terms")),
    "conformance": ("the OpenCL C conformance corpus on pyemu and on PoCL",
                    _delegate(".conformance.runner")),
    "timeline": ("draw a PYEMU_TRACE trace as a Gantt chart (streams and workers)",
                 _delegate(".timeline")),
}


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser: every command, its summary and (for those
    defined here) its options."""
    parser = argparse.ArgumentParser(prog=prog(), description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"pyemu {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("examples", help="run the example programs (default: the shipped ones)",
                       description="Run each example program in its own process and say "
                                   "whether it passed; exit 1 if one failed.")
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="only these programs: a file stem (vector_add) or FOLDER/STEM "
                        "(cuda/vector_add)")
    p.add_argument("--dialect", action="append", choices=["cuda", "opencl"],
                   help="only this folder (repeatable; default: all there are)")
    p.add_argument("--dir", metavar="DIR",
                   help="run the programs of DIR (its cuda/ and opencl/ folders, or its "
                        "own *.py) instead of the shipped examples")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="hide the programs' output (shown anyway for a failure)")
    p.add_argument("--list", action="store_true", help="list the programs and exit")
    p.set_defaults(run=examples.run, parser=p)

    p = sub.add_parser("info", help="pyemu's installation, its compiler and the emulated device",
                       description="Print pyemu's version and location, the headers, C++ "
                                   "compiler and kernel cache it uses, the Python, NumPy, "
                                   "PyOpenCL and PoCL versions, and the emulated device's "
                                   "properties (as cudaGetDeviceProperties reports them).")
    p.add_argument("--kernel", metavar="FILE",
                   help="compile FILE (.cl: OpenCL C, else CUDA) and print, for each kernel, "
                        "the path its blocks take (block function, fiber variant, fibers) "
                        "and why")
    p.add_argument("--name-expression", action="append", metavar="EXPR", dest="names",
                   help="with --kernel: an instance of a kernel template to build and show "
                        "(SourceModule's name_expressions, e.g. 'reduce<256>'); repeatable")
    p.add_argument("options", nargs="*", metavar="OPTION",
                   help="compiler options for --kernel, after -- (so that argparse "
                        "does not read them: --kernel k.cu -- -DN=4 -Iinclude)")
    p.set_defaults(run=info.run, parser=p)

    for name, (summary, run) in DELEGATED.items():
        # listed for --help only: main() hands their arguments to their own parser
        sub.add_parser(name, help=summary, add_help=False)

    p = sub.add_parser("cache", help="the compiled-kernel cache: where, how big; clear it",
                       description="Show (--info, the default) or empty (--clear) the "
                                   "compiled-kernel cache (PYEMU_CACHE_DIR).")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--info", action="store_true",
                      help="where the cache is, its entries and size, and its limit")
    what.add_argument("--clear", action="store_true", help="remove every cached kernel")
    p.set_defaults(run=cache_command.run, parser=p)
    return parser


def _dispatch(argv) -> int:
    if argv and argv[0] in DELEGATED:
        return DELEGATED[argv[0]][1](argv[1:])
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:                # reported by the command's own parser, with its usage
        args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args.run(args)


def _quiet_stdout() -> None:
    """After the reader of our stdout went away (`| head`), point stdout at
    /dev/null so the flush at exit does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):
        pass


def main(argv=None) -> int:
    """Entry point of `python -m pyemu` and of the `pyemu` script: returns
    the exit status (0 ok, 1 the work failed, 2 usage error, 130 Ctrl-C)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        code = _dispatch(argv)
        sys.stdout.flush()
        return code
    except SystemExit as exc:            # argparse: --help, --version, a usage error
        if isinstance(exc.code, int) or exc.code is None:
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                _quiet_stdout()
                return 1
            return exc.code or 0
        raise
    except BrokenPipeError:
        # Python's documented recipe for a closed pipe: no traceback, exit 1
        _quiet_stdout()
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
