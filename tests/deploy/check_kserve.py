#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""Checks deploy/kserve against the KServe CRD schemas and against vkserve's config.

1. Every document of deploy/kserve/*.yaml validates against
   tests/deploy/kserve/kserve-crd-subset.schema.json (KServe's field names;
   unknown fields refused), with python3-jsonschema.
2. The schema can fail: misspelt or misplaced fields (storageURI,
   terminationGracePeriodSeconds on the ServingRuntime, a probe's grpc.service
   as a number, protocolVersion grpc-v3) are each rejected.
3. The manifests agree with each other and with deploy/kserve/server.pbtxt:
   v2 over gRPC on the port named h2c = the config's gRPC port; readiness,
   liveness and startup through grpc.health.v1 on it; Prometheus scrape
   annotations on the metrics port and /metrics; GPU requested and limited
   alike; the model repository from a storageUri at the config's /mnt/models;
   terminationGracePeriodSeconds >= preStop sleep + exit_timeout_seconds + 5.
Fails without python3-yaml or python3-jsonschema.
Usage: check_kserve.py [REPO_ROOT]
"""
import copy
import json
import os
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:  # pragma: no cover
    print(f"{e} (scripts/setup.sh installs python3-yaml and python3-jsonschema)", file=sys.stderr)
    sys.exit(1)

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KSERVE = os.path.join(ROOT, "deploy/kserve")
schema = json.load(open(os.path.join(ROOT, "tests/deploy/kserve/kserve-crd-subset.schema.json")))
validator = jsonschema.Draft7Validator(schema)


def errors_of(doc):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def fail(message):
    sys.exit(f"FAIL: {message}")


docs = {}
for name in sorted(os.listdir(KSERVE)):
    if not name.endswith(".yaml"):
        continue
    for doc in yaml.safe_load_all(open(os.path.join(KSERVE, name))):
        if not doc:
            continue
        # oneOf hides the real problem; validate against the kind's own schema.
        kind = {"ClusterServingRuntime": "ServingRuntime"}.get(doc.get("kind"), doc.get("kind"))
        if kind not in schema["definitions"]:
            fail(f"{name}: kind {doc.get('kind')} is not one this check knows")
        errs = list(jsonschema.Draft7Validator({**schema, "$ref": f"#/definitions/{kind}"}).iter_errors(doc))
        if errs:
            fail(f"{name}: " + "; ".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errs))
        docs[doc["kind"]] = doc
        print(f"{name}: {doc['kind']} {doc['metadata']['name']} matches the schema")

runtime, isvc, configmap = docs["ClusterServingRuntime"], docs["InferenceService"], docs["ConfigMap"]

# 2. The schema refuses field errors.
def mutated(doc, path, value=None, delete=None, rename=None):
    d = copy.deepcopy(doc)
    node = d
    for key in path:
        node = node[key]
    if rename:
        node[rename[1]] = node.pop(rename[0])
    elif delete:
        del node[delete]
    else:
        node.update(value)
    return d

bad = {
    "storageURI instead of storageUri": mutated(isvc, ["spec", "predictor", "model"], rename=("storageUri", "storageURI")),
    "terminationGracePeriodSeconds on the ServingRuntime": mutated(runtime, ["spec"], {"terminationGracePeriodSeconds": 45}),
    "grpc.service as a number": mutated(runtime, ["spec", "containers", 0, "readinessProbe", "grpc"], {"service": 1}),
    "protocolVersion grpc-v3": mutated(isvc, ["spec", "predictor", "model"], {"protocolVersion": "grpc-v3"}),
    "containers outside spec": mutated(runtime, [], {"containers": []}),
    "a probe without an action field name (grcp)": mutated(runtime, ["spec", "containers", 0, "livenessProbe"],
                                                          rename=("grpc", "grcp")),
}
for what, doc in bad.items():
    if not errors_of(doc):
        fail(f"the schema accepts {what}")
print(f"schema: refuses {len(bad)} misspelt or misplaced fields")

# 3. Agreement with the server config.
config = configmap["data"]["server.pbtxt"]
if config != open(os.path.join(KSERVE, "server.pbtxt")).read():
    fail("configmap.yaml does not hold deploy/kserve/server.pbtxt verbatim")
def config_int(pattern):
    m = re.search(pattern, config, re.M)
    if not m:
        fail(f"server.pbtxt lacks {pattern}")
    return int(m.group(1))
grpc_port = config_int(r"grpc \{[^}]*port: (\d+)")
metrics_port = config_int(r"metrics \{[^}]*port: (\d+)")
exit_timeout = config_int(r"^exit_timeout_seconds: (\d+)")
if not re.search(r'repository \{ path: "/mnt/models" \}', config):
    fail("server.pbtxt does not serve /mnt/models (where KServe's storage initializer puts storageUri)")

spec = runtime["spec"]
container = next(c for c in spec["containers"] if c["name"] == "kserve-container")
if "grpc-v2" not in spec["protocolVersions"]:
    fail("the runtime does not offer grpc-v2")
ports = {p["name"]: p["containerPort"] for p in container["ports"]}
if ports.get("h2c") != grpc_port or len(ports) != 1:
    fail(f"the runtime's only port must be h2c = {grpc_port} (KServe routes gRPC to it): {ports}")
for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
    if container.get(probe, {}).get("grpc", {}).get("port") != grpc_port:
        fail(f"{probe} is not grpc.health.v1 on port {grpc_port}")
annotations = spec["annotations"]
if (annotations.get("prometheus.io/scrape") != "true" or annotations.get("prometheus.io/port") != str(metrics_port)
        or annotations.get("prometheus.io/path") != "/metrics"):
    fail(f"scrape annotations do not point at :{metrics_port}/metrics: {annotations}")
if isvc["metadata"].get("annotations", {}).get("serving.kserve.io/enable-prometheus-scraping") != "true":
    fail("the InferenceService does not enable KServe's Prometheus scraping")
predictor = isvc["spec"]["predictor"]
model = predictor["model"]
if model["runtime"] != runtime["metadata"]["name"] or model["protocolVersion"] != "grpc-v2":
    fail("the InferenceService does not use the vkserve runtime over grpc-v2")
if model["modelFormat"]["name"] not in [f["name"] for f in spec["supportedModelFormats"]]:
    fail("the runtime does not support the InferenceService's model format")
if not re.match(r"^(gs|s3|https?|pvc|hdfs|webhdfs|oci)://", model.get("storageUri", "")):
    fail("the model repository does not come from a storage URI")
for where, resources in (("runtime", container["resources"]), ("InferenceService", model["resources"])):
    gpu_request = resources.get("requests", {}).get("nvidia.com/gpu")
    if gpu_request is None or gpu_request != resources.get("limits", {}).get("nvidia.com/gpu"):
        fail(f"{where}: nvidia.com/gpu must be requested and limited alike (extended resources)")
pre_stop = container["lifecycle"]["preStop"]["sleep"]["seconds"]
grace = predictor["terminationGracePeriodSeconds"]
if grace < pre_stop + exit_timeout + 5:
    fail(f"terminationGracePeriodSeconds {grace} < preStop {pre_stop} + exit_timeout_seconds {exit_timeout} + 5")
print(f"manifests: grpc-v2 on h2c:{grpc_port}, health probes, scrape :{metrics_port}/metrics, GPU, "
      f"storageUri -> /mnt/models, grace {grace} s >= {pre_stop} + {exit_timeout} + 5")
print("kserve: all checks passed")
