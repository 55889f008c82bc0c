#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""vkserve's metrics as a real Prometheus sees them (run by CTest).

Starts `vkserve serve` (metrics on a free port, JSON logs at DEBUG, traces
into a temporary directory) and Debian's Prometheus scraping it every second
on loopback, runs a bounded load of concurrent inferences plus deliberate
failures, then checks through Prometheus's HTTP API:
  - every histogram (request and each phase) has a non-zero rate,
  - the cpu-node gauge is 0 (and the gpu one positive),
  - upload + record + submit + wait + readback is within 10% of request time
    minus queue wait, over the load,
  - the counters equal what the client saw (successes, invalid inputs), and
    the ModelStatistics RPC reports the same figures,
  - every PromQL expression of the Grafana dashboard evaluates.
It also checks the scrape with `promtool check metrics`, the traced request's
Chrome trace, and that every log line is JSON carrying the request ids.

Environment: VKSERVE_BINARY_DIR, VKSERVE_PROTOC, VKSERVE_GRPC_PYTHON_PLUGIN as
for test_python_client.py; VKSERVE_LOAD_SECONDS (default 12).
Fails without grpc/numpy or Debian's prometheus.
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_python_client import ROOT, ServerProcess, free_port, generate_stubs  # noqa: E402  (fails without grpc)

import grpc  # noqa: E402
import numpy as np  # noqa: E402

PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
if PROMETHEUS is None or PROMTOOL is None:
    print("Debian's prometheus package (prometheus, promtool) is missing (scripts/setup.sh installs it)",
          file=sys.stderr)
    sys.exit(1)

MODEL = "tinynet"
LOAD_SECONDS = float(os.environ.get("VKSERVE_LOAD_SECONDS", "12"))
HISTOGRAM_PHASES = ["queue", "upload", "record", "submit", "gpu", "wait", "readback"]
HOST_PHASES = ["upload", "record", "submit", "wait", "readback"]


def http_get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


class Prometheus:
    """Debian's prometheus scraping one target every second."""

    def __init__(self, tmp, target):
        self.port = free_port()
        config = os.path.join(tmp, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                    "scrape_configs:\n  - job_name: vkserve\n    static_configs:\n"
                    f"      - targets: ['{target}']\n")
        self.log = open(os.path.join(tmp, "prometheus.log"), "w")
        self.proc = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp}/tsdb",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("prometheus exited; see prometheus.log")
            try:
                http_get(self.url + "/-/ready", timeout=1)
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("prometheus did not become ready")

    def query(self, expr, at=None):
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        body = json.loads(http_get(self.url + "/api/v1/query?" + urllib.parse.urlencode(params)))
        if body.get("status") != "success":
            raise AssertionError(f"PromQL {expr!r}: {body}")
        return body["data"]

    def scalar(self, expr, at=None):
        result = self.query(expr, at)["result"]
        if len(result) != 1:
            raise AssertionError(f"PromQL {expr!r} returned {len(result)} series: {result}")
        return float(result[0]["value"][1])

    def targets_up(self):
        body = json.loads(http_get(self.url + "/api/v1/targets"))
        return [t["health"] for t in body["data"]["activeTargets"]]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


class Vkserve(ServerProcess):
    """`vkserve serve` on free ports with the example repository, metrics on,
    JSON logs at DEBUG into a file, traces into a temporary directory."""

    def __init__(self, tmp):
        port, self.metrics_port = free_port(), free_port()
        self.trace_dir = os.path.join(tmp, "traces")
        repo = os.path.join(ROOT, "config/examples/repository")
        super().__init__(tmp, port=port, log_path=os.path.join(tmp, "vkserve.stderr"),
                         config=f'grpc {{ port: {port} }}\n'
                                f'metrics {{ port: {self.metrics_port} }}\n'
                                f'repository {{ path: "{repo}" }}\n'
                                'gpu { pipeline_cache_path: "" }\n'
                                'log { level: DEBUG format: JSON }\n'
                                f'trace {{ directory: "{self.trace_dir}" max_files: 5 }}\n')
        self.stderr_path = self.log_path
        self.metrics_url = f"http://127.0.0.1:{self.metrics_port}/metrics"


class PrometheusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vkserve_prom_")
        cls.pb, cls.pb_grpc, _, _ = generate_stubs(cls.tmp)
        cls.server = Vkserve(cls.tmp)
        cls.channel = grpc.insecure_channel(cls.server.address)
        cls.stub = cls.pb_grpc.GRPCInferenceServiceStub(cls.channel)
        cls.server.wait_ready(cls.pb, cls.stub)
        cls.prom = Prometheus(cls.tmp, f"127.0.0.1:{cls.server.metrics_port}")
        cls.prom.wait_ready()
        cls.run_load()

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.prom.stop()
        code = cls.server.stop()
        cls.server.report_if_failed()
        assert code == 0, f"vkserve exited {code}"
        sys.path.remove(cls.tmp)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def request(cls, batch=1, seed=0, rid=""):
        image = np.random.RandomState(seed).standard_normal((batch, 3, 16, 16)).astype(np.float32)
        req = cls.pb.ModelInferRequest(model_name=MODEL, id=rid)
        req.inputs.add(name="image", datatype="FP32", shape=list(image.shape))
        req.raw_input_contents.append(image.tobytes())
        return req

    @classmethod
    def run_load(cls):
        """Four clients for LOAD_SECONDS, then deliberate failures and one traced request."""
        # Wait until Prometheus has scraped the idle server, so rates start from a sample.
        end = time.time() + 30
        while time.time() < end and cls.prom.targets_up() != ["up"]:
            time.sleep(0.5)
        cls.load_start = time.time()
        stop_at = cls.load_start + LOAD_SECONDS
        lock = threading.Lock()
        cls.ok = 0
        cls.inferences = 0
        cls.ids = set()
        cls.by_batch = {}

        def client(worker):
            n = 0
            while time.time() < stop_at and n < 5000:
                batch = 1 + (n % 3)
                rid = f"load-{worker}-{n}"
                resp = cls.stub.ModelInfer(cls.request(batch, seed=n, rid=rid), timeout=60)
                assert len(resp.raw_output_contents[0]) == batch * 10 * 4
                with lock:
                    cls.ok += 1
                    cls.inferences += batch
                    cls.ids.add(rid)
                    cls.by_batch[batch] = cls.by_batch.get(batch, 0) + 1
                n += 1

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            for f in [pool.submit(client, w) for w in range(4)]:
                f.result()
        cls.load_end = time.time()

        # Invalid inputs: a wrong shape and a wrong datatype.
        cls.invalid = 0
        bad = cls.request()
        bad.inputs[0].shape[:] = [1, 3, 8, 8]
        bad2 = cls.request()
        bad2.inputs[0].datatype = "INT32"
        for req in (bad, bad2):
            try:
                cls.stub.ModelInfer(req, timeout=30)
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.INVALID_ARGUMENT, e
                cls.invalid += 1
        # One traced request.
        traced = cls.request(rid="traced-1")
        traced.parameters["vkserve_trace"].bool_param = True
        cls.traced_response = cls.stub.ModelInfer(traced, timeout=60)
        cls.ok += 1
        cls.inferences += 1
        cls.by_batch[1] = cls.by_batch.get(1, 0) + 1
        cls.ids.add("traced-1")
        # Two more scrapes see the final counters.
        time.sleep(3)
        cls.final = time.time()
        cls.scrape = http_get(cls.server.metrics_url)
        cls.stats = cls.stub.ModelStatistics(cls.pb.ModelStatisticsRequest(name=MODEL))

    # ------------------------------------------------------------------

    def test_scrape_passes_promtool(self):
        check = subprocess.run([PROMTOOL, "check", "metrics"], input=self.scrape, text=True,
                               capture_output=True)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        for family in ["vkserve_request_duration_seconds", "vkserve_phase_duration_seconds",
                       "vkserve_requests_total", "vkserve_model_nodes", "vkserve_gpu_memory_bytes",
                       "vkserve_cache_bytes", "vkserve_cache_budget_bytes", "vkserve_cache_entries",
                       "vkserve_cache_evictions_total"]:
            self.assertIn(f"# TYPE {family} ", self.scrape)

    def test_every_histogram_has_a_nonzero_rate(self):
        window = f"{int(LOAD_SECONDS)}s"
        at = self.load_end
        rate = self.prom.scalar(
            f'sum(rate(vkserve_request_duration_seconds_count{{model="{MODEL}"}}[{window}]))', at)
        self.assertGreater(rate, 0)
        for phase in HISTOGRAM_PHASES:
            count_rate = self.prom.scalar(
                f'sum(rate(vkserve_phase_duration_seconds_count{{model="{MODEL}",phase="{phase}"}}'
                f'[{window}]))', at)
            self.assertGreater(count_rate, 0, phase)
        # Time itself accrues in every phase that always takes time.
        for phase in ["queue", "upload", "submit", "gpu", "wait", "readback"]:
            time_rate = self.prom.scalar(
                f'sum(rate(vkserve_phase_duration_seconds_sum{{model="{MODEL}",phase="{phase}"}}'
                f'[{window}]))', at)
            self.assertGreater(time_rate, 0, phase)

    def test_no_node_runs_on_the_cpu(self):
        self.assertEqual(self.prom.scalar(
            f'vkserve_model_nodes{{model="{MODEL}",device="cpu"}}', self.final), 0)
        self.assertGreater(self.prom.scalar(
            f'vkserve_model_nodes{{model="{MODEL}",device="gpu"}}', self.final), 0)

    def test_phases_add_up_to_the_request_time(self):
        # Over the load: increase() from before the first request to after the last.
        window = f"{int(self.final - self.load_start) + 2}s"

        def total(selector):
            return self.prom.scalar(f"sum(increase({selector}[{window}]))", self.final)

        host = sum(total(f'vkserve_phase_duration_seconds_sum{{model="{MODEL}",phase="{p}"}}')
                   for p in HOST_PHASES)
        request = total(f'vkserve_request_duration_seconds_sum{{model="{MODEL}"}}')
        queue = total(f'vkserve_phase_duration_seconds_sum{{model="{MODEL}",phase="queue"}}')
        self.assertGreater(request - queue, 0)
        ratio = host / (request - queue)
        print(f"phases {host:.4f} s vs request - queue {request - queue:.4f} s: ratio {ratio:.4f}")
        self.assertGreaterEqual(ratio, 0.9)
        self.assertLessEqual(ratio, 1.1)

    def test_counters_match_the_client_and_model_statistics(self):
        success = self.prom.scalar(
            f'vkserve_requests_total{{model="{MODEL}",outcome="success"}}', self.final)
        self.assertEqual(success, self.ok)
        self.assertEqual(self.prom.scalar(
            f'vkserve_requests_total{{model="{MODEL}",outcome="invalid_input"}}', self.final),
            self.invalid)
        self.assertEqual(self.prom.scalar(
            f'vkserve_inferences_total{{model="{MODEL}"}}', self.final), self.inferences)
        # tinynet has dynamic_batching: requests may share runs (executions).
        s = self.stats.model_stats[0]
        runs = self.prom.scalar(f'sum(vkserve_runs_total{{model="{MODEL}"}})', self.final)
        self.assertEqual(runs, s.execution_count)
        self.assertLessEqual(runs, self.ok)
        self.assertEqual(self.prom.scalar(
            f'vkserve_executions_total{{model="{MODEL}"}}', self.final), s.execution_count)
        self.assertEqual(self.prom.scalar(
            f'vkserve_batch_size_count{{model="{MODEL}"}}', self.final), s.execution_count)
        self.assertEqual(self.prom.scalar(
            f'vkserve_batch_size_sum{{model="{MODEL}"}}', self.final), self.inferences)
        self.assertGreater(self.prom.scalar(
            f'vkserve_runs_total{{model="{MODEL}",command_buffer="replayed"}}', self.final), 0)
        # 4 bytes per float: inputs 3*16*16 and outputs 10 per row run, an
        # inference or a zero row padding a batch to a planned size.
        padding = self.prom.scalar(
            f'vkserve_batch_padding_rows_total{{model="{MODEL}"}}', self.final)
        self.assertEqual(self.prom.scalar(
            f'vkserve_transferred_bytes_total{{model="{MODEL}",direction="host_to_gpu"}}',
            self.final), (self.inferences + padding) * 3 * 16 * 16 * 4)
        self.assertEqual(self.prom.scalar(
            f'vkserve_transferred_bytes_total{{model="{MODEL}",direction="gpu_to_host"}}',
            self.final), (self.inferences + padding) * 10 * 4)
        # ModelStatistics is fed by the same figures.
        self.assertEqual(s.inference_stats.success.count, self.ok)
        self.assertEqual(s.inference_stats.fail.count, self.invalid)
        self.assertEqual(s.inference_count, self.inferences)
        for name, field in [("queue", s.inference_stats.queue),
                            ("upload", s.inference_stats.compute_input),
                            ("readback", s.inference_stats.compute_output)]:
            prom_seconds = self.prom.scalar(
                f'vkserve_phase_duration_seconds_sum{{model="{MODEL}",phase="{name}"}}', self.final)
            self.assertAlmostEqual(prom_seconds, field.ns * 1e-9, delta=1e-6 + 1e-6 * prom_seconds)
        # Per batch size (batch_stats, one count per execution, as Triton):
        # every inference in exactly one execution; without sharing, the
        # client's counts.
        self.assertEqual(sum(b.batch_size * b.compute_infer.count for b in s.batch_stats), self.inferences)
        self.assertEqual(sum(b.compute_infer.count for b in s.batch_stats), s.execution_count)
        if s.execution_count == self.ok:
            self.assertEqual({b.batch_size: b.compute_infer.count for b in s.batch_stats}, self.by_batch)
        request_seconds = self.prom.scalar(
            f'vkserve_request_duration_seconds_sum{{model="{MODEL}"}}', self.final)
        self.assertAlmostEqual(request_seconds, s.inference_stats.success.ns * 1e-9,
                               delta=1e-6 + 1e-6 * request_seconds)

    def test_gauges(self):
        self.assertEqual(self.prom.scalar(f'vkserve_sessions{{model="{MODEL}"}}', self.final), 2)
        self.assertEqual(self.prom.scalar(f'vkserve_queue_depth{{model="{MODEL}"}}', self.final), 0)
        self.assertEqual(self.prom.scalar(f'vkserve_sessions_busy{{model="{MODEL}"}}', self.final), 0)
        weights = self.prom.scalar('sum(vkserve_gpu_memory_bytes{kind="weights"})', self.final)
        self.assertGreater(weights, 0)
        # The model's plan and its sessions' states are cached within the
        # budget sized from the device.
        self.assertGreater(self.prom.scalar('sum(vkserve_cache_entries{kind="plan"})', self.final), 0)
        self.assertGreater(self.prom.scalar('sum(vkserve_cache_entries{kind="session_state"})', self.final), 0)
        for memory in ("device", "host"):
            used = self.prom.scalar(f'sum(vkserve_cache_bytes{{memory="{memory}"}})', self.final)
            budget = self.prom.scalar(f'sum(vkserve_cache_budget_bytes{{memory="{memory}"}})', self.final)
            self.assertGreater(budget, 0)
            self.assertLessEqual(used, budget)
        # Busy sessions were seen while the four clients ran.
        busy = self.prom.scalar(
            f'max_over_time(vkserve_sessions_busy{{model="{MODEL}"}}[{int(LOAD_SECONDS)}s])',
            self.load_end)
        self.assertGreater(busy, 0)

    def test_dashboard_expressions_evaluate(self):
        dashboard = os.path.join(ROOT, "deploy/grafana/vkserve.json")
        lister = os.path.join(ROOT, "tests/deploy/dashboard_exprs.py")
        out = subprocess.run([sys.executable, lister, dashboard, MODEL, "1"], check=True,
                             capture_output=True, text=True).stdout
        exprs = json.loads(out)
        self.assertGreater(len(exprs), 5)
        empty = []
        for expr in exprs:
            data = self.prom.query(expr, self.load_end)  # raises unless the query is valid
            if not data["result"]:
                empty.append(expr)
        # Every panel has data after the load (alerts-like expressions aside).
        self.assertLessEqual(len(empty), len(exprs) // 4, f"no data for: {empty}")

    def test_trace_and_log_settings_over_grpc(self):
        # Runs after the figures above were checked (tests run in name order).
        pb = self.pb
        extensions = self.stub.ServerMetadata(pb.ServerMetadataRequest()).extensions
        self.assertIn("trace", extensions)
        self.assertIn("logging", extensions)
        got = self.stub.TraceSetting(pb.TraceSettingRequest())
        self.assertEqual(list(got.settings["trace_level"].value), ["OFF"])
        # Clients are told trace files' names, never the server's directory.
        self.assertEqual(list(got.settings["trace_file"].value),
                         ["vkserve-trace-<model>-v<version>-<unix ms>-<sequence>.json"])
        req = pb.TraceSettingRequest()
        req.settings["trace_level"].value.append("TIMESTAMPS")
        req.settings["trace_rate"].value.append("2")
        req.settings["trace_count"].value.append("2")
        got = self.stub.TraceSetting(req)
        self.assertEqual(list(got.settings["trace_rate"].value), ["2"])
        paths = [self.stub.ModelInfer(self.request(rid=f"sampled-{i}"), timeout=60)
                 .parameters["vkserve_trace_path"].string_param for i in range(6)]
        self.assertEqual(len([p for p in paths if p]), 2, paths)  # every 2nd, two in all
        for p in paths:
            if p:
                self.assertNotIn("/", p)
                with open(os.path.join(self.server.trace_dir, p)) as f:
                    self.assertTrue(any(e["cat"] == "gpu" for e in json.load(f)))
        bad = pb.TraceSettingRequest()
        bad.settings["trace_level"].value.append("TENSORS")
        with self.assertRaises(grpc.RpcError) as e:
            self.stub.TraceSetting(bad)
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("TENSORS", e.exception.details())
        reset = pb.TraceSettingRequest()
        for key in ("trace_level", "trace_rate", "trace_count"):
            reset.settings[key].SetInParent()  # no value: back to the config
        got = self.stub.TraceSetting(reset)
        self.assertEqual(list(got.settings["trace_level"].value), ["OFF"])

        # The config says DEBUG: Triton's verbose level 1. At 0 (INFO) the
        # per-request DEBUG lines stop; back at 1 they return.
        got = self.stub.LogSettings(pb.LogSettingsRequest())
        self.assertEqual(got.settings["log_verbose_level"].uint32_param, 1)
        self.assertEqual(got.settings["log_format"].string_param, "JSON")

        def set_verbose(level):
            req = pb.LogSettingsRequest()
            req.settings["log_verbose_level"].uint32_param = level
            return self.stub.LogSettings(req)

        set_verbose(0)
        self.stub.ModelInfer(self.request(rid="quiet-1"), timeout=60)
        set_verbose(1)
        self.stub.ModelInfer(self.request(rid="loud-1"), timeout=60)
        bad = pb.LogSettingsRequest()
        bad.settings["log_file"].string_param = "/tmp/elsewhere.log"
        with self.assertRaises(grpc.RpcError) as e:
            self.stub.LogSettings(bad)
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        with open(self.server.stderr_path) as f:
            ids = {json.loads(l).get("request_id") for l in f if l.strip()}
        self.assertNotIn("quiet-1", ids)
        self.assertIn("loud-1", ids)

    def test_traced_request_writes_a_chrome_trace(self):
        name = self.traced_response.parameters["vkserve_trace_path"].string_param
        # The file's name in the trace directory: no server path.
        self.assertTrue(name.startswith("vkserve-trace-") and "/" not in name, name)
        with open(os.path.join(self.server.trace_dir, name)) as f:
            events = json.load(f)
        names = {e["name"] for e in events if e["cat"] == "host"}
        for phase in ["request", "queue", "upload", "vkQueueSubmit", "wait", "readback",
                      "build response"]:
            self.assertIn(phase, names)
        gpu = [e for e in events if e["cat"] == "gpu"]
        self.assertGreater(len(gpu), 0)
        self.assertTrue(all(e["args"]["op_type"] for e in gpu))
        request = next(e for e in events if e["name"] == "request")
        for e in events:  # everything happens within the request
            self.assertGreaterEqual(e["ts"], request["ts"] - 1e-3)
            self.assertLessEqual(e["ts"] + e["dur"], request["ts"] + request["dur"] + 1e-3, e)

    def test_logs_are_json_with_request_ids(self):
        with open(self.server.stderr_path) as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
        self.assertGreater(len(lines), 10)
        seen = set()
        for line in lines:
            record = json.loads(line)  # every line is one JSON object
            for key in ("time", "level", "thread", "msg"):
                self.assertIn(key, record)
            if "request_id" in record:
                seen.add(record["request_id"])
            # The Khronos validation layer (VKSERVE_VALIDATION=1) logs through here.
            self.assertFalse(record["msg"].startswith("vulkan validation"), record["msg"])
        # At DEBUG every request logs a line naming it.
        self.assertEqual(self.ids - seen, set())


if __name__ == "__main__":
    unittest.main()
