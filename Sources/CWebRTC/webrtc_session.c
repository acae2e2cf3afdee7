#define GST_USE_UNSTABLE_API /* see CGstWebRTC/shim.h */
#include "CWebRTC.h"
#include "CGStreamerShim.h"
#include <gst/app/gstappsrc.h>
#include <gst/sdp/sdp.h>
#include <gst/webrtc/webrtc.h>
#include <stdlib.h>
#include <string.h>

struct ApplWebrtcSession {
    GstElement *pipeline;
    GstElement *rtc;
    /* The appsrcs a push goes into, found once: looking one up by name per push searched the whole pipeline,
     * webrtcbin's thirty-odd elements included, and was most of a push's cost. NULL: none (no audio). */
    GstElement *video_src;
    GstElement *audio_src;
    ApplWebrtcHandlers handlers;
    /* Under `lock`: the shift from the caller's running time to this pipeline's (fixed by the first push). */
    GMutex lock;
    gboolean shift_known;
    gint64 shift;
    /* Under `lock`: the session is being freed (its bus handler reports nothing more). */
    gboolean stopped;
    /* Under `lock`: whether audio pushes go through (a viewer with its sound off is sent none), and whether the next
     * one that does follows a gap (marked DISCONT, so the decoder and encoder start afresh). */
    gboolean audio_on;
    gboolean audio_gap;
    /* Where the viewer's own sound (Talk) goes, decoded: the speaker's appsrc while this viewer talks, else nowhere. */
    ApplRelay talk;
    /* Under `gather_lock`: ICE gathering done, and the candidates seen (mline → "a=candidate:…" lines). */
    GMutex gather_lock;
    GCond gathered_cond;
    gboolean gathered;
    GString *candidates;
};

/* The payload type of the offer's first `encoding` format in a `kind` section ("video"/"audio"); for H.264 only
 * packetization-mode 1, preferring constrained baseline (42e01f), whose profile-level-id goes to `*profile`. -1: none. */
static int pick_payload(const GstSDPMessage *sdp, const char *kind, const char *encoding, char **profile) {
    int best = -1, best_rank = -1;
    for (guint i = 0; i < gst_sdp_message_medias_len(sdp); i++) {
        const GstSDPMedia *media = gst_sdp_message_get_media(sdp, i);
        if (g_strcmp0(gst_sdp_media_get_media(media), kind) != 0) continue;
        for (guint j = 0; j < gst_sdp_media_formats_len(media); j++) {
            int pt = atoi(gst_sdp_media_get_format(media, j));
            GstCaps *caps = gst_sdp_media_get_caps_from_media(media, pt);
            if (!caps) continue;
            const GstStructure *s = gst_caps_get_structure(caps, 0);
            const char *name = gst_structure_get_string(s, "encoding-name");
            int rank = -1;
            if (name && g_ascii_strcasecmp(name, encoding) == 0) {
                rank = 0;
                if (profile) {
                    const char *mode = gst_structure_get_string(s, "packetization-mode");
                    const char *level = gst_structure_get_string(s, "profile-level-id");
                    if (g_strcmp0(mode, "1") != 0) rank = -1;
                    else if (level && g_ascii_strncasecmp(level, "42e0", 4) == 0) rank = 2;
                    else rank = 1;
                    if (rank > best_rank) { g_free(*profile); *profile = g_strdup(level ? level : "42e01f"); }
                }
            }
            if (rank > best_rank) { best = pt; best_rank = rank; }
            gst_caps_unref(caps);
        }
        break; /* the first section of that kind */
    }
    return best;
}

static void on_ice_candidate(GstElement *rtc, guint mline, gchar *candidate, gpointer data) {
    (void)rtc;
    ApplWebrtcSession *s = data;
    g_mutex_lock(&s->gather_lock);
    g_string_append_printf(s->candidates, "%u a=%s\r\n", mline, candidate);
    g_mutex_unlock(&s->gather_lock);
}

