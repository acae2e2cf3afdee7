#!/usr/bin/env python3
"""An ONVIF Profile T client talking to the device over RTSP's audio backchannel, as go2rtc and NVRs do: rtspsrc
with `backchannel=onvif` (its DESCRIBE carries `Require: www.onvif.org/ver20/backchannel`), the picture and sound
it receives dropped, and a tone sent on the backchannel stream the server offers (G.711 µ-law, what ONVIF requires).

    backchannel_client.py rtsp://127.0.0.1:8554/live --user appliance --password-file F --tone 1000 --seconds 3

Prints `backchannel: stream N CAPS` when the server offered one, `sent: K buffers` at the end; exits 2 when the
server offered no backchannel, 1 on an error.
"""
import argparse
import ctypes
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--user")
    ap.add_argument("--password-file")
    ap.add_argument("--tone", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    Gst.init(None)
    pipeline = Gst.Pipeline.new("client")
    source = Gst.ElementFactory.make("rtspsrc", "r")
    source.set_property("location", args.url)
    source.set_property("backchannel", "onvif")
    source.set_property("latency", 100)
    if args.user:
        source.set_property("user-id", args.user)
        with open(args.password_file) as f:
            source.set_property("user-pw", f.read().strip())
    pipeline.add(source)
    state = {"stream": None, "sent": 0, "back": None, "error": None}

    def pad_added(_, pad):
        sink = Gst.ElementFactory.make("fakesink", None)
        sink.set_property("async", False)
        pipeline.add(sink)
        sink.sync_state_with_parent()
        pad.link(sink.get_static_pad("sink"))

    # rtspsrc 1.22.0's push-backchannel-sample still takes the caller's reference (fixed later; its C example then
    # unrefs the sample itself): one more reference, so that the binding's own unref stays balanced.
    gstreamer = ctypes.CDLL("libgstreamer-1.0.so.0")
    gstreamer.gst_mini_object_ref.argtypes = [ctypes.c_void_p]
    gstreamer.gst_mini_object_ref.restype = ctypes.c_void_p
    takes_reference = Gst.version() < (1, 22, 1, 0)

    def new_sample(appsink):
        sample = appsink.emit("pull-sample")
        if sample is not None and state["stream"] is not None:
            if takes_reference:
                gstreamer.gst_mini_object_ref(hash(sample))  # PyGObject's hash of a boxed value is its pointer
            result = source.emit("push-backchannel-sample", state["stream"], sample)
            if state["sent"] == 0 and result != Gst.FlowReturn.OK:
                state["refused"] = state.get("refused", 0) + 1
            if result == Gst.FlowReturn.OK:
                state["sent"] += 1
                if state["sent"] == 1:  # the server takes it: send for `seconds` from now
                    GLib.timeout_add(int(args.seconds * 1000), loop.quit)
        return Gst.FlowReturn.OK

    def select_stream(_, index, caps):
        structure = caps.get_structure(0)
        if structure.has_field("a-sendonly"):
            state["stream"] = index
            wanted = Gst.Structure.new_empty("application/x-rtp")
            for field in ("media", "payload", "clock-rate", "encoding-name"):
                if structure.has_field(field):
                    wanted.set_value(field, structure.get_value(field))
            print(f"backchannel: stream {index} {wanted.to_string()}", flush=True)
            back = Gst.parse_launch(f"audiotestsrc is-live=true wave=sine freq={args.tone} volume=0.5 ! "
                                    "audio/x-raw,rate=8000,channels=1 ! mulawenc ! rtppcmupay ! appsink name=out emit-signals=true")
            out = back.get_by_name("out")
            out.set_property("caps", Gst.Caps.from_string(wanted.to_string()))
            out.connect("new-sample", new_sample)
            state["back"] = back
            back.set_state(Gst.State.PLAYING)
        return True

    source.connect("pad-added", pad_added)
    source.connect("select-stream", select_stream)
    loop = GLib.MainLoop()
    bus = pipeline.get_bus()
    bus.add_signal_watch()

    def on_message(_, message):
        if message.type == Gst.MessageType.ERROR:
            error, _ = message.parse_error()
            state["error"] = error.message
            loop.quit()

    bus.connect("message", on_message)
    pipeline.set_state(Gst.State.PLAYING)
    GLib.timeout_add(int((args.seconds + 20) * 1000), loop.quit)
    loop.run()
    if state["back"] is not None:
        state["back"].set_state(Gst.State.NULL)
    pipeline.set_state(Gst.State.NULL)
    print(f"sent: {state['sent']} buffers ({state.get('refused', 0)} refused before the first)", flush=True)
    if state["error"]:
        print(f"error: {state['error']}", file=sys.stderr)
        return 1
    return 0 if state["stream"] is not None else 2


if __name__ == "__main__":
    sys.exit(main())
