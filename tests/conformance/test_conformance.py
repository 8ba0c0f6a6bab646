"""The OpenCL C conformance corpus: pyemu must match PoCL on every case.

One test per case (test_case[name]).  The cases run in one child process,
`python -m pyemu conformance --jsonl FILE --case ...` for the cases pytest
selected, with a time limit, so a kernel that hangs or crashes fails its
case instead of the test session; the child writes a line as each case
starts and ends, so the case it was in when it died is the one that fails.
The tests after them check the runner itself: its table and exit status,
that a wrong result is reported as a failure (in a buffer and in an image),
that an output's `pocl_differs` elements hold pyemu to the NumPy reference
alone, the missing-corpus error, the comparators' ulp arithmetic, and the
NumPy image formulas (imageref.py) on values worked by hand.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pyemu.tools.conformance import runner as conformance

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CORPUS = conformance.DEFAULT_CORPUS
CASES = conformance.load_corpus(CORPUS)
TIME_LIMIT = 2400          # seconds for the whole child run (first builds included)


def _run(args, timeout=600, path_first=None, env_extra=None, **kw):
    env = dict(os.environ)
    env.update(env_extra or {})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [path_first, str(REPO),
                                                      env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "pyemu", "conformance", *args], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=timeout, **kw)


@pytest.fixture(scope="session")
def corpus_results(request, tmp_path_factory):
    """{case name: result dict} for the test_case items of this session."""
    names = [item.callspec.params["name"] for item in request.session.items
             if item.originalname == "test_case" and hasattr(item, "callspec")
             and item.module.__file__ == __file__]
    out = tmp_path_factory.mktemp("conformance") / "results.jsonl"
    args = ["--jsonl", str(out)] + [a for n in names for a in ("--case", n)]
    try:
        proc = _run(args, timeout=TIME_LIMIT)
        tail = (proc.stdout + proc.stderr)[-4000:]
    except subprocess.TimeoutExpired as exc:
        tail = f"timed out after {TIME_LIMIT} s\n{(exc.stdout or '')[-2000:]}"
    results, current = {}, None
    if out.exists():
        for line in out.read_text().splitlines():
            rec = json.loads(line)
            if "start" in rec:
                current = rec["start"]
            else:
                results[rec["name"]] = rec
                current = None
    if current is not None:
        results[current] = {"ok": False, "problems": [f"the run died in this case:\n{tail}"]}
    return results, tail


@pytest.mark.parametrize("name", CASES.CASES)
def test_case(name, corpus_results):
    results, tail = corpus_results
    assert name in results, f"no result for {name}; the run printed:\n{tail}"
    r = results[name]
    assert r["ok"], f"{name} failed:\n" + "\n".join(r["problems"])


def test_corpus_size_and_coverage():
    """At least 40 kernels, and every device feature of the issue used somewhere."""
    sources = "\n".join(p.read_text() for p in (CORPUS / "kernels").glob("*.cl"))
    kernels = {(c.file, c.kernel) for c in map(CASES.build, CASES.CASES)}
    assert len(kernels) >= 40 and len(CASES.CASES) >= 40
    required = [
        "__global", "global ", "__local", "local ", "__constant", "constant ", "__private",
        "private ", "reqd_work_group_size", "work_group_size_hint", "vec_type_hint",
        "get_global_offset", "get_work_dim", "get_num_groups", "barrier(", "mem_fence(",
        "read_mem_fence(", "write_mem_fence(", "float16", "char16", "float3", "double4",
        ".s0123", ".hi", ".lo", ".even", ".odd", ".wzyx", "(float4)(", "select(", "bitselect(",
        "convert_uchar_sat(", "_rte(", "_rtz(", "_rtp(", "_rtn(", "as_float(", "as_int4(",
        "vload3(", "vstore16(", "vload_half(", "vstore_half_rtz(", "sincos(", "atan2pi(",
        "native_sin(", "half_exp(", "fma(", "mad(", "add_sat(", "mul_hi(", "rotate(",
        "upsample(", "clz(", "popcount(", "smoothstep(", "cross(", "normalize(",
        "fast_length(", "isunordered(", "signbit(", "any(", "all(", "atomic_inc(",
        "##_cmpxchg(", "atomic_xchg(", "atom_add(", "atom_inc(", "atom_cmpxchg(", "async_work_group_copy(",
        "async_work_group_strided_copy(", "wait_group_events(", "prefetch(", "printf(",
        "%v4hlf",
        # images and samplers
        "image1d_t", "image1d_buffer_t", "image1d_array_t", "image2d_t", "image2d_array_t",
        "image3d_t", "__read_only", "read_only ", "__write_only", "sampler_t",
        "__constant sampler_t", "read_imagef(", "read_imagei(", "read_imageui(",
        "write_imagef(", "write_imagei(", "write_imageui(", "get_image_width(",
        "get_image_height(", "get_image_depth(", "get_image_dim(", "get_image_array_size(",
        "get_image_channel_data_type(", "get_image_channel_order(", "CLK_ADDRESS_NONE",
        "CLK_ADDRESS_CLAMP_TO_EDGE", "CLK_ADDRESS_CLAMP ", "CLK_ADDRESS_MIRRORED_REPEAT",
        "CLK_ADDRESS_REPEAT", "CLK_FILTER_LINEAR", "CLK_FILTER_NEAREST",
        "CLK_NORMALIZED_COORDS_TRUE", "CLK_NORMALIZED_COORDS_FALSE", "CLK_UNORM_INT8", "CLK_R"]
    missing = [r for r in required if r not in sources]
    assert not missing, f"the corpus never uses {missing}"


def test_image_cases_cover_every_sampler_and_format():
    """Every valid (normalized, addressing, filter) sampler is passed to some
    image case; the common formats and every image type are read; every
    write built-in writes."""
    built = [CASES.build(n) for n in CASES.CASES if n.startswith("image")]
    assert len(built) >= 60
    samplers, formats, types, written = set(), set(), set(), set()
    for c in built:
        for a in c.args:
            kind = type(a).__name__
            if kind == "Sampler":
                samplers.add((a.normalized, a.addressing, a.filter))
            elif kind == "Image":
                (written if a.is_output else formats).add(a.format)
                types.add(a.image_type)
    for norm in (True, False):
        for addr in ("NONE", "CLAMP_TO_EDGE", "CLAMP") + (("REPEAT", "MIRRORED_REPEAT")
                                                          if norm else ()):
            for filt in ("NEAREST", "LINEAR"):
                assert (norm, addr, filt) in samplers, (norm, addr, filt)
    for t in ("CL_FLOAT", "CL_UNORM_INT8", "CL_SNORM_INT8", "CL_UNSIGNED_INT8",
              "CL_UNSIGNED_INT16", "CL_UNSIGNED_INT32", "CL_SIGNED_INT8", "CL_SIGNED_INT16",
              "CL_HALF_FLOAT"):
        assert any(f[1] == t for f in formats), t
        assert any(f[1] == t for f in written), t
    for o in ("CL_R", "CL_RG", "CL_RGBA", "CL_BGRA"):
        assert any(f[0] == o for f in formats), o
        assert any(f[0] == o for f in written), o
    # 3-D images are written too (cl_khr_3d_image_writes)
    written3d = {a.format[1] for c in built for a in c.args
                 if type(a).__name__ == "Image" and a.is_output and a.image_type == "image3d_t"}
    assert {"CL_FLOAT", "CL_UNORM_INT8", "CL_HALF_FLOAT", "CL_SIGNED_INT16",
            "CL_UNSIGNED_INT8"} <= written3d
    # a case PoCL cannot run (PoCL 3.1 has no CL_RG) says why, and each output has a reference
    skipped = [c for c in built if c.pocl_skip]
    assert skipped and all(any(a.format[0] == "CL_RG" for a in c.args
                               if type(a).__name__ == "Image") for c in skipped)
    for c in skipped:
        assert all(out.ref is not None for out in c.outputs()), c.name
    assert types == {"image1d_t", "image1d_buffer_t", "image1d_array_t", "image2d_t",
                     "image2d_array_t", "image3d_t"}
    # where PoCL is left out, the reason is given and there is a reference
    for c in built:
        for out in c.outputs():
            if out.pocl_differs is not None:
                assert out.pocl_note and out.ref is not None, c.name


def test_slide_kernels_are_all_there():
    slides = {"vector_add", "saxpy", "matmul_naive", "matmul_tiled", "reduce", "histogram",
              "transpose_naive", "transpose_tiled", "transpose_padded", "spmv_csr",
              "offset_copy", "stride_copy"}
    assert slides <= set(CASES.CASES)


def test_cli_quick_prints_the_table_and_exits_0():
    proc = _run(["--quick"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    n = len(CASES.QUICK)                # one progress line per case, then the table
    for i, name in enumerate(n for n in CASES.CASES if n in CASES.QUICK):
        assert lines[i].startswith(f"[{i + 1}/{n}] {name}: pass"), lines[i]
    assert lines[n].split() == ["case", "result", "max", "error", "held", "to", "pyemu", "PoCL"]
    for name in CASES.QUICK:
        row = next(line for line in lines if line.startswith(name + " "))
        assert " pass " in row and row.rstrip().endswith("s")     # both times shown
    assert f"{len(CASES.QUICK)} passed, 0 failed" in proc.stdout


def test_cli_markdown_table():
    proc = _run(["--case", "vector_add", "--markdown"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("| case | result | max error | held to | pyemu | PoCL |")
    assert "| vector_add | pass |" in proc.stdout


WRONG_KERNEL = r"""
__kernel void add_one(__global const float *a, __global float *b)
{
    size_t i = get_global_id(0);
#ifdef __PYEMU__
    b[i] = a[i] + (i == 77 ? 2.0f : 1.0f);      /* deliberately wrong on pyemu */
#else
    b[i] = a[i] + 1.0f;
#endif
}
"""

WRONG_CASES = r"""
import numpy as np
from .compare import Exact
from .model import REGISTRY, Case, In, Out, build, case

