#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Triton's own Python clients against a running vkserve, HTTP beside gRPC.

Runs the unmodified `tritonclient.http` and `tritonclient.grpc` against one
server (`vkserve serve` with both --grpc-port and --http-port) and checks that
every call answers, and answers the same over both protocols: live, ready,
server and model metadata, model config, infer with JSON and with binary
tensors, async infer, statistics and the repository index.

tritonclient is not packaged for Debian, so this is a tool to run where it is
installed (pip install tritonclient[all]), not part of the test suite; the
suite checks the same routes with its own clients. Exit status 0 when every
check holds; each failure is printed.

  tools/triton_client_check.py --http 127.0.0.1:8000 --grpc 127.0.0.1:8001 \\
      --model tinynet --shape 1,3,16,16
"""
import argparse
import sys

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

failures = []


def check(what, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail and not ok else ''}")
    if not ok:
        failures.append(what)


def same_metadata(http_md, grpc_md):
    """The fields the two protocols share, as plain values."""
    def tensors(ts, as_dict):
        return [(t["name"], t["datatype"], list(map(int, t["shape"]))) if as_dict
                else (t.name, t.datatype, list(t.shape)) for t in ts]
    h = (http_md["name"], sorted(http_md.get("versions", [])), http_md["platform"],
         tensors(http_md["inputs"], True), tensors(http_md["outputs"], True))
    g = (grpc_md.name, sorted(grpc_md.versions), grpc_md.platform,
         tensors(grpc_md.inputs, False), tensors(grpc_md.outputs, False))
    return h == g, f"HTTP {h} gRPC {g}"


def infer_both(http, grpc, model, shape, binary):
    rng = np.random.default_rng(7)
    md = http.get_model_metadata(model)
    inp, out = md["inputs"][0], md["outputs"][0]
    data = rng.standard_normal(shape).astype(np.float32)
    hi = httpclient.InferInput(inp["name"], list(shape), inp["datatype"])
    hi.set_data_from_numpy(data, binary_data=binary)
    ho = httpclient.InferRequestedOutput(out["name"], binary_data=binary)
    gi = grpcclient.InferInput(inp["name"], list(shape), inp["datatype"])
    gi.set_data_from_numpy(data)
    go = grpcclient.InferRequestedOutput(out["name"])
    hr = http.infer(model, [hi], outputs=[ho], request_id="check-http")
    gr = grpc.infer(model, [gi], outputs=[go], request_id="check-grpc")
    return out["name"], hr, gr, (hi, ho, data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--http", required=True, help="HOST:PORT of vkserve's HTTP/REST endpoint")
    ap.add_argument("--grpc", required=True, help="HOST:PORT of vkserve's gRPC endpoint")
    ap.add_argument("--model", required=True)
    ap.add_argument("--shape", required=True, help="the first input's shape, e.g. 1,3,16,16")
    args = ap.parse_args()
    shape = [int(d) for d in args.shape.split(",")]
    http = httpclient.InferenceServerClient(args.http)
    grpc = grpcclient.InferenceServerClient(args.grpc)

    check("server live (HTTP, gRPC)", http.is_server_live() and grpc.is_server_live())
    check("server ready (HTTP, gRPC)", http.is_server_ready() and grpc.is_server_ready())
    check("model ready (HTTP, gRPC)",
          http.is_model_ready(args.model) and grpc.is_model_ready(args.model))
    hs, gs = http.get_server_metadata(), grpc.get_server_metadata()
    check("server metadata agrees", (hs["name"], hs["version"], sorted(hs["extensions"])) ==
          (gs.name, gs.version, sorted(gs.extensions)), f"{hs} / {gs}")
    ok, detail = same_metadata(http.get_model_metadata(args.model),
                               grpc.get_model_metadata(args.model))
    check("model metadata agrees", ok, detail)
    hc = http.get_model_config(args.model)
    gc = grpc.get_model_config(args.model, as_json=True)["config"]
    keys = ("name", "max_batch_size", "input", "output")
    # Protobuf's JSON mapping writes int64 as strings (gRPC's as_json); the
    # HTTP config, like Triton's, writes numbers.
    def tensors(ts):
        return [dict(t, dims=[int(d) for d in t.get("dims", [])]) for t in ts]
    hv = [hc.get("name"), hc.get("max_batch_size"), tensors(hc["input"]), tensors(hc["output"])]
    gv = [gc.get("name"), gc.get("max_batch_size"), tensors(gc["input"]), tensors(gc["output"])]
    check("model config agrees", hv == gv, f"HTTP {hv} gRPC {gv}")

    for binary in (False, True):
        kind = "binary" if binary else "JSON"
        name, hr, gr, _ = infer_both(http, grpc, args.model, shape, binary)
        h, g = hr.as_numpy(name), gr.as_numpy(name)
        check(f"infer with {kind} tensors: same output", h is not None and g is not None and
              h.shape == g.shape and np.array_equal(h, g),
              f"max difference {np.max(np.abs(h - g)) if h is not None and g is not None else '-'}")
        check(f"infer with {kind} tensors: request id echoed",
              hr.get_response()["id"] == "check-http" and gr.get_response().id == "check-grpc")

    name, hr, _, (hi, ho, _) = infer_both(http, grpc, args.model, shape, True)
    pending = [http.async_infer(args.model, [hi], outputs=[ho]) for _ in range(4)]
    results = [p.get_result() for p in pending]
    check("async infer: 4 answers equal to the synchronous one",
          all(np.array_equal(r.as_numpy(name), hr.as_numpy(name)) for r in results))

    hst = http.get_inference_statistics(args.model)["model_stats"]
    gst = grpc.get_inference_statistics(args.model, as_json=True)["model_stats"]
    check("statistics: same models and versions",
          [(s["name"], s["version"]) for s in hst] == [(s["name"], s["version"]) for s in gst])
    check("statistics: successes counted",
          int(hst[0]["inference_stats"]["success"]["count"]) > 0 and
          int(gst[0]["inference_stats"]["success"]["count"]) > 0)
    hidx = http.get_model_repository_index()
    gidx = grpc.get_model_repository_index(as_json=True).get("models", [])
    check("repository index agrees",
          sorted((m["name"], m.get("state")) for m in hidx) ==
          sorted((m["name"], m.get("state")) for m in gidx), f"{hidx} / {gidx}")

    print(f"{len(failures)} of the checks failed" if failures else "every check held")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
