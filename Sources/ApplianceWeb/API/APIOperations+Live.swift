import ApplianceProtocol

/// The live picture, WebRTC (WHEP) and ONVIF's SOAP services.
extension APIOperations {
    static var live: [APIOperation] {
        let sessionID = APIOperation.Parameter.path("id")
        let onOff = CommandOperations.body(["on": S.boolean()], required: ["on"])
        let channel = Self.pictureChannel
        return [
            Op(
                method: .get, path: "/live.mjpeg", summary: "The live picture as multipart JPEG (never ending)",
                parameters: [channel],
                replies: [
                    .media("multipart/x-mixed-replace", "one JPEG part per frame, with X-Capture-Time and X-Sequence")
                ], errors: [400]),
            Op(
                method: .get, path: "/live.jpg", summary: "One JPEG of the live picture (ONVIF's snapshot URI)",
                parameters: [channel], replies: [.media("image/jpeg", "the picture")], errors: [400, 503]),
            Op(
                method: .post, path: "/api/whep",
                summary: "A WebRTC session (WHEP, RFC 9725): an SDP offer in, the answer out",
                parameters: [.query("sound", S.string(values: ["on", "off"])), channel],
                body: (WebPaths.sdpType, S.string("an SDP offer")),
                replies: [
                    APIOperation.Reply(
                        status: 201, description: "the SDP answer, every candidate in it", type: WebPaths.sdpType,
                        schema: S.string(), headers: ["Location"])
                ], errors: [409]),
            Op(
                method: .post, path: "/api/whep/{id}/sound", summary: "A session's sound on or off",
                parameters: [sessionID], body: onOff,
                replies: [.empty("done")], errors: [404]),
            Op(
                method: .post, path: "/api/whep/{id}/talk",
                summary: "Talk: the browser's microphone on the device's speaker while on",
                parameters: [sessionID], body: onOff, replies: [.empty("done")], errors: [404, 409]),
            Op(
                method: .delete, path: "/api/whep/{id}", summary: "End a session", parameters: [sessionID],
                replies: [.empty("ended")], errors: [404]),
        ]
    }

    /// ONVIF's services (with `[onvif] enabled`): SOAP 1.2, their own credentials (WS-UsernameToken) in the body.
    static var onvif: [APIOperation] {
        let soap = ("application/soap+xml", S.string("a SOAP 1.2 envelope"))
        let reply = APIOperation.Reply(
            status: 200, description: "a SOAP envelope", type: "application/soap+xml", schema: S.string())
        let fault = APIOperation.Reply(
            status: 400, description: "a SOAP fault (a Sender's)", type: "application/soap+xml", schema: S.string())
        // SOAP 1.2's HTTP binding answers a Receiver's fault (an action not supported) with 500: ONVIF clients expect
        // it.
        let receiver = APIOperation.Reply(
            status: 500, description: "a SOAP fault (a Receiver's)", type: "application/soap+xml", schema: S.string())
        let paths = WebPaths.soapPaths.map { "/" + $0 } + ["/onvif/pullpoint/{id}"]
        return paths.map { path in
            Op(
                method: .post, path: path, summary: "ONVIF \(path.split(separator: "/")[1])",
                parameters: path.hasSuffix("{id}") ? [.path("id")] : [], body: soap, replies: [reply, fault, receiver],
                feature: .onvif)
        }
    }
}