@case
def add_one(rng):
    a = rng.uniform(-1, 1, 256).astype(np.float32)
    return Case("add_one", "add_one.cl", "add_one",
                [In("a", a), Out("b", np.float32, 256, Exact())],
                global_size=(256,), local_size=(64,))

CASES = list(REGISTRY)
QUICK = CASES
"""


def test_cli_reports_a_wrong_result_and_exits_1(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "kernels").mkdir(parents=True)
    for f in ("__init__.py", "model.py", "compare.py", "bounds.py"):
        shutil.copy(CORPUS / f, corpus / f)
    (corpus / "kernels" / "add_one.cl").write_text(WRONG_KERNEL)
    (corpus / "cases.py").write_text(WRONG_CASES)
    proc = _run(["--corpus", str(corpus)])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith("add_one "))
    assert " FAIL " in row and "1 diff" in row
    assert "0 passed, 1 failed" in proc.stdout
    # the report names the element and both results
    assert "at [77]" in proc.stdout and "pyemu=" in proc.stdout and "PoCL=" in proc.stdout


IMAGE_KERNEL = r"""
__kernel void fill(__write_only image2d_t im)
{
    int x = get_global_id(0), y = get_global_id(1);
    uint v = x + 10 * y;
#ifdef __PYEMU__
    if (WRONG_ON_PYEMU && x == 3 && y == 1) v = 7;     /* deliberately wrong on pyemu */
#else
    if (x == 3 && y == 1) v = 9;                        /* "PoCL's bug" at (3, 1) */
#endif
    write_imageui(im, (int2)(x, y), (uint4)(v, 0, 0, 0));
}
"""

IMAGE_CASES = r"""
import numpy as np
from .compare import Exact
from .model import REGISTRY, Case, Image, build, case

