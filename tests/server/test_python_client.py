#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""`vkserve serve` as a subprocess, driven by a Python gRPC client (run by CTest).

Stubs are generated at test time with protoc + grpc_python_plugin into a
temporary directory. ServeTest calls every RPC and runs `vkserve client`;
ShutdownTest sends SIGTERM while requests are in flight and checks that each
is answered and the process exits 0; DefaultConfigTest runs `vkserve` with
no arguments (the embedded default, on 127.0.0.1:8001 and :8002; skipped
when those ports are taken).

Usage: test_python_client.py [-v] [ServeTest|ShutdownTest|DefaultConfigTest]
Environment: VKSERVE_BINARY_DIR (the build, holding ./vkserve), VKSERVE_PROTOC,
VKSERVE_GRPC_PYTHON_PLUGIN. Fails without grpc/numpy (scripts/setup.sh installs them).
"""
import atexit
import concurrent.futures
import importlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

try:
    import grpc
    import numpy as np
except ImportError as e:  # pragma: no cover
    print(f"{e} (scripts/setup.sh installs it)", file=sys.stderr)
    sys.exit(1)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTOS = ["grpc_service", "health", "model_config", "vkserve_config"]
SANITIZER_MARKERS = ("WARNING: ThreadSanitizer", "ERROR: AddressSanitizer", "runtime error:",
                     "ERROR: LeakSanitizer")


def generate_stubs(out):
    protoc = os.environ.get("VKSERVE_PROTOC") or shutil.which("protoc")
    plugin = os.environ.get("VKSERVE_GRPC_PYTHON_PLUGIN") or shutil.which("grpc_python_plugin")
    subprocess.run([protoc, "-I", ROOT, f"--python_out={out}", f"--grpc_python_out={out}",
                    f"--plugin=protoc-gen-grpc_python={plugin}"] + [f"proto/{p}.proto" for p in PROTOS],
                   check=True, cwd=ROOT)
    open(os.path.join(out, "proto", "__init__.py"), "w").close()
    sys.path.insert(0, out)
    return (importlib.import_module("proto.grpc_service_pb2"),
            importlib.import_module("proto.grpc_service_pb2_grpc"),
            importlib.import_module("proto.health_pb2"),
            importlib.import_module("proto.health_pb2_grpc"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def vkserve_binary():
    return os.path.join(os.environ.get("VKSERVE_BINARY_DIR", os.path.join(ROOT, "build")), "vkserve")


class ServerProcess:
    """A `vkserve serve` subprocess. By default on a free port, serving a copy
    of the example repository; `port` and `config` (the config text) replace
    that, and with `log_path` the server's stderr goes to that file."""

    def __init__(self, tmp, port=None, config=None, log_path=None):
        self.port = port or free_port()
        if config is None:
            repo = os.path.join(tmp, "repository")
            shutil.copytree(os.path.join(ROOT, "config/examples/repository"), repo)
            config = (f'grpc {{ port: {self.port} }}\nmetrics {{ enabled: false }}\n'
                      f'repository {{ path: "{repo}" model_control: EXPLICIT }}\n'
                      'gpu { pipeline_cache_path: "" }\nlimits { allow_shared_memory: true }\n')
        config_path = os.path.join(tmp, "server.pbtxt")
        with open(config_path, "w") as f:
            f.write(config)
        self.log_path = log_path
        self.log = open(log_path, "w") if log_path else None
        self.proc = subprocess.Popen([vkserve_binary(), "serve", "--config", config_path], stdout=subprocess.PIPE,
                                     stderr=self.log or subprocess.STDOUT, text=True)
        self.address = f"127.0.0.1:{self.port}"
        self.reported = False
        # A server that died under a test whose setUpClass then failed gets
        # no tearDownClass: say why it died before the interpreter exits.
        atexit.register(self.report_if_failed)

    def output(self):
        """What the server wrote: its log file, else its stdout (after it exits)."""
        if self.log_path:
            with open(self.log_path) as f:
                return f.read()
        return self.proc.stdout.read()

    def report_if_failed(self):
        """Prints, once, the part of the server's output that says why it
        exited non-zero: a sanitizer report from its start, else the tail."""
        code = self.proc.poll()
        if code in (None, 0) or self.reported:
            return
        self.reported = True
        text = self.output()
        starts = [text.find(m) for m in SANITIZER_MARKERS if m in text]
        excerpt = text[min(starts):][:12000] if starts else text[-4000:]
        print(f"vkserve exited {code}; what it wrote:\n{excerpt}", file=sys.stderr, flush=True)

    def wait_ready(self, pb, stub, timeout=120):
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("vkserve exited: " + self.output())
            try:
                if stub.ServerReady(pb.ServerReadyRequest(), timeout=1).ready:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.2)
        raise RuntimeError("vkserve did not become ready")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            if self.log:
                self.log.close()