static void on_gathering_state(GObject *rtc, GParamSpec *spec, gpointer data) {
    (void)spec;
    ApplWebrtcSession *s = data;
    GstWebRTCICEGatheringState state;
    g_object_get(rtc, "ice-gathering-state", &state, NULL);
    if (state != GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE) return;
    g_mutex_lock(&s->gather_lock);
    s->gathered = TRUE;
    g_cond_broadcast(&s->gathered_cond);
    g_mutex_unlock(&s->gather_lock);
}

static void on_connection_state(GObject *rtc, GParamSpec *spec, gpointer data) {
    (void)spec;
    ApplWebrtcSession *s = data;
    GstWebRTCPeerConnectionState state;
    g_object_get(rtc, "connection-state", &state, NULL);
    ApplWebrtcState mapped = APPL_WEBRTC_CONNECTING;
    if (state == GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED) mapped = APPL_WEBRTC_CONNECTED;
    else if (state == GST_WEBRTC_PEER_CONNECTION_STATE_FAILED || state == GST_WEBRTC_PEER_CONNECTION_STATE_CLOSED
             || state == GST_WEBRTC_PEER_CONNECTION_STATE_DISCONNECTED) mapped = APPL_WEBRTC_ENDED;
    if (s->handlers.state_changed) s->handlers.state_changed(s->handlers.user, mapped);
}

/* Emits a webrtcbin action with a promise and waits for its reply (NULL on an error, with `*error` set). */
static const GstStructure *run_promise(GstPromise *promise, const char *what, char **error) {
    GstPromiseResult result = gst_promise_wait(promise);
    const GstStructure *reply = result == GST_PROMISE_RESULT_REPLIED ? gst_promise_get_reply(promise) : NULL;
    GError *failure = NULL;
    if (reply && gst_structure_has_field(reply, "error")) gst_structure_get(reply, "error", G_TYPE_ERROR, &failure, NULL);
    if (result != GST_PROMISE_RESULT_REPLIED && result != GST_PROMISE_RESULT_PENDING) {
        *error = g_strdup_printf("%s: no answer from webrtcbin", what);
        return NULL;
    }
    if (failure) {
        *error = g_strdup_printf("%s: %s", what, failure->message);
        g_error_free(failure);
        return NULL;
    }
    return reply ? reply : gst_structure_new_empty("empty"); /* set-*-description reply with nothing */
}

/* The answer's text with the gathered candidates added to the first (bundled) media section, when webrtcbin left
 * them out of the description. */
static char *answer_text(ApplWebrtcSession *s, const GstSDPMessage *sdp) {
    char *text = gst_sdp_message_as_text(sdp);
    if (strstr(text, "a=candidate:")) return text;
    GString *lines = g_string_new(NULL);
    g_mutex_lock(&s->gather_lock);
    gchar **entries = g_strsplit(s->candidates->str, "\r\n", -1);
    g_mutex_unlock(&s->gather_lock);
    for (gchar **e = entries; *e && **e; e++) {
        const char *space = strchr(*e, ' ');
        if (space && atoi(*e) == 0) g_string_append_printf(lines, "%s\r\n", space + 1);
    }
    g_strfreev(entries);
    g_string_append(lines, "a=end-of-candidates\r\n");
    /* After the first m= section's lines: before the second "m=", or at the end. */
    const char *first = strstr(text, "\r\nm=");
    const char *second = first ? strstr(first + 2, "\r\nm=") : NULL;
    GString *out = g_string_new(NULL);
    if (second) {
        g_string_append_len(out, text, second - text + 2);
        g_string_append(out, lines->str);
        g_string_append(out, second + 2);
    } else {
        g_string_append(out, text);
        g_string_append(out, lines->str);
    }
    g_string_free(lines, TRUE);
    g_free(text);
    return g_string_free(out, FALSE);
}

