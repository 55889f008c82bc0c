#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Exports the models people serve and checks vkserve against ONNX Runtime.

For a GPU machine: exports torchvision classification, segmentation, video (r3d_18) and
detection (SSDlite, Faster R-CNN: one image's boxes, scores and labels) models and
transformers models (BERT, GPT-2, RoBERTa, DistilBERT, T5 encoder, ViT, CLIP vision,
Whisper encoder, a Llama-style decoder; random weights built from their configs, no
download) with both torch.onnx exporters (TorchScript: dynamo=False; dynamo=True) at
opsets 14 to 21, then runs every file with `vkserve inspect --json` (every node on the
GPU: cpu_nodes == 0), `vkserve infer` and ONNX Runtime's CPU provider on the same inputs,
and checks every output: max |vkserve - ort| <= 1e-3 * max(|ort|) (relative to the
output's scale; a tensor of zeros needs max |diff| <= 1e-6).

    python3 benchmarks/models/export_check.py run --vkserve build/vkserve \\
        --out /tmp/out/export-check --jobs 12 --budget 450

--jobs N runs N jobs at once, each slot with its own worker subprocess (torch imported
once, the last model cached) that exports the file and runs ONNX Runtime on it, while
the slot's thread then runs vkserve (the GPU is shared); torch and ONNX Runtime get
--threads each (CPU cores / N by default). Jobs are handed out in coverage order
(every model at TorchScript opset 17 first, then dynamo opset 18, then the other
opsets), a slot preferring the model its worker already built. No job starts when less
than --min-job-seconds of the --budget is left; a job the deadline ends is recorded as
"cut". Each result (with its worker, start time and export, ONNX Runtime and vkserve
seconds) is appended to OUT/results.jsonl at once and OUT/export-check.md is rewritten
after every job, so a run stopped at any point leaves a table. Jobs the budget did not
reach are listed as such, never counted as passes. A worker is killed and restarted
when a job exceeds --export-timeout or the worker dies; each logs to OUT/worker<i>.log.

Everything but the worker needs only numpy and onnx. `selftest` checks that part
without torch or onnxruntime: a tiny ONNX model through vkserve, compared with numpy,
then whole `run --mock` runs (tiny models written without torch, one of them hanging,
one killing its worker, one exporting nothing, one with a wrong reference) on several
workers, checking every record.
"""
import argparse
import json
import os
import re
import select
import subprocess
import sys
import threading
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
    "r3d_18": ("torchvision-video", ("video", 3, 16, 112, 112)),
    "ssdlite320_mobilenet_v3_large": ("torchvision-det", ("image", 3, 320, 320)),
    "fasterrcnn_mobilenet_v3_large_320_fpn": ("torchvision-det", ("image", 3, 320, 320)),
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
    if kind == "image" and spec[2] == 320:  # detection: an image in [0, 1]
        arrays = [rng.random((1,) + tuple(spec[1:]), dtype=np.float32)]
    elif kind in ("image", "video"):
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


def check_model(vkserve, model_path, spec, workdir, timeout, reference):
    """One exported file against reference(inputs) (outputs by name): a result dict
    (status: pass, fail, ort-fail)."""
    ins, _ = graph_io(model_path)
    inputs = make_inputs(spec, ins)
    missing = [n for n in ins if n not in inputs]
    if missing:
        return {"status": "fail", "detail": f"no input data for {missing}"}
    try:
        want = reference(inputs)
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
        if name not in got:
            problems.append(f"{name}: not an output of the model")
            continue
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
    """Markdown: the summary line, then one row per job (by exporter, opset, model)."""
    ran = [r for r in results if r["status"] in ("pass", "fail")]
    passed = sum(r["status"] == "pass" for r in ran)
    export_failed = sum(r["status"] == "export-fail" for r in results)
    ort_failed = sum(r["status"] == "ort-fail" for r in results)
    cut = sum(r["status"] == "cut" for r in results)
    model_rank = {m: i for i, m in enumerate(MODELS)}
    results = sorted(results, key=lambda r: (r["exporter"], r["opset"], model_rank.get(r["model"], -1), r["model"]))
    pct = 100.0 * passed / len(ran) if ran else 0.0
    lines = [header, "",
             f"**{passed} of {len(ran)} exported models pass ({pct:.1f}%)** — all nodes on the GPU and "
             f"every output within {TOLERANCE:g} of ONNX Runtime CPU relative to its scale. "
             f"Not counted: {export_failed} exports that failed in torch, {ort_failed} files ONNX "
             f"Runtime could not run, {cut} jobs the time budget ended, {len(pending)} jobs it did not "
             f"reach.", "",
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

    if family == "torchvision-det":
        import torchvision
        m = torchvision.models.detection.__dict__[name](weights=None, weights_backbone=None)

        class OneImage(torch.nn.Module):
            """The detector on the batch's first image, as a tuple of its detections."""

            def __init__(self, detector):
                super().__init__()
                self.detector = detector

            def forward(self, x):
                y = self.detector([x[0]])[0]
                return y["boxes"], y["scores"], y["labels"]

        return OneImage(m.eval()), (torch.rand(1, *spec[1:]),), ["images"]
    if family == "torchvision-video":
        import torchvision
        m = Outputs(torchvision.models.video.__dict__[name](weights=None).eval(), "plain")
        return m, (torch.randn(1, *spec[1:]),), ["clip"]
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
    # Inference mode for every export: the TorchScript exporter puts the model
    # back in the mode it found the outer module in, and a cached model left in
    # training mode would give later dynamo exports training-mode Dropout and
    # stochastic depth (RandomUniformLike), which no server is asked to run.
    m.eval()
    outputs = ["boxes", "scores", "labels"] if MODELS[job["model"]][0] == "torchvision-det" else ["output"]
    kwargs = dict(input_names=names, output_names=outputs, opset_version=job["opset"])
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


# Mock models (--mock): tiny ONNX files written without torch, with references from
# numpy, so that the parallel driver, its timeouts, worker restarts and the records
# can be tested on any machine. mock_slow takes MOCK_SLOW_S to export, mock_hang never
# finishes, mock_crash kills its worker, mock_exportfail raises, mock_wrong gets a
# wrong reference (a failure vkserve must be blamed for); the rest pass.
MOCK_MODELS = ["mock_a", "mock_b", "mock_slow", "mock_hang", "mock_crash", "mock_exportfail", "mock_wrong"]
MOCK_SPEC = ("image", 3, 8, 8)
MOCK_WEIGHTS = np.array([0.5, -1.0, 2.0], np.float32).reshape(1, 3, 1, 1)
MOCK_SLOW_S = 1.5


def spec_of(model):
    return MOCK_SPEC if model.startswith("mock_") else MODELS[model][1]


def mock_model():
    """pixels -> Relu(pixels * w): the tiny model of the mock jobs and selftest."""
    from onnx import TensorProto, helper, numpy_helper
    x = helper.make_tensor_value_info("pixels", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("out/0", TensorProto.FLOAT, [1, 3, 8, 8])
    w = numpy_helper.from_array(MOCK_WEIGHTS, "w")
    graph = helper.make_graph([helper.make_node("Mul", ["pixels", "w"], ["t"]),
                               helper.make_node("Relu", ["t"], ["out/0"])], "g", [x], [y], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def mock_reference(inputs, wrong=False):
    return {"out/0": np.maximum(inputs["pixels"] * MOCK_WEIGHTS, 0) + (1 if wrong else 0)}


def mock_export(job, path):
    import onnx
    name = job["model"]
    if name == "mock_slow":
        time.sleep(MOCK_SLOW_S)
    elif name == "mock_hang":
        time.sleep(3600)
    elif name == "mock_crash":
        os._exit(3)
    elif name == "mock_exportfail":
        raise RuntimeError("mock export failure")
    onnx.save(mock_model(), path)


def run_ort(model_path, inputs, threads):
    import onnxruntime as ort
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(model_path, opts, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    feeds = {i.name: inputs[i.name] for i in sess.get_inputs() if i.name in inputs}
    return dict(zip(names, sess.run(names, feeds)))


def worker_job(job, cache, threads):
    """Exports job["path"] and writes ONNX Runtime's outputs for make_inputs' data to
    job["ref"] (outputs o0, o1, ... in the order of the reply's "outputs")."""
    t0 = time.time()
    try:
        if job.get("mock"):
            mock_export(job, job["path"])
        else:
            export_one(job, job["path"], cache)
    except Exception as e:  # noqa: BLE001 - reported per job
        return {"ok": False, "error": f"{type(e).__name__}: {str(e)[:400]}", "export_s": round(time.time() - t0, 1)}
    reply = {"ok": True, "export_s": round(time.time() - t0, 1)}
    t1 = time.time()
    try:
        ins, _ = graph_io(job["path"])
        inputs = make_inputs(spec_of(job["model"]), ins)
        if job.get("mock"):
            want = mock_reference(inputs, wrong=job["model"] == "mock_wrong")
        else:
            want = run_ort(job["path"], inputs, threads)
        names = list(want)
        np.savez(job["ref"], **{f"o{i}": np.asarray(want[n]) for i, n in enumerate(names)})
        reply["outputs"] = names
    except Exception as e:  # noqa: BLE001 - any ORT failure is recorded, not fatal
        reply["ort_error"] = f"onnxruntime: {type(e).__name__}: {str(e)[:300]}"
    reply["ort_s"] = round(time.time() - t1, 1)
    return reply


def worker_main(threads):
    """Reads job JSON lines on stdin, exports and runs the reference, answers one JSON
    line per job. Replies go to the original stdout; everything else (torch's and the
    exporters' prints, C-level ones too) is sent to stderr (the worker's log)."""
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        import torch
        torch.set_num_threads(threads)
    except ImportError:
        pass  # mock jobs need no torch
    cache = {}
    for line in sys.stdin:
        job = json.loads(line)
        print(f"== {job['model']} {job['exporter']} {job['opset']}", flush=True)
        replies.write(json.dumps(worker_job(job, cache, threads)) + "\n")
        replies.flush()


class Worker:
    """One export subprocess (torch imported once, the last model cached); restarted
    after a timeout or a death. Used by one thread at a time."""

    def __init__(self, log, threads):
        self.log = log
        self.threads = threads
        self.p = None

    def export(self, job, timeout):
        if self.p is None or self.p.poll() is not None:
            env = dict(os.environ, OMP_NUM_THREADS=str(self.threads), MKL_NUM_THREADS=str(self.threads))
            self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "worker",
                                       "--threads", str(self.threads)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self.log, text=True, env=env)
        self.p.stdin.write(json.dumps(job) + "\n")
        self.p.stdin.flush()
        ready, _, _ = select.select([self.p.stdout], [], [], max(0.1, timeout))
        if not ready:
            self.close()
            return {"ok": False, "timed_out": True, "error": f"export timed out after {timeout:.0f} s"}
        line = self.p.stdout.readline()
        if not line:
            self.close()
            return {"ok": False, "error": "the export worker died (see its log)"}
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


# ---------------------------------------------------------------- parallel driver

class Scheduler:
    """Hands out jobs in coverage order. A slot whose worker last built model M gets
    the first pending job of M among the next `window` jobs, else the first pending
    job: fewer model builds, coverage order kept within the window. Thread-safe."""

    def __init__(self, jobs, window):
        self._jobs = list(jobs)
        self._window = window
        self._lock = threading.Lock()

    def next(self, last_model):
        with self._lock:
            if not self._jobs:
                return None
            pick = 0
            for i, job in enumerate(self._jobs[:self._window]):
                if job["model"] == last_model:
                    pick = i
                    break
            return self._jobs.pop(pick)

    def pending(self):
        with self._lock:
            return list(self._jobs)


class Recorder:
    """Appends each result to results.jsonl and rewrites the table; thread-safe."""

    def __init__(self, out, header, scheduler, start):
        self.md = os.path.join(out, "export-check.md")
        self.jsonl = open(os.path.join(out, "results.jsonl"), "a")
        self.header = header
        self.scheduler = scheduler
        self.start = start
        self.results = []
        self.lock = threading.Lock()

    def add(self, result):
        with self.lock:
            self.results.append(result)
            self.jsonl.write(json.dumps(result) + "\n")
            self.jsonl.flush()
            passed, ran = write_report(self.md, self.results, self.scheduler.pending(), self.header)
            print(f"[{time.time() - self.start:5.0f}s] w{result['worker']} {job_tag(result)}: {result['status']} "
                  f"{str(result.get('detail', ''))[:120]}  ({passed}/{ran} pass)", flush=True)

    def finish(self):
        with self.lock:
            self.jsonl.close()
            return write_report(self.md, self.results, self.scheduler.pending(), self.header)


def job_tag(job):
    return f"{job['model']}-{job['exporter']}-{job['opset']}"


def run_job(job, worker, args, deadline, mock):
    """Export + reference in the worker, then vkserve: one result dict."""
    tag = job_tag(job)
    path = os.path.join(args.out, "models", tag + ".onnx")
    ref = os.path.join(args.out, "refs", tag + ".npz")
    left = deadline - time.time()
    limit = min(args.export_timeout, left)
    started = time.time()
    reply = worker.export(dict(job, path=path, ref=ref, mock=mock), limit)
    timing = {"started_s": round(started - (deadline - args.budget), 1), "export_s": reply.get("export_s"),
              "ort_s": reply.get("ort_s")}
    if not reply.get("ok"):
        status = "cut" if reply.get("timed_out") and limit < args.export_timeout else "export-fail"
        return dict(job, status=status, detail=reply.get("error", ""), **timing)
    if "ort_error" in reply:
        result = dict(job, status="ort-fail", detail=reply["ort_error"], **timing)
    else:
        with np.load(ref) as z:
            want = {n: z[f"o{i}"] for i, n in enumerate(reply["outputs"])}
        timeout = max(5, min(args.run_timeout, deadline - time.time()))
        result = dict(job, **check_model(args.vkserve, path, spec_of(job["model"]), os.path.join(args.out, "runs", tag),
                                         timeout, reference=lambda inputs: want), **timing)
    for f in (ref,) if args.keep_models else (ref, path):
        if os.path.exists(f):
            os.remove(f)
    return result


def slot_main(slot, scheduler, recorder, args, deadline, threads, mock):
    """One worker's loop: take jobs until none are left or the budget is spent."""
    with open(os.path.join(args.out, f"worker{slot}.log"), "a") as log:
        worker = Worker(log, threads)
        last_model = None
        try:
            while deadline - time.time() >= args.min_job_seconds:
                job = scheduler.next(last_model)
                if job is None:
                    break
                last_model = job["model"]
                result = run_job(job, worker, args, deadline, mock)
                result["worker"] = slot
                recorder.add(result)
        finally:
            worker.close()


def run(args):
    start = time.time()
    deadline = start + args.budget
    mock = args.mock
    if not mock:
        probe = subprocess.run([sys.executable, "-c", "import torch, torchvision, transformers, onnxruntime"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            sys.exit("export_check run needs torch, torchvision, transformers and onnxruntime: " +
                     probe.stderr.strip()[-300:])
    known = MOCK_MODELS if mock else list(MODELS)
    models = args.models.split(",") if args.models else known
    unknown = [m for m in models if m not in known]
    if unknown:
        sys.exit(f"unknown models: {unknown}; known: {', '.join(known)}")
    if args.jobs < 1:
        sys.exit("--jobs must be at least 1")
    threads = args.threads or max(1, (os.cpu_count() or 1) // args.jobs)
    for d in ("models", "refs", "runs"):
        os.makedirs(os.path.join(args.out, d), exist_ok=True)
    jobs = plan_jobs(models, args.exporters.split(","), [int(o) for o in args.opsets.split(",")])
    total = len(jobs)
    header = (f"# vkserve vs ONNX Runtime CPU on exported models\n\n"
              f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `{args.vkserve}`; "
              f"budget {args.budget:g} s; {args.jobs} jobs in parallel, {threads} threads each; "
              f"transformers models are 2-layer configs with random weights "
              f"(no download), batch 1, sequence {SEQ}; images 1x3x224x224.")
    scheduler = Scheduler(jobs, window=len(models) + args.jobs)
    recorder = Recorder(args.out, header, scheduler, start)
    slots = [threading.Thread(target=slot_main, args=(i, scheduler, recorder, args, deadline, threads, mock),
                              name=f"slot{i}", daemon=True) for i in range(args.jobs)]
    for t in slots:
        t.start()
    for t in slots:
        t.join()
    passed, ran = recorder.finish()
    left = len(scheduler.pending())
    print(f"done in {time.time() - start:.0f} s: {passed} of {ran} pass; {len(recorder.results)} of {total} "
          f"jobs recorded, {left} not reached; table in {recorder.md}")


def selftest(args):
    """Checks everything but torch: the job plan, the scheduler, the comparison, a tiny
    model through vkserve, then whole mock runs of the parallel driver (timeouts, a
    worker that dies, a budget that ends jobs) with their records."""
    import onnx
    os.makedirs(args.out, exist_ok=True)
    # plan_jobs: every (model, exporter, opset) once, TorchScript opset 17 first.
    jobs = plan_jobs(["a", "b"], EXPORTERS, OPSETS)
    assert len(jobs) == 2 * len(EXPORTERS) * len(OPSETS), len(jobs)
    assert len({(j["model"], j["exporter"], j["opset"]) for j in jobs}) == len(jobs)
    assert jobs[0] == {"model": "a", "exporter": "torchscript", "opset": 17}, jobs[0]
    assert jobs[2] == {"model": "a", "exporter": "dynamo", "opset": 18}, jobs[2]
    # Scheduler: coverage order, a slot's own model first within the window.
    sched = Scheduler(jobs, window=3)
    assert sched.next(None) == jobs[0]
    assert sched.next("b") == jobs[1]  # b at torchscript 17
    assert sched.next("b") == jobs[3]  # b at dynamo 18, ahead of a's
    assert sched.next("zzz") == jobs[2]
    assert len(sched.pending()) == len(jobs) - 4
    # compare: relative to the output's scale.
    assert compare(np.array([1.0, 1000.0]), np.array([1.5, 1000.0]))[0] is True
    assert compare(np.array([1.0, 2.0]), np.array([1.5, 2.0]))[0] is False
    assert compare(np.zeros(3), np.zeros(3))[0] is True
    assert compare(np.zeros((2, 2)), np.zeros(4))[0] is False
    assert sanitize("a/b:0") == "a_b_0"
    # The tiny model through vkserve inspect + infer, against numpy; a wrong reference fails.
    path = os.path.join(args.out, "selftest.onnx")
    onnx.save(mock_model(), path)
    result = check_model(args.vkserve, path, MOCK_SPEC, os.path.join(args.out, "selftest-run"), 120,
                         reference=mock_reference)
    assert result["status"] == "pass" and result["gpu_only"], result
    bad = check_model(args.vkserve, path, MOCK_SPEC, os.path.join(args.out, "selftest-run"), 120,
                      reference=lambda inputs: mock_reference(inputs, wrong=True))
    assert bad["status"] == "fail", bad
    results = [dict(jobs[0], **result), dict(jobs[1], status="export-fail", detail="x|y")]
    passed, ran = write_report(os.path.join(args.out, "selftest.md"), results, jobs[2:4], "# t")
    assert (passed, ran) == (1, 1), (passed, ran)
    selftest_mock_runs(args)
    print("selftest passed")


def mock_run(args, out, *extra):
    """`run --mock` in a subprocess: its records by (model, exporter, opset), and stdout."""
    import shutil
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, os.path.abspath(__file__), "run", "--mock", "--vkserve", args.vkserve, "--out", out,
           "--exporters", "torchscript,dynamo", "--opsets", "17", "--min-job-seconds", "1", *extra]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    records = {}
    with open(os.path.join(out, "results.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            key = (r["model"], r["exporter"], r["opset"])
            assert key not in records, f"{key} recorded twice"
            records[key] = r
    return records, p.stdout


def selftest_mock_runs(args):
    # Every mock model at two (exporter, opset) pairs on three workers.
    records, stdout = mock_run(args, os.path.join(args.out, "mock-all"), "--jobs", "3", "--budget", "200",
                               "--export-timeout", "4")
    assert len(records) == 2 * len(MOCK_MODELS), (len(records), stdout)
    want = {"mock_a": "pass", "mock_b": "pass", "mock_slow": "pass", "mock_hang": "export-fail",
            "mock_crash": "export-fail", "mock_exportfail": "export-fail", "mock_wrong": "fail"}
    for (model, _, _), r in records.items():
        assert r["status"] == want[model], r
    assert all("timed out" in r["detail"] for k, r in records.items() if k[0] == "mock_hang")
    assert all("died" in r["detail"] for k, r in records.items() if k[0] == "mock_crash")
    assert len({r["worker"] for r in records.values()}) == 3, "jobs did not spread over the workers"
    assert all(r["export_s"] is not None and r["vkserve_s"] is not None
               for r in records.values() if r["status"] == "pass")
    md = open(os.path.join(args.out, "mock-all", "export-check.md")).read()
    assert f"**6 of 8 exported models pass (75.0%)**" in md, md[:600]
    # Parallel: two slow exports on two workers take about one export's time.
    records, _ = mock_run(args, os.path.join(args.out, "mock-slow"), "--jobs", "2", "--budget", "200",
                          "--models", "mock_slow")
    starts = sorted(r["started_s"] for r in records.values())
    assert len(starts) == 2 and starts[1] - starts[0] < MOCK_SLOW_S, starts
    # A budget that ends a hanging export ("cut", not counted) and never reaches the rest.
    records, stdout = mock_run(args, os.path.join(args.out, "mock-budget"), "--jobs", "1", "--budget", "4",
                               "--models", "mock_hang,mock_a")
    assert [r["status"] for r in records.values()] == ["cut"], records
    md = open(os.path.join(args.out, "mock-budget", "export-check.md")).read()
    assert "1 jobs the time budget ended, 3 jobs it did not reach" in md, md[:600]
    assert md.count("not run (budget)") == 3, md


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="export and check (needs torch, torchvision, transformers, onnxruntime)")
    r.add_argument("--vkserve", required=True, help="path of the vkserve binary")
    r.add_argument("--out", required=True, help="output directory (results.jsonl, export-check.md)")
    r.add_argument("--budget", type=float, default=450, help="seconds for the whole run (default 450)")
    r.add_argument("--models", default="", help=f"comma-separated subset of: {','.join(MODELS)}")
    r.add_argument("--exporters", default=",".join(EXPORTERS))
    r.add_argument("--opsets", default=",".join(map(str, OPSETS)))
    r.add_argument("--jobs", type=int, default=1,
                   help="jobs in parallel, each with its own export worker (default 1)")
    r.add_argument("--threads", type=int, default=0,
                   help="torch and ONNX Runtime threads per job (default: CPU cores / jobs)")
    r.add_argument("--export-timeout", type=float, default=180, help="seconds for export + ONNX Runtime")
    r.add_argument("--run-timeout", type=float, default=120, help="seconds for each vkserve command")
    r.add_argument("--min-job-seconds", type=float, default=20,
                   help="stop starting jobs when less than this is left")
    r.add_argument("--keep-models", action="store_true")
    r.add_argument("--mock", action="store_true",
                   help="tiny models written without torch (MOCK_MODELS), references from numpy")
    s = sub.add_parser("selftest", help="check the non-torch parts with a tiny model")
    s.add_argument("--vkserve", required=True)
    s.add_argument("--out", default="/tmp/export-check-selftest")
    w = sub.add_parser("worker", help=argparse.SUPPRESS)
    w.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    if args.cmd == "worker":
        worker_main(args.threads)
    elif args.cmd == "selftest":
        selftest(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