class ServedTestCase(unittest.TestCase):
    """A `vkserve serve` subprocess shared by a test class, with its gRPC
    stubs (cls.pb, cls.pb_grpc, cls.health_pb, cls.health_grpc, cls.stub).
    Subclasses say what differs: server_config() (None: the example
    repository on a free port), LOG_FILE (the server's stderr to that file in
    cls.tmp), prepare() (before the server starts) and wait_ready(). The
    class's tearDown fails unless the server exits 0 on SIGTERM: a sanitizer
    report in it would not."""

    PREFIX = "vkserve_py_"
    LOG_FILE = None

    @classmethod
    def prepare(cls):
        """Runs before the server starts, in cls.tmp (certificates, models)."""

    @classmethod
    def server_config(cls, port):
        """The server's config text listening on gRPC `port`; None: the default."""
        return None

    @classmethod
    def wait_ready(cls):
        cls.server.wait_ready(cls.pb, cls.stub)

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix=cls.PREFIX)
        cls.pb, cls.pb_grpc, cls.health_pb, cls.health_grpc = generate_stubs(cls.tmp)
        cls.prepare()
        port = free_port()
        log = os.path.join(cls.tmp, cls.LOG_FILE) if cls.LOG_FILE else None
        cls.server = ServerProcess(cls.tmp, port=port, config=cls.server_config(port), log_path=log)
        cls.channel = grpc.insecure_channel(cls.server.address)
        cls.stub = cls.pb_grpc.GRPCInferenceServiceStub(cls.channel)
        cls.wait_ready()

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code = cls.server.stop()
        log = cls.server.output()
        if cls.tmp in sys.path:
            sys.path.remove(cls.tmp)
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert code == 0, f"vkserve exited {code}: {log[-3000:]}"


class Base(ServedTestCase):
    def infer_request(self, batch=1, seed=0, rid="py"):
        image = np.random.RandomState(seed).standard_normal((batch, 3, 16, 16)).astype(np.float32)
        req = self.pb.ModelInferRequest(model_name="tinynet", id=rid)
        req.inputs.add(name="image", datatype="FP32", shape=list(image.shape))
        req.raw_input_contents.append(image.tobytes())
        return req

    def check_probabilities(self, resp, batch):
        self.assertEqual(resp.outputs[0].name, "probabilities")
        self.assertEqual(list(resp.outputs[0].shape), [batch, 10])
        p = np.frombuffer(resp.raw_output_contents[0], dtype=np.float32).reshape(batch, 10)
        np.testing.assert_allclose(p.sum(axis=1), np.ones(batch), rtol=1e-4)


def run_client(*args):
    return subprocess.run([vkserve_binary(), "client", *args], capture_output=True, text=True, timeout=60)


