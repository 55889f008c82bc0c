#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""`vkserve serve` under a fake systemd: the test owns the NOTIFY_SOCKET (run by CTest).

The test binds a unix datagram socket, starts vkserve with NOTIFY_SOCKET
pointing at it and WATCHDOG_USEC=1 s, as systemd does for a Type=notify unit
with WatchdogSec=1, and reads what vkserve sends. In order:
  - STATUS= "loading model i of n: NAME" for each of the three models, then
    READY=1 (only once the port answers: ServerReady is true right after);
  - WATCHDOG=1 about every half second while idle and under traffic;
  - four clients keep calling two models (`keep`, unchanged, and `change`)
    while the repository changes — `change` gets a version 2, a model
    `added` appears, `gone` is deleted — and SIGHUP is sent: RELOADING=1,
    then READY=1 naming +added ~change -gone; no request fails, responses
    match a numpy forward pass, `change` answers as version 2 afterwards
    and was warmed before (its requests replay: vkserve_runs_total), `added`
    serves and `gone` is NOT_FOUND;
  - a periodic STATUS= "serving: 3 model version(s) ready, R requests/s"
    with R > 0 under that traffic;
  - a config that does not parse: RELOADING=1, READY=1 with "reload
    rejected", every model still serving;
  - SIGTERM: STOPPING=1, exit 0.
(The watchdog stopping on a wedged GPU queue is server_watchdog_test, which
injects the wedge in-process.)

Usage: test_systemd_notify.py [-v]
Environment: as test_python_client.py. Fails without grpc/numpy/onnx.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import re
import threading
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_python_client import ROOT, free_port, generate_stubs  # noqa: E402  (fails without grpc)
from test_dynamic_batching import TINYNET, Reference  # noqa: E402  (fails without onnx)

import grpc  # noqa: E402
import numpy as np  # noqa: E402


def model_config(name):
    return (f'name: "{name}"\nmax_batch_size: 8\n'
            'input { name: "image" data_type: TYPE_FP32 dims: [3, 16, 16] }\n'
            'output { name: "probabilities" data_type: TYPE_FP32 dims: [10] }\n'
            'instance_group { count: 2 kind: KIND_GPU }\n')


def add_model(repo, name, version=1):
    os.makedirs(os.path.join(repo, name, str(version)), exist_ok=True)
    shutil.copy(TINYNET, os.path.join(repo, name, str(version), "model.onnx"))
    with open(os.path.join(repo, name, "config.pbtxt"), "w") as f:
        f.write(model_config(name))


