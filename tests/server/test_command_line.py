#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The `vkserve` command line: `--help` on the program and on every command
# (exit 0, stdout naming the command's flags), usage errors (an unknown
# command, an unknown flag, a missing or bad value: exit 2, naming what is
# wrong), and the output-name rule of `vkserve infer --output-dir` (the same
# rule `vkserve client` follows: test_python_client.py), on one-node models
# whose output names are paths, dots and two spellings of one file; and
# `serve --matrix-extension` / gpu.matrix_extension against `infer`'s.
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
from onnx import TensorProto, helper

BINARY_DIR = os.environ.get("VKSERVE_BINARY_DIR", "build")
VKSERVE = os.path.join(BINARY_DIR, "vkserve")

# Each command and flags its --help must list.
COMMANDS = {
    "devices": ["--device"],
    "inspect": ["MODEL", "--json", "--dim", "--device", "--precision", "--no-fusion",
                "--no-attention-fusion", "--pipeline-cache", "--pipeline-statistics"],
    "infer": ["MODEL", "--input", "--output-dir", "--dim", "--repeat", "--warmup", "--profile",
              "--device", "--outputs-on-gpu", "--precision", "--compare", "--pipeline-statistics",
              "--readback", "--time-each-dispatch", "--pipeline-cache", "--no-fusion"],
    "serve": ["--config", "--model-repository", "--grpc-port", "--metrics-port", "--device",
              "--matrix-extension", "--instance", "--check-config"],
    "client": ["--url", "--model", "--version", "--input", "--output-dir"],
}


def vkserve(*args, timeout=120):
    return subprocess.run([VKSERVE, *args], capture_output=True, text=True, timeout=timeout)


