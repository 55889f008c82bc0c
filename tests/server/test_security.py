#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""vkserve's security settings, end to end (run by CTest).

Certificates are made at test time with the openssl command (throwaway CAs,
EC P-256, valid one day). Two `vkserve serve` processes on loopback:

  TokenServer: gRPC over TLS (no client certificates) with bearer-token
    grants (one by SHA-256 digest, one by token file) and metrics on.
    - MetricsDosTest: idle and byte-at-a-time connections to the metrics
      port do not block a scrape; more of them than workers only delay it up
      to the request timeout; a slow client is cut off.
    - TlsTest: plaintext and wrong-CA clients fail; the served certificate
      is replaced on SIGHUP after the files change; a key that does not
      match is refused and the old certificate stays.
    - TokenAuthTest: no token / a wrong token -> UNAUTHENTICATED; the
      inference token may infer but not call admin RPCs (PERMISSION_DENIED);
      the admin token may; shared-memory keys outside the prefix are refused;
      health checks need no token; no token reaches the log.
  PlaintextTokenTest: a token grant on a plaintext loopback port; SIGHUP
    without TLS is harmless; metrics.allowed_networks without loopback
    refuses a loopback scrape.
  MutualTlsServer: mutual TLS with client-certificate grants.
    - MutualTlsTest: no client certificate or one from another CA fails the
      handshake; a certificate no grant names is UNAUTHENTICATED; identities
      by SAN (URI) and by CN get their roles.

Environment as for test_python_client.py. Fails without
grpc/numpy or the openssl command.
"""
import hashlib
import http.client
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_python_client import ROOT, ServerProcess, free_port, generate_stubs  # noqa: E402  (fails without grpc)

import grpc  # noqa: E402
import numpy as np  # noqa: E402

OPENSSL = shutil.which("openssl")
if OPENSSL is None:
    print("the openssl command is missing (scripts/setup.sh installs it)", file=sys.stderr)
    sys.exit(1)

INFERENCE_TOKEN = "inference-token-0123456789abcdef"
ADMIN_TOKEN = "admin-token-fedcba9876543210"
ADMIN_URI = "spiffe://vkserve.test/admin"
# Every wait in this file is bounded by these.
READY_SECONDS = 120
RELOAD_SECONDS = 10


# ---------------------------------------------------------------------------
# Certificates.

def openssl(*args):
    subprocess.run([OPENSSL, *args], check=True, capture_output=True, timeout=60)


def make_ca(d, name):
    key, crt = os.path.join(d, name + ".key"), os.path.join(d, name + ".crt")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", crt, "-days", "1", "-subj", f"/CN={name}")
    return crt, key


def make_cert(d, name, ca, extensions, cn=None):
    """A leaf certificate signed by `ca` (crt, key), with `extensions`
    (openssl x509v3 lines); returns (crt, key)."""
    key, csr, crt = (os.path.join(d, name + s) for s in (".key", ".csr", ".crt"))
    ext = os.path.join(d, name + ".ext")
    with open(ext, "w") as f:
        f.write("basicConstraints=CA:FALSE\n" + extensions)
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", csr, "-subj", f"/CN={cn or name}")
    openssl("x509", "-req", "-in", csr, "-CA", ca[0], "-CAkey", ca[1], "-set_serial",
            str(int.from_bytes(os.urandom(8), "big")), "-days", "1", "-out", crt, "-extfile", ext)
    return crt, key


SERVER_EXT = "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
CLIENT_EXT = "extendedKeyUsage=clientAuth\n"


def read(path):
    with open(path, "rb") as f:
        return f.read()


def der_of(pem_path):
    return ssl.PEM_cert_to_DER_cert(read(pem_path).decode())


def served_certificate(port):
    """The DER certificate a TLS handshake with 127.0.0.1:port presents."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(["h2"])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with ctx.wrap_socket(raw) as s:
            return s.getpeercert(binary_form=True)


# ---------------------------------------------------------------------------
# Servers and clients.

