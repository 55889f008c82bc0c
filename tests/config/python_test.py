#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Python-side checks of proto/ and config/examples/ (run by CTest).

ProtoPythonTest: the protos compile for Python with protoc and
grpc_python_plugin (Debian has no grpc_tools), the stubs serve and call a
ServerLive round trip over a real gRPC channel, and the example configs parse
with the Python text-format parser too.

ExampleModelTest: the committed example model is exactly what
config/examples/make_tinynet.py writes.

Usage: python_test.py [-v] ProtoPythonTest|ExampleModelTest
Environment: VKSERVE_PROTOC, VKSERVE_GRPC_PYTHON_PLUGIN (default: from PATH).
Fails when a needed Python module is missing (scripts/setup.sh installs them).
"""
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTOS = ["grpc_service", "health", "model_config", "server_config", "vkserve_config"]


class ProtoPythonTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="vkserve_proto_py_")
        protoc = os.environ.get("VKSERVE_PROTOC") or shutil.which("protoc")
        plugin = os.environ.get("VKSERVE_GRPC_PYTHON_PLUGIN") or shutil.which("grpc_python_plugin")
        subprocess.run(
            [protoc, "-I", ROOT, f"--python_out={cls.out}", f"--grpc_python_out={cls.out}",
             f"--plugin=protoc-gen-grpc_python={plugin}"] + [f"proto/{p}.proto" for p in PROTOS],
            check=True, cwd=ROOT)
        # A regular package, so no other "proto" on sys.path can shadow it.
        open(os.path.join(cls.out, "proto", "__init__.py"), "w").close()
        sys.path.insert(0, cls.out)
        cls.pb = importlib.import_module("proto.grpc_service_pb2")
        cls.grpc_pb = importlib.import_module("proto.grpc_service_pb2_grpc")
        cls.health_grpc = importlib.import_module("proto.health_pb2_grpc")
        cls.model_config = importlib.import_module("proto.model_config_pb2")
        cls.server_config = importlib.import_module("proto.server_config_pb2")

    @classmethod
    def tearDownClass(cls):
        sys.path.remove(cls.out)
        shutil.rmtree(cls.out, ignore_errors=True)

    def test_service_identity(self):
        service = self.pb.DESCRIPTOR.services_by_name["GRPCInferenceService"]
        self.assertEqual(service.full_name, "inference.GRPCInferenceService")
        self.assertEqual(len(service.methods), 17)
        self.assertIn("TraceSetting", service.methods_by_name)
        self.assertIn("LogSettings", service.methods_by_name)
        self.assertIn("ModelStreamInfer", service.methods_by_name)
        for name in ("GRPCInferenceServiceStub", "GRPCInferenceServiceServicer",
                     "add_GRPCInferenceServiceServicer_to_server"):
            self.assertTrue(hasattr(self.grpc_pb, name), name)
        self.assertTrue(hasattr(self.health_grpc, "HealthStub"))

    def test_infer_request_round_trip(self):
        request = self.pb.ModelInferRequest(model_name="tinynet", id="7")
        tensor = request.inputs.add(name="image", datatype="FP32", shape=[1, 3, 16, 16])
        tensor.parameters["shared_memory_offset"].int64_param = 64
        request.raw_input_contents.append(b"\0" * 16)
        decoded = self.pb.ModelInferRequest.FromString(request.SerializeToString())
        self.assertEqual(decoded, request)
        self.assertEqual(self.pb.ModelInferRequest.DESCRIPTOR.fields_by_name["raw_input_contents"].number, 7)

    def test_examples_parse(self):
        from google.protobuf import text_format
        with open(os.path.join(ROOT, "config/examples/repository/tinynet/config.pbtxt")) as f:
            config = text_format.Parse(f.read(), self.model_config.ModelConfig())
        self.assertEqual(config.max_batch_size, 8)
        self.assertEqual(config.input[0].data_type, self.model_config.TYPE_FP32)
        with open(os.path.join(ROOT, "config/examples/server.pbtxt")) as f:
            server = text_format.Parse(f.read(), self.server_config.ServerConfig())
        self.assertEqual(server.repository.path, "repository")

    def test_stub_calls_servicer(self):
        try:
            import grpc
        except ImportError:
            self.skipTest("python3-grpcio is not installed")
        from concurrent import futures
        pb, grpc_pb = self.pb, self.grpc_pb

        class Servicer(grpc_pb.GRPCInferenceServiceServicer):
            def ServerLive(self, request, context):
                return pb.ServerLiveResponse(live=True)

        server = grpc.server(futures.ThreadPoolExecutor(max_workers=1))
        grpc_pb.add_GRPCInferenceServiceServicer_to_server(Servicer(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = grpc_pb.GRPCInferenceServiceStub(channel)
                self.assertTrue(stub.ServerLive(pb.ServerLiveRequest(), timeout=10).live)
                with self.assertRaises(grpc.RpcError) as error:  # not implemented by this servicer
                    stub.ServerReady(pb.ServerReadyRequest(), timeout=10)
                self.assertEqual(error.exception.code(), grpc.StatusCode.UNIMPLEMENTED)
        finally:
            server.stop(None)


class ExampleModelTest(unittest.TestCase):
    def test_committed_model_matches_generator(self):
        sys.path.insert(0, os.path.join(ROOT, "config", "examples"))
        sys.dont_write_bytecode = True  # keep the source tree clean
        try:
            import make_tinynet
        finally:
            sys.path.pop(0)
        with open(make_tinynet.DEFAULT_OUTPUT, "rb") as f:
            committed = f.read()
        self.assertEqual(committed, make_tinynet.build().SerializeToString(),
                         "run config/examples/make_tinynet.py and commit the result")
        self.assertLess(len(committed), 4096)


def main():
    needs = {"ProtoPythonTest": ["google.protobuf"], "ExampleModelTest": ["onnx", "numpy"]}
    for name in sys.argv[1:]:
        for module in needs.get(name, []):
            try:
                importlib.import_module(module)
            except ImportError:
                print(f"{name} needs the Python module {module} (scripts/setup.sh installs it)",
                      file=sys.stderr)
                sys.exit(1)
    unittest.main()


if __name__ == "__main__":
    main()
