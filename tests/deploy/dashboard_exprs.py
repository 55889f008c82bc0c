#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Prints every PromQL expression of a Grafana dashboard as a JSON list,
with the dashboard's variables filled in, so a test can evaluate each one
against a live Prometheus.

Usage: dashboard_exprs.py DASHBOARD.json MODEL VERSION [RATE_INTERVAL]
"""
import json
import sys


def exprs(dashboard):
    for panel in dashboard.get("panels", []):
        yield from (t["expr"] for t in panel.get("targets", []) if t.get("expr"))
        for inner in panel.get("panels", []):  # rows
            yield from (t["expr"] for t in inner.get("targets", []) if t.get("expr"))


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        dashboard = json.load(f)
    model, version = sys.argv[2], sys.argv[3]
    rate = sys.argv[4] if len(sys.argv) == 5 else "30s"
    out = [e.replace("$__rate_interval", rate).replace("$model", model).replace("$version", version)
           for e in exprs(dashboard)]
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
