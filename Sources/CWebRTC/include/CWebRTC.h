#ifndef CWEBRTC_H
#define CWEBRTC_H
#include <gst/gst.h>

/**
 * One WebRTC viewer (WHEP, RFC 9725): a pipeline of its own whose `webrtcbin` answers the viewer's SDP offer and
 * sends what is pushed into its `appsrc`s: H.264 as it comes, AAC decoded and sent as Opus (browsers take no AAC).
 */
typedef struct ApplWebrtcSession ApplWebrtcSession;

/** The peer connection's state, as webrtcbin reports it. */
typedef enum { APPL_WEBRTC_CONNECTING = 0, APPL_WEBRTC_CONNECTED = 1, APPL_WEBRTC_ENDED = 2 } ApplWebrtcState;

/** Ownership: `user` stays the caller's. The session never releases it; `state_changed` may be called with it until
 *  `appl_webrtc_session_stop` returns (the stop disconnects webrtcbin's signals and the bus handler first), so the
 *  caller releases it after that, or at once when `appl_webrtc_session_start` returns NULL. */
typedef struct {
    /** On a GStreamer thread; must return at once. */
    void (*state_changed)(void *user, ApplWebrtcState state);
    void *user;
} ApplWebrtcHandlers;

/**
 * Answers `offer` (an SDP text): picks its H.264 (packetization-mode 1) and, with `audio`, its Opus payload types,
 * builds and starts the pipeline, and returns the answer SDP with every local ICE candidate in it (no trickle) in
 * `*answer` (free with g_free). With `talk`, the offer's Opus is also received (the viewer's microphone), decoded and
 * handed to the talk target (`appl_webrtc_session_set_talk`).
 * `stun`: "stun://host:port" or NULL. Blocks up to `timeout_ms` for the ICE gathering.
 * NULL with `*error` (free with g_free) when the offer has no usable video or negotiation fails.
 */
ApplWebrtcSession *appl_webrtc_session_start(const char *offer, gboolean audio, gboolean talk, const char *stun, int timeout_ms,
                                             ApplWebrtcHandlers handlers, char **answer, char **error);

/** As `appl_rtsp_server_set_caps`: the caps of what is pushed into the appsrc `name` ("video" or "audio"). */
void appl_webrtc_session_set_caps(ApplWebrtcSession *session, const char *name, GstCaps *caps);

/** As `appl_rtsp_server_push`: `running_time` in the caller's pipeline, moved onto the session's; never blocks. */
gboolean appl_webrtc_session_push(ApplWebrtcSession *session, const char *name, GstBuffer *buffer, GstClockTime running_time);

/** Whether the session sends audio (on at the start): while off, audio pushes are dropped before any decoding, so a
 * viewer with its sound off costs no Opus encoding and no audio packets. */
void appl_webrtc_session_set_audio(ApplWebrtcSession *session, gboolean on);

/** Where the viewer's decoded sound (48 kHz mono S16) goes from now on: an appsrc that stamps it on arrival (the
 * speaker's, while this viewer talks), or nowhere (NULL). Never blocks. */
void appl_webrtc_session_set_talk(ApplWebrtcSession *session, GstElement *target);
/** Buffers of the viewer's sound handed to a talk target so far. */
guint64 appl_webrtc_session_talk_buffers(ApplWebrtcSession *session);

/** Posts a message on the session pipeline's bus and says whether it was released at once: it should be, since
 * nobody reads that bus (a bus keeps every message until it is popped, and a sync handler that drops one must
 * unref it). */
gboolean appl_webrtc_session_releases_messages(ApplWebrtcSession *session);

/** Stops the pipeline and frees the session. Blocking (a state change). */
void appl_webrtc_session_stop(ApplWebrtcSession *session);

#endif