/* Nobody pops this pipeline's bus, and a bus keeps every message posted to it until it is popped: the state changes
 * of webrtcbin's thirty-odd elements, and a stream-start each time the feed's segment changes, stayed queued for as
 * long as the viewer watched (about 1 MB an hour with one viewer at 320x240, found by the leaks tracer in session 39).
 * So every message is dropped as it is posted; an error ends the session, as a failed connection does. */
static GstBusSyncReply on_bus_message(GstBus *bus, GstMessage *message, gpointer data) {
    (void)bus;
    ApplWebrtcSession *s = data;
    /* A sync handler that returns GST_BUS_DROP owns the message: it must unref it (GstBusSyncHandler's contract;
     * without it every message leaked instead of waiting on the bus). */
    if (GST_MESSAGE_TYPE(message) != GST_MESSAGE_ERROR) {
        gst_message_unref(message);
        return GST_BUS_DROP;
    }
    GError *failure = NULL;
    gchar *debug = NULL;
    gst_message_parse_error(message, &failure, &debug);
    GST_WARNING_OBJECT(GST_MESSAGE_SRC(message), "WebRTC viewer pipeline error: %s (%s)", failure ? failure->message : "?",
                       debug ? debug : "");
    g_clear_error(&failure);
    g_free(debug);
    g_mutex_lock(&s->lock);
    gboolean report = !s->stopped;
    g_mutex_unlock(&s->lock);
    if (report && s->handlers.state_changed) s->handlers.state_changed(s->handlers.user, APPL_WEBRTC_ENDED);
    gst_message_unref(message);
    return GST_BUS_DROP;
}

/* What the viewer sends (its microphone, Talk): Opus decoded to 48 kHz mono for the talk target; anything else is
 * dropped. webrtcbin adds the pad when the first packet of the stream arrives. */
static void on_incoming_pad(GstElement *rtc, GstPad *pad, gpointer data) {
    (void)rtc;
    ApplWebrtcSession *s = data;
    if (GST_PAD_DIRECTION(pad) != GST_PAD_SRC) return;
    GstCaps *caps = gst_pad_get_current_caps(pad);
    if (!caps) caps = gst_pad_query_caps(pad, NULL);
    const GstStructure *st = caps && gst_caps_get_size(caps) > 0 ? gst_caps_get_structure(caps, 0) : NULL;
    gboolean audio = st && g_strcmp0(gst_structure_get_string(st, "media"), "audio") == 0;
    if (caps) gst_caps_unref(caps);
    GstElement *bin = audio ? gst_parse_bin_from_description(
        "rtpopusdepay ! opusdec plc=true ! audioconvert ! audioresample ! "
        "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1 ! appsink name=talk sync=false max-buffers=50 drop=true",
        TRUE, NULL) : NULL;
    if (!bin) {
        appl_bin_drop_pad(GST_BIN(s->pipeline), pad);
        return;
    }
    GstElement *sink = gst_bin_get_by_name(GST_BIN(bin), "talk");
    appl_relay_attach(&s->talk, sink);
    gst_object_unref(sink);
    gst_bin_add(GST_BIN(s->pipeline), bin);
    gst_element_sync_state_with_parent(bin);
    GstPad *input = gst_element_get_static_pad(bin, "sink");
    if (gst_pad_link(pad, input) != GST_PAD_LINK_OK) GST_WARNING("cannot link the viewer's sound");
    gst_object_unref(input);
}

/* The transceiver of webrtcbin's audio sink pad (the device's own sound), found by what its peer sends (a
 * transceiver's `kind` is not known before negotiation); NULL without one. Referenced. */
