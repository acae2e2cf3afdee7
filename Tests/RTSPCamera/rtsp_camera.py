#!/usr/bin/python3
"""An IP camera for the tests: gst-rtsp-server (not the appliance's) serving H.264 video and AAC sound at
rtsp://127.0.0.1:PORT/live, optionally behind a user name and password (Digest, as most cameras ask, or Basic), on loopback only.

Prints "ready PORT" on stdout (and writes PORT to --ready-file) once it listens; runs until SIGTERM or SIGINT. Its picture is videotestsrc's `pattern`
(the tests tell it from the appliance's black filler) at the size and rate given, its sound a sine at --tone Hz. With --file it serves an MP4's
H.264 and AAC as they are instead (once through, from the start for the first client): a clip whose picture and sound were made together.
"""
import argparse
import os
import signal
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtsp", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402


def launch_line(args):
    if args.file:
        sound = "d.audio_0 ! queue ! aacparse ! rtpmp4gpay name=pay1 pt=97 " if args.audio else ""
        return (f"( filesrc location={args.file} ! qtdemux name=d d.video_0 ! queue ! h264parse ! rtph264pay name=pay0 pt=96 config-interval=1 "
                f"{sound})")
    video = (f"videotestsrc is-live=true pattern={args.pattern} ! video/x-raw,width={args.width},height={args.height},"
             f"framerate={args.fps}/1 ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max={args.gop or args.fps} "
             f"{'option-string=scenecut=0 ' if args.gop else ''}"
             f"bitrate=800 ! video/x-h264,profile=baseline ! rtph264pay name=pay0 pt=96 config-interval=1")
    if args.codec == "h265":
        video = video.replace("x264enc tune=zerolatency speed-preset=ultrafast", "x265enc tune=zerolatency speed-preset=ultrafast") \
            .replace("key-int-max", "key-int-max").replace("video/x-h264,profile=baseline ! rtph264pay", "video/x-h265 ! rtph265pay")
    sound = f"audiotestsrc is-live=true wave=sine freq={args.tone} ! audioconvert ! avenc_aac ! rtpmp4gpay name=pay1 pt=97"
    return f"( {video} {sound if args.audio else ''} )"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--user", default="")
    parser.add_argument("--password", default="")
    parser.add_argument("--auth", default="digest", choices=["digest", "basic"])
    parser.add_argument("--pattern", default="smpte")
    parser.add_argument("--width", type=int, default=320)
    parser.add_argument("--height", type=int, default=240)
    parser.add_argument("--fps", type=int, default=10)
    parser.add_argument("--gop", type=int, default=0, help="frames from one keyframe to the next (default: a second's)")
    parser.add_argument("--codec", default="h264", choices=["h264", "h265"])
    parser.add_argument("--no-audio", dest="audio", action="store_false")
    parser.add_argument("--tone", type=int, default=440, help="the sound's frequency in Hz")
    parser.add_argument("--file", default="", help="serve this MP4's H.264 and AAC instead of the test picture and tone")
    parser.add_argument("--ready-file", default="", help="written with the port once the server listens")
    args = parser.parse_args()

    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(args.port))
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(launch_line(args))
    factory.set_shared(True)
    if args.user:
        auth = GstRtspServer.RTSPAuth()
        auth.set_supported_methods(GstRtsp.RTSPAuthMethod.DIGEST if args.auth == "digest" else GstRtsp.RTSPAuthMethod.BASIC)
        token = GstRtspServer.RTSPToken()
        token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, "camera-user")
        auth.add_basic(GstRtspServer.RTSPAuth.make_basic(args.user, args.password), token)
        auth.add_digest(args.user, args.password, token)
        server.set_auth(auth)
        permissions = GstRtspServer.RTSPPermissions()
        permissions.add_permission_for_role("camera-user", GstRtspServer.RTSP_PERM_MEDIA_FACTORY_ACCESS, True)
        permissions.add_permission_for_role("camera-user", GstRtspServer.RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, True)
        factory.set_permissions(permissions)
    server.get_mount_points().add_factory("/live", factory)
    if server.attach(None) == 0:
        print(f"cannot listen on 127.0.0.1:{args.port}", file=sys.stderr)
        sys.exit(1)
    loop = GLib.MainLoop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, loop.quit)
    print(f"ready {server.get_bound_port()}", flush=True)
    if args.ready_file:
        with open(args.ready_file + ".tmp", "w") as ready:
            ready.write(f"{server.get_bound_port()}\n")
        os.rename(args.ready_file + ".tmp", args.ready_file)
    loop.run()


if __name__ == "__main__":
    main()
