#!/usr/bin/env python3
"""Writes the MP4 seeds of corpus/mp4: small hand-built files in each layout Mp4Finishing handles (README.md).

Run from Tests/Fuzz: python3 make_seeds.py. The files are committed; this says how they were made.
"""
import os
import struct


def box(kind, payload=b""):
    return struct.pack(">I", len(payload) + 8) + kind.encode() + payload


def full(kind, payload=b"", version=0, flags=0):
    return box(kind, struct.pack(">I", version << 24 | flags) + payload)


def trak(track_id, handler, timescale):
    tkhd = full("tkhd", struct.pack(">IIIII", 0, 0, track_id, 0, 0) + bytes(60), flags=3)
    mdhd = full("mdhd", struct.pack(">IIIIHH", 0, 0, timescale, 0, 0x55C4, 0))
    hdlr = full("hdlr", struct.pack(">I", 0) + handler.encode() + bytes(12) + b"x\0")
    entry = box("avc1" if handler == "vide" else "mp4a", bytes(16))
    stsd = full("stsd", struct.pack(">I", 1) + entry)
    stbl = box("stbl", stsd + full("stts", struct.pack(">I", 0)) + full("stsc", struct.pack(">I", 0))
               + full("stsz", struct.pack(">II", 0, 0)) + full("stco", struct.pack(">I", 0)))
    minf = box("minf", full("vmhd" if handler == "vide" else "smhd", bytes(8)) + stbl)
    return box("trak", tkhd + box("mdia", mdhd + hdlr + minf))


def moov(fragmented=True, kind="moov"):
    mvhd = full("mvhd", struct.pack(">IIII", 0, 0, 1000, 0) + bytes(80))
    traks = trak(1, "vide", 90000) + trak(2, "soun", 48000)
    mvex = box("mvex", full("trex", struct.pack(">IIIII", 1, 1, 3000, 0, 0x10000))
               + full("trex", struct.pack(">IIIII", 2, 1, 1024, 0, 0))) if fragmented else b""
    return box(kind, mvhd + traks + mvex)


def fragment(sequence, offset, decode_time):
    """A moof with a video run (sizes, flags of the first) and an audio run (sizes only); then its mdat."""
    video = [40, 12, 12]
    audio = [8, 8]

    def traf(track, sizes, first_flags, run_offset, time):
        tfhd = full("tfhd", struct.pack(">I", track), flags=0x20000)
        tfdt = full("tfdt", struct.pack(">Q", time), version=1)
        flags = 0x1 | 0x200 | (0x4 if first_flags is not None else 0)
        body = struct.pack(">Ii", len(sizes), run_offset)
        if first_flags is not None:
            body += struct.pack(">I", first_flags)
        body += b"".join(struct.pack(">I", s) for s in sizes)
        return box("traf", tfhd + tfdt + full("trun", body, flags=flags))

    def build(video_at, audio_at):
        return box("moof", full("mfhd", struct.pack(">I", sequence))
                   + traf(1, video, 0, video_at, decode_time * 90)
                   + traf(2, audio, None, audio_at, decode_time * 48))

    size = len(build(0, 0))
    media = bytes(range(sum(video) + sum(audio)))
    return build(size + 8, size + 8 + sum(video)) + box("mdat", media)


def main():
    os.makedirs("corpus/mp4", exist_ok=True)
    ftyp = box("ftyp", b"iso6" + struct.pack(">I", 0) + b"iso6mp41")
    initial = moov()
    head = ftyp + initial
    first = fragment(1, len(head), 0)
    second = fragment(2, len(head) + len(first), 100)
    seeds = {
        # What the recording bin writes (DASH layout), two whole fragments: recovery indexes both.
        "dash-two-fragments.mp4": head + first + second,
        # A crash inside the second fragment's mdat.
        "dash-cut.mp4": head + first + second[:-10],
        # An mdat still open (size 0: to the end of the file).
        "dash-open-mdat.mp4": head + first + struct.pack(">I", 0) + b"mdat" + bytes(20),
        # A finished file: media, then an index without mvex.
        "finished.mp4": ftyp + box("mdat", bytes(16)) + moov(fragmented=False),
        # The reserved-index layout: the index in front with room, then the media (compacted).
        "reserved.mp4": ftyp + moov(fragmented=False) + box("free", bytes(4096)) + box("mdat", bytes(64)),
        # mp4mux's own finish interrupted: the first index hidden as hoov inside a long mdat.
        "hidden-index.mp4": ftyp + box("free") + box("mdat", moov(kind="hoov") + bytes(32)),
        # A 64-bit mdat header.
        "wide-mdat.mp4": ftyp + initial + struct.pack(">I", 1) + b"mdat" + struct.pack(">Q", 16 + 8) + bytes(8),
    }
    for name, data in seeds.items():
        with open(os.path.join("corpus/mp4", name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
