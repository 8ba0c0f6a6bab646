"""Hostile input for the kernel compiler, the on-disk kernel cache and the
command line: sources that must not build (CompileError in CUDA,
CL_BUILD_PROGRAM_FAILURE in OpenCL: hostile_opencl_kernel.py), a damaged or
unwritable cache, two processes compiling at once, unknown commands."""
from hostile_cases import Case

C = Case
SUB = ("import subprocess, sys, tempfile, os\n"
       "def py(code, **env):\n"
       "    e = dict(os.environ, **env)\n"
       "    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,"
       " env=e, timeout=120)\n"
       "def cli(*args, **env):\n"
       "    return subprocess.run([sys.executable, '-m', 'pyemu', *args], capture_output=True,"
       " text=True, timeout=120, env=dict(os.environ, **env))\n")
COMPILE = ("import numpy as np\\nfrom pyemu.cuda import *\\n"
           "m = SourceModule('__global__ void k(int *p) { p[0] = 41 + SALT; }', "
           "options=['-DSALT=' + str(SALT)])\\nd = cudaMalloc(4); m.k[1, 1](d)\\n"
           "h = np.zeros(1, np.int32); cudaMemcpy(h, d, 4, cudaMemcpyDeviceToHost)\\n"
           "assert h[0] == 41 + SALT, h\\n")


def sub(name, body, **kw):
    return C(name, SUB + body, "ok", reps=1, **kw)


