#!/usr/bin/env bash
# Build and run the CUDA ground-truth probe on a machine with a real NVIDIA GPU.
# Not part of CI.  Usage: tests/data/ground_truth/run_probe.sh [OUTPUT_JSON]
# Default output: cuda_<gpu>.json beside this script (e.g. cuda_h100.json).
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
BUILD="$(mktemp -d /tmp/probe_build.XXXXXX)"
ARCH="${ARCH:-sm_90}"

nvcc -O2 -arch="$ARCH" -o "$BUILD/probe" "$HERE/probe.cu" > "$BUILD/probe_build.log" 2>&1 \
  || { cat "$BUILD/probe_build.log"; exit 1; }

# The 49 KiB static __shared__ kernel: expected to be refused by ptxas.
nvcc -O2 -arch="$ARCH" -o "$BUILD/static_smem" "$HERE/probe_static_smem.cu" > "$BUILD/static_smem_build.log" 2>&1
echo $? > "$BUILD/static_smem_build.rc"
if [ -x "$BUILD/static_smem" ]; then "$BUILD/static_smem" > "$BUILD/static_smem_run.log" 2>&1; fi

"$BUILD/probe" > "$BUILD/probe_raw.json" || { echo "probe failed rc=$?"; exit 1; }

OUTFILE="${1:-}" HERE="$HERE" BUILD="$BUILD" ARCH="$ARCH" python3 - <<'PY'
import json, os, subprocess, datetime, pathlib
b = pathlib.Path(os.environ["BUILD"])
def sh(c):
    try: return subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception as e: return "error: %s" % e
raw = json.loads((b / "probe_raw.json").read_text())
ss = {"source": "probe_static_smem.cu",
      "compile_command": "nvcc -O2 -arch=%s probe_static_smem.cu" % os.environ["ARCH"],
      "compile_rc": int((b / "static_smem_build.rc").read_text()),
      "compile_output": (b / "static_smem_build.log").read_text()}
if (b / "static_smem_run.log").exists():
    ss["run_output"] = (b / "static_smem_run.log").read_text()
gpu = sh("nvidia-smi --query-gpu=name,driver_version,memory.total,vbios_version --format=csv,noheader")
meta = {
    "produced_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "gpu_nvidia_smi": gpu,
    "nvcc_version": sh("nvcc --version | tail -2"),
    "kernel": sh("uname -sr"),
    "build_command": "nvcc -O2 -arch=%s -o probe probe.cu" % os.environ["ARCH"],
    "run_command": "tests/data/ground_truth/run_probe.sh",
}
doc = {"meta": meta, "static_shared_49KiB": ss, "sections": raw["sections"]}
out = os.environ.get("OUTFILE") or ""
if not out:
    name = gpu.split(",")[0].lower()
    tag = next((t for t in ("h100", "h200", "a100", "l4", "t4") if t in name), "gpu")
    out = os.path.join(os.environ["HERE"], "cuda_%s.json" % tag)
pathlib.Path(out).write_text(json.dumps(doc, indent=2) + "\n")
print("wrote", out)
PY
