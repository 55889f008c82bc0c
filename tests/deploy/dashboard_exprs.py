#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Prints every PromQL expression of a Grafana dashboard as a JSON list,
with the dashboard's variables filled in, so a test can evaluate each one
against a live Prometheus.

Usage: dashboard_exprs.py DASHBOARD.json MODEL VERSION [RATE_INTERVAL]

$model and $version (also written ${model}, ${model:regex} or [[model]])
become MODEL and VERSION; $__rate_interval, $__interval and $__range become
RATE_INTERVAL (default 30s). Any other variable in an expression is an error:
Prometheus could not evaluate it.
"""
import json
import re
import sys

VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)")


def exprs(panels):
    for panel in panels:
        yield from (t["expr"] for t in panel.get("targets", []) if t.get("expr"))
        yield from exprs(panel.get("panels", []))  # rows hold panels


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        dashboard = json.load(f)
    rate = sys.argv[4] if len(sys.argv) == 5 else "30s"
    values = {"model": sys.argv[2], "version": sys.argv[3],
              "__rate_interval": rate, "__interval": rate, "__range": rate}
    unknown = set()

    def fill(match):
        name = next(g for g in match.groups() if g)
        if name not in values:
            unknown.add(name)
            return match.group(0)
        return values[name]

    out = [VARIABLE.sub(fill, e) for e in exprs(dashboard.get("panels", []))]
    if unknown:
        print(f"dashboard_exprs.py: unknown variables in expressions: {sorted(unknown)}",
              file=sys.stderr)
        return 1
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