W, H = 5, 2
WANT = (np.arange(W)[None, :] + 10 * np.arange(H)[:, None]).astype(np.uint8)[..., None]
AT_3_1 = (np.arange(W * H) == 1 * W + 3)


def _fill(name, options, pocl_differs):
    def builder(rng):
        im = Image("im", np.zeros((H, W, 1), np.uint8), ("CL_R", "CL_UNSIGNED_INT8"),
                   cmp=Exact("uint8 written"), ref=lambda d: WANT)
        if pocl_differs:
            im.pocl_differs, im.pocl_note = (lambda d: AT_3_1), "PoCL writes 9 at (3, 1)"
        return Case(name, "fill.cl", "fill", [im], global_size=(W, H), options=options)
    builder.__name__ = name
    case(builder)


_fill("pocl_wrong_left_out", "-D WRONG_ON_PYEMU=0", True)
_fill("pyemu_wrong_left_out", "-D WRONG_ON_PYEMU=1", True)
_fill("pocl_wrong_not_left_out", "-D WRONG_ON_PYEMU=0", False)
CASES = list(REGISTRY)
QUICK = CASES
"""


def test_cli_image_outputs_and_pocl_differs(tmp_path):
    """An image output is read back and compared element by element; where
    `pocl_differs` leaves PoCL out, pyemu is still held to the reference."""
    corpus = tmp_path / "corpus"
    (corpus / "kernels").mkdir(parents=True)
    for f in ("__init__.py", "model.py", "compare.py", "bounds.py"):
        shutil.copy(CORPUS / f, corpus / f)
    (corpus / "kernels" / "fill.cl").write_text(IMAGE_KERNEL)
    (corpus / "cases.py").write_text(IMAGE_CASES)
    proc = _run(["--corpus", str(corpus)])
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    rows = {line.split()[0]: line for line in out.splitlines()
            if line.split() and line.split()[0].endswith("left_out")}
    assert " pass " in rows["pocl_wrong_left_out"], out
    assert "(NumPy only at 1)" in rows["pocl_wrong_left_out"], out
    assert " FAIL " in rows["pyemu_wrong_left_out"] and " FAIL " in rows["pocl_wrong_not_left_out"]
    assert "1 passed, 2 failed" in out
    pyemu_wrong = out[out.index("FAIL pyemu_wrong_left_out"):]
    assert "reference: fill() output 'im'" in pyemu_wrong and "at [8]" in pyemu_wrong
    assert "pyemu=7" in pyemu_wrong and "NumPy=13" in pyemu_wrong
    pocl_wrong = out[out.index("FAIL pocl_wrong_not_left_out"):]
    assert "at [8]" in pocl_wrong and "PoCL=9" in pocl_wrong


SKIP_CASES = IMAGE_CASES.replace("""_fill("pocl_wrong_left_out", "-D WRONG_ON_PYEMU=0", True)
_fill("pyemu_wrong_left_out", "-D WRONG_ON_PYEMU=1", True)
_fill("pocl_wrong_not_left_out", "-D WRONG_ON_PYEMU=0", False)""", """
def _skip(name, options):
    def builder(rng):
        im = Image("im", np.zeros((H, W, 1), np.uint8), ("CL_R", "CL_UNSIGNED_INT8"),
                   cmp=Exact("uint8 written"), ref=lambda d: WANT)
        return Case(name, "fill.cl", "fill", [im], global_size=(W, H), options=options,
                    pocl_skip="PoCL writes 9 at (3, 1)")
    builder.__name__ = name
    case(builder)


