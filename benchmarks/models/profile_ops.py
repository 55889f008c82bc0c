#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Where a profiled run's GPU time goes: the GPU events of a `vkserve infer
# --profile` trace summed per op type (a fused node counts under its fused
# name), largest first, with the session's copies (op type "") apart.
# Timestamps around every dispatch add a little to each event: compare
# shares, not totals, with an unprofiled run.
#
# Usage: python3 benchmarks/models/profile_ops.py TRACE.json [TOP]
import collections
import json
import sys


def main():
    events = json.load(open(sys.argv[1]))
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    total = collections.Counter()
    count = collections.Counter()
    for e in events:
        if e.get("cat") != "gpu":
            continue
        key = e["args"].get("op_type") or f"(copy) {e['name']}"
        total[key] += e["dur"]
        count[key] += 1
    whole = sum(total.values())
    print(f"{'op type':60s} {'nodes':>5s} {'GPU us':>9s} {'share':>6s}")
    for key, us in total.most_common(top):
        print(f"{key[:60]:60s} {count[key]:5d} {us:9.1f} {100 * us / whole:5.1f}%")
    print(f"{'all GPU events':60s} {sum(count.values()):5d} {whole:9.1f}")


if __name__ == "__main__":
    main()