static GstWebRTCRTPTransceiver *sending_audio(GstElement *rtc) {
    GstWebRTCRTPTransceiver *found = NULL;
    GstIterator *pads = gst_element_iterate_sink_pads(rtc);
    GValue item = G_VALUE_INIT;
    while (!found && gst_iterator_next(pads, &item) == GST_ITERATOR_OK) {
        GstPad *pad = g_value_get_object(&item);
        GstCaps *caps = gst_pad_peer_query_caps(pad, NULL);
        const GstStructure *st = caps && !gst_caps_is_empty(caps) && !gst_caps_is_any(caps) ? gst_caps_get_structure(caps, 0) : NULL;
        if (st && g_strcmp0(gst_structure_get_string(st, "media"), "audio") == 0) g_object_get(pad, "transceiver", &found, NULL);
        if (caps) gst_caps_unref(caps);
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(pads);
    return found;
}

/* An Opus transceiver for the offer's audio section (payload type `pt`), going `direction`, added before the offer
 * is taken so that webrtcbin matches the section to it. */
static void add_audio_transceiver(ApplWebrtcSession *s, int pt, GstWebRTCRTPTransceiverDirection direction) {
    GstCaps *caps = gst_caps_new_simple("application/x-rtp", "media", G_TYPE_STRING, "audio", "encoding-name", G_TYPE_STRING, "OPUS",
                                        "payload", G_TYPE_INT, pt, "clock-rate", G_TYPE_INT, 48000, NULL);
    GstWebRTCRTPTransceiver *added = NULL;
    g_signal_emit_by_name(s->rtc, "add-transceiver", direction, caps, &added);
    gst_caps_unref(caps);
    if (added) gst_object_unref(added);
}

/* Talk: the audio transceiver receives too (the viewer's microphone). With a microphone of its own the device's
 * audio transceiver becomes send-and-receive; without one a receive-only one is added for the offer's Opus. */
static void allow_talk(ApplWebrtcSession *s, int talk_pt) {
    GstWebRTCRTPTransceiver *audio = sending_audio(s->rtc);
    if (audio) {
        g_object_set(audio, "direction", GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_SENDRECV, NULL);
        gst_object_unref(audio);
    } else {
        add_audio_transceiver(s, talk_pt, GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_RECVONLY);
    }
    g_signal_connect(s->rtc, "pad-added", G_CALLBACK(on_incoming_pad), s);
}

/* No sound either way (a channel without any, no Talk): the offer's audio section is answered inactive rather than
 * with the receive-only transceiver webrtcbin would make for it, which would say the device listens. */
static void answer_audio_inactive(ApplWebrtcSession *s, int pt) {
    if (pt >= 0) add_audio_transceiver(s, pt, GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_INACTIVE);
}

static void free_session(ApplWebrtcSession *s) {
    if (s->rtc) g_signal_handlers_disconnect_by_data(s->rtc, s); /* no state report from a session being freed */
    g_mutex_lock(&s->lock);
    s->stopped = TRUE;
    g_mutex_unlock(&s->lock);
    if (s->pipeline) {
        gst_element_set_state(s->pipeline, GST_STATE_NULL);
        GstBus *bus = gst_element_get_bus(s->pipeline);
        gst_bus_set_sync_handler(bus, NULL, NULL, NULL);
        gst_bus_set_flushing(bus, TRUE); /* drops what was posted between the two lines above */
        gst_object_unref(bus);
        gst_object_unref(s->pipeline);
    }
    if (s->rtc) gst_object_unref(s->rtc);
    if (s->video_src) gst_object_unref(s->video_src);
    if (s->audio_src) gst_object_unref(s->audio_src);
    appl_relay_clear(&s->talk);
    g_string_free(s->candidates, TRUE);
    g_mutex_clear(&s->lock);
    g_mutex_clear(&s->gather_lock);
    g_cond_clear(&s->gathered_cond);
    g_free(s);
}

ApplWebrtcSession *appl_webrtc_session_start(const char *offer, gboolean audio, gboolean talk, const char *stun, int timeout_ms,
                                             ApplWebrtcHandlers handlers, char **answer, char **error) {
    GstSDPMessage *sdp = NULL;
    if (gst_sdp_message_new_from_text(offer, &sdp) != GST_SDP_OK || gst_sdp_message_medias_len(sdp) == 0) {
        if (sdp) gst_sdp_message_free(sdp);
        *error = g_strdup("the offer is not an SDP description with media");
        return NULL;
    }
    char *profile = NULL;
    int video_pt = pick_payload(sdp, "video", "H264", &profile);
    int audio_pt = audio ? pick_payload(sdp, "audio", "OPUS", NULL) : -1;
    int talk_pt = talk ? pick_payload(sdp, "audio", "OPUS", NULL) : -1;
    if (video_pt < 0) {
        gst_sdp_message_free(sdp);
        g_free(profile);
        *error = g_strdup("the offer has no H.264 video with packetization-mode 1");
        return NULL;
    }

    ApplWebrtcSession *s = g_new0(ApplWebrtcSession, 1);
    g_mutex_init(&s->lock);
    appl_relay_init(&s->talk);
    g_mutex_init(&s->gather_lock);
    g_cond_init(&s->gathered_cond);
    s->candidates = g_string_new(NULL);
    s->handlers = handlers;
    s->audio_on = TRUE;
    /* The viewer's decoder starts at a keyframe and needs SPS/PPS: they are in every keyframe (the encoder's parser).
     * The answer names the profile the browser offered (capssetter): a browser matches the answer's H.264 by
     * profile-level-id and drops a codec it did not offer (chromium offers no High profile), while its decoder plays
     * the encoder's High profile (as go2rtc and other WHEP servers send camera streams). */
    /* The appsrc's leaky queue is the one thread boundary: a slow viewer, or webrtcbin holding its pads until the
     * DTLS handshake is done, only fills it and drops the oldest. A queue before webrtcbin was a second hand-off per
     * frame (session 17: about 0.25 % of a core a viewer, once frames went as one list each). */
    const char *source = "is-live=true format=time leaky-type=downstream max-time=1000000000 max-bytes=0";
    GString *launch = g_string_new(NULL);
    g_string_append_printf(launch, "webrtcbin name=rtc bundle-policy=max-bundle latency=0%s%s ", stun ? " stun-server=" : "", stun ? stun : "");
    /* Each stream's SSRC is chosen here and named in the answer (a=ssrc): the answer carries no MID header
     * extension, so the browser routes packets by SSRC, or else by payload type, which Chrome refuses in a bundle
     * where it receives no audio ("Failed to demux RTP packet": a channel without sound never played). */
    guint32 video_ssrc = g_random_int(), audio_ssrc = g_random_int();
    g_string_append_printf(launch,
        "appsrc name=video %s ! rtph264pay name=vpay pt=%d ssrc=%u config-interval=0 aggregate-mode=zero-latency ! "
        "capssetter join=true replace=false caps=\"application/x-rtp,profile-level-id=(string)%s\" ! "
        "application/x-rtp,media=video,encoding-name=H264,payload=%d,clock-rate=90000,packetization-mode=(string)1,ssrc=(uint)%u ! "
        "rtc. ",
        source, video_pt, video_ssrc, profile, video_pt, video_ssrc);
    if (audio_pt >= 0) {
        g_string_append_printf(launch,
            "appsrc name=audio %s ! avdec_aac ! audioconvert ! audioresample ! opusenc complexity=3 bitrate=64000 ! "
            "rtpopuspay pt=%d ssrc=%u ! application/x-rtp,media=audio,encoding-name=OPUS,payload=%d,clock-rate=48000,ssrc=(uint)%u ! "
            "rtc. ", source, audio_pt, audio_ssrc, audio_pt, audio_ssrc);
    }
    g_free(profile);
    GError *parse_error = NULL;
    s->pipeline = gst_parse_launch(launch->str, &parse_error);
    g_string_free(launch, TRUE);
    if (!s->pipeline || parse_error) {
        *error = g_strdup_printf("cannot build the WebRTC pipeline: %s", parse_error ? parse_error->message : "unknown error");
        g_clear_error(&parse_error);
        gst_sdp_message_free(sdp);
        free_session(s);
        return NULL;
    }
    GstBus *bus = gst_element_get_bus(s->pipeline);
    gst_bus_set_sync_handler(bus, on_bus_message, s, NULL);
    gst_object_unref(bus);
    /* One buffer list per frame into the queue (rtp_batch.c): its thread wakes once a frame, not once a NAL unit. */
    GstElement *pay = gst_bin_get_by_name(GST_BIN(s->pipeline), "vpay");
    GstPad *pay_src = gst_element_get_static_pad(pay, "src");
    appl_pad_add_rtp_batcher(pay_src, G_MAXUINT, TRUE);
    gst_object_unref(pay_src);
    gst_object_unref(pay);
    s->rtc = gst_bin_get_by_name(GST_BIN(s->pipeline), "rtc");
    s->video_src = gst_bin_get_by_name(GST_BIN(s->pipeline), "video");
    s->audio_src = gst_bin_get_by_name(GST_BIN(s->pipeline), "audio");
    g_signal_connect(s->rtc, "on-ice-candidate", G_CALLBACK(on_ice_candidate), s);
    g_signal_connect(s->rtc, "notify::ice-gathering-state", G_CALLBACK(on_gathering_state), s);
    g_signal_connect(s->rtc, "notify::connection-state", G_CALLBACK(on_connection_state), s);
    GArray *transceivers = NULL;
    g_signal_emit_by_name(s->rtc, "get-transceivers", &transceivers);
    for (guint i = 0; transceivers && i < transceivers->len; i++) {
        g_object_set(g_array_index(transceivers, GstWebRTCRTPTransceiver *, i), "direction",
                     GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_SENDONLY, NULL);
    }
    if (transceivers) g_array_unref(transceivers);
    if (talk_pt >= 0) allow_talk(s, talk_pt);
    else if (audio_pt < 0) answer_audio_inactive(s, pick_payload(sdp, "audio", "OPUS", NULL));
    if (gst_element_set_state(s->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        *error = g_strdup("the WebRTC pipeline does not start");
        gst_sdp_message_free(sdp);
        free_session(s);
        return NULL;
    }

    GstWebRTCSessionDescription *remote = gst_webrtc_session_description_new(GST_WEBRTC_SDP_TYPE_OFFER, sdp); /* takes sdp */
    GstPromise *promise = gst_promise_new();
    g_signal_emit_by_name(s->rtc, "set-remote-description", remote, promise);
    gboolean ok = run_promise(promise, "the offer", error) != NULL;
    gst_promise_unref(promise);
    gst_webrtc_session_description_free(remote);
    GstWebRTCSessionDescription *local = NULL;
    if (ok) {
        promise = gst_promise_new();
        g_signal_emit_by_name(s->rtc, "create-answer", NULL, promise);
        const GstStructure *reply = run_promise(promise, "the answer", error);
        if (reply) gst_structure_get(reply, "answer", GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &local, NULL);
        gst_promise_unref(promise);
        ok = local != NULL;
        if (ok) {
            promise = gst_promise_new();
            g_signal_emit_by_name(s->rtc, "set-local-description", local, promise);
            ok = run_promise(promise, "the answer", error) != NULL;
            gst_promise_unref(promise);
        } else if (!*error) {
            *error = g_strdup("webrtcbin made no answer");
        }
    }
    if (ok) {
        gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
        g_mutex_lock(&s->gather_lock);
        while (!s->gathered && g_cond_wait_until(&s->gathered_cond, &s->gather_lock, deadline)) {}
        g_mutex_unlock(&s->gather_lock);
        GstWebRTCSessionDescription *current = NULL;
        g_object_get(s->rtc, "local-description", &current, NULL);
        *answer = answer_text(s, current ? current->sdp : local->sdp);
        if (current) gst_webrtc_session_description_free(current);
    }
    if (local) gst_webrtc_session_description_free(local);
    if (!ok) {
        free_session(s);
        return NULL;
    }
    return s;
}

/* The session's appsrc for the stream `name` ("video" or "audio"), not referenced; NULL if it has none. */
static GstElement *source_named(ApplWebrtcSession *s, const char *name) {
    if (strcmp(name, "video") == 0) return s->video_src;
    if (strcmp(name, "audio") == 0) return s->audio_src;
    return NULL;
}

void appl_webrtc_session_set_caps(ApplWebrtcSession *s, const char *name, GstCaps *caps) {
    GstElement *src = source_named(s, name);
    if (src) g_object_set(src, "caps", caps, NULL);
}

gboolean appl_webrtc_session_push(ApplWebrtcSession *s, const char *name, GstBuffer *buffer, GstClockTime running_time) {
    if (!GST_CLOCK_TIME_IS_VALID(running_time)) return FALSE;
    g_mutex_lock(&s->lock);
    if (!s->shift_known) {
        GstClockTime now = appl_element_running_time_when_playing(s->pipeline);
        if (GST_CLOCK_TIME_IS_VALID(now)) {
            s->shift = (gint64)now - (gint64)running_time;
            s->shift_known = TRUE;
        }
    }
    gboolean known = s->shift_known;
    gint64 shift = s->shift;
    GstElement *src = source_named(s, name);
    gboolean audio = src != NULL && src == s->audio_src, discont = FALSE;
    if (audio && !s->audio_on) {
        s->audio_gap = TRUE;
        g_mutex_unlock(&s->lock);
        return FALSE;
    }
    if (audio && s->audio_gap) {
        discont = TRUE;
        s->audio_gap = FALSE;
    }
    g_mutex_unlock(&s->lock);
    if (!src || !known || (gint64)running_time + shift < 0) return FALSE;
    GstBuffer *copy = gst_buffer_copy(buffer);
    GST_BUFFER_PTS(copy) = (GstClockTime)((gint64)running_time + shift);
    GST_BUFFER_DTS(copy) = GST_CLOCK_TIME_NONE;
    if (discont) GST_BUFFER_FLAG_SET(copy, GST_BUFFER_FLAG_DISCONT);
    return gst_app_src_push_buffer(GST_APP_SRC(src), copy) == GST_FLOW_OK;
}

void appl_webrtc_session_set_talk(ApplWebrtcSession *s, GstElement *target) {
    appl_relay_set_target(&s->talk, target);
}

guint64 appl_webrtc_session_talk_buffers(ApplWebrtcSession *s) {
    return appl_relay_forwarded(&s->talk);
}

void appl_webrtc_session_set_audio(ApplWebrtcSession *s, gboolean on) {
    g_mutex_lock(&s->lock);
    s->audio_on = on;
    g_mutex_unlock(&s->lock);
}

static void on_probe_released(gpointer data, GstMiniObject *object) {
    (void)object;
    *(gboolean *)data = TRUE;
}

gboolean appl_webrtc_session_releases_messages(ApplWebrtcSession *s) {
    gboolean released = FALSE;
    GstMessage *probe = gst_message_new_application(GST_OBJECT(s->pipeline), gst_structure_new_empty("appliance-probe"));
    gst_mini_object_weak_ref(GST_MINI_OBJECT(probe), on_probe_released, &released);
    gst_element_post_message(s->pipeline, probe);
    /* Still alive: queued on the bus or leaked. Detach the flag, which is about to go out of scope. */
    if (!released) gst_mini_object_weak_unref(GST_MINI_OBJECT(probe), on_probe_released, &released);
    return released;
}

void appl_webrtc_session_stop(ApplWebrtcSession *s) {
    if (!s) return;
    free_session(s);
}