class SecureServer(ServerProcess):
    """`vkserve serve` with `config_body` (TLS and auth sections) on a free
    gRPC port, the example repository with EXPLICIT model control, shared
    memory on, and its log in a file."""

    def __init__(self, tmp, config_body, metrics=None):
        port = free_port()
        self.metrics_port = free_port() if metrics is not None else 0
        repo = os.path.join(ROOT, "config/examples/repository")
        metrics_section = (f"metrics {{ port: {self.metrics_port} {metrics} }}\n" if metrics is not None
                           else "metrics { enabled: false }\n")
        super().__init__(tmp, port=port, log_path=os.path.join(tmp, "vkserve.stderr"),
                         config=f'grpc {{ port: {port} {config_body["grpc"]} }}\n' + metrics_section +
                         f'repository {{ path: "{repo}" model_control: EXPLICIT }}\n'
                         'gpu { pipeline_cache_path: "" }\n'
                         'limits { allow_shared_memory: true }\n' + config_body["auth"])

    def wait_ready_with(self, stub, pb, metadata=()):
        end = time.time() + READY_SECONDS
        while time.time() < end and self.proc.poll() is None:  # the port first: no gRPC backoff
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("vkserve exited: " + self.output())
            try:
                if stub.ServerReady(pb.ServerReadyRequest(), timeout=2, metadata=metadata).ready:
                    return
            except grpc.RpcError:
                pass
            time.sleep(0.2)
        raise RuntimeError("vkserve did not become ready: " + self.output()[-3000:])


def tls_channel(port, ca, client=None):
    creds = grpc.ssl_channel_credentials(
        root_certificates=read(ca), private_key=read(client[1]) if client else None,
        certificate_chain=read(client[0]) if client else None)
    # A private subchannel pool: each channel makes its own handshake. Short
    # backoffs, but no grpc.min_reconnect_backoff_ms: gRPC core takes it as the
    # connect timeout (TCP, TLS and the server's SETTINGS frame), and 100 ms
    # failed a handshake on a loaded 2-core CI machine.
    return grpc.secure_channel(f"127.0.0.1:{port}", creds,
                               options=[("grpc.ssl_target_name_override", "localhost"),
                                        ("grpc.use_local_subchannel_pool", 1),
                                        ("grpc.initial_reconnect_backoff_ms", 100),
                                        ("grpc.max_reconnect_backoff_ms", 500)])


def bearer(token):
    return (("authorization", f"Bearer {token}"),)


class SecurityBase(unittest.TestCase):
    pb = pb_grpc = health_pb = health_grpc = None

    @classmethod
    def stubs(cls, tmp):
        cls.pb, cls.pb_grpc, cls.health_pb, cls.health_grpc = generate_stubs(tmp)

    def code_of(self, call, *args, **kwargs):
        try:
            call(*args, timeout=10, **kwargs)
            return grpc.StatusCode.OK
        except grpc.RpcError as e:
            return e.code()

    def infer_request(self):
        image = np.random.RandomState(0).standard_normal((1, 3, 16, 16)).astype(np.float32)
        req = self.pb.ModelInferRequest(model_name="tinynet", id="security")
        req.inputs.add(name="image", datatype="FP32", shape=list(image.shape))
        req.raw_input_contents.append(image.tobytes())
        return req


# ---------------------------------------------------------------------------
# TLS, bearer tokens and the metrics endpoint: one server.