def write_model(path, outputs):
    """X[N,4] -> one Relu per name in `outputs`, each a graph output."""
    nodes = [helper.make_node("Relu", ["X"], [name]) for name in outputs]
    graph = helper.make_graph(
        nodes, "names", [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


class HelpTest(unittest.TestCase):
    def test_program_help_lists_the_commands(self):
        for spelling in (["--help"], ["-h"], ["help"]):
            with self.subTest(spelling=spelling):
                r = vkserve(*spelling)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("usage: vkserve", r.stdout)
                for command in COMMANDS:
                    self.assertRegex(r.stdout, rf"\n  {command} ")

    def test_every_command_has_help(self):
        for command, flags in COMMANDS.items():
            for spelling in ([command, "--help"], [command, "-h"], ["help", command]):
                with self.subTest(spelling=spelling):
                    r = vkserve(*spelling)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertIn(f"usage: vkserve {command}", r.stdout)
                    self.assertIn(f"example: vkserve {command}", r.stdout)
                    for flag in flags:
                        self.assertIn(flag, r.stdout)

    def test_help_wins_over_missing_arguments(self):
        # --help answers even where the command's required arguments are absent.
        for args in (["infer", "--help"], ["client", "--input", "x=y.npy", "--help"]):
            with self.subTest(args=args):
                self.assertEqual(vkserve(*args).returncode, 0)

    def test_client_defaults_to_the_local_server(self):
        r = vkserve("client", "--help")
        self.assertRegex(r.stdout, r"--url HOST:PORT=127\.0\.0\.1:8001\s")


class UsageErrorTest(unittest.TestCase):
    def assertUsageError(self, args, *named):
        r = vkserve(*args)
        self.assertEqual(r.returncode, 2, f"{args}: {r.stdout}{r.stderr}")
        for text in named:
            self.assertIn(text, r.stderr, args)
        self.assertEqual(r.stdout, "", args)

    def test_unknown_command(self):
        self.assertUsageError(["frobnicate"], "unknown command 'frobnicate'", "usage: vkserve")

    def test_unknown_flag_on_every_command(self):
        # With the required arguments: a missing one is reported first.
        required = {"inspect": ["m.onnx"], "infer": ["m.onnx"], "client": ["--model", "m"]}
        for command in COMMANDS:
            with self.subTest(command=command):
                args = [command, *required.get(command, [])]
                self.assertUsageError([*args, "--frobnicate"], "--frobnicate",
                                      f"usage: vkserve {command}",
                                      f"Run 'vkserve {command} --help'")
        self.assertUsageError(["--frobnicate"], "--frobnicate")

    def test_missing_values(self):
        self.assertUsageError(["devices", "--device"], "--device")
        self.assertUsageError(["serve", "--config"], "--config")
        self.assertUsageError(["infer", "m.onnx", "--repeat"], "--repeat")
        self.assertUsageError(["client", "--model", "m", "--input"], "--input")
        self.assertUsageError(["client", "--url", "127.0.0.1:1"], "--model is required")
        self.assertUsageError(["infer"], "MODEL is required")
        self.assertUsageError(["inspect", "--json"], "MODEL is required")

    def test_bad_values(self):
        self.assertUsageError(["serve", "--grpc-port", "70000"], "--grpc-port", "70000")
        self.assertUsageError(["serve", "--instance", "-1"], "--instance")
        self.assertUsageError(["serve", "--matrix-extension", "KHR"], "--matrix-extension", "KHR")
        self.assertUsageError(["infer", "m.onnx", "--matrix-extension", "cuda"],
                              "--matrix-extension", "cuda")
        self.assertUsageError(["infer", "m.onnx", "--repeat", "0"], "--repeat", "'0'")
        self.assertUsageError(["infer", "m.onnx", "--warmup", "601"], "--warmup", "'601'")
        self.assertUsageError(["infer", "m.onnx", "--dim", "N"], "--dim", "NAME=VALUE")
        self.assertUsageError(["infer", "m.onnx", "--dim", "N=-1"], "--dim", "not a size")
        self.assertUsageError(["infer", "m.onnx", "--input", "no-equals-sign"], "--input",
                              "NAME=VALUE")
        self.assertUsageError(["infer", "m.onnx", "--compare", "--outputs-on-gpu"], "--compare")
        self.assertUsageError(["inspect", "m.onnx", "m2.onnx"], "m2.onnx")
        self.assertUsageError(["client", "--model", "m", "--input", "=x.npy"], "NAME=VALUE")

    def test_a_flag_given_twice_keeps_the_last(self):
        # Scripts append overrides to a fixed command line.
        r = vkserve("serve", "--config", "/nonexistent/a.pbtxt", "--config", "/nonexistent/b.pbtxt",
                    "--check-config")
        self.assertEqual(r.returncode, 1)
        self.assertIn("b.pbtxt", r.stderr)
        self.assertNotIn("a.pbtxt", r.stderr)


class InferOutputNamesTest(unittest.TestCase):
    """`vkserve infer --output-dir`: characters outside [A-Za-z0-9._-]
    become '_'; names that are empty or only dots, and two outputs for one
    file, are refused with nothing written."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def infer(self, outputs):
        model = os.path.join(self.dir.name, f"model{len(os.listdir(self.dir.name))}.onnx")
        write_model(model, outputs)
        x = np.array([[-1, 2, -3, 4], [5, -6, 7, -8]], dtype=np.float32)
        x_path = os.path.join(self.dir.name, "x.npy")
        np.save(x_path, x)
        out = os.path.join(self.dir.name, "out", os.path.basename(model))
        r = vkserve("infer", model, "--input", f"X={x_path}", "--output-dir", out,
                    "--pipeline-cache", "", timeout=300)
        return r, out, np.maximum(x, 0)

    def test_names_become_file_names(self):
        r, out, want = self.infer(["probabilities", "a/b:0", "../escaped", "x y"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(out)),
                         [".._escaped.npy", "a_b_0.npy", "probabilities.npy", "x_y.npy"])
        for f in os.listdir(out):
            np.testing.assert_array_equal(np.load(os.path.join(out, f)), want)
        self.assertFalse(os.path.exists(os.path.join(out, "..", "escaped.npy")))

    def test_dot_names_are_refused(self):
        for name in ("..", "."):
            with self.subTest(name=name):
                r, out, _ = self.infer(["fine", name])
                self.assertEqual(r.returncode, 1, r.stdout)
                self.assertIn(f"output name '{name}' is not a file name; nothing written", r.stderr)
                self.assertFalse(os.path.exists(out) and os.listdir(out))

    def test_two_outputs_for_one_file_are_refused(self):
        r, out, _ = self.infer(["a/b", "a:b"])
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("outputs 'a/b' and 'a:b' would both be written to a_b.npy", r.stderr)
        self.assertFalse(os.path.exists(out) and os.listdir(out))


class MatrixExtensionTest(unittest.TestCase):
    """`vkserve serve --matrix-extension` and the config's gpu.matrix_extension:
    an extension the device lacks (lavapipe offers neither) fails start-up
    with exit 1 and the message `vkserve infer --matrix-extension` gives; a
    bad config value is an error naming the field."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.repo = os.path.join(cls.dir.name, "repo")
        os.mkdir(cls.repo)
        cls.model = os.path.join(cls.dir.name, "m.onnx")
        write_model(cls.model, ["Y"])

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def config(self, gpu):
        path = os.path.join(self.dir.name, f"server{len(os.listdir(self.dir.name))}.pbtxt")
        with open(path, "w") as f:
            f.write(f'repository {{ path: "{self.repo}" }}\n'
                    'grpc { port: 0 }\nmetrics { enabled: false }\n'
                    f'gpu {{ pipeline_cache_path: "" {gpu} }}\n')
        return path

    def test_an_extension_the_device_lacks_fails_start_up_as_infer_does(self):
        refused = 0
        for name in ("nv", "khr"):
            infer = vkserve("infer", self.model, "--pipeline-cache", "",
                            "--matrix-extension", name, timeout=300)
            if infer.returncode == 0:
                continue  # the device offers it: serve would start and serve
            refused += 1
            self.assertEqual(infer.returncode, 1, infer.stderr)
            message = next(line for line in infer.stderr.splitlines()
                           if f"FAILED_PRECONDITION: matrix extension {name}: " in line)
            message = message[message.index("FAILED_PRECONDITION"):]
            for args in (["--config", self.config(""), "--matrix-extension", name],
                         ["--config", self.config(f"matrix_extension: {name.upper()}")]):
                with self.subTest(args=args):
                    serve = vkserve("serve", *args)
                    self.assertEqual(serve.returncode, 1, serve.stderr)
                    self.assertIn(f"start-up failed: {message}", serve.stderr)
        if refused == 0:
            self.skipTest("the device offers both extensions")

    def test_the_flag_overrides_the_config(self):
        # The config insists on KHR (which lavapipe lacks); the flag's auto
        # starts the server.
        proc = subprocess.Popen(
            [VKSERVE, "serve", "--config", self.config("matrix_extension: KHR"),
             "--matrix-extension", "auto"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = proc.stdout.readline()
            self.assertIn("vkserve listening on", line, proc.stderr.read() if not line else "")
        finally:
            proc.terminate()
            proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0)

    def test_an_invalid_value_names_the_field(self):
        r = vkserve("serve", "--config", self.config("matrix_extension: khr"), "--check-config")
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn('gpu.matrix_extension: Unknown enumeration value of "khr"', r.stderr)


if __name__ == "__main__":
    if not os.path.exists(VKSERVE):
        print(f"{VKSERVE} is not built", file=sys.stderr)
        sys.exit(1)
    unittest.main()
