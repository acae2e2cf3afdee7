#!/usr/bin/env python3
"""A /api/events client that falls behind: it connects with a small receive buffer and reads nothing while the
clip is renamed `--renames` times with a long title (each `renamed` event carries it), then reads to the end.
Prints JSON: how many `renamed` events arrived, whether `event: dropped` came with its reason, and whether the
server closed the stream."""
import argparse
import http.client
import json
import re
import socket
import time
import urllib.parse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--clip", required=True)
    parser.add_argument("--renames", type=int, default=300)
    parser.add_argument("--title-bytes", type=int, default=490, help="characters after the number")
    parser.add_argument("--title-char", default="x", help="the character they repeat (a 4-byte one makes big events)")
    args = parser.parse_args()
    target = urllib.parse.urlparse(args.url)
    slow = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.connect((target.hostname, target.port))
    slow.sendall(f"GET /api/events HTTP/1.1\r\nHost: {target.netloc}\r\nAuthorization: Bearer {args.token}\r\n\r\n".encode())
    # Subscribed before the events start: the stream's first line has come (then nothing more is read for a while).
    head = b""
    slow.settimeout(10)
    while b": connected" not in head:
        chunk = slow.recv(4096)
        if not chunk:
            raise SystemExit(f"the stream ended before it started: {head[:300]!r}")
        head += chunk
    api = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    started = time.monotonic()
    for n in range(args.renames):
        title = f"{n:05d} " + args.title_char * args.title_bytes
        body = json.dumps({"title": title})
        api.request("POST", f"/api/recordings/{args.clip}/rename", body=body,
                    headers={"Authorization": f"Bearer {args.token}", "Content-Type": "application/json"})
        answer = api.getresponse()
        text = answer.read()
        if answer.status != 200:
            raise SystemExit(f"rename {n}: {answer.status} {text[:300]!r}")
    renaming_s = time.monotonic() - started
    # To the end of the stream, or 20 s without a byte (a zero window's probes back off: the first bytes after a long
    # stall may take seconds), or 90 s in all (an open stream sends a comment every 15 s).
    slow.settimeout(20)
    received = bytearray(head)
    closed = False
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            chunk = slow.recv(1 << 20)
        except socket.timeout:
            break
        if not chunk:
            closed = True
            break
        received += chunk
    text = received.decode("utf-8", "replace")
    # The body is chunked (HTTP/1.1): look for the event's lines, not for whole blocks.
    dropped = re.findall(r"event: dropped\r?\ndata: [^\r\n]*", text)
    numbers = [int(n) for n in re.findall(r'"title":"(\d{5}) ', text)]
    gaps = [(a, b) for a, b in zip(numbers, numbers[1:]) if b != a + 1]
    print(json.dumps({"renamed": text.count("event: renamed"), "first": numbers[:1], "last": numbers[-1:], "gaps": gaps[:5], "dropped": dropped[:1], "closed": closed,
                      "bytes": len(received), "renaming_s": round(renaming_s, 1)}))


main()