CASES = [
    C("SourceModule_latin1_bytes", "SourceModule(b'/* caf\\xe9 */ __global__ void k() {}')", "ok"),
    C("SourceModule_unwritable_cache", "SourceModule('__global__ void k() {}')", "ok",
      env=(("PYEMU_CACHE_DIR", "/proc/pyemu-cache"),)),
    C("SourceModule_cache_dir_is_a_file", "SourceModule('__global__ void k() {}')", "ok",
      env=(("PYEMU_CACHE_DIR", "/dev/null"),)),
    C("SourceModule_syntax_error", "SourceModule('__global__ void k() { int x = ; }')",
      "CompileError"),
    C("SourceModule_error_directive", "SourceModule('#error no\\n__global__ void k() {}')",
      "CompileError"),
    C("SourceModule_missing_include",
      "SourceModule('#include \"no_such_header.h\"\\n__global__ void k() {}')", "CompileError"),
    C("SourceModule_unknown_option", "SourceModule(VADD, options=['-fno-such-flag'])",
      "CompileError"),
    C("SourceModule_nul_byte", "SourceModule('__global__ void k() {}\\x00 garbage')",
      "CompileError"),
    C("SourceModule_kernel_named_like_libc",
      "m = SourceModule('__global__ void exit(int *p) { p[0] = 3; }'); d = cudaMalloc(4)\n"
      "m.get_function('exit')[1, 1](d); cudaDeviceSynchronize()", "ok"),
    C("SourceModule_empty_source_has_no_kernels", "SourceModule('').get_function('k')", 500),
    C("SourceModule_huge_source",
      "m = SourceModule('/*' + 'x' * (4 << 20) + '*/\\n' + VADD); m.get_function('vadd')", "ok"),
    C("SourceModule_many_kernels",
      "src = '\\n'.join(f'__global__ void k{i}(int *p) {{ p[0] = {i}; }}' for i in range(300))\n"
      "m = SourceModule(src); d = cudaMalloc(4); m.k299[1, 1](d); h = np.zeros(1, np.int32)\n"
      "cudaMemcpy(h, d, 4, cudaMemcpyDeviceToHost); assert h[0] == 299", "ok"),
    C("SourceModule_name_expression_of_a_missing_template",
      "SourceModule('__global__ void k() {}', name_expressions=['nope<int>'])", "CompileError"),
    C("SourceModule_template_kernel_by_name",
      "m = SourceModule('template <int N> __global__ void k(int *p) { p[0] = N; }', "
      "name_expressions=['k<5>']); d = cudaMalloc(4); m.get_function('k<5>')[1, 1](d)\n"
      "h = np.zeros(1, np.int32); cudaMemcpy(h, d, 4, cudaMemcpyDeviceToHost); assert h[0] == 5",
      "ok"),
    C("SourceModule_compiler_missing", "SourceModule('__global__ void k() { /* 1 */ }')",
      "CompileError", env=(("PYEMU_CXX", "/nonexistent/g++"),), healthy_after=False),
    C("SourceModule_same_source_many_times",
      "for _ in range(50):\n    SourceModule(VADD)", "ok"),
    C("SourceModule_distinct_sources_unload",
      "import random\nfor i in range(5):\n"
      "    m = SourceModule(f'__global__ void k(int *p) {{ p[0] = {random.random()!r}; }}')\n"
      "    del m", "ok", reps=2, timeout=180),
    sub("cache_corrupt_module_is_rebuilt",
        "d = tempfile.mkdtemp(); r = py(\"SALT = 1\\n\" + \"" + COMPILE + "\", "
        "PYEMU_CACHE_DIR=d)\nassert r.returncode == 0, r.stderr\n"
        "n = 0\nfor root, _, files in os.walk(d):\n    for f in files:\n"
        "        if f.endswith('.so'):\n            open(os.path.join(root, f), 'wb').write(b'junk')"
        "\n            n += 1\nassert n, os.listdir(d)\n"
        "r = py(\"SALT = 1\\n\" + \"" + COMPILE + "\", PYEMU_CACHE_DIR=d)\n"
        "assert r.returncode == 0, r.stderr"),
    sub("cache_truncated_files_are_rebuilt",
        "d = tempfile.mkdtemp(); r = py(\"SALT = 2\\n\" + \"" + COMPILE + "\", "
        "PYEMU_CACHE_DIR=d)\nassert r.returncode == 0, r.stderr\n"
        "for root, _, files in os.walk(d):\n    for f in files:\n"
        "        open(os.path.join(root, f), 'wb').close()\n"
        "r = py(\"SALT = 2\\n\" + \"" + COMPILE + "\", PYEMU_CACHE_DIR=d)\n"
        "assert r.returncode == 0, r.stderr"),
    sub("cache_two_processes_compile_the_same_source_at_once",
        "d = tempfile.mkdtemp(); code = \"SALT = 3\\n\" + \"" + COMPILE + "\"\n"
        "ps = [subprocess.Popen([sys.executable, '-c', code], env=dict(os.environ, "
        "PYEMU_CACHE_DIR=d), stderr=subprocess.PIPE) for _ in range(3)]\n"
        "errs = [p.communicate(timeout=120)[1] for p in ps]\n"
        "assert all(p.returncode == 0 for p in ps), errs"),
    sub("cache_cleared_by_another_process_while_loaded",
        "d = tempfile.mkdtemp()\n"
        "r = py(\"import shutil, os\\nSALT = 4\\n\" + \"" + COMPILE + "\" + "
        "\"shutil.rmtree(os.environ['PYEMU_CACHE_DIR'])\\nm.k[1, 1](d); "
        "cudaDeviceSynchronize()\\nm2 = SourceModule(\\\"__global__ void k(int *p) { p[0] = 41 + "
        "SALT; }\\\", options=['-DSALT=4'])\\nm2.k[1, 1](d); cudaDeviceSynchronize()\\n\", "
        "PYEMU_CACHE_DIR=d)\n"
        "assert r.returncode == 0, r.stderr"),
    sub("cache_max_tiny_evicts_without_breaking",
        "d = tempfile.mkdtemp(); f = os.path.join(d, 'child.py')\n"
        "open(f, 'w').write('for SALT in range(5, 9):\\n    exec(open(__file__ + \\'.body\\')"
        ".read())\\n')\nopen(f + '.body', 'w').write(\"" + COMPILE + "\")\n"
        "r = subprocess.run([sys.executable, f], capture_output=True, text=True, timeout=120, "
        "env=dict(os.environ, PYEMU_CACHE_DIR=d, PYEMU_CACHE_MAX='1'))\n"
        "assert r.returncode == 0, r.stderr"),
    # ---- the command line
    sub("cli_unknown_command_exits_2",
        "r = cli('no-such-command'); assert r.returncode == 2, (r.returncode, r.stderr)\n"
        "assert 'Traceback' not in r.stderr, r.stderr"),
    sub("cli_examples_unknown_name",
        "r = cli('examples', 'no_such_example'); assert r.returncode in (1, 2), r.returncode\n"
        "assert 'Traceback' not in r.stderr, r.stderr"),
    sub("cli_examples_dir_missing",
        "r = cli('examples', '--dir', '/nonexistent'); assert r.returncode in (1, 2), r\n"
        "assert 'Traceback' not in r.stderr, r.stderr"),
    sub("cli_conformance_unknown_case",
        "r = cli('conformance', '--case', 'no_such_case'); assert r.returncode in (1, 2), r\n"
        "assert 'Traceback' not in r.stderr, r.stderr"),
    sub("cli_terms_unknown_table",
        "r = cli('terms', 'no_such_table'); assert r.returncode in (1, 2), r\n"
        "assert 'Traceback' not in r.stderr, r.stderr"),
    sub("cli_bench_unknown_case",
        "r = cli('bench', '--only', 'no_such_case'); assert r.returncode in (1, 2), r\n"
        "assert 'Traceback' not in r.stderr, r.stderr"),
    sub("cli_cache_info_unwritable_cache",
        "r = cli('cache', '--info', PYEMU_CACHE_DIR='/proc/pyemu-cache')\n"
        "assert r.returncode == 0, r\nassert 'Traceback' not in r.stderr, r.stderr"),
    sub("cli_cache_clear_missing_dir",
        "r = cli('cache', '--clear', PYEMU_CACHE_DIR=tempfile.mkdtemp() + '/gone')"
        "\nassert r.returncode == 0, r\nassert 'Traceback' not in r.stderr, r.stderr"),
    sub("cli_info_with_broken_compiler",
        "r = cli('info', PYEMU_CXX='/nonexistent/g++')\n"
        "assert r.returncode in (0, 1), r\nassert 'Traceback' not in r.stderr, r.stderr"),
    sub("env_bad_num_threads",
        "r = py('import pyemu.cuda as c; c.cudaMalloc(4)', PYEMU_NUM_THREADS='lots')\n"
        "assert 'Traceback' not in r.stderr or 'PYEMU_NUM_THREADS' in r.stderr, r.stderr"),
    sub("env_bad_device_memory",
        "r = py('import pyemu.cuda as c; c.cudaMalloc(4)', PYEMU_DEVICE_MEMORY='-5G')\n"
        "assert 'Traceback' not in r.stderr or 'PYEMU_DEVICE_MEMORY' in r.stderr, r.stderr"),
]
