#!/usr/bin/env python3
"""Builds the results table of run.sh from its logs (vkserve.log, peers.jsonl)."""
import json, re, sys, pathlib

out = pathlib.Path(sys.argv[1])
vk = {}
cur = None
for line in (out / "vkserve.log").read_text().splitlines():
    m = re.match(r"== (\S+) batch (\d+)", line)
    if m:
        cur = (m.group(1), int(m.group(2)))
        continue
    m = re.match(r"timing \(median of (\d+) runs?, ms\): upload ([\d.]+)\s+record ([\d.]+)\s+submit ([\d.]+)\s+"
                 r"gpu ([\d.]+)\s+wait ([\d.]+)\s+readback ([\d.]+)\s+total ([\d.]+)"
                 r"(?:\s+gpu-compute ([\d.]+))?", line)
    if m and cur:
        keys = ["runs", "upload", "record", "submit", "gpu", "wait", "readback", "total", "compute"]
        vk[cur] = dict(zip(keys, [float(x) if x is not None else float("nan") for x in m.groups()]))
    elif cur and ("error" in line.lower() or "vkserve infer:" in line):
        vk.setdefault(cur, {"error": line.strip()})
peers = {}
p = out / "peers.jsonl"
if p.exists():
    for line in p.read_text().splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        peers[(d["model"], d["batch"], d["peer"], d.get("dtype", "fp32"))] = d["median_ms"]

# GPU ms spans the whole submission, the copies of inputs in and outputs
# out included; GPU compute ms is the model's nodes alone, which is what the
# PyTorch columns time (tensors resident on the GPU).
print("| model | batch | vkserve total ms | vkserve GPU ms | vkserve GPU compute ms | upload | record | submit "
      "| wait | readback | PyTorch eager fp32 ms | PyTorch CUDA graph fp32 ms | PyTorch CUDA graph fp16 ms |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (model, n), t in sorted(vk.items()):
    e = peers.get((model, n, "pytorch-eager", "fp32"), float("nan"))
    g = peers.get((model, n, "pytorch-cuda-graph", "fp32"), float("nan"))
    h = peers.get((model, n, "pytorch-cuda-graph", "fp16"), float("nan"))
    if "error" in t:
        print(f"| {model} | {n} | failed: {t['error']} | | | | | | | | {e:.3f} | {g:.3f} | {h:.3f} |")
        continue
    print(f"| {model} | {n} | {t['total']:.3f} | {t['gpu']:.3f} | {t.get('compute', float('nan')):.3f} | "
          f"{t['upload']:.3f} | {t['record']:.3f} | "
          f"{t['submit']:.3f} | {t['wait']:.3f} | {t['readback']:.3f} | {e:.3f} | {g:.3f} | {h:.3f} |")
