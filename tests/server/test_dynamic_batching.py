#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Dynamic batching through `vkserve serve` and a Python gRPC client (run by CTest).

The example model (tinynet) served with dynamic_batching, one session.
BatchingTest, in order:
  - test_1: waves of concurrent requests form known batches (a
    preferred size reached at once, a smaller batch after the delay, one
    request larger than the preferred size); every response matches a numpy
    forward pass of the model; /metrics' vkserve_batch_size histogram,
    vkserve_executions_total and ModelStatistics (execution_count vs
    inference_count, batch_stats) match what was sent; the warmed-up
    preferred size replays its recording; a request timing out while its
    batch forms is DEADLINE_EXCEEDED; each request's phases add up to its
    request time.
  - test_2 (last: it stops the server): a full queue is RESOURCE_EXHAUSTED;
    SIGTERM runs a batch that is still forming (a 30 s delay) at once,
    answers it and exits 0.

Usage: test_dynamic_batching.py [-v]
Environment: as test_python_client.py. Fails without grpc/numpy/onnx.
"""
import concurrent.futures
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_python_client import ROOT, ServerProcess, free_port, generate_stubs  # noqa: E402  (fails without grpc)

import grpc  # noqa: E402
import numpy as np  # noqa: E402

try:
    import onnx  # noqa: E402
    from onnx import numpy_helper  # noqa: E402
except ImportError as e:  # pragma: no cover
    print(f"{e} (scripts/setup.sh installs it)", file=sys.stderr)
    sys.exit(1)

TINYNET = os.path.join(ROOT, "config/examples/repository/tinynet/1/model.onnx")
# The batching model's delay: long enough that a slow (sanitizer) build still
# tells "sent at once" from "sent after the delay".
DELAY_US = 1_000_000
DELAY_S = DELAY_US / 1e6


def model_config(name, delay_us, preferred, max_queue=64):
    return (f'name: "{name}"\nmax_batch_size: 8\n'
            'input { name: "image" data_type: TYPE_FP32 dims: [3, 16, 16] }\n'
            'output { name: "probabilities" data_type: TYPE_FP32 dims: [10] }\n'
            'instance_group { count: 1 kind: KIND_GPU }\n'
            f'dynamic_batching {{ preferred_batch_size: [{", ".join(map(str, preferred))}] '
            f'max_queue_delay_microseconds: {delay_us} '
            f'default_queue_policy {{ max_queue_size: {max_queue} }} }}\n')


def make_repository(tmp, models):
    repo = os.path.join(tmp, "repository")
    for name, config in models.items():
        os.makedirs(os.path.join(repo, name, "1"))
        shutil.copy(TINYNET, os.path.join(repo, name, "1", "model.onnx"))
        with open(os.path.join(repo, name, "config.pbtxt"), "w") as f:
            f.write(config)
    return repo


class Reference:
    """tinynet's forward pass in numpy (float64), from the model file's weights."""

    def __init__(self):
        weights = {t.name: numpy_helper.to_array(t).astype(np.float64)
                   for t in onnx.load(TINYNET).graph.initializer}
        self.conv_w, self.conv_b = weights["conv_w"], weights["conv_b"]
        self.fc_w, self.fc_b = weights["fc_w"], weights["fc_b"]

    def __call__(self, image):
        x = np.pad(image.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
        n, _, h, w = image.shape
        conv = np.zeros((n, self.conv_w.shape[0], h, w))
        for dy in range(3):
            for dx in range(3):
                conv += np.einsum("nchw,oc->nohw", x[:, :, dy:dy + h, dx:dx + w], self.conv_w[:, :, dy, dx])
        conv += self.conv_b[None, :, None, None]
        pooled = np.maximum(conv, 0).mean(axis=(2, 3))
        logits = pooled @ self.fc_w.T + self.fc_b
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


class Base(unittest.TestCase):
    MODELS = {}

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vkserve_batching_")
        cls.pb, cls.pb_grpc, _, _ = generate_stubs(cls.tmp)
        repo = make_repository(cls.tmp, cls.MODELS)
        port, cls.metrics_port = free_port(), free_port()
        cls.server = ServerProcess(
            cls.tmp, port=port, log_path=os.path.join(cls.tmp, "vkserve.stderr"),
            config=f'grpc {{ port: {port} }}\nmetrics {{ port: {cls.metrics_port} }}\n'
                   f'repository {{ path: "{repo}" }}\ngpu {{ pipeline_cache_path: "" }}\n')
        cls.channel = grpc.insecure_channel(cls.server.address)
        cls.stub = cls.pb_grpc.GRPCInferenceServiceStub(cls.channel)
        cls.server.wait_ready(cls.pb, cls.stub)
        cls.reference = Reference()

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code = cls.server.stop()
        assert code == 0, f"vkserve exited {code}: {cls.server.output()[-4000:]}"
        sys.path.remove(cls.tmp)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def request(self, model, batch, seed):
        image = np.random.RandomState(seed).standard_normal((batch, 3, 16, 16)).astype(np.float32)
        req = self.pb.ModelInferRequest(model_name=model, id=f"{model}-{seed}")
        req.inputs.add(name="image", datatype="FP32", shape=list(image.shape))
        req.raw_input_contents.append(image.tobytes())
        return req, image

    def check(self, resp, image):
        batch = image.shape[0]
        self.assertEqual(list(resp.outputs[0].shape), [batch, 10])
        got = np.frombuffer(resp.raw_output_contents[0], dtype=np.float32).reshape(batch, 10)
        np.testing.assert_allclose(got, self.reference(image), rtol=1e-5, atol=1e-6)

    def wave(self, model, batches, seed):
        """Sends one request per entry of `batches` at once; returns the
        responses (checked against the reference) and the wave's duration."""
        start = time.time()
        with concurrent.futures.ThreadPoolExecutor(len(batches)) as pool:
            sent = [self.request(model, b, seed + i) for i, b in enumerate(batches)]
            futures = [pool.submit(self.stub.ModelInfer, req, timeout=60) for req, _ in sent]
            for (_, image), f in zip(sent, futures):
                self.check(f.result(), image)
        return time.time() - start

    def metrics(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=10) as r:
            return r.read().decode()

    @staticmethod
    def value(text, name, **labels):
        """The value of the one series of `name` with (at least) `labels`."""
        found = []
        for line in text.splitlines():
            m = re.match(r"^([a-zA-Z_:]+)(?:\{(.*)\})? (\S+)$", line)
            if not m or m.group(1) != name:
                continue
            have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
            if all(have.get(k) == v for k, v in labels.items()):
                found.append(float(m.group(3)))
        assert len(found) == 1, f"{name}{labels}: {found}"
        return found[0]


