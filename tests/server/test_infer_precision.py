#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# `vkserve infer --precision FP16 --compare` on a one-MatMul model: the
# reported errors against the FP32 run must be non-zero (the operands were
# rounded to fp16) and within the fp16 bound for the inputs' sizes; at FP32
# the comparison is exact; --accumulation FP16 is compared against FP32 too,
# refused without FP16 precision, and inspect names each GEMM's
# accumulation; a bad precision is a usage error; --output-dir
# files after --repeat hold the product, whichever --readback. Also: the commands' log lines go to
# stderr, never into what they print on stdout.
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
from onnx import TensorProto, helper, numpy_helper

BINARY_DIR = os.environ.get("VKSERVE_BINARY_DIR", "build")
VKSERVE = os.path.join(BINARY_DIR, "vkserve")
K = 512


def weights():
    return np.random.default_rng(7).uniform(-1, 1, size=(K, 96)).astype(np.float32)


def write_model(path):
    b = weights()
    node = helper.make_node("MatMul", ["A", "B"], ["Y"])
    graph = helper.make_graph(
        [node], "precision", [helper.make_tensor_value_info("A", TensorProto.FLOAT, [64, K])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(b, "B")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


class InferPrecisionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.model = os.path.join(cls.dir.name, "matmul.onnx")
        write_model(cls.model)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def infer(self, *args):
        return subprocess.run([VKSERVE, "infer", self.model, *args], capture_output=True,
                              text=True, timeout=300)

    def errors(self, precision):
        r = self.infer("--precision", precision, "--compare")
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.search(r"compare Y vs FP32: max abs (\S+)  mean abs (\S+)  max rel (\S+)", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        return [float(x) for x in m.groups()]

    def test_fp16_rounds_within_the_bound(self):
        max_abs, mean_abs, max_rel = self.errors("FP16")
        # Inputs in [-1, 1]: |error| <= 2 * 2^-11 * K per output.
        self.assertGreater(max_abs, 0.0)
        self.assertLess(max_abs, 2 * 2.0 ** -11 * K)
        self.assertLessEqual(mean_abs, max_abs)
        self.assertGreater(max_rel, 0.0)

    def test_fp16_accumulation_compares_against_fp32(self):
        r = self.infer("--precision", "FP16", "--accumulation", "FP16", "--compare")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("compare: FP16 precision, FP16 accumulation, against FP32 precision",
                      r.stdout)
        m = re.search(r"compare Y vs FP32: max abs (\S+)  mean abs (\S+)  max rel (\S+)", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        max_abs = float(m.group(1))
        # fp16 sums over K err by at most 2^-11 per partial sum |s| <= K.
        self.assertGreater(max_abs, 0.0)
        self.assertLess(max_abs, 2.0 ** -11 * K * K)

    def test_fp16_accumulation_needs_fp16_precision(self):
        r = self.infer("--accumulation", "FP16")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("FP16 accumulation needs FP16 precision", r.stderr)

    def test_inspect_says_which_accumulation_each_gemm_got(self):
        def inspect(*args):
            r = subprocess.run([VKSERVE, "inspect", self.model, *args], capture_output=True,
                               text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            return r.stdout
        # Default: fp32 sums, nothing said about accumulation.
        out = inspect("--precision", "FP16")
        self.assertNotIn("acc16", out)
        self.assertNotIn("accumulation", out)
        # Asked for: each GEMM kernel says which it got (fp16 where the
        # device offers it, else fp32 and why), and one summary line.
        out = inspect("--precision", "FP16", "--accumulation", "FP16")
        self.assertRegex(out, r"kernel: .*, fp(16 accumulation|32 accumulation \(.+\))")
        self.assertIn("fp16 accumulation asked for: ", out)

    def test_fp32_compares_exactly(self):
        self.assertEqual(self.errors("FP32"), [0.0, 0.0, 0.0])

    def test_output_files_hold_the_last_of_repeated_runs(self):
        # The runs read back into buffers kept across them; the files must
        # still hold the product (a stale or empty buffer would not).
        a = np.random.default_rng(11).uniform(-1, 1, size=(64, K)).astype(np.float32)
        a_path = os.path.join(self.dir.name, "a.npy")
        out_dir = os.path.join(self.dir.name, "out")
        np.save(a_path, a)
        want = a.astype(np.float64) @ weights().astype(np.float64)
        for mode in ["view", "buffers", "whole"]:
            with self.subTest(readback=mode):
                shutil.rmtree(out_dir, ignore_errors=True)
                r = self.infer("--input", f"A={a_path}", "--repeat", "3", "--output-dir", out_dir,
                               "--readback", mode)
                self.assertEqual(r.returncode, 0, r.stderr)
                y = np.load(os.path.join(out_dir, "Y.npy"))
                self.assertEqual(y.shape, want.shape)
                np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4 * K)
        r = self.infer("--readback", "mapped")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--readback: mapped not in {view,buffers,whole}", r.stderr)

    def test_inspect_reports_the_plan_cache(self):
        r = subprocess.run([VKSERVE, "inspect", self.model, "--json"], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        cache = json.loads(r.stdout)["plan_cache"]
        self.assertEqual(cache["plans"], 1)  # inspect plans one signature
        # The plan's folded host values and kernels cost something; the
        # default budget is sized from the device (never unlimited).
        self.assertGreater(cache["plan_host_bytes"], 0)
        self.assertGreater(cache["budget_device_bytes"], 0)
        self.assertGreater(cache["budget_host_bytes"], 0)

    def test_bad_precision_is_a_usage_error(self):
        r = self.infer("--precision", "FP8")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--precision: FP8 not in {FP32,FP16}", r.stderr)

    def test_log_lines_go_to_stderr_not_into_json(self):
        # An unreadable pipeline cache is logged (and ignored) while the
        # command runs; stdout must stay one JSON document (tools parse it).
        bad_cache = os.path.join(self.dir.name, "bad_cache.bin")
        with open(bad_cache, "w") as f:
            f.write("not a pipeline cache")
        r = subprocess.run([VKSERVE, "inspect", self.model, "--json", "--pipeline-cache", bad_cache],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        self.assertEqual(report.get("cpu_nodes"), 0)
        self.assertIn("pipeline cache", r.stderr)


if __name__ == "__main__":
    if not os.path.exists(VKSERVE):
        print(f"{VKSERVE} is not built", file=sys.stderr)
        sys.exit(1)
    unittest.main()