class ServeTest(Base):
    def test_client_command(self):
        """`vkserve client` sends .npy inputs and writes what the server
        answers, as the Python client gets it; bad flags and files fail."""
        image = np.random.RandomState(7).standard_normal((2, 3, 16, 16)).astype(np.float32)
        path = os.path.join(self.tmp, "image.npy")
        np.save(path, image)
        out = os.path.join(self.tmp, "client_out")
        run = run_client("--url", self.server.address, "--model", "tinynet", "--input", f"image={path}",
                         "--output-dir", out)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("probabilities: FP32[2,10]", run.stdout)
        got = np.load(os.path.join(out, "probabilities.npy"))
        req = self.pb.ModelInferRequest(model_name="tinynet")
        req.inputs.add(name="image", datatype="FP32", shape=[2, 3, 16, 16])
        req.raw_input_contents.append(image.tobytes())
        resp = self.stub.ModelInfer(req)
        want = np.frombuffer(resp.raw_output_contents[0], dtype=np.float32).reshape(2, 10)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)

        missing = run_client("--url", self.server.address, "--model", "tinynet",
                             "--input", "image=/nonexistent/x.npy")
        self.assertEqual(missing.returncode, 1)
        self.assertIn("/nonexistent/x.npy", missing.stderr)
        self.assertEqual(run_client("--url", self.server.address).returncode, 2)  # no --model
        self.assertEqual(run_client("--model", "tinynet", "--input", "no-equals-sign").returncode, 2)
        wrong = run_client("--url", self.server.address, "--model", "nosuch")
        self.assertEqual(wrong.returncode, 1)
        self.assertIn("nosuch", wrong.stderr)

    def fake_server(self, output_names, address="127.0.0.1:0"):
        """A gRPC server answering ModelInfer with one FP32 output per name
        (its value the output's index); returns (server, port, requests)."""
        pb, pb_grpc = self.pb, self.pb_grpc
        requests = []

        class Fake(pb_grpc.GRPCInferenceServiceServicer):
            def ModelInfer(self, request, context):
                requests.append(request)
                resp = pb.ModelInferResponse(model_name=request.model_name)
                for i, name in enumerate(output_names):
                    resp.outputs.add(name=name, datatype="FP32", shape=[1])
                    resp.raw_output_contents.append(np.float32(i).tobytes())
                return resp

        server = grpc.server(concurrent.futures.ThreadPoolExecutor(2))
        pb_grpc.add_GRPCInferenceServiceServicer_to_server(Fake(), server)
        port = server.add_insecure_port(address)
        server.start()
        return server, port, requests

    def run_client_against(self, output_names, *args):
        server, port, _ = self.fake_server(output_names)
        try:
            return run_client("--url", f"127.0.0.1:{port}", "--model", "m", *args)
        finally:
            server.stop(None)

    def test_client_output_names_follow_the_output_file_rule(self):
        """As `vkserve infer --output-dir` (cli/output_files.h): characters
        outside [A-Za-z0-9._-] become '_', so a server's output name never
        reaches outside the directory."""
        out = os.path.join(self.tmp, "names", "out")
        run = self.run_client_against(["../escaped", "a/b:0", "plain"], "--output-dir", out)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(sorted(os.listdir(out)), [".._escaped.npy", "a_b_0.npy", "plain.npy"])
        self.assertEqual(np.load(os.path.join(out, "a_b_0.npy")).tolist(), [1.0])
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "names", "escaped.npy")))

    def test_client_refuses_output_names_that_are_no_file_names(self):
        """Names that are empty or only dots, and two outputs for one file,
        are refused with nothing written."""
        cases = [(["fine", ".."], "output name '..' is not a file name; nothing written"),
                 (["fine", ""], "output name '' is not a file name; nothing written"),
                 (["a/b", "a:b"], "outputs 'a/b' and 'a:b' would both be written to a_b.npy")]
        for i, (names, message) in enumerate(cases):
            with self.subTest(names=names):
                out = os.path.join(self.tmp, f"refused{i}", "out")
                run = self.run_client_against(names, "--output-dir", out)
                self.assertEqual(run.returncode, 1, run.stdout)
                self.assertIn(message, run.stderr)
                self.assertFalse(os.path.exists(out) and os.listdir(out))

    def test_client_defaults_to_127_0_0_1_8001(self):
        if port_taken(8001):
            # Another server holds the port: the client still goes there,
            # and its answer (or error) names the address.
            run = run_client("--model", "no-such-model-here")
            self.assertIn("127.0.0.1:8001", run.stderr)
            return
        server, port, requests = self.fake_server(["y"], address="127.0.0.1:8001")
        self.assertEqual(port, 8001)
        try:
            run = run_client("--model", "m")
        finally:
            server.stop(None)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("y: FP32[1]", run.stdout)
        self.assertEqual([r.model_name for r in requests], ["m"])

    def test_health(self):
        self.assertTrue(self.stub.ServerLive(self.pb.ServerLiveRequest()).live)
        self.assertTrue(self.stub.ServerReady(self.pb.ServerReadyRequest()).ready)
        self.assertTrue(self.stub.ModelReady(self.pb.ModelReadyRequest(name="tinynet")).ready)
        health = self.health_grpc.HealthStub(self.channel)
        self.assertEqual(health.Check(self.health_pb.HealthCheckRequest()).status,
                         self.health_pb.HealthCheckResponse.SERVING)

    def test_metadata_and_config(self):
        md = self.stub.ServerMetadata(self.pb.ServerMetadataRequest())
        self.assertEqual(md.name, "vkserve")
        self.assertIn("statistics", md.extensions)
        mm = self.stub.ModelMetadata(self.pb.ModelMetadataRequest(name="tinynet"))
        self.assertEqual(list(mm.inputs[0].shape), [-1, 3, 16, 16])
        self.assertEqual(mm.outputs[0].datatype, "FP32")
        cfg = self.stub.ModelConfig(self.pb.ModelConfigRequest(name="tinynet"))
        self.assertEqual(cfg.config.max_batch_size, 8)

    def test_infer_stream_and_statistics(self):
        resp = self.stub.ModelInfer(self.infer_request(batch=3, rid="abc"))
        self.assertEqual(resp.id, "abc")
        self.check_probabilities(resp, 3)
        answers = list(self.stub.ModelStreamInfer(iter([self.infer_request(rid=str(i)) for i in range(4)])))
        self.assertEqual(sorted(a.infer_response.id for a in answers), ["0", "1", "2", "3"])
        self.assertTrue(all(a.error_message == "" for a in answers))
        stats = self.stub.ModelStatistics(self.pb.ModelStatisticsRequest(name="tinynet"))
        self.assertGreaterEqual(stats.model_stats[0].inference_stats.success.count, 5)

    def test_errors(self):
        with self.assertRaises(grpc.RpcError) as e:
            self.stub.ModelInfer(self.pb.ModelInferRequest(model_name="nosuch"))
        self.assertEqual(e.exception.code(), grpc.StatusCode.NOT_FOUND)
        bad = self.infer_request()
        bad.inputs[0].shape[1] = 4
        with self.assertRaises(grpc.RpcError) as e:
            self.stub.ModelInfer(bad)
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("image", e.exception.details())

    def test_repository_and_shared_memory(self):
        index = self.stub.RepositoryIndex(self.pb.RepositoryIndexRequest())
        self.assertEqual([(m.name, m.state) for m in index.models], [("tinynet", "READY")])
        self.stub.RepositoryModelUnload(self.pb.RepositoryModelUnloadRequest(model_name="tinynet"))
        self.assertFalse(self.stub.ModelReady(self.pb.ModelReadyRequest(name="tinynet")).ready)
        self.stub.RepositoryModelLoad(self.pb.RepositoryModelLoadRequest(model_name="tinynet"))
        self.assertTrue(self.stub.ModelReady(self.pb.ModelReadyRequest(name="tinynet")).ready)
        status = self.stub.SystemSharedMemoryStatus(self.pb.SystemSharedMemoryStatusRequest())
        self.assertEqual(len(status.regions), 0)
        with self.assertRaises(grpc.RpcError) as e:
            self.stub.SystemSharedMemoryRegister(self.pb.SystemSharedMemoryRegisterRequest(
                name="r", key="/vkserve_py_no_such_key", byte_size=16))
        self.assertEqual(e.exception.code(), grpc.StatusCode.NOT_FOUND)
        with self.assertRaises(grpc.RpcError) as e:
            self.stub.SystemSharedMemoryUnregister(self.pb.SystemSharedMemoryUnregisterRequest(name="r"))
        self.assertEqual(e.exception.code(), grpc.StatusCode.NOT_FOUND)


