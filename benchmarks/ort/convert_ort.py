#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Converts MODEL.onnx to ONNX Runtime's format at levels basic, extended and all.

Usage: convert_ort.py MODEL.onnx [LEVEL...]   -> MODEL_<level>.ort beside it

Uses ONNX Runtime's Python package (where the GPU's python3 has it), as its
own converter does: a CPU-provider session whose optimized_model_filepath ends
in .ort, so the file carries the CPU provider's fusions (FusedConv,
QuickGelu, NCHWc blocking, Attention, ...). Prints one JSON line per file.
"""
import json
import os
import sys
import time

import onnxruntime as ort

LEVELS = {"basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
          "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
          "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}

src = sys.argv[1]
for level in sys.argv[2:] or list(LEVELS):
    out = src[:-len(".onnx")] + f"_{level}.ort"
    so = ort.SessionOptions()
    so.graph_optimization_level = LEVELS[level]
    so.optimized_model_filepath = out
    t0 = time.time()
    try:
        ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])
        print(json.dumps({"file": os.path.basename(out), "level": level, "bytes": os.path.getsize(out),
                          "seconds": round(time.time() - t0, 2), "onnxruntime": ort.__version__}))
    except Exception as e:  # report and go on with the other levels
        print(json.dumps({"file": os.path.basename(out), "level": level, "error": str(e)[:400]}))
