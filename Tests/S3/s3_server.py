#!/usr/bin/env python3
"""The real S3 servers the backup tests talk to, on 127.0.0.1.

serve: runs `rclone serve s3` (objects are files under ROOT/BUCKET/KEY; SigV4 checked against --auth-key) or
moto's server (in memory; with --auth, keys checked: moto enforces IAM once its first requests have made a user and
its key). Creates the bucket, prints one JSON line {"access_key", "secret_key"} when ready, and runs until killed
(moto's child dies with it).
list: prints {key: {"size", "sha256"}} of every object in the bucket, read back with boto3.
uploads: prints the keys of the multipart uploads still open in the bucket.
create-bucket: makes the bucket.
"""
import argparse
import ctypes
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request


def client(port, key, secret):
    import boto3
    from botocore.config import Config
    return boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", aws_access_key_id=key,
                        aws_secret_access_key=secret, region_name="us-east-1",
                        config=Config(s3={"addressing_style": "path"}, signature_version="s3v4",
                                      retries={"max_attempts": 1}))


def die_with_parent():
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def wait_for(url, child, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if child.poll() is not None:
            sys.exit(f"the server exited ({child.returncode})")
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            time.sleep(0.1)
    sys.exit("the server did not answer in time")


def serve_rclone(args):
    os.makedirs(os.path.join(args.root, args.bucket), exist_ok=True)
    # rclone's defaults: with `--dir-cache-time 0s` a client that died in the middle of a part blocked the whole
    # server (1.75.2: HEAD on the bucket timed out after 120 s), and with `--vfs-cache-mode writes` a PUT took 49 s.
    child = subprocess.Popen(["rclone", "serve", "s3", "--auth-key", f"{args.key},{args.secret}",
                              "--addr", f"127.0.0.1:{args.port}", args.root],
                             stdout=subprocess.DEVNULL, stderr=sys.stderr, preexec_fn=die_with_parent)
    wait_for(f"http://127.0.0.1:{args.port}/", child)
    return child, args.key, args.secret


def serve_moto(args):
    env = dict(os.environ)
    if args.auth:
        # Moto checks keys once its first N requests are done: those make the user, its policy and its key.
        env["INITIAL_NO_AUTH_ACTION_COUNT"] = "3"
    child = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(args.port)], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
    wait_for(f"http://127.0.0.1:{args.port}/moto-api/", child)  # moto's own API does not count as a request
    key, secret = args.key, args.secret
    if args.auth:
        import boto3
        iam = boto3.client("iam", endpoint_url=f"http://127.0.0.1:{args.port}", aws_access_key_id="bootstrap",
                           aws_secret_access_key="bootstrap", region_name="us-east-1")
        iam.create_user(UserName="appliance")
        iam.put_user_policy(UserName="appliance", PolicyName="all", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        made = iam.create_access_key(UserName="appliance")["AccessKey"]
        key, secret = made["AccessKeyId"], made["SecretAccessKey"]
    client(args.port, key, secret).create_bucket(Bucket=args.bucket)
    return child, key, secret


def serve(args):
    child, key, secret = (serve_rclone if args.kind == "rclone" else serve_moto)(args)
    print(json.dumps({"access_key": key, "secret_key": secret}), flush=True)
    signal.signal(signal.SIGTERM, lambda *_: (child.kill(), sys.exit(0)))
    sys.exit(child.wait())


def list_objects(args):
    s3 = client(args.port, args.key, args.secret)
    result = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=args.bucket):
        for item in page.get("Contents", []):
            body = s3.get_object(Bucket=args.bucket, Key=item["Key"])["Body"].read()
            result[item["Key"]] = {"size": len(body), "sha256": hashlib.sha256(body).hexdigest()}
    print(json.dumps(result))


def open_uploads(args):
    answer = client(args.port, args.key, args.secret).list_multipart_uploads(Bucket=args.bucket)
    print(json.dumps([upload["Key"] for upload in answer.get("Uploads", [])]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["serve", "list", "uploads", "create-bucket"])
    parser.add_argument("--kind", choices=["rclone", "moto"], default="rclone")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--root", default="")
    parser.add_argument("--bucket", default="backup")
    parser.add_argument("--key", default="appliance-key")
    parser.add_argument("--secret", default="appliance-secret")
    parser.add_argument("--auth", action="store_true", help="moto: check keys")
    args = parser.parse_args()
    if args.command == "serve":
        serve(args)
    elif args.command == "list":
        list_objects(args)
    elif args.command == "uploads":
        open_uploads(args)
    else:
        client(args.port, args.key, args.secret).create_bucket(Bucket=args.bucket)


if __name__ == "__main__":
    main()
