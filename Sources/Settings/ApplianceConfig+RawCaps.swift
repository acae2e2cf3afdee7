extension ApplianceConfig.Video {
    /// The raw picture every camera is normalised to, as GStreamer caps: I420 at the configured size and rate,
    /// square pixels. The live graph, the doctor's camera trial and the encoder trials all build from it.
    public var rawCaps: String {
        "video/x-raw,format=I420,width=\(width),height=\(height),framerate=\(framerate)/1,pixel-aspect-ratio=1/1"
    }
}
