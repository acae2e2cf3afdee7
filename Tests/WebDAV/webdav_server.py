#!/usr/bin/env python3
"""A real WebDAV server for the backup tests: wsgidav (filesystem provider, Basic auth) served by cheroot on
127.0.0.1, wrapped in a small WSGI middleware that injects faults on demand.

    webdav_server.py --root DIR --port N --user U --password P

Control endpoint (no auth), for tests only:
    POST /__control  {"fail": [503, 503], "retry_after": 1, "delay_ms": 0, "rate_kbps": 0, "full": false}
        fail         statuses answered to the next requests, one each (then normal service again)
        retry_after  Retry-After header (seconds) sent with injected failures
        delay_ms     wait before answering every request (a slow server)
        rate_kbps    read request bodies at this rate at most (a slow link)
        full         answer every PUT with 507 Insufficient Storage
    GET /__log       the requests seen so far: [{"method", "path", "status"}]
"""
import argparse
import json
import sys
import threading
import time

from cheroot import wsgi
from wsgidav.wsgidav_app import WsgiDAVApp


class Faults:
    def __init__(self):
        self.lock = threading.Lock()
        self.fail = []
        self.retry_after = None
        self.delay_ms = 0
        self.rate_kbps = 0
        self.full = False
        self.log = []


class ThrottledInput:
    """Reads the request body no faster than `rate_kbps`."""

    def __init__(self, stream, rate_kbps):
        self.stream = stream
        self.bytes_per_second = rate_kbps * 1000 / 8
        self.started = time.monotonic()
        self.read_so_far = 0

    def read(self, size=-1):
        chunk = self.stream.read(min(size, 16384) if size and size > 0 else 16384)
        self.read_so_far += len(chunk)
        ahead = self.read_so_far / self.bytes_per_second - (time.monotonic() - self.started)
        if ahead > 0:
            time.sleep(ahead)
        return chunk

    def readline(self, *args):
        return self.stream.readline(*args)


def middleware(app, faults):
    def handle(environ, start_response):
        path = environ.get("PATH_INFO", "")
        method = environ["REQUEST_METHOD"]
        if path == "/__control" and method == "POST":
            body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            settings = json.loads(body or b"{}")
            with faults.lock:
                faults.fail = list(settings.get("fail", faults.fail))
                faults.retry_after = settings.get("retry_after", faults.retry_after)
                faults.delay_ms = settings.get("delay_ms", faults.delay_ms)
                faults.rate_kbps = settings.get("rate_kbps", faults.rate_kbps)
                faults.full = settings.get("full", faults.full)
            start_response("200 OK", [("Content-Type", "application/json")])
            return [b"{}"]
        if path == "/__log":
            with faults.lock:
                data = json.dumps(faults.log).encode()
            start_response("200 OK", [("Content-Type", "application/json")])
            return [data]

        with faults.lock:
            injected = faults.fail.pop(0) if faults.fail else None
            retry_after, delay, rate, full = faults.retry_after, faults.delay_ms, faults.rate_kbps, faults.full
        if delay:
            time.sleep(delay / 1000)
        if injected is None and full and method == "PUT":
            injected = 507
        if injected is not None:
            # Drain the body so the client sees the answer, not a reset.
            length = int(environ.get("CONTENT_LENGTH") or 0)
            while length > 0:
                chunk = environ["wsgi.input"].read(min(length, 65536))
                if not chunk:
                    break
                length -= len(chunk)
            headers = [("Content-Length", "0")]
            if retry_after is not None and injected != 507:
                headers.append(("Retry-After", str(retry_after)))
            reasons = {401: "Unauthorized", 403: "Forbidden", 429: "Too Many Requests", 500: "Internal Server Error",
                       502: "Bad Gateway", 503: "Service Unavailable", 507: "Insufficient Storage"}
            start_response(f"{injected} {reasons.get(injected, 'Error')}", headers)
            with faults.lock:
                faults.log.append({"method": method, "path": path, "status": injected, "time": time.time()})
            return [b""]
        if rate and "wsgi.input" in environ:
            environ["wsgi.input"] = ThrottledInput(environ["wsgi.input"], rate)

        status_holder = {}

        def recording_start_response(status, headers, exc_info=None):
            status_holder["status"] = int(status.split()[0])
            return start_response(status, headers, exc_info)

        result = app(environ, recording_start_response)
        with faults.lock:
            faults.log.append({"method": method, "path": path, "status": status_holder.get("status"), "time": time.time()})
        return result

    return handle


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--user", default="appliance")
    parser.add_argument("--password", default="secret")
    parser.add_argument("--cert", help="PEM certificate chain: serve HTTPS")
    parser.add_argument("--key", help="PEM private key of --cert")
    args = parser.parse_args()
    config = {
        "host": "127.0.0.1",
        "port": args.port,
        "provider_mapping": {"/dav": args.root},
        "simple_dc": {"user_mapping": {"*": {args.user: {"password": args.password}}}},
        "http_authenticator": {"accept_basic": True, "accept_digest": False, "default_to_digest": False},
        "verbose": 0,
        "logging": {"enable": False},
        "lock_storage": True,
        "property_manager": True,
    }
    app = middleware(WsgiDAVApp(config), Faults())
    server = wsgi.Server(("127.0.0.1", args.port), app, numthreads=8)
    if args.cert:
        from cheroot.ssl.builtin import BuiltinSSLAdapter
        server.ssl_adapter = BuiltinSSLAdapter(args.cert, args.key)
    scheme = "https" if args.cert else "http"
    print(f"webdav serving {args.root} on {scheme}://127.0.0.1:{args.port}/dav", flush=True)
    try:
        server.start()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