def port_taken(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class DefaultConfigTest(unittest.TestCase):
    """`vkserve` with no arguments, as `scripts/run.sh` starts it: the embedded
    default serves the example repository on 127.0.0.1:8001 with metrics on
    8002, and SIGTERM stops it with exit 0."""

    def test_no_arguments_serve_the_example_repository(self):
        if port_taken(8001) or port_taken(8002):
            self.skipTest("127.0.0.1:8001 or :8002 is taken (a server already running?)")
        tmp = tempfile.mkdtemp(prefix="vkserve_default_")
        self.addCleanup(shutil.rmtree, tmp, True)
        pb, pb_grpc, _, _ = generate_stubs(tmp)
        self.addCleanup(sys.path.remove, tmp)
        proc = subprocess.Popen([vkserve_binary()], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        try:
            with grpc.insecure_channel("127.0.0.1:8001") as channel:
                stub = pb_grpc.GRPCInferenceServiceStub(channel)
                end = time.time() + 120
                while proc.poll() is None and time.time() < end:
                    try:
                        if stub.ServerReady(pb.ServerReadyRequest(), timeout=1).ready:
                            break
                    except grpc.RpcError:
                        time.sleep(0.2)
                self.assertIsNone(proc.poll(), "vkserve exited before it was ready")
                self.assertTrue(stub.ModelReady(pb.ModelReadyRequest(name="tinynet")).ready)
                req = pb.ModelInferRequest(model_name="tinynet")
                image = np.random.RandomState(3).standard_normal((1, 3, 16, 16)).astype(np.float32)
                req.inputs.add(name="image", datatype="FP32", shape=[1, 3, 16, 16])
                req.raw_input_contents.append(image.tobytes())
                resp = stub.ModelInfer(req, timeout=60)
                p = np.frombuffer(resp.raw_output_contents[0], dtype=np.float32)
                np.testing.assert_allclose(p.sum(), 1.0, rtol=1e-4)
            with urllib.request.urlopen("http://127.0.0.1:8002/metrics", timeout=10) as r:
                self.assertIn('vkserve_inferences_total{model="tinynet",version="1"} 1', r.read().decode())
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
            out = proc.stdout.read()
            proc.stdout.close()
        self.assertEqual(code, 0, out[-4000:])
        self.assertIn("vkserve listening on 127.0.0.1:8001", out)


class ShutdownTest(Base):
    @classmethod
    def tearDownClass(cls):
        # The test itself stopped the server and checked its exit.
        cls.channel.close()
        sys.path.remove(cls.tmp)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_sigterm_answers_in_flight_and_exits_zero(self):
        n = 32
        with concurrent.futures.ThreadPoolExecutor(max_workers=n) as pool:
            futures = [pool.submit(self.stub.ModelInfer, self.infer_request(batch=8, seed=i, rid=str(i)),
                                   timeout=120) for i in range(n)]
            time.sleep(0.05)
            self.server.proc.send_signal(signal.SIGTERM)
            ok = 0
            for f in futures:
                try:
                    self.check_probabilities(f.result(), 8)
                    ok += 1
                except grpc.RpcError as e:
                    # Only requests that arrived after shutdown began may be refused.
                    self.assertEqual(e.code(), grpc.StatusCode.UNAVAILABLE, e.details())
        self.assertGreater(ok, 0)
        self.assertEqual(self.server.proc.wait(timeout=60), 0, self.server.proc.stdout.read())


if __name__ == "__main__":
    unittest.main()
