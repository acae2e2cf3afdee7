#!/usr/bin/env python3
"""Guesses an account's password with hydra (Debian's thc-hydra) at a running appliance's RTSP server and web login,
each for SECONDS, and reports as one JSON line what the daemon checked (its /metrics counters before and after), what
hydra found, and whether the account's owner, from an address that signed in before, still gets in at once.

    guessing.py --web http://127.0.0.1:PORT --rtsp rtsp://127.0.0.1:PORT/live --token TOKEN --user anna
                --password RIGHT [--seconds 60]

hydra's rtsp module asks for `rtsp://host:port` only; a small proxy here rewrites that URL (in the request line and
in the Digest `uri`) to the mount, byte for byte, so that hydra's own Digest answers are checked by the server as
sent. The word list puts the right password 40th: a door that answers as fast as it is asked gives it away in
seconds. The owner is 127.0.0.2 (the attack comes from 127.0.0.1): it signs in once before the attack, then again
after each one, over the web (curl --interface) and over RTSP (a Digest exchange from a socket bound to it).
"""
import argparse
import hashlib
import json
import re
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from urllib.parse import urlparse

OWNER = "127.0.0.2"


def metrics(web, token):
    request = urllib.request.Request(web + "/metrics", headers={"Authorization": "Bearer " + token})
    text = urllib.request.urlopen(request, timeout=10).read().decode()
    counts = {}
    for outcome in ("passed", "failed", "refused"):
        match = re.search(r'appliance_credential_checks_total\{outcome="%s"\} (\d+)' % outcome, text)
        counts[outcome] = int(match.group(1)) if match else 0
    match = re.search(r"^appliance_credential_locks_total (\d+)", text, re.M)
    counts["locks"] = int(match.group(1)) if match else 0
    return counts


def delta(before, after):
    return {key: after[key] - before[key] for key in before}


class RewritingProxy(threading.Thread):
    """Listens on 127.0.0.1:<free port>; forwards each connection to the RTSP server with `rtsp://127.0.0.1:P`
    (P: this proxy's port) replaced by the real mount's URL, and the answers back unchanged."""

    def __init__(self, target):
        super().__init__(daemon=True)
        self.target = target
        parsed = urlparse(target)
        self.upstream = (parsed.hostname, parsed.port)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.old = ("rtsp://127.0.0.1:%d" % self.port).encode()

    def run(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(client,), daemon=True).start()

    def serve(self, client):
        try:
            server = socket.create_connection(self.upstream, timeout=30)
        except OSError:
            client.close()
            return

        def back():
            try:
                while data := server.recv(65536):
                    client.sendall(data)
            except OSError:
                pass
            client.close()

        threading.Thread(target=back, daemon=True).start()
        try:
            while data := client.recv(65536):
                for end in (b" ", b'"', b"/ ", b'/"'):
                    data = data.replace(self.old + end, self.target.encode() + end[-1:])
                server.sendall(data)
        except OSError:
            pass
        server.close()


def run_hydra(arguments, seconds):
    started = time.monotonic()
    # hydra writes hydra.restore into its working folder: a scratch one.
    with tempfile.TemporaryDirectory() as scratch:
        result = subprocess.run(["timeout", str(seconds), "hydra"] + arguments, capture_output=True, text=True, cwd=scratch)
    found = re.findall(r"password: (\S+)", result.stdout)
    return {"seconds": round(time.monotonic() - started, 1), "found": found, "exit": result.returncode}


def web_login(web, user, password, source):
    """A login from `source` (curl --interface): (status, seconds)."""
    result = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "--max-time", "15",
                             "--interface", source, "--data-urlencode", "user=" + user, "--data-urlencode", "password=" + password,
                             web + "/login"], capture_output=True, text=True)
    code, seconds = (result.stdout.split() + ["0", "0"])[:2]
    return int(code), float(seconds)


def rtsp_describe(url, user, password, source):
    """A Digest DESCRIBE from `source`: (status, seconds)."""
    parsed = urlparse(url)
    started = time.monotonic()
    with socket.socket() as s:
        s.settimeout(15)
        s.bind((source, 0))
        s.connect((parsed.hostname, parsed.port))

        def ask(cseq, extra=""):
            s.sendall(("DESCRIBE %s RTSP/1.0\r\nCSeq: %d\r\nAccept: application/sdp\r\n%s\r\n" % (url, cseq, extra)).encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = s.recv(4096)
                if not chunk:
                    break
                head += chunk
            text = head.decode(errors="replace")
            return int(text.split(" ")[1]), text

        status, text = ask(1)
        challenge = re.search(r'WWW-Authenticate: Digest ([^\r\n]*)', text)
        if status == 401 and challenge:
            fields = dict(re.findall(r'(\w+)="([^"]*)"', challenge.group(1)))
            ha1 = hashlib.md5(("%s:%s:%s" % (user, fields["realm"], password)).encode()).hexdigest()
            ha2 = hashlib.md5(("DESCRIBE:%s" % url).encode()).hexdigest()
            response = hashlib.md5(("%s:%s:%s" % (ha1, fields["nonce"], ha2)).encode()).hexdigest()
            header = 'Authorization: Digest username="%s", realm="%s", nonce="%s", uri="%s", response="%s"\r\n' % (
                user, fields["realm"], fields["nonce"], url, response)
            status, _ = ask(2, header)
    return status, round(time.monotonic() - started, 3)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--web", required=True)
    parser.add_argument("--rtsp", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--seconds", type=int, default=60)
    args = parser.parse_args()
    words = ["wrong-%03d" % i for i in range(400)]
    words.insert(39, args.password)
    report = {"owner_before": {"web": web_login(args.web, args.user, args.password, OWNER),
                               "rtsp": rtsp_describe(args.rtsp, args.user, args.password, OWNER)}}
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as wordlist:
        wordlist.write("\n".join(words) + "\n")
        wordlist.flush()
        proxy = RewritingProxy(args.rtsp)
        proxy.start()
        before = metrics(args.web, args.token)
        report["rtsp"] = run_hydra(["-l", args.user, "-P", wordlist.name, "-s", str(proxy.port), "-t", "4", "-I", "-f",
                                    "127.0.0.1", "rtsp"], args.seconds)
        report["rtsp"]["daemon"] = delta(before, metrics(args.web, args.token))
        report["owner_after_rtsp"] = {"rtsp": rtsp_describe(args.rtsp, args.user, args.password, OWNER)}
        web = urlparse(args.web)
        before = metrics(args.web, args.token)
        report["web"] = run_hydra(["-l", args.user, "-P", wordlist.name, "-s", str(web.port), "-t", "4", "-I", "-f",
                                   web.hostname, "http-post-form", "/login:user=^USER^&password=^PASS^:F=password"], args.seconds)
        report["web"]["daemon"] = delta(before, metrics(args.web, args.token))
        report["owner_after_web"] = {"web": web_login(args.web, args.user, args.password, OWNER),
                                     "rtsp": rtsp_describe(args.rtsp, args.user, args.password, OWNER)}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
