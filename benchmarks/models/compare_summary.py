#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""The table of compare.sh from its logs: per configuration the median GPU
compute time of each build, every round's figure (the spread), the new
build's change, and the PyTorch peers of the same run. Also writes
compare.jsonl, one line per timing."""
import json
import pathlib
import re
import statistics
import sys

out = pathlib.Path(sys.argv[1])
runs = {}  # (model, batch, precision) -> build -> [gpu-compute ms]
rows = []
cur = None
for line in (out / "vkserve.log").read_text().splitlines():
    m = re.match(r"== (\w+) (\S+) batch (\d+) (\w+) round (\d+) clock (.*)", line)
    if m:
        cur = dict(build=m[1], model=m[2], batch=int(m[3]), precision=m[4], round=int(m[5]),
                   sm_clock=m[6].strip())
        continue
    t = re.search(r"timing \(median of \d+ runs?, ms\):.*\btotal ([\d.]+)\s+gpu-compute ([\d.]+)", line)
    if t and cur:
        rec = dict(cur, total_ms=float(t[1]), gpu_compute_ms=float(t[2]))
        rows.append(rec)
        runs.setdefault((rec["model"], rec["batch"], rec["precision"]), {}).setdefault(
            rec["build"], []).append(rec["gpu_compute_ms"])
        cur = None
with open(out / "compare.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")

peers = {}
p = out / "peers.jsonl"
if p.exists():
    for line in p.read_text().splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        peers[(d["model"], d["batch"], d["peer"], d.get("dtype"))] = d["median_ms"]

print("| model | batch | precision | baseline GPU compute ms (rounds) | new (rounds) | new / baseline "
      "| PyTorch CUDA graph | torch.compile |")
print("|---|---|---|---|---|---|---|---|")
for (model, batch, precision), b in sorted(runs.items()):
    base, new = b.get("baseline", []), b.get("new", [])
    fmt = lambda v: " / ".join(f"{x:.3f}" for x in v) or "failed"
    ratio = (f"{statistics.median(new) / statistics.median(base):.3f}" if base and new else "")
    dtype = "fp16" if precision == "FP16" else "fp32"
    graph = peers.get((model, batch, "pytorch-cuda-graph", dtype))
    comp = peers.get((model, batch, "pytorch-compile", dtype))
    print(f"| {model} | {batch} | {precision} | {fmt(base)} | {fmt(new)} | {ratio} | "
          f"{graph if graph is not None else ''} | {comp if comp is not None else ''} |")