_skip("pyemu_right_pocl_skipped", "-D WRONG_ON_PYEMU=0")
_skip("pyemu_wrong_pocl_skipped", "-D WRONG_ON_PYEMU=1")""")


def test_cli_pocl_skip_holds_pyemu_to_the_reference(tmp_path):
    """A case with `pocl_skip` runs on pyemu alone against its NumPy
    reference (a wrong pyemu result fails it); --pocl-only passes over it."""
    corpus = tmp_path / "corpus"
    (corpus / "kernels").mkdir(parents=True)
    for f in ("__init__.py", "model.py", "compare.py", "bounds.py"):
        shutil.copy(CORPUS / f, corpus / f)
    (corpus / "kernels" / "fill.cl").write_text(IMAGE_KERNEL)
    (corpus / "cases.py").write_text(SKIP_CASES)
    proc = _run(["--corpus", str(corpus)])
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    rows = {line.split()[0]: line for line in out.splitlines()
            if line.split() and line.split()[0].endswith("_skipped")}
    assert " pass " in rows["pyemu_right_pocl_skipped"], out
    assert "(NumPy only: PoCL writes 9 at (3, 1))" in rows["pyemu_right_pocl_skipped"]
    assert " FAIL " in rows["pyemu_wrong_pocl_skipped"]
    wrong = out[out.index("FAIL pyemu_wrong_pocl_skipped"):]
    assert "pyemu=7" in wrong and "NumPy=13" in wrong and "PoCL=" not in wrong
    proc = _run(["--corpus", str(corpus), "--pocl-only"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed, 0 failed" in proc.stdout


def test_cli_without_pyopencl_fails_every_case(tmp_path):
    fake = tmp_path / "pyopencl"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('no pyopencl here')\n")
    proc = _run(["--case", "vector_add", "--case", "saxpy"], path_first=str(tmp_path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "0 passed, 2 failed" in proc.stdout
    assert "PoCL: PyOpenCL is not installed" in proc.stdout


def test_cli_without_pocl_fails_every_case(tmp_path):
    # an ICD loader that finds no vendor: no platform at all
    proc = _run(["--case", "vector_add"],
                env_extra={"OCL_ICD_VENDORS": str(tmp_path), "OPENCL_VENDOR_PATH": str(tmp_path)})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "0 passed, 1 failed" in proc.stdout
    assert "install PoCL" in proc.stdout


def test_cli_missing_corpus_is_a_clear_error(tmp_path):
    proc = _run(["--corpus", str(tmp_path / "nowhere")])
    assert proc.returncode == 2
    assert "no conformance corpus at" in proc.stderr


def test_cli_unknown_case_is_a_usage_error():
    proc = _run(["--case", "no_such_case"])
    assert proc.returncode == 2 and "no case matches no_such_case" in proc.stderr


# --- the comparators --------------------------------------------------------------------------

def test_ulp_error_counts_float_steps():
    from importlib import import_module
    compare = import_module(CASES.__name__.rsplit(".", 1)[0] + ".compare")
    one = np.float32(1)
    up = np.nextafter(one, np.float32(2))
    got = np.array([up, one, np.nan, np.inf, -np.inf, 0.0, 3.0], np.float32)
    want = np.array([one, one, np.nan, np.inf, np.inf, -0.0, np.nan], np.float32)
    err = compare.ulp_error(got, want, np.float32)
    assert list(err[:3]) == [1.0, 0.0, 0.0]
    assert err[3] == 0.0 and np.isinf(err[4]) and err[5] == 0.0 and np.isinf(err[6])
    v = compare.Ulp(4, "sin").pair(np.float32([1 + 8 * 2**-23]), np.float32([1]))
    assert v.ok and v.err == 8.0
    v = compare.Ulp(4, "sin").pair(np.float32([1 + 9 * 2**-23]), np.float32([1]))
    assert not v.ok and v.index == 0
    v = compare.Exact().pair(np.int32([1, 2, 3]), np.int32([1, 5, 3]))
    assert not v.ok and v.index == 1 and v.text() == "1 diff"
    assert compare.Text().pair("b\na\n", "a\nb\n").ok
    assert not compare.Text().pair("a\n", "a\nb\n").ok


def test_image_formulas_by_hand():
    """imageref.py, the references of the image cases, on values worked by
    hand from OpenCL 1.2 section 8.2 and 8.3."""
    from importlib import import_module
    R = import_module(CASES.__name__.rsplit(".", 1)[0] + ".imageref")
    t = np.zeros((1, 4, 4))          # a 4 x 1 image, texel i = (i, 10 i, 0, 1)
    t[0, :, 0] = np.arange(4)
    t[0, :, 1] = 10 * np.arange(4)
    t[0, :, 3] = 1
    b = np.array([0, 0, 0, 1.0])
    y = 0.5 / 1                      # the row's centre, normalized
    near = lambda s, addr, norm=True: R.sample(t, [[s, y if norm else 0.5]], norm, addr,  # noqa
                                               "NEAREST", b)[0, 0]
    assert near(1.1, "REPEAT") == 0 and near(-0.1, "REPEAT") == 3      # 1.1 -> 0.1*4
    assert near(1.1, "MIRRORED_REPEAT") == 3 and near(-0.3, "MIRRORED_REPEAT") == 1
    assert near(-0.1, "CLAMP_TO_EDGE") == 0 and near(7.0, "CLAMP_TO_EDGE", False) == 3
    assert R.sample(t, [[-0.5, 0.5]], False, "CLAMP", "NEAREST", b)[0].tolist() == [0, 0, 0, 1]
    lin = lambda s, addr, norm=False: R.sample(t, [[s, 0.5]], norm, addr, "LINEAR", b)[0]  # noqa
    assert lin(1.75, "CLAMP_TO_EDGE")[0] == 1.25      # (1 - 0.25) * 1 + 0.25 * 2
    assert lin(0.25, "CLAMP")[:2].tolist() == [0.0, 0.0] and lin(0.25, "CLAMP")[3] == 1.0
    assert lin(0.0, "CLAMP")[3] == 1.0 and lin(-0.5, "CLAMP")[3] == 1.0
    assert lin(0.25 / 4, "REPEAT", True)[0] == 0.25 * 3 + 0.75 * 0   # wraps to the last texel
    assert lin(0.25 / 4, "MIRRORED_REPEAT", True)[0] == 0.0         # mirrors onto texel 0
    assert R.layer([-3, 0.5, 1.5, 2.4, 9], 3).tolist() == [0, 0, 2, 2, 2]
    assert R.border(("CL_R", "CL_FLOAT")).tolist() == [0, 0, 0, 1]
    assert R.border(("CL_BGRA", "CL_UNORM_INT8")).tolist() == [0, 0, 0, 0]
    tx = R.texels(np.array([[10, 20, 30, 40]], np.uint8), ("CL_BGRA", "CL_UNORM_INT8"))
    np.testing.assert_array_equal(tx, [[30 / 255, 20 / 255, 10 / 255, 40 / 255]])
    assert R.texels(np.array([[-128]], np.int8), ("CL_R", "CL_SNORM_INT8")).tolist() == \
        [[-1.0, 0, 0, 1]]
    st = R.stored(np.array([[0.5 / 255, 1.5 / 255, 1.2, -0.1]], np.float32),
                  ("CL_RGBA", "CL_UNORM_INT8"))
    assert st.tolist() == [[0, 2, 255, 0]]            # ties to even, saturated
    assert R.stored(np.array([[300, -5, 0, 0]]), ("CL_RG", "CL_SIGNED_INT8")).tolist() == \
        [[127, -5]]
    assert R.stored(np.array([[-1.5, 0, 0, 0]], np.float32),
                    ("CL_R", "CL_SNORM_INT8")).tolist() == [[-128]]
