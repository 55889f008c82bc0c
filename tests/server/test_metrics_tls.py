#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""vkserve's HTTPS metrics endpoint (metrics.tls), end to end (run by CTest).

Clients are Python's ssl, http.client and urllib; certificates are made at
test time with the openssl command (test_security.py's helpers). Four
`vkserve serve` processes on loopback (gRPC plaintext):

  TlsMetricsTest: metrics.tls without client_ca, allowed_networks including
    loopback. The scrape over HTTPS carries the metric families
    docs/observability.md lists, and the same families, help texts and
    series as a fourth server's plain-HTTP scrape; plaintext HTTP and clients trusting another
    CA fail; other paths, methods, oversized and malformed requests get
    404/405/431/400; SIGHUP with a mismatched key is refused (old certificate
    stays), with a new pair serves the new certificate (new serial); idle,
    never-handshaking and byte-at-a-time clients do not block a scrape, more
    of them than max_connections only delay it, and they are cut off after
    request_timeout_ms; bad metrics.tls files fail start-up naming the field.
  MutualTlsMetricsTest: with client_ca: a client certificate from that CA
    scrapes; none, or one from another CA, is refused.
  AclTlsMetricsTest: allowed_networks without loopback: a loopback client is
    disconnected.

Fails without grpc/numpy or the openssl command.
"""
import http.client
import os
import re
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
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Helpers only (no TestCase: unittest would run those tests here too).
from test_security import (CLIENT_EXT, OPENSSL, READY_SECONDS, SERVER_EXT, SecureServer,  # noqa: E402
                           make_ca, make_cert, read)
from test_python_client import ROOT, free_port, generate_stubs  # noqa: E402

TIMEOUT_MS = 2000  # metrics.request_timeout_ms of every server here


def documented_families():
    """The metric names docs/observability.md's table lists."""
    with open(os.path.join(ROOT, "docs/observability.md")) as f:
        return set(re.findall(r"^\| `(vkserve_[a-z_]+)` \|", f.read(), re.MULTILINE))


def client_context(ca, client=None):
    ctx = ssl.create_default_context(cafile=ca)
    if client is not None:
        ctx.load_cert_chain(client[0], client[1])
    return ctx


def serial_of_der(der):
    run = subprocess.run([OPENSSL, "x509", "-inform", "DER", "-noout", "-serial"], input=der,
                         capture_output=True, check=True, timeout=30)
    return run.stdout.decode().strip()


class MetricsServer(SecureServer):
    """A server with gRPC plaintext and `metrics_body` in its metrics section."""

    def __init__(self, tmp, metrics_body):
        super().__init__(tmp, {"grpc": "", "auth": ""},
                         metrics=f"request_timeout_ms: {TIMEOUT_MS} {metrics_body}")

    def wait_metrics(self):
        """Until the metrics port accepts TCP connections (it opens last)."""
        end = time.monotonic() + READY_SECONDS
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("vkserve exited: " + self.output()[-3000:])
            try:
                socket.create_connection(("127.0.0.1", self.metrics_port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the metrics port did not open: " + self.output()[-3000:])


class MetricsTlsBase(unittest.TestCase):
    server = None

    @classmethod
    def start(cls, prefix, metrics_body_of):
        cls.tmp = tempfile.mkdtemp(prefix=prefix)
        cls.pb, cls.pb_grpc, _, _ = generate_stubs(cls.tmp)
        cls.ca = make_ca(cls.tmp, "server-ca")
        cls.other_ca = make_ca(cls.tmp, "other-ca")
        cls.cert = make_cert(cls.tmp, "server", cls.ca, SERVER_EXT)
        cls.cert_path, cls.key_path = os.path.join(cls.tmp, "tls.crt"), os.path.join(cls.tmp, "tls.key")
        shutil.copy(cls.cert[0], cls.cert_path)
        shutil.copy(cls.cert[1], cls.key_path)
        cls.server = MetricsServer(cls.tmp, metrics_body_of(cls))
        cls.server.wait_metrics()

    @classmethod
    def tearDownClass(cls):
        code = cls.server.stop()
        log = cls.server.output()
        sys.path.remove(cls.tmp)
        shutil.rmtree(cls.tmp, ignore_errors=True)
        assert code == 0, f"vkserve exited {code}: {log[-3000:]}"

    def url(self, scheme="https", host="localhost", path="/metrics"):
        return f"{scheme}://{host}:{self.server.metrics_port}{path}"

    def scrape(self, context, timeout=10):
        """(status, content type, body) of GET /metrics over HTTPS."""
        with urllib.request.urlopen(self.url(), context=context, timeout=timeout) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()

    def assert_refused(self, context):
        with self.assertRaises((OSError, http.client.HTTPException)):
            self.scrape(context, timeout=5)


def tls_metrics(cls, client_ca=None, networks='["192.168.0.0/16", "127.0.0.0/8"]'):
    ca = f' client_ca: "{client_ca}"' if client_ca else ""
    return (f'allowed_networks: {networks} '
            f'tls {{ certificate: "{cls.cert_path}" private_key: "{cls.key_path}"{ca} }}')


def series(body):
    """The series a scrape carries: each sample line without its value."""
    return {line.rsplit(" ", 1)[0] for line in body.splitlines() if line and not line.startswith("#")}


class TlsMetricsTest(MetricsTlsBase):
    @classmethod
    def setUpClass(cls):
        cls.start("vkserve_mtls_metrics_", tls_metrics)
        # The same repository served with plain-HTTP metrics, to compare the
        # content with.
        cls.plain_tmp = tempfile.mkdtemp(prefix="vkserve_mtls_metrics_plain_")
        cls.plain = MetricsServer(cls.plain_tmp, "")
        cls.plain.wait_metrics()

    @classmethod
    def tearDownClass(cls):
        code = cls.plain.stop()
        log = cls.plain.output()
        shutil.rmtree(cls.plain_tmp, ignore_errors=True)
        super().tearDownClass()
        assert code == 0, f"vkserve exited {code}: {log[-3000:]}"

    def raw_request(self, request, read_limit=1 << 20):
        """Sends `request` over TLS; returns everything the server answers."""
        ctx = client_context(self.ca[0])
        with socket.create_connection(("127.0.0.1", self.server.metrics_port), timeout=10) as raw:
            with ctx.wrap_socket(raw, server_hostname="localhost") as s:
                s.sendall(request)
                data = b""
                while len(data) < read_limit:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                return data

    def served_certificate(self):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        with socket.create_connection(("127.0.0.1", self.server.metrics_port), timeout=5) as raw:
            with ctx.wrap_socket(raw) as s:
                return s.getpeercert(binary_form=True)

    # -- content -----------------------------------------------------------------

    def test_https_scrape_serves_what_the_plain_endpoint_does(self):
        status, content_type, body = self.scrape(client_context(self.ca[0]))
        self.assertEqual(status, 200)
        self.assertTrue(content_type.startswith("text/plain"), content_type)
        families = set(re.findall(r"^# TYPE (\S+) ", body, re.MULTILINE))
        # The documented families, and prometheus-cpp's own exposer_* ones
        # (docs/observability.md mentions them).
        self.assertEqual(families, documented_families() | {
            "exposer_transferred_bytes_total", "exposer_scrapes_total", "exposer_request_latencies"})
        plain_url = f"http://127.0.0.1:{self.plain.metrics_port}/metrics"
        with urllib.request.urlopen(plain_url, timeout=10) as r:
            plain = r.read().decode()
        self.assertEqual(set(re.findall(r"^# (?:TYPE|HELP) .*$", body, re.MULTILINE)),
                         set(re.findall(r"^# (?:TYPE|HELP) .*$", plain, re.MULTILINE)))
        self.assertEqual(series(body), series(plain))
        self.assertIn('vkserve_requests_total{model="tinynet"', body)
        self.assertRegex(body, r'vkserve_build_info\{[^}]*\} 1\n')

    def test_plaintext_client_is_refused(self):
        with self.assertRaises((OSError, http.client.HTTPException)):
            urllib.request.urlopen(self.url(scheme="http", host="127.0.0.1"), timeout=5).read()
        with socket.create_connection(("127.0.0.1", self.server.metrics_port), timeout=5) as s:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                answer = s.recv(65536)
            except OSError:
                answer = b""
            self.assertNotIn(b"vkserve_", answer)
            self.assertFalse(answer.startswith(b"HTTP/"), answer[:100])

    def test_client_trusting_another_ca_is_refused(self):
        with self.assertRaises(urllib.error.URLError) as e:
            self.scrape(client_context(self.other_ca[0]))
        self.assertIsInstance(e.exception.reason, ssl.SSLCertVerificationError)

    def test_http_errors(self):
        def status(request):
            answer = self.raw_request(request)
            return answer.split(b"\r\n", 1)[0], answer

        line, answer = status(b"GET /metrics?x=1 HTTP/1.0\r\n\r\n")
        self.assertEqual(line, b"HTTP/1.1 200 OK")
        self.assertIn(b"\r\nConnection: close\r\n", answer)
        self.assertIn(b"vkserve_build_info", answer)
        self.assertEqual(status(b"GET /other HTTP/1.1\r\nHost: x\r\n\r\n")[0], b"HTTP/1.1 404 Not Found")
        line, answer = status(b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        self.assertEqual(line, b"HTTP/1.1 405 Method Not Allowed")
        self.assertIn(b"\r\nAllow: GET\r\n", answer)
        huge = b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n"
        self.assertEqual(status(huge)[0], b"HTTP/1.1 431 Request Header Fields Too Large")
        for bad in [b"garbage\r\n\r\n", b"GET /metrics HTTP/2\r\n\r\n", b"GET  /metrics HTTP/1.1\r\n\r\n",
                    b"GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n", b"G\x00T /metrics HTTP/1.1\r\n\r\n"]:
            self.assertEqual(status(bad)[0], b"HTTP/1.1 400 Bad Request", bad)

    # -- rotation -----------------------------------------------------------------

    def wait_log(self, text, count):
        end = time.monotonic() + 10
        while time.monotonic() < end:
            if self.server.output().count(text) >= count:
                return True
            time.sleep(0.1)
        return False

    def test_sighup_serves_a_rotated_certificate(self):
        old = self.served_certificate()
        self.assertEqual(old, ssl.PEM_cert_to_DER_cert(read(self.cert_path).decode()))
        # A key that does not match: refused, the old certificate stays.
        mismatched = make_cert(self.tmp, "server-mismatch", self.ca, SERVER_EXT)
        shutil.copy(mismatched[1], self.key_path)
        self.server.proc.send_signal(signal.SIGHUP)
        self.assertTrue(self.wait_log("metrics TLS reload failed", 1), self.server.output()[-3000:])
        self.assertIn("metrics.tls.private_key", self.server.output())
        self.assertEqual(self.served_certificate(), old)
        self.assertEqual(self.scrape(client_context(self.ca[0]))[0], 200)
        # A new pair: served from the next connection on.
        rotated = make_cert(self.tmp, "server-rotated", self.ca, SERVER_EXT)
        shutil.copy(rotated[0], self.cert_path)
        shutil.copy(rotated[1], self.key_path)
        self.server.proc.send_signal(signal.SIGHUP)
        self.assertTrue(self.wait_log("metrics TLS reloaded", 1), self.server.output()[-3000:])
        served = self.served_certificate()
        self.assertEqual(served, ssl.PEM_cert_to_DER_cert(read(rotated[0]).decode()))
        self.assertNotEqual(serial_of_der(served), serial_of_der(old))
        self.assertEqual(self.scrape(client_context(self.ca[0]))[0], 200)

    def test_bad_tls_files_fail_start_up_naming_the_field(self):
        other = make_cert(self.tmp, "server-other", self.ca, SERVER_EXT)
        binary = os.path.join(os.environ.get("VKSERVE_BINARY_DIR", os.path.join(ROOT, "build")), "vkserve")
        config = os.path.join(self.tmp, "bad.pbtxt")
        for key, expected in [(other[1], "metrics.tls.private_key"), (self.ca[0], "no unencrypted PEM")]:
            with open(config, "w") as f:
                f.write(f'grpc {{ port: {free_port()} }}\nmetrics {{ port: {free_port()} tls {{ '
                        f'certificate: "{self.cert[0]}" private_key: "{key}" }} }}\n')
            run = subprocess.run([binary, "serve", "--config", config], capture_output=True, text=True,
                                 timeout=60)
            self.assertEqual(run.returncode, 1, run.stderr)
            self.assertIn(expected, run.stderr)

    # -- slow and idle clients ------------------------------------------------------

    def open_idle(self, n):
        """n TCP connections that never start the handshake."""
        return [socket.create_connection(("127.0.0.1", self.server.metrics_port), timeout=10)
                for _ in range(n)]

    def start_slow(self, n, stop, seconds=8.0):
        """n TLS clients sending a request one byte every 0.2 s (never ending
        it); returns (threads, times at which each was cut off)."""
        cut_off = []

        def slow():
            request = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
            start = time.monotonic()
            try:
                with socket.create_connection(("127.0.0.1", self.server.metrics_port), timeout=5) as raw:
                    with client_context(self.ca[0]).wrap_socket(raw, server_hostname="localhost") as s:
                        for byte in request:
                            if stop.is_set() or time.monotonic() - start > seconds:
                                return
                            s.sendall(bytes([byte]))
                            time.sleep(0.2)
            except OSError:
                cut_off.append(time.monotonic() - start)  # the server closed the connection

        threads = [threading.Thread(target=slow, daemon=True) for _ in range(n)]
        for t in threads:
            t.start()
        return threads, cut_off

    def timed_scrape(self, timeout):
        start = time.monotonic()
        status, _, body = self.scrape(client_context(self.ca[0]), timeout=timeout)
        self.assertEqual(status, 200)
        self.assertIn("vkserve_build_info", body)
        return time.monotonic() - start

    def test_idle_and_slow_clients_do_not_block_a_scrape(self):
        stop = threading.Event()
        idle = self.open_idle(4)
        threads, _ = self.start_slow(3, stop)
        try:
            time.sleep(0.5)  # every attacker connected (8 slots: room for the scrape)
            self.assertLess(self.timed_scrape(timeout=5), TIMEOUT_MS / 1000 * 0.75)
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=10)
            for s in idle:
                s.close()

    def test_more_attackers_than_connections_only_delay_a_scrape(self):
        # 8 slots (the default), 12 idle connections first: the scrape waits
        # in the accept queue until the deadline frees slots (about 2 s).
        idle = self.open_idle(12)
        try:
            time.sleep(0.2)
            self.assertLess(self.timed_scrape(timeout=10), 2.5 * TIMEOUT_MS / 1000)
        finally:
            for s in idle:
                s.close()

    def test_idle_and_slow_clients_are_cut_off(self):
        stop = threading.Event()
        threads, cut_off = self.start_slow(1, stop, seconds=8.0)
        [idle] = self.open_idle(1)
        start = time.monotonic()
        self.assertEqual(idle.recv(1), b"")  # closed by the server, handshake never begun
        self.assertLess(time.monotonic() - start, 2 * TIMEOUT_MS / 1000)
        idle.close()
        for t in threads:
            t.join(timeout=12)
        self.assertEqual(len(cut_off), 1, "a byte-at-a-time client kept its connection for 8 s")
        self.assertLess(cut_off[0], 2 * TIMEOUT_MS / 1000)


class MutualTlsMetricsTest(MetricsTlsBase):
    @classmethod
    def setUpClass(cls):
        def body(c):
            client_ca = make_ca(c.tmp, "client-ca")
            c.client = make_cert(c.tmp, "scraper", client_ca, CLIENT_EXT)
            c.foreign = make_cert(c.tmp, "foreign", make_ca(c.tmp, "foreign-ca"), CLIENT_EXT)
            return tls_metrics(c, client_ca=client_ca[0])
        cls.start("vkserve_mtls_metrics_mutual_", body)

    def test_client_certificate_from_the_ca_scrapes(self):
        status, _, body = self.scrape(client_context(self.ca[0], self.client))
        self.assertEqual(status, 200)
        self.assertIn("vkserve_build_info", body)

    def test_clients_without_a_trusted_certificate_are_refused(self):
        self.assert_refused(client_context(self.ca[0]))
        self.assert_refused(client_context(self.ca[0], self.foreign))
        self.assert_refused(client_context(self.ca[0], self.cert))  # the server's own: another CA
        self.assertIn("client certificates required", self.server.output())


class AclTlsMetricsTest(MetricsTlsBase):
    @classmethod
    def setUpClass(cls):
        cls.start("vkserve_mtls_metrics_acl_", lambda c: tls_metrics(c, networks='"10.0.0.0/8"'))

    def test_clients_outside_the_allowed_networks_are_disconnected(self):
        for _ in range(3):
            self.assert_refused(client_context(self.ca[0]))
        # Closed before the handshake: the client sees no certificate.
        with socket.create_connection(("127.0.0.1", self.server.metrics_port), timeout=5) as s:
            self.assertEqual(s.recv(1), b"")


if __name__ == "__main__":
    unittest.main()
