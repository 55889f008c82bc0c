#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Copy bandwidth and fp32 FMA throughput: vkserve_gpu_bench (Vulkan, GPU
# timestamps) and PyTorch's device-to-device copy (torch_copy.py, CUDA
# events, when torch is installed), one after the other so both share one
# machine state. Writes to OUT: environment.txt, vk_bench.json (Google
# Benchmark JSON), vk_bench.log, torch_copy.jsonl, torch_copy.err and
# gpu_bench.md (the summary table).
# Environment: BENCH_ARGS (extra vkserve_gpu_bench flags, e.g.
# --benchmark_min_time=0.01 --sizes_mib=1,16), TORCH_ARGS (extra
# torch_copy.py flags), VKSERVE_DEVICE (device selector).
set -uo pipefail
USAGE="benchmarks/gpu/run.sh --vkserve BIN --out DIR [--bench vkserve_gpu_bench]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
mkdir -p "$OUT"
BENCH_ARGS=${BENCH_ARGS:-}
TORCH_ARGS=${TORCH_ARGS:-}
PY=$(command -v python3 || true)

gpu_state() {
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw,pstate --format=csv,noheader 2>/dev/null \
    || echo "n/a (no nvidia-smi)"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "kernel: $(uname -r)"
  echo "\$ nvidia-smi --query-gpu=name,driver_version --format=csv"
  nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1 || echo "nvidia-smi: not available"
  echo "gpu state before (sm MHz, mem MHz, temp, power, pstate): $(gpu_state)"
  echo "\$ vkserve devices"
  "$VKSERVE" devices 2>&1 | head -40
} > "$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt"

echo "== vkserve_gpu_bench $BENCH_ARGS"
# shellcheck disable=SC2086
"$BENCH" --benchmark_out="$OUT/vk_bench.json" --benchmark_out_format=json \
  --benchmark_counters_tabular=false $BENCH_ARGS 2>&1 | tee "$OUT/vk_bench.log"
vk_rc=${PIPESTATUS[0]}
echo "vkserve_gpu_bench exit status: $vk_rc" | tee -a "$OUT/vk_bench.log"

echo "== torch_copy.py $TORCH_ARGS"
if [ -n "$PY" ]; then
  # shellcheck disable=SC2086
  "$PY" "$B/torch_copy.py" $TORCH_ARGS > "$OUT/torch_copy.jsonl" 2> "$OUT/torch_copy.err"
  torch_rc=$?
  cat "$OUT/torch_copy.jsonl"
  [ "$torch_rc" = 0 ] || echo "torch_copy.py exit status $torch_rc (see torch_copy.err); PyTorch columns left empty"
else
  echo '{"bench": "torch_copy", "skipped": "no python3"}' > "$OUT/torch_copy.jsonl"
  torch_rc=127
fi
echo "gpu state after (sm MHz, mem MHz, temp, power, pstate): $(gpu_state)" >> "$OUT/environment.txt"

if [ -z "$PY" ]; then
  echo "no python3: no summary" | tee "$OUT/gpu_bench.md"
  exit "$vk_rc"
fi
"$PY" - "$OUT" "$BENCH_ARGS" "$TORCH_ARGS" > "$OUT/gpu_bench.md" <<'PYEOF'
import json, re, sys
out, bench_args, torch_args = sys.argv[1], sys.argv[2], sys.argv[3]
env = open(f"{out}/environment.txt").read()
try:
    vk = json.load(open(f"{out}/vk_bench.json"))
except Exception as e:  # the benchmark failed before writing its JSON
    vk = {"context": {}, "benchmarks": []}
    print(f"vk_bench.json unreadable: {e}\n")
torch_rows, torch_env, sgemm = {}, {}, None
for line in open(f"{out}/torch_copy.jsonl"):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if r.get("bench") == "torch_copy" and "bytes" in r:
        torch_rows[r["bytes"]] = r
    elif r.get("bench") == "torch_env":
        torch_env = r
    elif r.get("bench", "").startswith("torch_sgemm"):
        sgemm = r
    elif "skipped" in r:
        torch_env = {"skipped": r["skipped"]}

copy_rows, shader, fma, errors, family = {}, {}, [], [], []
for b in vk["benchmarks"]:
    name = b["name"].replace("/manual_time", "")
    if b.get("error_occurred"):
        errors.append(f"{name}: {b.get('error_message')}")
        continue
    m = re.match(r"copy/vkCmdCopyBuffer_family/(\d+):([^/]+)/(\w+)", name)
    if m:
        family.append((int(m[1]), m[2], m[3], b))
        continue
    m = re.match(r"copy/vkCmdCopyBuffer/(\w+)", name)
    if m:
        copy_rows[int(b["bytes"])] = b
        continue
    m = re.match(r"copy/shader/(\w+)/wg:(\d+)/ept:(\d+)", name)
    if m:
        shader.setdefault(int(b["bytes"]), []).append((int(m[2]), int(m[3]), b))
        continue
    if name.startswith("fma_fp32"):
        fma.append((name, b))

