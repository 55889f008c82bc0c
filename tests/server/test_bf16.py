#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""BF16 end to end over gRPC (run by CTest): a model whose input and outputs
are bfloat16 served by `vkserve serve`, driven by Python stubs
(test_python_client.py's helpers) and by `vkserve client`.

The model: X (bfloat16) -> Softmax (bfloat16 -> bfloat16, through fp32 in
vkserve) -> S; Cast(X, float) + 0.5 -> Cast(bfloat16) -> Y; Cast(X, float) -> F.
ModelMetadata and ModelConfig say BF16; raw_input_contents and
raw_output_contents carry 2-byte little-endian bfloat16, checked against
numpy (bfloat16 -> float32 is exact; float32 -> bfloat16 rounds to nearest
even, as ONNX's Cast); `vkserve client` sends '<V2' and '<u2' .npy files and
writes BF16 outputs as '<V2'; FP16 sent for the BF16 input and typed contents
for it are refused.

Usage: test_bf16.py [-v]
Environment: as test_python_client.py's.
"""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_python_client as base  # noqa: E402  (its helpers; it needs grpc and numpy)

import grpc  # noqa: E402
import numpy as np  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

SHAPE = [2, 7]


def to_bf16(f):
    """float32 -> bfloat16 words, round to nearest even (NaN stays NaN)."""
    u = np.asarray(f, np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(f), np.uint16(0x7FC0), rounded).astype("<u2")


def from_bf16(b):
    return (np.asarray(b, "<u2").astype(np.uint32) << 16).view(np.float32)


def write_model(path):
    nodes = [
        helper.make_node("Softmax", ["X"], ["S"], axis=-1),
        helper.make_node("Cast", ["X"], ["F"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["F", "half"], ["Fh"]),
        helper.make_node("Cast", ["Fh"], ["Y"], to=TensorProto.BFLOAT16),
    ]
    graph = helper.make_graph(
        nodes, "bf16net", [helper.make_tensor_value_info("X", TensorProto.BFLOAT16, SHAPE)],
        [helper.make_tensor_value_info("S", TensorProto.BFLOAT16, SHAPE),
         helper.make_tensor_value_info("Y", TensorProto.BFLOAT16, SHAPE),
         helper.make_tensor_value_info("F", TensorProto.FLOAT, SHAPE)],
        initializer=[numpy_helper.from_array(np.array(0.5, np.float32), "half")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 8
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


CONFIG = """name: "bf16net"
input { name: "X" data_type: TYPE_BF16 dims: [2, 7] }
output { name: "S" data_type: TYPE_BF16 dims: [2, 7] }
output { name: "Y" data_type: TYPE_BF16 dims: [2, 7] }
output { name: "F" data_type: TYPE_FP32 dims: [2, 7] }
"""


def sample_input():
    # Values with all 16 bits used: negatives, large, small, one subnormal.
    x = np.random.default_rng(11).uniform(-4, 4, size=SHAPE).astype(np.float32)
    x[0, 0], x[0, 1], x[1, 0] = 1e30, -3.0e-39, 0.0
    return to_bf16(x)


class Bf16Test(base.ServedTestCase):
    PREFIX = "vkserve_bf16_"

    @classmethod
    def server_config(cls, port):
        repo = os.path.join(cls.tmp, "repository")
        os.makedirs(os.path.join(repo, "bf16net", "1"))
        write_model(os.path.join(repo, "bf16net", "1", "model.onnx"))
        with open(os.path.join(repo, "bf16net", "config.pbtxt"), "w") as f:
            f.write(CONFIG)
        return (f'grpc {{ port: {port} }}\nmetrics {{ enabled: false }}\n'
                f'repository {{ path: "{repo}" }}\ngpu {{ pipeline_cache_path: "" }}\n')

    def expected(self, x):
        xf = from_bf16(x).astype(np.float64)
        e = np.exp(xf - xf.max(axis=-1, keepdims=True))
        softmax = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
        return softmax, to_bf16(from_bf16(x) + np.float32(0.5)), from_bf16(x)

    def check(self, s, y, f, x):
        want_s, want_y, want_f = self.expected(x)
        np.testing.assert_array_equal(f, want_f)
        np.testing.assert_array_equal(y, want_y)
        # Softmax through fp32, rounded once to bfloat16: within one ulp of
        # bfloat16 (2^-8 relative) of the exact value.
        np.testing.assert_allclose(from_bf16(s), want_s, rtol=2 ** -8, atol=1e-30)

    def test_metadata_says_bf16(self):
        meta = self.stub.ModelMetadata(self.pb.ModelMetadataRequest(name="bf16net"))
        self.assertEqual([(t.name, t.datatype) for t in meta.inputs], [("X", "BF16")])
        self.assertEqual(sorted((t.name, t.datatype) for t in meta.outputs),
                         [("F", "FP32"), ("S", "BF16"), ("Y", "BF16")])

    def test_raw_contents_in_and_out(self):
        x = sample_input()
        req = self.pb.ModelInferRequest(model_name="bf16net")
        req.inputs.add(name="X", datatype="BF16", shape=SHAPE)
        req.raw_input_contents.append(x.tobytes())
        resp = self.stub.ModelInfer(req)
        outs = {o.name: (o, resp.raw_output_contents[i]) for i, o in enumerate(resp.outputs)}
        for name, dtype in (("S", "BF16"), ("Y", "BF16"), ("F", "FP32")):
            self.assertEqual(outs[name][0].datatype, dtype, name)
            self.assertEqual(list(outs[name][0].shape), SHAPE, name)
        self.assertEqual(len(outs["S"][1]), 2 * 14)
        s = np.frombuffer(outs["S"][1], "<u2").reshape(SHAPE)
        y = np.frombuffer(outs["Y"][1], "<u2").reshape(SHAPE)
        f = np.frombuffer(outs["F"][1], "<f4").reshape(SHAPE)
        self.check(s, y, f, x)

    def test_refusals(self):
        x = sample_input()
        wrong = self.pb.ModelInferRequest(model_name="bf16net")
        wrong.inputs.add(name="X", datatype="FP16", shape=SHAPE)
        wrong.raw_input_contents.append(x.tobytes())
        with self.assertRaises(grpc.RpcError) as e:
            self.stub.ModelInfer(wrong)
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("BF16", e.exception.details())
        typed = self.pb.ModelInferRequest(model_name="bf16net")
        t = typed.inputs.add(name="X", datatype="BF16", shape=SHAPE)
        t.contents.fp32_contents.extend([0.0] * 14)
        with self.assertRaises(grpc.RpcError) as e:
            self.stub.ModelInfer(typed)
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("raw_input_contents", e.exception.details())
        short = self.pb.ModelInferRequest(model_name="bf16net")
        short.inputs.add(name="X", datatype="BF16", shape=SHAPE)
        short.raw_input_contents.append(x.tobytes()[:-2])
        with self.assertRaises(grpc.RpcError) as e:
            self.stub.ModelInfer(short)
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)

    def test_client_command_npy(self):
        """`vkserve client`: a '<V2' file and a '<u2' file of the same words
        give the same BF16 answer, written as '<V2'."""
        x = sample_input()
        for kind, array in (("v2", x.view("V2")), ("u2", x)):
            path = os.path.join(self.tmp, f"x_{kind}.npy")
            np.save(path, array)
            out = os.path.join(self.tmp, f"out_{kind}")
            run = subprocess.run([base.vkserve_binary(), "client", "--url", self.server.address,
                                  "--model", "bf16net", "--input", f"X={path}", "--output-dir",
                                  out], capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn("S: BF16[2,7]", run.stdout)
            s = np.load(os.path.join(out, "S.npy"))
            y = np.load(os.path.join(out, "Y.npy"))
            self.assertEqual((s.dtype.kind, s.dtype.itemsize), ("V", 2), kind)
            self.assertEqual(y.shape, tuple(SHAPE))
            self.check(s.view("<u2"), y.view("<u2"), np.load(os.path.join(out, "F.npy")), x)


class InferCommandBf16Test(unittest.TestCase):
    """`vkserve infer` on the same model: '<V2' and '<u2' inputs, '<V2' outputs."""

    def test_infer_npy(self):
        with tempfile.TemporaryDirectory() as tmp:
            model = os.path.join(tmp, "bf16net.onnx")
            write_model(model)
            x = sample_input()
            for kind, array in (("v2", x.view("V2")), ("u2", x)):
                path = os.path.join(tmp, f"x_{kind}.npy")
                np.save(path, array)
                out = os.path.join(tmp, f"out_{kind}")
                run = subprocess.run([base.vkserve_binary(), "infer", model, "--input",
                                      f"X={path}", "--output-dir", out], capture_output=True,
                                     text=True, timeout=120)
                self.assertEqual(run.returncode, 0, run.stderr)
                y = np.load(os.path.join(out, "Y.npy"))
                self.assertEqual((y.dtype.kind, y.dtype.itemsize), ("V", 2), kind)
                np.testing.assert_array_equal(y.view("<u2"),
                                              to_bf16(from_bf16(x) + np.float32(0.5)))
            # Without --input: random bfloat16 in [-1, 1).
            run = subprocess.run([base.vkserve_binary(), "infer", model], capture_output=True,
                                 text=True, timeout=120)
            self.assertEqual(run.returncode, 0, run.stderr)


if __name__ == "__main__":
    unittest.main()
