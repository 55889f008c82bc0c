#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Reads `vkserve inspect --json` on stdin; prints one JSON line: where the
stored nodes run, which contrib/blocked ops the file holds and how many
stored nodes were rewritten, fused or kept as kernels."""
import collections
import json
import sys

name = sys.argv[1]
try:
    r = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(json.dumps({"file": name, "error": f"no inspect output ({e})"}))
    sys.exit(0)
stored = r.get("stored_nodes", [])
kinds = collections.Counter(n["runs_as"].split(" ")[0] for n in stored)
contrib = collections.Counter(f'{n["domain"]}:{n["op_type"]}' for n in stored if n["domain"] != "ai.onnx")
print(json.dumps({"file": name, "format": r.get("format"), "stored_nodes": len(stored),
                  "stored_on_gpu": sum(n["device"] == "gpu" for n in stored), "cpu_nodes": r.get("cpu_nodes"),
                  "gpu_nodes_after_fusion": r.get("gpu_nodes"), "runs_as": dict(kinds),
                  "contrib_ops": dict(contrib)}))
