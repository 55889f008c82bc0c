#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Summarizes run.sh's output folder into a Markdown table (stdout).

One row per file: the .onnx and its .ort twins. vkserve's median GPU and
total ms per inference (after warm-up; the better of two passes, both
totals in the last column), the ratio of the .ort's total to
its .onnx twin's, where the stored nodes run, ONNX Runtime's WebGPU and CPU
providers' median run() ms on the same file (or how they failed), and the
SM clock read right after each timing."""
import collections
import json
import os
import re
import sys

out = sys.argv[1]


def jsonl(name):
    rows = []
    path = os.path.join(out, name)
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line.startswith("{"):
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    rows.append({"error": "unparsable: " + line[:120]})
    return rows


vk = {}
current = None
if os.path.exists(os.path.join(out, "vkserve.log")):
    for line in open(os.path.join(out, "vkserve.log")):
        if line.startswith("== "):
            current = line[3:].strip()
            vk.setdefault(current, {})
        elif current and line.startswith("timing"):
            t = {k: float(v) for k, v in re.findall(r"(\w+) ([\d.]+)", line.split(":", 1)[1])}
            # Passes: keep the one with the lower total, and both totals.
            vk[current].setdefault("passes", []).append(t["total"])
            if "total" not in vk[current] or t["total"] < vk[current]["total"]:
                vk[current].update(t)
        elif current and line.startswith("sm_clock_mhz_after"):
            vk[current]["sm"] = line.split(":", 1)[1].strip()
        elif current and line.startswith("vkserve:"):
            vk[current]["error"] = line.strip()[:200]
inspect = {r.get("file"): r for r in jsonl("inspect.jsonl")}
web = collections.defaultdict(dict)
for r in jsonl("ortweb.jsonl"):
    web[r.get("file")][r.get("ep")] = r


def ort_cell(r):
    if not r:
        return "not run"
    if "error" in r:
        return "failed: " + r["error"].replace("|", "/")[:90]
    return f'{r["median_ms"]:.3f}'


def model_of(f):
    return re.sub(r"(_(basic|extended|all))?\.(onnx|ort)$", "", f)


print("| model | file | stored nodes (contrib / blocked ops) | vkserve nodes on CPU | vkserve GPU ms | "
      "vkserve total ms | total vs .onnx | ORT WebGPU ms | ORT CPU ms | SM MHz (vkserve / WebGPU) | "
      "vkserve total, each pass |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
files = list(vk) + [f for f in inspect if f not in vk]
for f in files:
    m = model_of(f)
    base = vk.get(m + ".onnx", {})
    v = vk.get(f, {})
    i = inspect.get(f, {})
    contrib = ", ".join(f"{k.split(':', 1)[1]}×{n}" if ":" in k else k for k, n in sorted(i.get("contrib_ops", {}).items()))
    stored = f'{i.get("stored_nodes", "?")}' + (f" ({contrib})" if contrib else "")
    if "total" in v:
        gpu, total = f'{v["gpu"]:.3f}', f'{v["total"]:.3f}'
        ratio = f'{v["total"] / base["total"]:.3f}' if base.get("total") else ""
    else:
        gpu = total = "failed: " + v.get("error", i.get("error", "no timing"))[:90]
        ratio = ""
    sm = f'{v.get("sm", "?")} / {web.get(f, {}).get("webgpu", {}).get("sm_clock_mhz_after", "?")}'
    print(f'| {m} | {f} | {stored} | {i.get("cpu_nodes", "?")} | {gpu} | {total} | {ratio} | '
          f'{ort_cell(web.get(f, {}).get("webgpu"))} | {ort_cell(web.get(f, {}).get("cpu"))} | {sm} | '
          f'{" / ".join(f"{x:.3f}" for x in v.get("passes", []))} |')