class BatchingTest(Base):
    MODELS = {"batched": model_config("batched", DELAY_US, [4]),
              "slow": model_config("slow", 30_000_000, [8], max_queue=2)}

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        if cls.server.proc.poll() is None:
            cls.server.stop()
        elif cls.server.log:
            cls.server.log.close()
        sys.path.remove(cls.tmp)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_1_batches_histogram_and_statistics_match_what_was_sent(self):
        # A preferred size reached: sent at once, without waiting the delay.
        self.assertLess(self.wave("batched", [1, 1, 1, 1], seed=0), 0.9 * DELAY_S)
        # 2 + 1 reach no preferred size: sent after the delay.
        self.assertGreaterEqual(self.wave("batched", [2, 1], seed=10), DELAY_S)
        # Larger than the largest preferred size: runs at once, alone.
        self.wave("batched", [8], seed=20)
        # A request whose timeout passes while its batch forms never runs.
        req, _ = self.request("batched", 1, seed=30)
        req.parameters["timeout"].int64_param = 50_000
        start = time.time()
        with self.assertRaises(grpc.RpcError) as e:
            self.stub.ModelInfer(req, timeout=60)
        self.assertEqual(e.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED, e.exception.details())
        self.assertLess(time.time() - start, 0.9 * DELAY_S)

        text = self.metrics()
        labels = {"model": "batched", "version": "1"}
        self.assertEqual(self.value(text, "vkserve_batch_size_count", **labels), 3)
        self.assertEqual(self.value(text, "vkserve_batch_size_sum", **labels), 4 + 3 + 8)
        for le, count in [("1", 0), ("2", 0), ("4", 2), ("8", 3), ("+Inf", 3)]:
            self.assertEqual(self.value(text, "vkserve_batch_size_bucket", le=le, **labels), count, le)
        self.assertEqual(self.value(text, "vkserve_executions_total", **labels), 3)
        self.assertEqual(self.value(text, "vkserve_inferences_total", **labels), 15)
        self.assertEqual(self.value(text, "vkserve_requests_total", outcome="success", **labels), 7)
        self.assertEqual(self.value(text, "vkserve_requests_total", outcome="timeout", **labels), 1)
        # The batch of 3 waited the delay while it formed.
        self.assertEqual(self.value(text, "vkserve_batch_queue_delay_seconds_count", **labels), 3)
        self.assertGreaterEqual(self.value(text, "vkserve_batch_queue_delay_seconds_sum", **labels), DELAY_S)
        # Size 4 was recorded at load (warm-up). The batch of 3, a size not
        # planned yet, ran padded to 4 and replayed that recording (its own
        # size planned meanwhile); 8, beyond every planned size, was
        # recorded on first use.
        self.assertEqual(self.value(text, "vkserve_runs_total", command_buffer="replayed", **labels), 2)
        self.assertEqual(self.value(text, "vkserve_runs_total", command_buffer="recorded", **labels), 1)
        self.assertEqual(self.value(text, "vkserve_batch_padding_rows_total", **labels), 1)
        # Each request's phases add up to its request time: queue + host
        # phases cover all of it but the request's own handling.
        phases = sum(self.value(text, "vkserve_phase_duration_seconds_sum", phase=p, **labels)
                     for p in ["queue", "upload", "record", "submit", "wait", "readback"])
        request = self.value(text, "vkserve_request_duration_seconds_sum", **labels)
        self.assertLessEqual(phases, request)
        self.assertGreaterEqual(phases, 0.9 * request)

        stats = self.stub.ModelStatistics(self.pb.ModelStatisticsRequest(name="batched")).model_stats[0]
        self.assertEqual(stats.execution_count, 3)
        self.assertEqual(stats.inference_count, 15)
        self.assertEqual(stats.inference_stats.success.count, 7)
        self.assertEqual({b.batch_size: b.compute_infer.count for b in stats.batch_stats}, {4: 1, 3: 1, 8: 1})


    def test_2_full_queue_then_sigterm_runs_the_forming_batch(self):
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            sent = [self.request("slow", b, seed=40 + b) for b in (1, 2)]
            futures = [pool.submit(self.stub.ModelInfer, req, timeout=60) for req, _ in sent]
            time.sleep(0.5)  # both queued, the batch forming for 30 s
            extra, _ = self.request("slow", 1, seed=50)
            with self.assertRaises(grpc.RpcError) as e:
                self.stub.ModelInfer(extra, timeout=60)
            self.assertEqual(e.exception.code(), grpc.StatusCode.RESOURCE_EXHAUSTED)
            self.assertIn("slow", e.exception.details())
            start = time.time()
            self.server.proc.send_signal(signal.SIGTERM)
            for (_, image), f in zip(sent, futures):
                self.check(f.result(), image)
            self.assertLess(time.time() - start, 10)  # not the 30 s delay
        self.assertEqual(self.server.proc.wait(timeout=60), 0, self.server.output()[-4000:])
        self.assertIn("shut down", self.server.output())


if __name__ == "__main__":
    unittest.main()