class TokenServerTest(SecurityBase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vkserve_sec_")
        cls.stubs(cls.tmp)
        d = cls.tmp
        cls.ca = make_ca(d, "server-ca")
        cls.other_ca = make_ca(d, "other-ca")
        cls.cert = make_cert(d, "server", cls.ca, SERVER_EXT)
        # The files the config names; tests rotate them.
        cls.cert_path, cls.key_path = os.path.join(d, "tls.crt"), os.path.join(d, "tls.key")
        shutil.copy(cls.cert[0], cls.cert_path)
        shutil.copy(cls.cert[1], cls.key_path)
        token_file = os.path.join(d, "inference.token")
        with open(token_file, "w") as f:
            f.write(INFERENCE_TOKEN + "\n")
        admin_digest = hashlib.sha256(ADMIN_TOKEN.encode()).hexdigest()
        config = {
            "grpc": f'tls {{ certificate: "{cls.cert_path}" private_key: "{cls.key_path}" }}',
            "auth": ('auth {\n'
                     f'  grant {{ name: "ops" token_sha256: "{admin_digest}" roles: [INFERENCE, ADMIN] }}\n'
                     f'  grant {{ name: "app" token_file: "{token_file}" roles: INFERENCE }}\n'
                     '}\n'),
        }
        # Loopback is in the allowed networks (one of two blocks).
        cls.server = SecureServer(cls.tmp, config,
                                  metrics='allowed_networks: ["192.168.0.0/16", "127.0.0.0/8"]')
        cls.channel = tls_channel(cls.server.port, cls.ca[0])
        cls.stub = cls.pb_grpc.GRPCInferenceServiceStub(cls.channel)
        cls.server.wait_ready_with(cls.stub, cls.pb, bearer(INFERENCE_TOKEN))

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        code = cls.server.stop()
        log = cls.server.output()
        sys.path.remove(cls.tmp)
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert code == 0, f"vkserve exited {code}: {log[-3000:]}"
        # Tokens never reach the log, in any test of the class.
        assert INFERENCE_TOKEN not in log and ADMIN_TOKEN not in log, "a token was logged"

    # -- metrics ------------------------------------------------------------

    def scrape(self, timeout):
        url = f"http://127.0.0.1:{self.server.metrics_port}/metrics"
        start = time.monotonic()
        with urllib.request.urlopen(url, timeout=timeout) as r:
            body = r.read().decode()
        self.assertIn("vkserve_build_info", body)
        return time.monotonic() - start

    def open_idle(self, n):
        return [socket.create_connection(("127.0.0.1", self.server.metrics_port), timeout=5)
                for _ in range(n)]

    def start_slow(self, n, stop, seconds=8.0):
        """n clients sending a request one byte every 0.2 s (never ending
        it), each for at most `seconds`; returns (threads, cut_off list)."""
        cut_off = []

        def slow():
            request = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
            try:
                with socket.create_connection(("127.0.0.1", self.server.metrics_port), timeout=5) as s:
                    end = time.monotonic() + seconds
                    for byte in request:
                        if stop.is_set() or time.monotonic() > end:
                            return
                        s.sendall(bytes([byte]))
                        time.sleep(0.2)
            except OSError:
                cut_off.append(True)  # the server closed the connection

        threads = [threading.Thread(target=slow, daemon=True) for _ in range(n)]
        for t in threads:
            t.start()
        return threads, cut_off

    def test_metrics_scrape_with_idle_and_slow_clients(self):
        stop = threading.Event()
        idle = self.open_idle(4)
        threads, _ = self.start_slow(3, stop)
        try:
            time.sleep(0.5)  # every attacker connected and holding a worker
            self.assertLess(self.scrape(timeout=5), 2.0)
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=10)
            for s in idle:
                s.close()

    def test_metrics_more_attackers_than_workers_only_delay_a_scrape(self):
        # 8 workers (the default), 12 idle connections queued before the
        # scrape: it waits about one request timeout (2 s) for a worker.
        # (N such connections delay it by about N / 8 timeouts: beyond that,
        # only network policy or metrics.address on loopback helps.)
        idle = self.open_idle(12)
        try:
            time.sleep(0.2)
            self.assertLess(self.scrape(timeout=8), 4.0)
        finally:
            for s in idle:
                s.close()

    def test_metrics_slow_client_is_cut_off(self):
        stop = threading.Event()
        threads, cut_off = self.start_slow(1, stop, seconds=8.0)
        for t in threads:
            t.join(timeout=12)
        self.assertEqual(cut_off, [True], "a byte-at-a-time client kept its connection for 8 s")

    # -- TLS ------------------------------------------------------------------

    def test_plaintext_client_fails(self):
        with grpc.insecure_channel(f"127.0.0.1:{self.server.port}") as ch:
            stub = self.pb_grpc.GRPCInferenceServiceStub(ch)
            self.assertEqual(self.code_of(stub.ServerLive, self.pb.ServerLiveRequest(),
                                          metadata=bearer(INFERENCE_TOKEN)), grpc.StatusCode.UNAVAILABLE)

    def test_client_trusting_another_ca_fails(self):
        with tls_channel(self.server.port, self.other_ca[0]) as ch:
            stub = self.pb_grpc.GRPCInferenceServiceStub(ch)
            self.assertEqual(self.code_of(stub.ServerLive, self.pb.ServerLiveRequest(),
                                          metadata=bearer(INFERENCE_TOKEN)), grpc.StatusCode.UNAVAILABLE)

    def wait_served(self, der):
        end = time.monotonic() + RELOAD_SECONDS
        while time.monotonic() < end:
            if served_certificate(self.server.port) == der:
                return True
            time.sleep(0.2)
        return False

    def test_sighup_serves_rotated_certificate(self):
        old = der_of(self.cert_path)
        self.assertEqual(served_certificate(self.server.port), old)
        # A key that does not match: refused, the old certificate stays.
        mismatched = make_cert(self.tmp, "server-mismatch", self.ca, SERVER_EXT)
        shutil.copy(mismatched[1], self.key_path)
        self.server.proc.send_signal(signal.SIGHUP)
        time.sleep(2.5)  # more than the reload interval (1 s)
        self.assertEqual(served_certificate(self.server.port), old)
        self.assertIn("TLS reload failed", self.server.output())
        # The new pair: served after SIGHUP, and clients trusting the CA work.
        rotated = make_cert(self.tmp, "server-rotated", self.ca, SERVER_EXT)
        shutil.copy(rotated[0], self.cert_path)
        shutil.copy(rotated[1], self.key_path)
        self.server.proc.send_signal(signal.SIGHUP)
        self.assertTrue(self.wait_served(der_of(rotated[0])), "the rotated certificate was not served")
        with tls_channel(self.server.port, self.ca[0]) as ch:
            stub = self.pb_grpc.GRPCInferenceServiceStub(ch)
            self.assertTrue(stub.ServerLive(self.pb.ServerLiveRequest(), timeout=10,
                                            metadata=bearer(INFERENCE_TOKEN)).live)

    def test_bad_tls_files_fail_start_up_with_a_clear_error(self):
        other = make_cert(self.tmp, "server-other", self.ca, SERVER_EXT)
        binary = os.path.join(os.environ.get("VKSERVE_BINARY_DIR", os.path.join(ROOT, "build")), "vkserve")
        config = os.path.join(self.tmp, "bad.pbtxt")
        for key, expected in [(other[1], "does not match the certificate"),
                              (self.ca[0], "no unencrypted PEM private key")]:
            with open(config, "w") as f:
                f.write(f'grpc {{ port: {free_port()} tls {{ certificate: "{self.cert[0]}" '
                        f'private_key: "{key}" }} }}\nmetrics {{ enabled: false }}\n')
            run = subprocess.run([binary, "serve", "--config", config], capture_output=True, text=True,
                                 timeout=60)
            self.assertEqual(run.returncode, 1, run.stderr)
            self.assertIn(expected, run.stderr)

    # -- bearer tokens -----------------------------------------------------------

    def test_missing_or_invalid_token_is_unauthenticated(self):
        s, pb = self.stub, self.pb
        for metadata in [(), bearer("not-a-valid-token-0000"), (("authorization", INFERENCE_TOKEN),),
                         bearer(INFERENCE_TOKEN) + bearer(ADMIN_TOKEN)]:
            self.assertEqual(self.code_of(s.ModelInfer, self.infer_request(), metadata=metadata),
                             grpc.StatusCode.UNAUTHENTICATED, metadata)
        with self.assertRaises(grpc.RpcError) as e:
            list(s.ModelStreamInfer(iter([self.infer_request()]), timeout=10))
        self.assertEqual(e.exception.code(), grpc.StatusCode.UNAUTHENTICATED)

    def test_inference_token_infers_but_is_denied_admin_rpcs(self):
        s, pb, md = self.stub, self.pb, bearer(INFERENCE_TOKEN)
        resp = s.ModelInfer(self.infer_request(), timeout=60, metadata=md)
        self.assertEqual(list(resp.outputs[0].shape), [1, 10])
        self.assertTrue(s.ModelReady(pb.ModelReadyRequest(name="tinynet"), timeout=10, metadata=md).ready)
        s.ModelStatistics(pb.ModelStatisticsRequest(), timeout=10, metadata=md)
        streamed = list(s.ModelStreamInfer(iter([self.infer_request()]), timeout=60, metadata=md))
        self.assertEqual(streamed[0].error_message, "")
        denied = grpc.StatusCode.PERMISSION_DENIED
        self.assertEqual(self.code_of(s.RepositoryModelUnload,
                                      pb.RepositoryModelUnloadRequest(model_name="tinynet"), metadata=md), denied)
        self.assertEqual(self.code_of(s.RepositoryModelLoad,
                                      pb.RepositoryModelLoadRequest(model_name="tinynet"), metadata=md), denied)
        self.assertEqual(self.code_of(s.LogSettings, pb.LogSettingsRequest(), metadata=md), denied)
        self.assertEqual(self.code_of(s.TraceSetting, pb.TraceSettingRequest(), metadata=md), denied)
        self.assertEqual(self.code_of(s.SystemSharedMemoryRegister, pb.SystemSharedMemoryRegisterRequest(
            name="r", key="/vkserve_sec_test", byte_size=16), metadata=md), denied)
        self.assertTrue(s.ModelReady(pb.ModelReadyRequest(name="tinynet"), timeout=10, metadata=md).ready)

    def test_admin_token_may_call_admin_rpcs(self):
        s, pb, md = self.stub, self.pb, bearer(ADMIN_TOKEN)
        s.LogSettings(pb.LogSettingsRequest(), timeout=10, metadata=md)
        s.SystemSharedMemoryStatus(pb.SystemSharedMemoryStatusRequest(), timeout=10, metadata=md)
        # Inside the prefix: passes the check, and the object does not exist.
        self.assertEqual(self.code_of(s.SystemSharedMemoryRegister, pb.SystemSharedMemoryRegisterRequest(
            name="r", key="/vkserve_sec_no_such_object", byte_size=16), metadata=md), grpc.StatusCode.NOT_FOUND)
        for key in ["/etc_passwd", "/vkserve_", "/vkserve_a/../b", "vkserve_x", "/../vkserve_x"]:
            self.assertEqual(self.code_of(s.SystemSharedMemoryRegister, pb.SystemSharedMemoryRegisterRequest(
                name="r", key=key, byte_size=16), metadata=md), grpc.StatusCode.PERMISSION_DENIED, key)

    def test_health_check_needs_no_token(self):
        health = self.health_grpc.HealthStub(self.channel)
        resp = health.Check(self.health_pb.HealthCheckRequest(), timeout=10)
        self.assertEqual(resp.status, self.health_pb.HealthCheckResponse.SERVING)


