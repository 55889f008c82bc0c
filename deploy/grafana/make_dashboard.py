#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Writes vkserve.json, the Grafana dashboard, next to this script.

The dashboard is generated so that its PromQL lives in one readable place;
edit this file and run it (`/usr/bin/python3 deploy/grafana/make_dashboard.py`),
then commit both. tests/deploy/check_deploy.sh checks that the two agree.
"""
import json
import os

SEL = 'model="$model", version=~"$version"'
RATE = "$__rate_interval"
# Panels name the data source through the `datasource` variable, so one
# dashboard serves any Prometheus. On import Grafana asks for DS_PROMETHEUS
# (__inputs) and writes the choice into that variable's current value.
DS = {"type": "prometheus", "uid": "${datasource}"}

# The stacked split: where a second of wall time goes, per phase. GPU time
# overlaps submit and wait, so the stack shows "wait beyond GPU" instead of
# wait itself: queue + upload + record + submit + GPU + (wait - GPU) + readback.
def phase_rate(phase):
    return f'sum(rate(vkserve_phase_duration_seconds_sum{{{SEL}, phase="{phase}"}}[{RATE}]))'


SPLIT = [
    ("queue", phase_rate("queue")),
    ("upload", phase_rate("upload")),
    ("record", phase_rate("record")),
    ("submit", phase_rate("submit")),
    ("GPU", phase_rate("gpu")),
    ("wait beyond GPU", f"clamp_min({phase_rate('wait')} - {phase_rate('gpu')}, 0)"),
    ("readback", phase_rate("readback")),
]


def target(expr, legend, ref):
    return {"datasource": DS, "expr": expr, "legendFormat": legend, "refId": ref, "range": True}


def panel(pid, title, kind, grid, targets, unit="short", description="", stack=False, extra=None):
    p = {
        "id": pid,
        "type": kind,
        "title": title,
        "description": description,
        "datasource": DS,
        "gridPos": grid,
        "targets": [target(e, l, chr(ord("A") + i)) for i, (l, e) in enumerate(targets)],
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {},
    }
    if kind == "timeseries":
        p["options"] = {"legend": {"displayMode": "table", "placement": "right", "calcs": ["mean", "max"]},
                        "tooltip": {"mode": "multi", "sort": "desc"}}
        p["fieldConfig"]["defaults"]["custom"] = {
            "drawStyle": "line", "lineWidth": 1, "fillOpacity": 60 if stack else 10,
            "stacking": {"mode": "normal" if stack else "none", "group": "A"},
            "showPoints": "never"}
    if extra:
        merge(p, extra)
    return p


def merge(into, extra):
    """Deep-merges extra into into (dicts merge, anything else replaces)."""
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            merge(into[key], value)
        else:
            into[key] = value


def quantile(q, metric, by=""):
    group = f"le{', ' + by if by else ''}"
    return f"histogram_quantile({q}, sum by ({group}) (rate({metric}_bucket{{{SEL}}}[{RATE}])))"


panels = [
    panel(1, "Where the time goes (seconds per second, stacked)", "timeseries",
          {"x": 0, "y": 0, "w": 16, "h": 10}, SPLIT, unit="s", stack=True,
          description="Per phase, summed over requests: a band twice as tall as another took twice the "
                      "time. Record is 0 while recorded command buffers are replayed. If GPU dominates, "
                      "the model is GPU-bound; if queue dominates, add sessions or scale out; if upload, "
                      "submit or readback dominate, the CPU side is the bottleneck."),
    # Every loaded model, not just $model: one glance proves nothing runs on the CPU.
    panel(2, "CPU nodes, all models (must be 0)", "stat", {"x": 16, "y": 0, "w": 4, "h": 5},
          [("cpu nodes", 'sum(vkserve_model_nodes{device="cpu"})')],
          description="Graph nodes executed on the CPU, summed over every loaded model. vkserve has "
                      "no CPU kernels: this is always 0 (the Prometheus alert VkserveCpuNodes fires "
                      "otherwise).",
          extra={"options": {"reduceOptions": {"calcs": ["lastNotNull"]}, "colorMode": "background"},
                 "fieldConfig": {"defaults": {"unit": "short", "thresholds": {"mode": "absolute", "steps": [
                     {"color": "green", "value": None}, {"color": "red", "value": 1}]}}, "overrides": []}}),
    panel(3, "GPU nodes", "stat", {"x": 20, "y": 0, "w": 4, "h": 5},
          [("gpu nodes", f'sum(vkserve_model_nodes{{{SEL}, device="gpu"}})')],
          extra={"options": {"reduceOptions": {"calcs": ["lastNotNull"]}}}),
    panel(4, "Replayed vs recorded runs", "timeseries", {"x": 16, "y": 5, "w": 8, "h": 5},
          [("{{command_buffer}}", f"sum by (command_buffer) (rate(vkserve_runs_total{{{SEL}}}[{RATE}]))")],
          unit="ops"),
    panel(5, "Requests per second by outcome", "timeseries", {"x": 0, "y": 10, "w": 12, "h": 8},
          [("all requests", f"sum(rate(vkserve_requests_total{{{SEL}}}[{RATE}]))"),
           ("{{outcome}}", f"sum by (outcome) (rate(vkserve_requests_total{{{SEL}}}[{RATE}]))"),
           ("inferences", f"sum(rate(vkserve_inferences_total{{{SEL}}}[{RATE}]))"),
           ("executions (dynamic batches count 1)",
            f"sum(rate(vkserve_executions_total{{{SEL}}}[{RATE}]))")], unit="reqps",
          description="Requests by outcome (success, invalid_input, timeout, queue_full, cancelled, "
                      "unavailable, internal), inferences (a request of batch n counts n) and "
                      "executions (a dynamic batch of several requests counts 1)."),
    panel(6, "Request latency p50 / p99", "timeseries", {"x": 12, "y": 10, "w": 12, "h": 8},
          [("p50", quantile(0.5, "vkserve_request_duration_seconds")),
           ("p99", quantile(0.99, "vkserve_request_duration_seconds"))], unit="s"),
    panel(7, "Phase latency p50", "timeseries", {"x": 0, "y": 18, "w": 12, "h": 8},
          [("{{phase}}", quantile(0.5, "vkserve_phase_duration_seconds", "phase"))], unit="s"),
    panel(8, "Phase latency p99", "timeseries", {"x": 12, "y": 18, "w": 12, "h": 8},
          [("{{phase}}", quantile(0.99, "vkserve_phase_duration_seconds", "phase"))], unit="s"),
    panel(9, "Sessions and queue", "timeseries", {"x": 0, "y": 26, "w": 8, "h": 8},
          [("sessions", f"sum(vkserve_sessions{{{SEL}}})"),
           ("busy", f"sum(vkserve_sessions_busy{{{SEL}}})"),
           ("queued", f"sum(vkserve_queue_depth{{{SEL}}})")]),
    panel(10, "Bytes moved per second", "timeseries", {"x": 8, "y": 26, "w": 8, "h": 8},
          [("{{direction}}",
            f"sum by (direction) (rate(vkserve_transferred_bytes_total{{{SEL}}}[{RATE}]))")],
          unit="Bps"),
    panel(11, "GPU-resident outputs", "timeseries", {"x": 16, "y": 26, "w": 8, "h": 8},
          [("handles", f"sum(vkserve_resident_outputs{{{SEL}}})"),
           ("bytes", f"sum(vkserve_resident_output_bytes{{{SEL}}})")],
          extra={"fieldConfig": {"defaults": {"unit": "short"}, "overrides": [
              {"matcher": {"id": "byName", "options": "bytes"},
               "properties": [{"id": "unit", "value": "bytes"}, {"id": "custom.axisPlacement", "value": "right"}]}]}}),
    panel(12, "GPU memory by kind (all models on the device)", "timeseries",
          {"x": 0, "y": 34, "w": 16, "h": 8},
          [("{{device}} {{kind}}", "sum by (device, kind) (vkserve_gpu_memory_bytes)")],
          unit="bytes", stack=True),
    panel(13, "GPU busy (all models)", "timeseries", {"x": 16, "y": 34, "w": 8, "h": 8},
          [("GPU seconds per second",
            f'sum(rate(vkserve_phase_duration_seconds_sum{{phase="gpu"}}[{RATE}]))'),
           ("GPU ms per execution",
            f'1000 * sum(rate(vkserve_phase_duration_seconds_sum{{{SEL}, phase="gpu"}}[{RATE}]))'
            f' / sum(rate(vkserve_phase_duration_seconds_count{{{SEL}, phase="gpu"}}[{RATE}]))')],
          description="The fraction of wall time the GPU spends executing vkserve's work. NVIDIA's "
                      "driver lowers the clocks of a GPU kept 10-30% busy (1980 to 345 MHz on an "
                      "H100), which shows here as GPU ms per execution rising while the load falls; "
                      "deploy/README.md says how to lock clocks."),
]

dashboard = {
    "__inputs": [{"name": "DS_PROMETHEUS", "label": "Prometheus", "type": "datasource",
                  "pluginId": "prometheus", "pluginName": "Prometheus"}],
    "title": "vkserve",
    "uid": "vkserve",
    "description": "vkserve per model: where each request's time goes (queue, upload, record, "
                   "vkQueueSubmit, GPU, wait, readback), rates, latency and resources.",
    "tags": ["vkserve", "inference", "vulkan"],
    "schemaVersion": 39,
    "version": 1,
    "editable": True,
    "time": {"from": "now-30m", "to": "now"},
    "refresh": "10s",
    "templating": {"list": [
        {"name": "datasource", "type": "datasource", "query": "prometheus", "label": "Data source",
         "current": {"text": "${DS_PROMETHEUS}", "value": "${DS_PROMETHEUS}"}, "regex": "",
         "refresh": 1, "hide": 0},
        {"name": "model", "type": "query", "label": "Model", "datasource": DS,
         "query": {"query": "label_values(vkserve_requests_total, model)", "refId": "model"},
         "definition": "label_values(vkserve_requests_total, model)", "refresh": 2, "sort": 1,
         "current": {}, "hide": 0},
        {"name": "version", "type": "query", "label": "Version", "datasource": DS,
         "query": {"query": 'label_values(vkserve_requests_total{model="$model"}, version)',
                   "refId": "version"},
         "definition": 'label_values(vkserve_requests_total{model="$model"}, version)',
         "refresh": 2, "includeAll": True, "allValue": ".*", "multi": False, "current": {}, "hide": 0},
    ]},
    "panels": panels,
}

if __name__ == "__main__":
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vkserve.json")
    with open(out, "w") as f:
        json.dump(dashboard, f, indent=2)
        f.write("\n")
    print(f"wrote {out}")
