import ApplianceProtocol

/// Activity, the timeline, media files, live pictures, WebRTC and ONVIF.
extension APIOperations {
    static let activityQuery: [APIOperation.Parameter] = [
        .query(
            "kind",
            S.string(
                "one kind or several, comma-separated: "
                    + Activity.Kind.allCases.map(\.rawValue).joined(separator: ", "))),
        .query("label", S.string(maxLength: ActivityMark.maxLabelLength)), .query("day", S.orEmpty(S.day)),
        .query("from", S.orEmpty(S.moment)),
        .query("to", S.orEmpty(S.moment)), .query("limit", S.orEmpty(S.integer(min: 1, max: ActivityFilter.maxLimit))),
        .query("channel", S.string("only what this [[channel]] noticed", maxLength: 64)),
    ]

    /// `channel` on the range video and the previews: whose picture.
    static let pictureChannel = APIOperation.Parameter.query(
        "channel", S.string("the [[channel]] whose picture it is (default: the first)", maxLength: 64))

    static var activityAndTimeline: [APIOperation] {
        let channel = Self.pictureChannel
        let range: [APIOperation.Parameter] = [
            .query("start", S.moment, required: true), .query("end", S.moment, required: true), channel,
        ]
        return [
            Op(
                method: .get, path: "/api/activity", summary: "Activity (motion, sound, objects, marks), newest first",
                parameters: activityQuery,
                replies: [
                    .json(
                        S.object(
                            ["items": S.array(S.ref("Activity")), "total": S.integer(min: 0)],
                            required: ["items", "total"]))
                ]),
            Op(
                method: .get, path: "/api/activity/{id}", summary: "One activity and the recordings that cover it",
                parameters: [id],
                replies: [
                    .json(
                        S.object(
                            [
                                "activity": S.ref("Activity"), "recordings": S.array(S.ref("Recording")),
                                "play_url": S.string(),
                            ],
                            required: ["activity", "recordings"]))
                ], errors: [404]),
            Op(
                method: .get, path: "/api/timeline",
                summary: "A day's (or a range's, at most 7 days) spans, gaps, locks and activity",
                parameters: [
                    .query("day", S.orEmpty(S.day)), .query("from", S.orEmpty(S.moment)),
                    .query("to", S.orEmpty(S.moment)),
                    .query("channel", S.string("only this [[channel]]'s recordings and activity", maxLength: 64)),
                ], replies: [.json(S.ref("Timeline"))]),
            Op(
                method: .get, path: "/api/timeline/days", summary: "A month's days: what each recorded",
                parameters: [
                    .query("month", S.string("e.g. 2026-11", pattern: #"^[0-9]{4}-[0-9]{2}$"#), required: true)
                ],
                replies: [.json(S.ref("TimelineDays"))]),
            Op(
                method: .get, path: "/api/timeline/scrub.vtt",
                summary: "The range video's scrubbing previews as WebVTT", parameters: range,
                replies: [.media("text/vtt", "cues naming JPEG previews")], errors: [404]),
            Op(
                method: .get, path: "/api/timeline/scrub.jpg", summary: "The preview of a moment",
                parameters: [.query("at", S.moment, required: true), channel],
                replies: [.media("image/jpeg", "the preview", headers: ["X-Scrub-At", "X-Recording-Id"])], errors: [404]
            ),
        ]
            + [.get, .head].map { method in
                Op(
                    method: method, path: "/api/timeline/video.mp4",
                    summary: "One MP4 of what was recorded between two moments (at most 12 h)",
                    parameters: range + [.query("download", S.string(values: ["1", "true", "0", "false"]))],
                    replies: mediaReplies("video/mp4", method: method, headers: ["X-Video-Start", "X-Video-Pieces"]),
                    errors: [404, 416])
            }
    }

    static var media: [APIOperation] {
        let files: [(String, String, String, [APIOperation.Parameter])] = [
            (
                "/media/{id}/video", "video/mp4", "A recording's file (ranges, validators)",
                [id, .query("download", S.string(values: ["1", "true", "0", "false"]))]
            ),
            ("/media/{id}/thumbnail", "image/jpeg", "A recording's thumbnail", [id]),
            ("/media/snapshots/{id}", "image/jpeg", "A snapshot", [id]),
            ("/media/activity/{id}/picture", "image/jpeg", "An activity's picture", [id]),
            ("/s/{token}/video", "video/mp4", "A shared recording's file (the token is the key)", [.path("token")]),
            ("/s/{token}/thumbnail", "image/jpeg", "A shared recording's thumbnail", [.path("token")]),
        ]
        let served = files.flatMap { path, type, summary, parameters in
            [APIOperation.Method.get, .head].map { method in
                Op(
                    method: method, path: path, summary: summary, parameters: parameters,
                    replies: mediaReplies(type, method: method),
                    errors: [404, 416])
            }
        }
        return served + [
            Op(
                method: .get, path: "/media/{id}/scrub.vtt", summary: "A recording's scrubbing previews as WebVTT",
                parameters: [id],
                replies: [.media("text/vtt", "cues naming JPEG previews")], errors: [404]),
            Op(
                method: .get, path: "/media/{id}/scrub/{file}", summary: "One scrubbing preview (`N.jpg`)",
                parameters: [id, .path("file", S.string(pattern: #"^[0-9]+\.jpg$"#))],
                replies: [.media("image/jpeg", "the preview")], errors: [404]),
        ]
    }

    /// A file's answers: whole or a range, not modified, and (for HEAD) the same without a body.
    static func mediaReplies(_ type: String, method: APIOperation.Method, headers: [String] = []) -> [APIOperation
        .Reply]
    {
        let common = ["Accept-Ranges", "ETag", "Last-Modified"] + headers
        guard method == .get else {
            return [
                .empty("the headers a GET would send", headers: common),
                .empty("the headers of the range asked for", status: 206, headers: common),
                .empty("not modified since the validator sent", status: 304),
            ]
        }
        return [
            .media(type, "the whole file", headers: common),
            .media(type, "the range asked for", status: 206, headers: common),
            .empty("not modified since the validator sent", status: 304),
        ]
    }
}