def size_name(n):
    return f"{n >> 30} GiB" if n % (1 << 30) == 0 else f"{n >> 20} MiB" if n % (1 << 20) == 0 else f"{n} B"

def f(x, p=0):
    return "-" if x is None else f"{x:.{p}f}"

ctx = vk.get("context", {})
date = re.search(r"date: (\S+)", env)
print("# Vulkan copy bandwidth and fp32 FMA throughput vs PyTorch\n")
print(f"- date: {date[1] if date else '?'}")
print(f"- Vulkan device: {ctx.get('vk_device', '?')}, driver {ctx.get('vk_driver', '?')}, Vulkan {ctx.get('vk_api', '?')}")
smi = re.search(r"name, driver_version\n(.*)\n", env)
print(f"- nvidia-smi: {smi[1] if smi else 'n/a'}")
if torch_env.get("torch"):
    print(f"- PyTorch {torch_env['torch']} (CUDA {torch_env['cuda']}) on {torch_env['device']}, {torch_env['sm_count']} SMs")
else:
    print(f"- PyTorch: not measured ({torch_env.get('skipped', 'no output')})")
print(f"- commands: `vkserve_gpu_bench --benchmark_out=vk_bench.json --benchmark_out_format=json {bench_args}`; "
      f"`python3 torch_copy.py {torch_args}`")
print("- convention: GB/s = bytes copied, one direction (an N-byte copy counts N; double it for read + write), "
      "over the median GPU time per copy, 1 GB = 1e9 B. Each figure is R back-to-back copies of one src -> dst "
      "(R = clamp(4 GiB / size, 4, 64)) timed together: Vulkan by timestamp queries, PyTorch by CUDA events.\n")
print("| size | vkCmdCopyBuffer GB/s | shader copy GB/s (wg 256, ept 4) | best shader copy GB/s (wg, ept) | PyTorch copy_ GB/s | vkCmdCopyBuffer / PyTorch | best Vulkan / PyTorch |")
print("|---|---|---|---|---|---|---|")
for size in sorted(set(copy_rows) | set(shader) | set(torch_rows)):
    cp = copy_rows.get(size, {}).get("GB/s")
    variants = shader.get(size, [])
    default = next((b["GB/s"] for w, e, b in variants if w == 256 and e == 4), None)
    best = max(variants, key=lambda v: v[2]["GB/s"]) if variants else None
    tr = torch_rows.get(size, {}).get("gb_per_s")
    best_vk = max([x for x in [cp, best[2]["GB/s"] if best else None] if x is not None], default=None)
    r1 = f"{100 * cp / tr:.0f}%" if cp and tr else "-"
    r2 = f"{100 * best_vk / tr:.0f}%" if best_vk and tr else "-"
    bs = f"{best[2]['GB/s']:.0f} ({best[0]}, {best[1]})" if best else "-"
    print(f"| {size_name(size)} | {f(cp)} | {f(default)} | {bs} | {f(tr)} | {r1} | {r2} |")
print()
print("Shader copy variants (GB/s):\n")
print("| size | wg | ept | GB/s | us per copy |")
print("|---|---|---|---|---|")
for size in sorted(shader):
    for w, e, b in sorted(shader[size], key=lambda v: (v[0], v[1])):
        print(f"| {size_name(size)} | {w} | {e} | {b['GB/s']:.0f} | {b['us_per_copy']:.2f} |")
print()
if family:
    print("vkCmdCopyBuffer by queue family (a raw VkDevice per family; (vkserve) marks the family gpu::Device uses):\n")
    print("| queue family | size | GB/s | us per copy |")
    print("|---|---|---|---|")
    for fam, flags, sz, b in sorted(family, key=lambda v: v[0]):
        print(f"| {fam}: {flags} | {sz} | {b['GB/s']:.0f} | {b['us_per_copy']:.2f} |")
    print()
print("| fp32 FMA | TFLOP/s | us per dispatch |")
print("|---|---|---|")
for name, b in fma:
    print(f"| vkserve {name} | {b['TFLOP/s']:.1f} | {b['us_per_dispatch']:.0f} |")
if sgemm:
    print(f"| PyTorch fp32 SGEMM {sgemm['n']}^3, TF32 off (reference, not FMA-only) | {sgemm['tflop_per_s']:.1f} | {sgemm['median_ms'] * 1e3:.0f} |")
unverified = [r for r in torch_rows.values() if not r.get("verified")]
if errors or unverified:
    print("\nErrors:\n")
    for e in errors:
        print(f"- {e}")
    for r in unverified:
        print(f"- PyTorch copy of {r['bytes']} bytes: dst != src after the copies")
PYEOF
cat "$OUT/gpu_bench.md"
exit "$vk_rc"