class NotifySocket:
    """The service manager's end: every datagram with its arrival time."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.2)
        self.messages = []  # (time, {key: value})
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while self.running:
            try:
                data = self.sock.recv(4096).decode()
            except socket.timeout:
                continue
            fields = dict(line.split("=", 1) for line in data.split("\n") if "=" in line)
            with self.lock:
                self.messages.append((time.time(), fields))

    def snapshot(self):
        with self.lock:
            return list(self.messages)

    def wait_for(self, key, value=None, after=0.0, timeout=120):
        """The first message after `after` (a time) with key (=value): (time, fields)."""
        end = time.time() + timeout
        while time.time() < end:
            for t, m in self.snapshot():
                if t > after and key in m and (value is None or m[key] == value):
                    return t, m
            time.sleep(0.05)
        raise AssertionError(f"no {key}={value} after {after}; got {self.snapshot()[-20:]}")

    def close(self):
        self.running = False
        self.thread.join()
        self.sock.close()


class SystemdNotifyTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="vkserve_notify_")
        self.pb, self.pb_grpc, _, _ = generate_stubs(self.tmp)
        self.repo = os.path.join(self.tmp, "repository")
        for name in ("change", "gone", "keep"):
            add_model(self.repo, name)
        self.port, self.metrics_port = free_port(), free_port()
        self.config_path = os.path.join(self.tmp, "server.pbtxt")
        self.config = (f'grpc {{ port: {self.port} }}\nmetrics {{ port: {self.metrics_port} }}\n'
                       f'repository {{ path: "{self.repo}" }}\ngpu {{ pipeline_cache_path: "" }}\n')
        with open(self.config_path, "w") as f:
            f.write(self.config)
        self.notify = NotifySocket(os.path.join(self.tmp, "notify.sock"))
        env = dict(os.environ, NOTIFY_SOCKET=os.path.join(self.tmp, "notify.sock"),
                   WATCHDOG_USEC="1000000")
        env.pop("WATCHDOG_PID", None)
        binary = os.path.join(os.environ.get("VKSERVE_BINARY_DIR", os.path.join(ROOT, "build")), "vkserve")
        self.log_path = os.path.join(self.tmp, "vkserve.stderr")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([binary, "serve", "--config", self.config_path], env=env,
                                     stdout=subprocess.DEVNULL, stderr=self.log)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = self.pb_grpc.GRPCInferenceServiceStub(self.channel)
        self.reference = Reference()

    def tearDown(self):
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        self.notify.close()
        sys.path.remove(self.tmp)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def server_log(self):
        with open(self.log_path) as f:
            return f.read()[-4000:]

    def runs(self, model, version):
        """vkserve_runs_total of a model version: {"recorded": n, "replayed": n}."""
        text = urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=10).read().decode()
        out = {"recorded": 0, "replayed": 0}
        for line in text.splitlines():
            if (line.startswith("vkserve_runs_total{") and f'model="{model}"' in line
                    and f'version="{version}"' in line):
                kind = re.search(r'command_buffer="(\w+)"', line).group(1)
                out[kind] = int(float(line.split()[-1]))
        return out

    def infer(self, model, seed, batch=1):
        image = np.random.RandomState(seed).standard_normal((batch, 3, 16, 16)).astype(np.float32)
        req = self.pb.ModelInferRequest(model_name=model)
        req.inputs.add(name="image", datatype="FP32", shape=list(image.shape))
        req.raw_input_contents.append(image.tobytes())
        resp = self.stub.ModelInfer(req, timeout=30)
        got = np.frombuffer(resp.raw_output_contents[0], dtype=np.float32).reshape(batch, 10)
        np.testing.assert_allclose(got, self.reference(image), rtol=1e-4, atol=1e-5)
        return resp

    def traffic(self, stop, results):
        """Calls keep and change until `stop`; (time, model, version or error) into results."""
        seed = threading.get_ident() % 1000
        while not stop.is_set():
            for model in ("keep", "change"):
                seed += 1
                try:
                    resp = self.infer(model, seed)
                    results.append((time.time(), model, resp.model_version))
                except Exception as e:  # an RPC error or a wrong output: both fail the test
                    results.append((time.time(), model, f"error: {e}"))

    def test_lifecycle(self):
        started = time.time()
        t_ready, ready = self.notify.wait_for("READY", "1")
        self.assertTrue(self.stub.ServerReady(self.pb.ServerReadyRequest(), timeout=5).ready)
        loading = [m["STATUS"] for t, m in self.notify.snapshot() if t <= t_ready and "STATUS" in m]
        for i, name in enumerate(("change", "gone", "keep")):
            self.assertIn(f"loading model {i + 1} of 3: {name}", loading)
        self.assertIn("serving: 3 model version(s) ready", ready["STATUS"])

        # The watchdog pings about every half second of a 1 s WatchdogSec.
        time.sleep(2.2)
        pings = [t for t, m in self.notify.snapshot() if m.get("WATCHDOG") == "1" and t > t_ready]
        self.assertGreaterEqual(len(pings), 3, self.server_log())
        self.assertLess(max(b - a for a, b in zip([t_ready] + pings, pings + [time.time()])), 1.0)

        # Reload under traffic: a changed model, an added one, a deleted one.
        stop, results = threading.Event(), []
        clients = [threading.Thread(target=self.traffic, args=(stop, results)) for _ in range(4)]
        for c in clients:
            c.start()
        time.sleep(1.5)
        add_model(self.repo, "change", version=2)
        add_model(self.repo, "added")
        shutil.rmtree(os.path.join(self.repo, "gone"))
        t_hup = time.time()
        self.proc.send_signal(signal.SIGHUP)
        t_reloading, _ = self.notify.wait_for("RELOADING", "1", after=t_hup)
        t_reloaded, reloaded = self.notify.wait_for("READY", "1", after=t_reloading)
        reload_seconds = t_reloaded - t_reloading
        time.sleep(1.0)
        # A periodic STATUS= (every 5 s) under traffic reports a rate.
        _, periodic = self.notify.wait_for("STATUS", after=t_reloaded + 0.01, timeout=15)
        while "READY" in periodic or "serving" not in periodic["STATUS"]:
            _, periodic = self.notify.wait_for("STATUS", after=time.time(), timeout=15)
        stop.set()
        for c in clients:
            c.join()
        errors = [r for r in results if r[2].startswith("error")]
        self.assertEqual(errors, [], self.server_log())
        self.assertIn("+added", reloaded["STATUS"])
        self.assertIn("~change", reloaded["STATUS"])
        self.assertIn("-gone", reloaded["STATUS"])
        rate = float(periodic["STATUS"].split(", ")[1].split()[0])
        self.assertGreater(rate, 0, periodic)
        before = [r for r in results if r[0] < t_hup]
        after = [r for r in results if r[0] > t_reloaded + 0.5]
        self.assertTrue(before and after, (len(before), len(after)))
        self.assertEqual({r[2] for r in before if r[1] == "change"}, {"1"})
        self.assertEqual({r[2] for r in after if r[1] == "change"}, {"2"})
        self.assertEqual({r[2] for r in after if r[1] == "keep"}, {"1"})
        # Version 2 was warmed before it took traffic: its two sessions had
        # recorded the request shape (batch 1), so the clients' requests
        # replay; unwarmed, each session records once (as keep's did).
        change_runs, keep_runs = self.runs("change", 2), self.runs("keep", 1)
        self.assertGreater(change_runs["replayed"], 0, change_runs)
        self.assertLessEqual(change_runs["recorded"], 1, (change_runs, self.server_log()))
        self.assertGreaterEqual(keep_runs["recorded"], 1, keep_runs)
        print(f"runs: change v2 {change_runs}, keep v1 {keep_runs}")
        self.assertEqual(self.infer("added", 7).model_name, "added")
        with self.assertRaises(grpc.RpcError) as gone:
            self.infer("gone", 8)
        self.assertEqual(gone.exception.code(), grpc.StatusCode.NOT_FOUND)

        # An invalid config is rejected whole: the running one stays.
        with open(self.config_path, "w") as f:
            f.write(self.config + "repository { bogus_field: 1 }\n")
        t_hup = time.time()
        self.proc.send_signal(signal.SIGHUP)
        t_reloading, _ = self.notify.wait_for("RELOADING", "1", after=t_hup)
        _, rejected = self.notify.wait_for("READY", "1", after=t_reloading)
        self.assertIn("reload rejected", rejected["STATUS"])
        self.assertIn("serving: 3 model version(s) ready", rejected["STATUS"])
        for i, model in enumerate(("keep", "change", "added")):
            self.infer(model, 20 + i)

        # SIGTERM: STOPPING=1, then a clean exit.
        t_term = time.time()
        self.proc.send_signal(signal.SIGTERM)
        _, stopping = self.notify.wait_for("STOPPING", "1", after=t_term)
        self.assertIn("draining", stopping["STATUS"])
        self.assertEqual(self.proc.wait(timeout=60), 0, self.server_log())
        print(f"lifecycle: {len(results)} requests, 0 failed, reload in "
              f"{reload_seconds:.2f} s, {time.time() - started:.1f} s in all")


if __name__ == "__main__":
    unittest.main()
