#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""ONNX Runtime `.ort` models served exactly like their `.onnx` twins (run by CTest).

The model fixtures in tests/data/models (squeezenet1_1, mobilenet_v2,
bert_tiny, gpt2_tiny) are converted by onnxruntime-node at graph
optimization levels basic, extended and all — the CPU-optimized files whose contrib and NCHWc nodes ONNX
Runtime's own GPU paths run on the CPU — and served from one repository
(`<model>/1/model.onnx`, `<model>_ort_<level>/1/model.ort`) by `vkserve
serve` over gRPC. Each `.ort` model must answer the same request with the
outputs of its `.onnx` twin within 1e-5 of the largest output magnitude,
ModelMetadata must report the platform of the file loaded
("onnxruntime_ort" / "onnxruntime_onnx") with the twin's tensors, and the
Prometheus gauge vkserve_model_nodes{device="cpu"} must be 0 for every
model while the gpu count is positive.

Usage: test_ort_serving.py [-v]
Environment: as test_python_client.py; NODE. Fails without
grpc/numpy; fails naming the path when a model fixture is missing.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_python_client import ROOT, ServerProcess, free_port, generate_stubs  # noqa: E402  (fails without grpc)

import grpc  # noqa: E402
import numpy as np  # noqa: E402

MODELS = ["squeezenet1_1", "mobilenet_v2", "bert_tiny", "gpt2_tiny"]
LEVELS = ["basic", "extended", "all"]
MODELS_DIR = os.path.join(ROOT, "tests", "data", "models")
TOLERANCE = 1e-5  # of max|onnx output|

NP_TYPES = {"FP32": np.float32, "INT64": np.int64, "INT32": np.int32}


def build_repository(repo):
    """Copies each .onnx into the repository and converts it to .ort at every level."""
    converted = {}
    for m in MODELS:
        src = os.path.join(MODELS_DIR, m + ".onnx")
        if not os.path.isfile(src):
            raise FileNotFoundError(f"missing model fixture {src}")
        os.makedirs(os.path.join(repo, m, "1"))
        shutil.copy(src, os.path.join(repo, m, "1", "model.onnx"))
        for level in LEVELS:
            name = f"{m}_ort_{level}"
            os.makedirs(os.path.join(repo, name, "1"))
            out = os.path.join(repo, name, "1", "model.ort")
            subprocess.run([os.environ.get("NODE", "node"), os.path.join(ROOT, "tests/reference/ort_run.js"), src,
                            "--convert-ort", out, "--level", level], check=True, stdout=subprocess.DEVNULL)
            converted[name] = m
    return converted


def request_for(pb, metadata, model_name, seed):
    """Fixed random inputs: floats standard normal, integer ids in [0, 100)
    (every model fixture's vocabulary is larger), '*mask*' inputs ones;
    symbolic dimensions 1 for the batch, 16 elsewhere."""
    rng = np.random.default_rng(seed)
    req = pb.ModelInferRequest(model_name=model_name)
    for t in metadata.inputs:
        shape = [(1 if i == 0 else 16) if d < 0 else d for i, d in enumerate(t.shape)]
        dtype = NP_TYPES[t.datatype]
        if dtype == np.float32:
            data = rng.standard_normal(shape).astype(np.float32)
        elif "mask" in t.name:
            data = np.ones(shape, dtype)
        else:
            data = rng.integers(0, 100, size=shape).astype(dtype)
        req.inputs.add(name=t.name, datatype=t.datatype, shape=shape)
        req.raw_input_contents.append(data.tobytes())
    return req


def outputs_of(resp):
    return {o.name: np.frombuffer(raw, dtype=NP_TYPES[o.datatype]).reshape(list(o.shape))
            for o, raw in zip(resp.outputs, resp.raw_output_contents)}


class OrtServingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vkserve_ort_")
        cls.pb, cls.pb_grpc, _, _ = generate_stubs(cls.tmp)
        repo = os.path.join(cls.tmp, "repository")
        cls.twins = build_repository(repo)
        cls.metrics_port = free_port()
        port = free_port()
        config = (f'grpc {{ port: {port} }}\nmetrics {{ port: {cls.metrics_port} }}\n'
                  f'repository {{ path: "{repo}" }}\ngpu {{ pipeline_cache_path: "" }}\n')
        cls.server = ServerProcess(cls.tmp, port=port, config=config, log_path=os.path.join(cls.tmp, "server.log"))
        cls.channel = grpc.insecure_channel(cls.server.address)
        cls.stub = cls.pb_grpc.GRPCInferenceServiceStub(cls.channel)
        cls.server.wait_ready(cls.pb, cls.stub, timeout=300)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.server.stop()
        sys.path.remove(cls.tmp)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def metadata(self, name):
        return self.stub.ModelMetadata(self.pb.ModelMetadataRequest(name=name), timeout=60)

    def test_every_ort_model_is_ready_and_reports_its_format(self):
        for name, twin in sorted(self.twins.items()):
            with self.subTest(model=name):
                ready = self.stub.ModelReady(self.pb.ModelReadyRequest(name=name), timeout=60).ready
                self.assertTrue(ready, self.server.output()[-4000:])
                md, twin_md = self.metadata(name), self.metadata(twin)
                self.assertEqual(md.platform, "onnxruntime_ort")
                self.assertEqual(twin_md.platform, "onnxruntime_onnx")
                self.assertEqual([(t.name, t.datatype, list(t.shape)) for t in md.inputs],
                                 [(t.name, t.datatype, list(t.shape)) for t in twin_md.inputs])
                self.assertEqual([(t.name, t.datatype) for t in md.outputs],
                                 [(t.name, t.datatype) for t in twin_md.outputs])

    def test_ort_outputs_match_the_onnx_twin(self):
        for name, twin in sorted(self.twins.items()):
            with self.subTest(model=name):
                md = self.metadata(twin)
                want = outputs_of(self.stub.ModelInfer(request_for(self.pb, md, twin, 7), timeout=120))
                got = outputs_of(self.stub.ModelInfer(request_for(self.pb, md, name, 7), timeout=120))
                self.assertEqual(sorted(got), sorted(want))
                for out, w in want.items():
                    g = got[out]
                    self.assertEqual(g.shape, w.shape, out)
                    scale = float(np.max(np.abs(w))) if w.size else 0.0
                    diff = float(np.max(np.abs(g.astype(np.float64) - w))) if w.size else 0.0
                    self.assertLessEqual(diff, TOLERANCE * scale + 1e-30,
                                         f"{name} output {out}: max |diff| {diff} vs max |want| {scale}")

    def test_no_node_runs_on_the_cpu(self):
        text = urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=30).read().decode()
        nodes = {}  # (model, device) -> value
        for labels, value in re.findall(r'^vkserve_model_nodes\{([^}]*)\} (\S+)$', text, re.M):
            fields = dict(re.findall(r'(\w+)="([^"]*)"', labels))
            nodes[(fields.get("model"), fields.get("device"))] = float(value)
        for name in list(self.twins) + MODELS:
            with self.subTest(model=name):
                self.assertEqual(nodes.get((name, "cpu")), 0.0, f"cpu node gauge of {name}")
                self.assertGreater(nodes.get((name, "gpu"), 0.0), 0.0, f"gpu node gauge of {name}")


if __name__ == "__main__":
    unittest.main()
