#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Exports the models people serve and checks vkserve against ONNX Runtime (issue 13).

For the GPU machine: exports torchvision classification and segmentation models and
transformers models (BERT, GPT-2, RoBERTa, DistilBERT, T5 encoder, ViT, CLIP vision,
Whisper encoder, a Llama-style decoder; random weights built from their configs, no
download) with both torch.onnx exporters (TorchScript: dynamo=False; dynamo=True) at
opsets 14 to 21, then runs every file with `vkserve inspect --json` (every node on the
GPU: cpu_nodes == 0), `vkserve infer` and ONNX Runtime's CPU provider on the same inputs,
and checks every output: max |vkserve - ort| <= 1e-3 * max(|ort|) (relative to the
output's scale; a tensor of zeros needs max |diff| <= 1e-6).

    python3 benchmarks/models/export_check.py run --vkserve build/vkserve \\
        --out /tmp/out/export-check --budget 510

Jobs run in coverage order (every model at TorchScript opset 17 first, then dynamo
opset 18, then the other opsets) until the time budget is spent; each result is
appended to OUT/results.jsonl at once and OUT/export-check.md is rewritten after every
job, so a run stopped at any point leaves a table. Jobs the budget did not reach are
listed as such, never counted as passes.

Exports run in a worker subprocess (torch imported once, models cached) that is
killed and restarted when a job exceeds its timeout. Everything but the worker needs
only numpy and onnx; `selftest` checks that part without torch (a tiny ONNX model
through vkserve, compared with numpy).
"""
import argparse
import json
import os
import re
import select
import subprocess
import sys
import time

import numpy as np

OPSETS = list(range(14, 22))
EXPORTERS = ["torchscript", "dynamo"]
SEQ = 16  # sequence length of the text models
TOLERANCE = 1e-3

# name -> (family, input spec). Input specs: ("image", C, H, W), ("tokens", vocab),
# ("audio", mel_bins, frames). Built in the worker (build_model).
MODELS = {
    "resnet18": ("torchvision", ("image", 3, 224, 224)),
    "mobilenet_v3_small": ("torchvision", ("image", 3, 224, 224)),
    "efficientnet_b0": ("torchvision", ("image", 3, 224, 224)),
    "convnext_tiny": ("torchvision", ("image", 3, 224, 224)),
    "regnet_y_400mf": ("torchvision", ("image", 3, 224, 224)),
    "swin_t": ("torchvision", ("image", 3, 224, 224)),
    "vit_b_16": ("torchvision", ("image", 3, 224, 224)),
    "maxvit_t": ("torchvision", ("image", 3, 224, 224)),
    "fcn_resnet50": ("torchvision-seg", ("image", 3, 224, 224)),
    "deeplabv3_mobilenet_v3_large": ("torchvision-seg", ("image", 3, 224, 224)),
    "lraspp_mobilenet_v3_large": ("torchvision-seg", ("image", 3, 224, 224)),
    "bert": ("transformers", ("tokens", 1000)),
    "gpt2": ("transformers", ("tokens", 1000)),
    "roberta": ("transformers", ("tokens", 1000)),
    "distilbert": ("transformers", ("tokens", 1000)),
    "t5_encoder": ("transformers", ("tokens", 1000)),
    "vit": ("transformers", ("image", 3, 224, 224)),
    "clip_vision": ("transformers", ("image", 3, 224, 224)),
    "whisper_encoder": ("transformers", ("audio", 80, 128)),
    "llama": ("transformers", ("tokens", 1000)),
}


# ---------------------------------------------------------------- job planning

def plan_jobs(models, exporters, opsets):
    """Every (model, exporter, opset), in coverage order: the pairs most likely to run
    first (TorchScript at 17, dynamo at 18), then the lowest and highest opsets, then
    the rest, each pass over every model."""
    preferred = {"torchscript": [17, 14, 21, 16, 18, 15, 19, 20], "dynamo": [18, 21, 17, 14, 20, 16, 19, 15]}
    passes = []
    for rank in range(len(OPSETS)):
        for exporter in exporters:
            order = [o for o in preferred.get(exporter, OPSETS) if o in opsets]
            order += [o for o in opsets if o not in order]
            if rank < len(order):
                passes.append((exporter, order[rank]))
    jobs = []
    for exporter, opset in passes:
        for m in models:
            jobs.append({"model": m, "exporter": exporter, "opset": opset})
    return jobs


# ---------------------------------------------------------------- inputs and checks

def make_inputs(spec, names, seed=0):
    """Deterministic inputs for a model's graph inputs `names` (in order)."""
    rng = np.random.default_rng(seed)
    kind = spec[0]
    if kind == "image":
        arrays = [rng.standard_normal((1,) + tuple(spec[1:])).astype(np.float32)]
    elif kind == "audio":
        arrays = [rng.standard_normal((1, spec[1], spec[2])).astype(np.float32)]
    else:
        ids = rng.integers(0, spec[1], size=(1, SEQ), dtype=np.int64)
        arrays = [ids, np.ones((1, SEQ), dtype=np.int64)]
    return {n: arrays[i] for i, n in enumerate(names) if i < len(arrays)}


def compare(got, want):
    """(ok, relative error): max |got - want| over the output's scale max |want|."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return False, f"shape {got.shape} != {want.shape}"
    if got.dtype != want.dtype and not (got.dtype.kind == want.dtype.kind == "f"):
        return False, f"dtype {got.dtype} != {want.dtype}"
    if want.size == 0:
        return True, 0.0
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    if not np.array_equal(np.isnan(g), np.isnan(w)):
        return False, "NaN positions differ"
    finite = ~np.isnan(w)
    diff = float(np.max(np.abs(g[finite] - w[finite]), initial=0.0))
    scale = float(np.max(np.abs(w[finite]), initial=0.0))
    if scale == 0.0:
        return diff <= 1e-6, diff
    rel = diff / scale
    return rel <= TOLERANCE, rel


def sanitize(name):
    """vkserve infer's output file name for an output."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def graph_io(path):
    import onnx
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    ins = [i.name for i in m.graph.input if i.name not in inits]
    outs = [o.name for o in m.graph.output]
    return ins, outs


# ---------------------------------------------------------------- runners

def run_vkserve(vkserve, model_path, inputs, workdir, timeout):
    """(outputs by name, error or None, gpu-only flag)."""
    os.makedirs(workdir, exist_ok=True)
    gpu_only = None
    try:
        p = subprocess.run([vkserve, "inspect", model_path, "--json"], capture_output=True,
                           text=True, timeout=timeout)
        if p.returncode != 0:
            return None, "inspect: " + (p.stderr or p.stdout).strip()[-400:], None
        report = json.loads(p.stdout)
        gpu_only = report.get("cpu_nodes", 1) == 0
    except subprocess.TimeoutExpired:
        return None, f"inspect: timed out after {timeout} s", None
    except ValueError as e:
        return None, f"inspect: bad JSON ({e})", None
    args = [vkserve, "infer", model_path, "--output-dir", workdir, "--repeat", "1"]
    for name, array in inputs.items():
        f = os.path.join(workdir, "in_" + sanitize(name) + ".npy")
        np.save(f, array)
        args += ["--input", f"{name}={f}"]
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"infer: timed out after {timeout} s", gpu_only
    if p.returncode != 0:
        return None, "infer: " + (p.stderr or p.stdout).strip()[-400:], gpu_only
    _, out_names = graph_io(model_path)
    outs = {}
    for n in out_names:
        f = os.path.join(workdir, sanitize(n) + ".npy")
        if not os.path.exists(f):
            return None, f"infer wrote no {sanitize(n)}.npy", gpu_only
        outs[n] = np.load(f)
    return outs, None, gpu_only


def run_ort(model_path, inputs):
    import onnxruntime as ort
    sess = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    feeds = {i.name: inputs[i.name] for i in sess.get_inputs() if i.name in inputs}
    return dict(zip(names, sess.run(names, feeds)))


def check_model(vkserve, model_path, spec, workdir, timeout, reference=None):
    """One exported file: a result dict (status: pass, fail, ort-fail)."""
    ins, _ = graph_io(model_path)
    inputs = make_inputs(spec, ins)
    missing = [n for n in ins if n not in inputs]
    if missing:
        return {"status": "fail", "detail": f"no input data for {missing}"}
    try:
        want = reference(inputs) if reference else run_ort(model_path, inputs)
    except Exception as e:  # noqa: BLE001 - any ORT failure is recorded, not fatal
        return {"status": "ort-fail", "detail": f"onnxruntime: {type(e).__name__}: {str(e)[:300]}"}
    t0 = time.time()
    got, err, gpu_only = run_vkserve(vkserve, model_path, inputs, workdir, timeout)
    seconds = round(time.time() - t0, 1)
    if err:
        return {"status": "fail", "detail": err, "gpu_only": gpu_only, "vkserve_s": seconds}
    worst = 0.0
    problems = []
    for name, w in want.items():
        ok, rel = compare(got[name], w)
        if not ok:
            problems.append(f"{name}: {rel}")
        elif isinstance(rel, float):
            worst = max(worst, rel)
    if gpu_only is False:
        problems.append("nodes off the GPU")
    status = "pass" if not problems else "fail"
    return {"status": status, "detail": "; ".join(problems)[:400], "max_rel": worst,
            "gpu_only": gpu_only, "vkserve_s": seconds}


# ---------------------------------------------------------------- report

def write_report(path, results, pending, header):
    """Markdown: the summary line, then one row per job."""
    ran = [r for r in results if r["status"] in ("pass", "fail")]
    passed = sum(r["status"] == "pass" for r in ran)
    export_failed = sum(r["status"] == "export-fail" for r in results)
    ort_failed = sum(r["status"] == "ort-fail" for r in results)
    pct = 100.0 * passed / len(ran) if ran else 0.0
    lines = [header, "",
             f"**{passed} of {len(ran)} exported models pass ({pct:.1f}%)** — all nodes on the GPU and "
             f"every output within {TOLERANCE:g} of ONNX Runtime CPU relative to its scale. "
             f"Not counted: {export_failed} exports that failed in torch, {ort_failed} files ONNX "
             f"Runtime could not run, {len(pending)} jobs the time budget did not reach.", "",
             "| model | exporter | opset | result | max rel. error | vkserve s | detail |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        rel = f"{r['max_rel']:.2e}" if isinstance(r.get("max_rel"), float) else ""
        detail = str(r.get("detail", "")).replace("|", "\\|").replace("\n", " ")[:200]
        lines.append(f"| {r['model']} | {r['exporter']} | {r['opset']} | {r['status']} | {rel} | "
                     f"{r.get('vkserve_s', '')} | {detail} |")
    for j in pending:
        lines.append(f"| {j['model']} | {j['exporter']} | {j['opset']} | not run (budget) | | | |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return passed, len(ran)


# ---------------------------------------------------------------- export worker (torch)

def build_model(name):
    """(torch module returning a tuple of tensors, example inputs tuple, input names)."""
    import torch
    family, spec = MODELS[name]
    torch.manual_seed(0)

    class Outputs(torch.nn.Module):
        """Returns plain tensors: the first output, or a dict's 'out'/last_hidden_state."""

        def __init__(self, m, kind, names=None):
            super().__init__()
            self.m = m
            self.kind = kind
            self.names = names  # call by keyword (GPT-2's second positional is the cache)

        def forward(self, *args):
            y = self.m(**dict(zip(self.names, args))) if self.names else self.m(*args)
            if self.kind == "seg":
                return y["out"]
            if self.kind == "hf":
                return y.last_hidden_state
            return y

    if family.startswith("torchvision"):
        import torchvision
        ctor = (torchvision.models.segmentation.__dict__[name] if family == "torchvision-seg"
                else torchvision.models.__dict__[name])
        kwargs = {"weights": None}
        if family == "torchvision-seg":
            kwargs["weights_backbone"] = None
            if name == "fcn_resnet50" or name.startswith("deeplab"):
                kwargs["aux_loss"] = False
        m = Outputs(ctor(**kwargs).eval(), "seg" if family == "torchvision-seg" else "plain")
        x = torch.randn(1, *spec[1:])
        return m, (x,), ["pixels"]

    import transformers as tf
    small = dict(num_hidden_layers=2)
    if name == "bert":
        m = tf.BertModel(tf.BertConfig(vocab_size=spec[1], **small))
    elif name == "roberta":
        m = tf.RobertaModel(tf.RobertaConfig(vocab_size=spec[1], **small))
    elif name == "distilbert":
        m = tf.DistilBertModel(tf.DistilBertConfig(vocab_size=spec[1], n_layers=2))
    elif name == "gpt2":
        m = tf.GPT2Model(tf.GPT2Config(vocab_size=spec[1], n_layer=2, use_cache=False))
    elif name == "t5_encoder":
        m = tf.T5EncoderModel(tf.T5Config(vocab_size=spec[1], num_layers=2, use_cache=False))
    elif name == "llama":
        m = tf.LlamaModel(tf.LlamaConfig(vocab_size=spec[1], hidden_size=256, intermediate_size=688,
                                         num_hidden_layers=2, num_attention_heads=8,
                                         num_key_value_heads=4, use_cache=False))
    elif name == "vit":
        m = tf.ViTModel(tf.ViTConfig(**small))
    elif name == "clip_vision":
        m = tf.CLIPVisionModel(tf.CLIPVisionConfig(**small))
    elif name == "whisper_encoder":
        cfg = tf.WhisperConfig(encoder_layers=2, decoder_layers=2, num_mel_bins=spec[1],
                               max_source_positions=spec[2] // 2)
        m = tf.WhisperModel(cfg).get_encoder()
    else:
        raise ValueError(name)
    if spec[0] == "image":
        names, args = ["pixel_values"], (torch.randn(1, *spec[1:]),)
    elif spec[0] == "audio":
        names, args = ["input_features"], (torch.randn(1, spec[1], spec[2]),)
    else:
        names = ["input_ids", "attention_mask"]
        args = (torch.randint(0, spec[1], (1, SEQ)), torch.ones(1, SEQ, dtype=torch.long))
    return Outputs(m.eval(), "hf", names), args, names


def export_one(job, path, cache):
    import torch
    if job["model"] not in cache:
        cache.clear()  # one model at a time bounds the worker's memory
        cache[job["model"]] = build_model(job["model"])
    m, args, names = cache[job["model"]]
    kwargs = dict(input_names=names, output_names=["output"], opset_version=job["opset"])
    with torch.no_grad():
        if job["exporter"] == "dynamo":
            try:
                torch.onnx.export(m, args, path, dynamo=True, external_data=False, **kwargs)
            except TypeError:  # torch before external_data
                torch.onnx.export(m, args, path, dynamo=True, **kwargs)
        else:
            try:
                torch.onnx.export(m, args, path, dynamo=False, **kwargs)
            except TypeError:  # torch before the dynamo flag
                torch.onnx.export(m, args, path, **kwargs)


def worker_main():
    """Reads job JSON lines on stdin, exports, answers one JSON line per job.
    Replies go to the original stdout; everything else (torch's and the
    exporters' prints, C-level ones too) is sent to stderr (export.log)."""
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    cache = {}
    for line in sys.stdin:
        job = json.loads(line)
        t0 = time.time()
        try:
            export_one(job, job["path"], cache)
            reply = {"ok": True}
        except Exception as e:  # noqa: BLE001 - reported per job
            reply = {"ok": False, "error": f"{type(e).__name__}: {str(e)[:400]}"}
        reply["export_s"] = round(time.time() - t0, 1)
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


class Worker:
    """The export subprocess; restarted after a timeout."""

    def __init__(self, log):
        self.log = log
        self.p = None

    def export(self, job, path, timeout):
        if self.p is None or self.p.poll() is not None:
            self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "worker"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self.log, text=True)
        self.p.stdin.write(json.dumps(dict(job, path=path)) + "\n")
        self.p.stdin.flush()
        ready, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not ready:
            self.close()
            return {"ok": False, "error": f"export timed out after {timeout:.0f} s"}
        line = self.p.stdout.readline()
        if not line:
            self.close()
            return {"ok": False, "error": "the export worker died (see export.log)"}
        try:
            return json.loads(line)
        except ValueError:
            self.close()
            return {"ok": False, "error": "the export worker answered: " + line[:200]}

    def close(self):
        if self.p is not None:
            self.p.kill()
            self.p.wait()
            self.p = None


# ---------------------------------------------------------------- main loop

def run(args):
    deadline = time.time() + args.budget
    probe = subprocess.run([sys.executable, "-c", "import torch, torchvision, transformers, onnxruntime"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        sys.exit("export_check run needs torch, torchvision, transformers and onnxruntime: " +
                 probe.stderr.strip()[-300:])
    os.makedirs(args.out, exist_ok=True)
    models = args.models.split(",") if args.models else list(MODELS)
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        sys.exit(f"unknown models: {unknown}; known: {', '.join(MODELS)}")
    jobs = plan_jobs(models, args.exporters.split(","), [int(o) for o in args.opsets.split(",")])
    header = (f"# vkserve vs ONNX Runtime CPU on exported models\n\n"
              f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `{args.vkserve}`; "
              f"budget {args.budget} s; transformers models are 2-layer configs with random weights "
              f"(no download), batch 1, sequence {SEQ}; images 1x3x224x224.")
    md = os.path.join(args.out, "export-check.md")
    results = []
    log = open(os.path.join(args.out, "export.log"), "a")
    worker = Worker(log)
    with open(os.path.join(args.out, "results.jsonl"), "a") as jsonl:
        while jobs:
            left = deadline - time.time()
            if left < args.min_job_seconds:
                break
            job = jobs.pop(0)
            tag = f"{job['model']}-{job['exporter']}-{job['opset']}"
            path = os.path.join(args.out, "models", tag + ".onnx")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            exported = worker.export(job, path, min(args.export_timeout, left))
            if not exported.get("ok"):
                result = dict(job, status="export-fail", detail=exported.get("error", ""))
            else:
                timeout = max(5, min(args.run_timeout, deadline - time.time()))
                result = dict(job, **check_model(args.vkserve, path, MODELS[job["model"]][1],
                                                 os.path.join(args.out, "runs", tag), timeout))
                result["export_s"] = exported.get("export_s")
                if not args.keep_models:
                    os.remove(path)
            results.append(result)
            jsonl.write(json.dumps(result) + "\n")
            jsonl.flush()
            passed, ran = write_report(md, results, jobs, header)
            print(f"[{time.time() - deadline + args.budget:5.0f}s] {tag}: {result['status']} "
                  f"{str(result.get('detail', ''))[:120]}  ({passed}/{ran} pass)", flush=True)
    worker.close()
    passed, ran = write_report(md, results, jobs, header)
    print(f"done: {passed} of {ran} pass; {len(jobs)} jobs not reached; table in {md}")


def selftest(args):
    """Checks everything but the torch worker: a tiny ONNX model through vkserve."""
    import onnx
    from onnx import TensorProto, helper
    os.makedirs(args.out, exist_ok=True)
    # plan_jobs: every (model, exporter, opset) once, TorchScript opset 17 first.
    jobs = plan_jobs(["a", "b"], EXPORTERS, OPSETS)
    assert len(jobs) == 2 * len(EXPORTERS) * len(OPSETS), len(jobs)
    assert len({(j["model"], j["exporter"], j["opset"]) for j in jobs}) == len(jobs)
    assert jobs[0] == {"model": "a", "exporter": "torchscript", "opset": 17}, jobs[0]
    assert jobs[2] == {"model": "a", "exporter": "dynamo", "opset": 18}, jobs[2]
    # compare: relative to the output's scale.
    assert compare(np.array([1.0, 1000.0]), np.array([1.5, 1000.0]))[0] is True
    assert compare(np.array([1.0, 2.0]), np.array([1.5, 2.0]))[0] is False
    assert compare(np.zeros(3), np.zeros(3))[0] is True
    assert compare(np.zeros((2, 2)), np.zeros(4))[0] is False
    assert sanitize("a/b:0") == "a_b_0"
    # A tiny model through vkserve inspect + infer, against numpy.
    x = helper.make_tensor_value_info("pixels", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("out/0", TensorProto.FLOAT, [1, 3, 8, 8])
    w = helper.make_tensor("w", TensorProto.FLOAT, [1, 3, 1, 1], [0.5, -1.0, 2.0])
    graph = helper.make_graph([helper.make_node("Mul", ["pixels", "w"], ["t"]),
                               helper.make_node("Relu", ["t"], ["out/0"])], "g", [x], [y], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = os.path.join(args.out, "selftest.onnx")
    onnx.save(model, path)
    spec = ("image", 3, 8, 8)
    weights = np.array([0.5, -1.0, 2.0], np.float32).reshape(1, 3, 1, 1)
    reference = lambda inputs: {"out/0": np.maximum(inputs["pixels"] * weights, 0)}  # noqa: E731
    result = check_model(args.vkserve, path, spec, os.path.join(args.out, "selftest-run"), 120,
                         reference=reference)
    assert result["status"] == "pass" and result["gpu_only"], result
    # A wrong reference must fail.
    bad = check_model(args.vkserve, path, spec, os.path.join(args.out, "selftest-run"), 120,
                      reference=lambda inputs: {"out/0": reference(inputs)["out/0"] + 1})
    assert bad["status"] == "fail", bad
    results = [dict(jobs[0], **result), dict(jobs[1], status="export-fail", detail="x|y")]
    passed, ran = write_report(os.path.join(args.out, "selftest.md"), results, jobs[2:4], "# t")
    assert (passed, ran) == (1, 1), (passed, ran)
    print("selftest passed:", result)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="export and check (needs torch, torchvision, transformers, onnxruntime)")
    r.add_argument("--vkserve", required=True, help="path of the vkserve binary")
    r.add_argument("--out", required=True, help="output directory (results.jsonl, export-check.md)")
    r.add_argument("--budget", type=float, default=510, help="seconds for the whole run (default 510)")
    r.add_argument("--models", default="", help=f"comma-separated subset of: {','.join(MODELS)}")
    r.add_argument("--exporters", default=",".join(EXPORTERS))
    r.add_argument("--opsets", default=",".join(map(str, OPSETS)))
    r.add_argument("--export-timeout", type=float, default=120)
    r.add_argument("--run-timeout", type=float, default=120)
    r.add_argument("--min-job-seconds", type=float, default=20,
                   help="stop starting jobs when less than this is left")
    r.add_argument("--keep-models", action="store_true")
    s = sub.add_parser("selftest", help="check the non-torch parts with a tiny model")
    s.add_argument("--vkserve", required=True)
    s.add_argument("--out", default="/tmp/export-check-selftest")
    sub.add_parser("worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cmd == "worker":
        worker_main()
    elif args.cmd == "selftest":
        selftest(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
