#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Writes the seed corpus of infer_request_fuzzer: serialized
ModelInferRequests for the fuzzer's models (addone, castadd, batched), valid
and subtly broken, raw and typed, shared memory and handles.

Usage: /usr/bin/python3 tests/fuzz/make_infer_request_seeds.py OUT_DIR
(protoc generates the message classes into a temporary directory).
"""
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def messages():
    out = tempfile.mkdtemp()
    protos = [f"proto/{p}" for p in os.listdir(os.path.join(ROOT, "proto")) if p.endswith(".proto")]
    subprocess.run(["protoc", "-I", ROOT, f"--python_out={out}"] + protos, check=True, cwd=ROOT)
    sys.path.insert(0, out)
    from proto import grpc_service_pb2  # noqa: E402
    return grpc_service_pb2


def main():
    pb = messages()
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = {}

    def req(model, inputs, outputs=(), params=None):
        r = pb.ModelInferRequest(model_name=model, id="seed")
        for name, dtype, shape, raw, typed, shm in inputs:
            t = r.inputs.add(name=name, datatype=dtype, shape=shape)
            if typed is not None:
                field, values = typed
                getattr(t.contents, field).extend(values)
            if shm is not None:
                t.parameters["shared_memory_region"].string_param = shm[0]
                t.parameters["shared_memory_offset"].int64_param = shm[1]
                t.parameters["shared_memory_byte_size"].int64_param = shm[2]
            if raw is not None:
                r.raw_input_contents.append(raw)
        for name, location in outputs:
            o = r.outputs.add(name=name)
            if location:
                o.parameters["vkserve_location"].string_param = location
        for k, v in (params or {}).items():
            if isinstance(v, bool):
                r.parameters[k].bool_param = v
            elif isinstance(v, int):
                r.parameters[k].int64_param = v
            else:
                r.parameters[k].string_param = v
        return r

    f4 = struct.pack("<4f", 1, 2, 3, 4)
    seeds["raw_addone"] = req("addone", [("x", "FP32", [1, 4], f4, None, None)])
    seeds["typed_addone"] = req("addone", [("x", "FP32", [2, 4], None, ("fp32_contents", range(8)), None)])
    seeds["gpu_output"] = req("addone", [("x", "FP32", [1, 4], f4, None, None)], [("y", "gpu")])
    seeds["shm_input"] = req("addone", [("x", "FP32", [1, 4], None, None, ("region0", 16, 16))],
                             [("y", None)])
    seeds["castadd"] = req("castadd", [("x", "FP32", [1, 4], f4, None, None),
                                       ("ids", "INT64", [1, 4], struct.pack("<4q", 1, 2, 3, 4), None, None)])
    seeds["castadd_typed"] = req("castadd", [("x", "FP32", [1, 4], None, ("fp32_contents", [0] * 4), None),
                                             ("ids", "INT64", [1, 4], None, ("int64_contents", [5] * 4), None)])
    seeds["batched"] = req("batched", [("x", "FP32", [3, 4], f4 * 3, None, None)], params={"timeout": 1000})
    seeds["wrong_dtype"] = req("addone", [("x", "FP16", [1, 4], f4[:8], None, None)])
    seeds["short_bytes"] = req("addone", [("x", "FP32", [1, 4], f4[:12], None, None)])
    seeds["negative_dim"] = req("addone", [("x", "FP32", [-1, 4], f4, None, None)])
    seeds["read_handle"] = req("", [], params={"vkserve_read_handle": "abc", "vkserve_release": True})
    seeds["release_handles"] = req("", [], params={"vkserve_release_handle": "a,b"})
    seeds["gpu_handle_input"] = req("addone", [("x", "FP32", [1, 4], None, None, None)])
    seeds["gpu_handle_input"].inputs[0].parameters["vkserve_gpu_handle"].string_param = "nope"
    for name, r in seeds.items():
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(r.SerializeToString())
    print(f"{len(seeds)} seeds in {out}")


if __name__ == "__main__":
    main()