# ---------------------------------------------------------------------------
# Mutual TLS with client-certificate grants.

class MutualTlsTest(SecurityBase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vkserve_mtls_")
        cls.stubs(cls.tmp)
        d = cls.tmp
        cls.ca = make_ca(d, "server-ca")
        client_ca = make_ca(d, "client-ca")
        cls.server_cert = make_cert(d, "server", cls.ca, SERVER_EXT)
        cls.admin = make_cert(d, "admin", client_ca, CLIENT_EXT + f"subjectAltName=URI:{ADMIN_URI}\n")
        cls.app = make_cert(d, "app", client_ca, CLIENT_EXT, cn="inference-client")
        cls.stranger = make_cert(d, "stranger", client_ca, CLIENT_EXT)
        cls.foreign = make_cert(d, "foreign", make_ca(d, "foreign-ca"), CLIENT_EXT, cn="inference-client")
        config = {
            "grpc": (f'tls {{ certificate: "{cls.server_cert[0]}" private_key: "{cls.server_cert[1]}" '
                     f'client_ca: "{client_ca[0]}" }}'),
            "auth": ('auth {\n'
                     f'  grant {{ name: "ops" client_identity: "{ADMIN_URI}" roles: [INFERENCE, ADMIN] }}\n'
                     '  grant { name: "app" client_identity: "inference-client" roles: INFERENCE }\n'
                     '}\n'),
        }
        cls.server = SecureServer(cls.tmp, config)
        with tls_channel(cls.server.port, cls.ca[0], cls.app) as ch:
            cls.server.wait_ready_with(cls.pb_grpc.GRPCInferenceServiceStub(ch), cls.pb)

    @classmethod
    def tearDownClass(cls):
        code = cls.server.stop()
        log = cls.server.output()
        sys.path.remove(cls.tmp)
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert code == 0, f"vkserve exited {code}: {log[-3000:]}"

    def call(self, client, method, request):
        with tls_channel(self.server.port, self.ca[0], client) as ch:
            stub = self.pb_grpc.GRPCInferenceServiceStub(ch)
            return self.code_of(getattr(stub, method), request)

    def test_clients_without_a_trusted_certificate_fail_the_handshake(self):
        live = self.pb.ServerLiveRequest()
        self.assertEqual(self.call(None, "ServerLive", live), grpc.StatusCode.UNAVAILABLE)
        self.assertEqual(self.call(self.foreign, "ServerLive", live), grpc.StatusCode.UNAVAILABLE)
        with grpc.insecure_channel(f"127.0.0.1:{self.server.port}") as ch:
            stub = self.pb_grpc.GRPCInferenceServiceStub(ch)
            self.assertEqual(self.code_of(stub.ServerLive, live), grpc.StatusCode.UNAVAILABLE)

    def test_certificate_no_grant_names_is_unauthenticated(self):
        self.assertEqual(self.call(self.stranger, "ServerLive", self.pb.ServerLiveRequest()),
                         grpc.StatusCode.UNAUTHENTICATED)

    def test_identities_get_their_roles(self):
        pb = self.pb
        self.assertEqual(self.call(self.app, "ModelInfer", self.infer_request()), grpc.StatusCode.OK)
        self.assertEqual(self.call(self.app, "LogSettings", pb.LogSettingsRequest()),
                         grpc.StatusCode.PERMISSION_DENIED)
        self.assertEqual(self.call(self.admin, "LogSettings", pb.LogSettingsRequest()), grpc.StatusCode.OK)
        self.assertEqual(self.call(self.admin, "ModelInfer", self.infer_request()), grpc.StatusCode.OK)


# ---------------------------------------------------------------------------
# Tokens on a plaintext loopback port (no TLS at all).

class PlaintextTokenTest(SecurityBase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vkserve_plain_")
        cls.stubs(cls.tmp)
        digest = hashlib.sha256(INFERENCE_TOKEN.encode()).hexdigest()
        cls.server = SecureServer(cls.tmp, {
            "grpc": "", "auth": f'auth {{ grant {{ token_sha256: "{digest}" roles: INFERENCE }} }}\n'},
            metrics='allowed_networks: "10.0.0.0/8"')
        cls.channel = grpc.insecure_channel(cls.server.address)
        cls.stub = cls.pb_grpc.GRPCInferenceServiceStub(cls.channel)
        cls.server.wait_ready_with(cls.stub, cls.pb, bearer(INFERENCE_TOKEN))

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        # Without TLS a reload re-reads the config and repository and changes nothing.
        cls.server.proc.send_signal(signal.SIGHUP)
        time.sleep(0.2)
        code = cls.server.stop()
        log = cls.server.output()
        sys.path.remove(cls.tmp)
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert code == 0, f"vkserve exited {code}: {log[-3000:]}"
        assert "reload done: models: unchanged" in log, log[-3000:]
        assert "TLS reload" not in log, log[-3000:]

    def test_metrics_refuse_clients_outside_the_allowed_networks(self):
        url = f"http://127.0.0.1:{self.server.metrics_port}/metrics"
        for _ in range(3):
            with self.assertRaises((OSError, http.client.HTTPException)):
                urllib.request.urlopen(url, timeout=5).read()

    def test_token_works_without_tls(self):
        s, pb = self.stub, self.pb
        self.assertEqual(self.code_of(s.ModelInfer, self.infer_request()), grpc.StatusCode.UNAUTHENTICATED)
        self.assertEqual(self.code_of(s.ModelInfer, self.infer_request(), metadata=bearer(INFERENCE_TOKEN)),
                         grpc.StatusCode.OK)
        self.assertEqual(self.code_of(s.LogSettings, pb.LogSettingsRequest(), metadata=bearer(INFERENCE_TOKEN)),
                         grpc.StatusCode.PERMISSION_DENIED)


if __name__ == "__main__":
    unittest.main()
