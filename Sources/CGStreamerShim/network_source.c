#include "CGStreamerShim.h"
#include <gst/app/gstappsrc.h>
#include <string.h>

/* An IP camera's receiver: a pipeline of its own (uridecodebin over the camera's URL, its rtspsrc set up with the
 * credentials, transport and latency) whose first decoded video pad goes to an appsink. Each frame is handed to
 * `target`, an appsrc in the camera's bin of the live graph, with its timestamps cleared: the appsrc stamps it on
 * arrival, as a camera's driver would, so the live graph never sees the network's clock. Its sound, when asked
 * for (`appl_network_source_carry_sound`: `[audio] source = "camera"`), is converted to the microphone's format
 * and handed the same way to the appsrc set by `appl_network_source_send_sound` (the microphone's, while this
 * camera is shown; none otherwise). Everything else the camera sends (a second video) goes to fakesinks.
 *
 * Its own pipeline, not a bin in the live graph: a camera that drops, refuses or never answers fails here, its
 * state changes and its jitterbuffer's clock stay out of the recording's pipeline, and a restart is a new one.
 * Its bus is read by a sync handler: an error is posted again on `target` (so the live graph's bus names the
 * camera, and the camera switcher hands over), phrased for a person and kept for `stats` (the doctor, which has no
 * target, reads it there); the end of the stream ends `target`'s. Nothing here blocks a streaming thread. */

typedef struct {
    GstElement *target;
    GMutex lock;
    guint64 frames;
    gchar *codec;
    gchar *decoder;
    gint width, height, fps_n, fps_d;
    gboolean video_linked;
    gboolean no_video_yet;
    /* The camera's sound: the format it is converted to (NULL: dropped), where it goes now (NULL: nowhere). */
    gchar *sound_caps;
    ApplRelay sound;
    gboolean sound_linked;
    gchar *sound_codec;
    gchar *failure;
    GstCaps *caps;
    /* Storing the camera's H.264 as sent (`appl_network_source_store_as_sent`): the appsrc it goes to, its caps,
     * the offset that maps the receiver's running time onto the target's (set at the first unit), and whether
     * every frame is decoded for `target` or only keyframes. */
    GstElement *encoded;
    GstCaps *encoded_caps;
    gint64 encoded_offset;
    gboolean offset_known;
    guint64 units;
    gint decode_all;
    /* The camera's keyframe spacing, from the units as sent: the last keyframe's time, the units since, and the
     * last full GOP's length and frames. */
    GstClockTime last_key;
    guint64 since_key;
    guint64 gop_ns;
    guint gop_frames;
    gint transport;
    guint latency_ms;
    guint timeout_s;
    gchar *user;
    gchar *password;
    ApplNetworkFailure on_failure;
    gpointer context;
    GDestroyNotify release;
} NetworkSource;

static const char *KEY = "appl-network-source";

static void network_source_free(gpointer data) {
    NetworkSource *s = data;
    if (s->target) gst_object_unref(s->target);
    if (s->encoded) gst_object_unref(s->encoded);
    if (s->encoded_caps) gst_caps_unref(s->encoded_caps);
    appl_relay_clear(&s->sound);
    g_free(s->sound_caps);
    g_free(s->sound_codec);
    if (s->caps) gst_caps_unref(s->caps);
    g_free(s->codec);
    g_free(s->decoder);
    g_free(s->failure);
    if (s->password) memset(s->password, 0, strlen(s->password));
    g_free(s->password);
    g_free(s->user);
    if (s->release) s->release(s->context);
    g_mutex_clear(&s->lock);
    g_free(s);
}

static NetworkSource *state_of(GstElement *pipeline) { return g_object_get_data(G_OBJECT(pipeline), KEY); }

/* The reason a person can act on, from rtspsrc's error (its own words as the detail). */
static gchar *describe(GError *error, const gchar *debug) {
    const char *detail = debug ? strrchr(debug, '\n') : NULL;
    detail = detail ? detail + 1 : (debug ? debug : "");
    if (error->domain == GST_RESOURCE_ERROR && error->code == GST_RESOURCE_ERROR_NOT_AUTHORIZED)
        return g_strdup_printf("the camera refused the user name or password (%s)", detail);
    if (error->domain == GST_RESOURCE_ERROR && error->code == GST_RESOURCE_ERROR_NOT_FOUND)
        return g_strdup_printf("the camera has no stream at that path (%s)", detail);
    if (strstr(detail, "Failed to connect"))
        return g_strdup("cannot connect to the camera (connection refused or no route to it)");
    if (strstr(detail, "Could not connect to server"))
        return g_strdup("lost the connection to the camera");
    if (strstr(detail, "Timeout") || strstr(detail, "timeout"))
        return g_strdup_printf("the camera does not answer (%s)", detail);
    if (error->domain == GST_STREAM_ERROR && error->code == GST_STREAM_ERROR_CODEC_NOT_FOUND)
        return g_strdup_printf("no decoder for the camera's video here (%s)", error->message);
    return g_strdup_printf("%s%s%s", error->message, *detail ? ": " : "", detail);
}

/* The first failure is kept (the doctor reads it), told to `on_failure` and posted on the target, once. */
static void fail(NetworkSource *s, const char *reason) {
    g_mutex_lock(&s->lock);
    gboolean first = s->failure == NULL;
    if (first) s->failure = g_strdup(reason);
    g_mutex_unlock(&s->lock);
    if (!first) return;
    if (s->on_failure) s->on_failure(s->context, reason);
    if (!s->target) return;
    GError *error = g_error_new_literal(GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED, reason);
    gst_element_post_message(s->target, gst_message_new_error(GST_OBJECT(s->target), error, NULL));
    g_error_free(error);
}

static GstBusSyncReply on_message(GstBus *bus, GstMessage *message, gpointer data) {
    (void)bus;
    GstElement *pipeline = data;
    NetworkSource *s = state_of(pipeline);
    if (s && GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
        GError *error = NULL;
        gchar *debug = NULL;
        gst_message_parse_error(message, &error, &debug);
        gchar *reason = describe(error, debug);
        fail(s, reason);
        g_free(reason);
        g_error_free(error);
        g_free(debug);
    }
    gst_message_unref(message);
    return GST_BUS_DROP;
}

static void on_source_setup(GstElement *decode, GstElement *source, gpointer data) {
    (void)decode;
    NetworkSource *s = data;
    GObjectClass *klass = G_OBJECT_GET_CLASS(source);
    if (!g_object_class_find_property(klass, "user-id")) return;
    if (s->user && *s->user) g_object_set(source, "user-id", s->user, NULL);
    if (s->password && *s->password) g_object_set(source, "user-pw", s->password, NULL);
    /* GstRTSPLowerTrans: UDP 1, UDP_MCAST 2, TCP 4; auto: UDP and TCP as rtspsrc tries them. */
    const char *protocols = s->transport == 1 ? "tcp" : s->transport == 2 ? "udp" : "udp+udp-mcast+tcp";
    gst_util_set_object_arg(G_OBJECT(source), "protocols", protocols);
    g_object_set(source, "latency", s->latency_ms, NULL);
    guint64 timeout_us = (guint64)s->timeout_s * G_USEC_PER_SEC;
    g_object_set(source, "tcp-timeout", timeout_us, NULL);
    if (g_object_class_find_property(klass, "timeout")) g_object_set(source, "timeout", timeout_us, NULL);
    if (g_object_class_find_property(klass, "teardown-timeout")) g_object_set(source, "teardown-timeout", (guint64)(200 * GST_MSECOND), NULL);
}

/* The video decoder decodebin chose (the board's where one ranks first, else libav), and the codec it decodes. */
static void on_element_added(GstBin *bin, GstBin *sub, GstElement *element, gpointer data) {
    (void)bin; (void)sub;
    NetworkSource *s = data;
    GstElementFactory *factory = gst_element_get_factory(element);
    if (!factory) return;
    const gchar *klass = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS);
    if (!klass || !strstr(klass, "Decoder") || !strstr(klass, "Video")) return;
    g_mutex_lock(&s->lock);
    if (!s->decoder) s->decoder = g_strdup(GST_OBJECT_NAME(factory));
    g_mutex_unlock(&s->lock);
}

/* The camera's first sound pad → audioconvert ! audioresample ! the microphone's format ! appsink "sound". FALSE
 * when sound is not wanted, one is linked already, or it cannot be linked (the pad is then dropped). */
static gboolean link_sound(GstElement *pipeline, NetworkSource *s, GstPad *pad) {
    g_mutex_lock(&s->lock);
    gboolean wanted = s->sound_caps && !s->sound_linked;
    if (wanted) s->sound_linked = TRUE;
    GstCaps *format = wanted ? gst_caps_from_string(s->sound_caps) : NULL;
    g_mutex_unlock(&s->lock);
    if (!wanted) return FALSE;
    GstElement *convert = gst_element_factory_make("audioconvert", NULL);
    GstElement *resample = gst_element_factory_make("audioresample", NULL);
    GstElement *sink = gst_element_factory_make("appsink", "sound");
    if (!convert || !resample || !sink || !format) {
        if (convert) gst_object_unref(convert);
        if (resample) gst_object_unref(resample);
        if (sink) gst_object_unref(sink);
        if (format) gst_caps_unref(format);
        return FALSE;
    }
    GstElement *frames = gst_bin_get_by_name(GST_BIN(pipeline), "frames");
    gboolean sync = TRUE;
    g_object_get(frames, "sync", &sync, NULL);
    gst_object_unref(frames);
    g_object_set(sink, "caps", format, "sync", sync, "max-buffers", 16, "drop", TRUE, "enable-last-sample", FALSE, NULL);
    gst_caps_unref(format);
    appl_relay_attach(&s->sound, sink);
    gst_bin_add_many(GST_BIN(pipeline), convert, resample, sink, NULL);
    gboolean linked = gst_element_link_many(convert, resample, sink, NULL);
    gst_element_sync_state_with_parent(sink);
    gst_element_sync_state_with_parent(resample);
    gst_element_sync_state_with_parent(convert);
    GstPad *input = gst_element_get_static_pad(convert, "sink");
    linked = linked && gst_pad_link(pad, input) == GST_PAD_LINK_OK;
    gst_object_unref(input);
    return linked;
}

/* The running time of `element`'s pipeline now (GST_CLOCK_TIME_NONE before it has a clock). */
static GstClockTime running_time_now(GstElement *element) {
    GstClock *clock = gst_element_get_clock(element);
    if (!clock) return GST_CLOCK_TIME_NONE;
    GstClockTime now = gst_clock_get_time(clock);
    gst_object_unref(clock);
    GstClockTime base = gst_element_get_base_time(element);
    return now >= base ? now - base : GST_CLOCK_TIME_NONE;
}

/* The decoding time of the last unit pushed into an as-sent appsrc, by any receiver of it (kept on the appsrc: each
 * restart of the camera makes a new receiver). Only the receiver's own streaming thread writes it. */
static const char *LAST_PUSHED = "appl-as-sent-last";

static GstClockTime last_pushed(GstElement *encoded) {
    guint64 *last = g_object_get_data(G_OBJECT(encoded), LAST_PUSHED);
    return last ? *last : GST_CLOCK_TIME_NONE;
}

static void set_last_pushed(GstElement *encoded, GstClockTime time) {
    guint64 *last = g_object_get_data(G_OBJECT(encoded), LAST_PUSHED);
    if (!last) {
        last = g_new(guint64, 1);
        g_object_set_data_full(G_OBJECT(encoded), LAST_PUSHED, last, g_free);
    }
    *last = time;
}

/* One access unit as the camera sent it, into `encoded` with its timestamps moved onto the live graph's running
 * time: the offset is fixed at the first unit (the receiver's running time then ↦ the graph's now), so the spacing
 * the camera gave (its B-frames' order too) is kept and nothing is re-stamped on arrival. */
static GstFlowReturn on_encoded_sample(GstAppSink *sink, gpointer data) {
    NetworkSource *s = data;
    GstSample *sample = gst_app_sink_pull_sample(sink);
    if (!sample) return GST_FLOW_EOS;
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    const GstSegment *segment = gst_sample_get_segment(sample);
    GstClockTime pts = GST_BUFFER_PTS(buffer), dts = GST_BUFFER_DTS(buffer);
    GstClockTime pts_rt = GST_CLOCK_TIME_IS_VALID(pts) ? gst_segment_to_running_time(segment, GST_FORMAT_TIME, pts) : pts;
    GstClockTime dts_rt = GST_CLOCK_TIME_IS_VALID(dts) ? gst_segment_to_running_time(segment, GST_FORMAT_TIME, dts) : dts;
    GstClockTime reference = GST_CLOCK_TIME_IS_VALID(dts_rt) ? dts_rt : pts_rt;
    /* Only this streaming thread sets the offset: the graph's clock is read only until it is known. */
    g_mutex_lock(&s->lock);
    gboolean placed_yet = s->offset_known;
    g_mutex_unlock(&s->lock);
    GstClockTime now = placed_yet ? GST_CLOCK_TIME_NONE : running_time_now(s->encoded);
    GstCaps *caps = gst_sample_get_caps(sample);
    gboolean keyframe = !GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT);
    g_mutex_lock(&s->lock);
    /* From the first keyframe on (what comes before it cannot be decoded), placed after whatever an earlier receiver
     * of this camera pushed: after an outage the graph's `now` could be no later than its last unit. */
    if (!s->offset_known && keyframe && GST_CLOCK_TIME_IS_VALID(now) && GST_CLOCK_TIME_IS_VALID(reference)) {
        GstClockTime after = last_pushed(s->encoded);
        GstClockTime start = GST_CLOCK_TIME_IS_VALID(after) && after + GST_MSECOND > now ? after + GST_MSECOND : now;
        s->encoded_offset = (gint64)start - (gint64)reference;
        s->offset_known = TRUE;
    }
    gboolean ready = s->offset_known;
    gint64 offset = s->encoded_offset;
    gboolean changed = caps && (!s->encoded_caps || !gst_caps_is_equal(caps, s->encoded_caps));
    if (changed) gst_caps_replace(&s->encoded_caps, caps);
    if (ready) s->units++;
    if (ready && !GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT) && GST_CLOCK_TIME_IS_VALID(pts_rt)) {
        if (GST_CLOCK_TIME_IS_VALID(s->last_key) && pts_rt > s->last_key) {
            s->gop_ns = pts_rt - s->last_key;
            s->gop_frames = (guint)s->since_key;
        }
        s->last_key = pts_rt;
        s->since_key = 0;
    }
    if (ready) s->since_key++;
    g_mutex_unlock(&s->lock);
    if (ready) {
        if (changed) gst_app_src_set_caps(GST_APP_SRC(s->encoded), caps);
        GstBuffer *copy = gst_buffer_copy(buffer); /* shares the memory */
        if (GST_CLOCK_TIME_IS_VALID(pts_rt)) GST_BUFFER_PTS(copy) = (GstClockTime)MAX((gint64)pts_rt + offset, 0);
        if (GST_CLOCK_TIME_IS_VALID(dts_rt)) GST_BUFFER_DTS(copy) = (GstClockTime)MAX((gint64)dts_rt + offset, 0);
        GstClockTime placed = GST_BUFFER_DTS_IS_VALID(copy) ? GST_BUFFER_DTS(copy) : GST_BUFFER_PTS(copy);
        GstClockTime after = last_pushed(s->encoded);
        /* A unit that would not come after the last one in decoding order (mp4mux refuses it) is left out. */
        if (GST_CLOCK_TIME_IS_VALID(after) && GST_CLOCK_TIME_IS_VALID(placed) && placed <= after) {
            gst_buffer_unref(copy);
        } else {
            if (GST_CLOCK_TIME_IS_VALID(placed)) set_last_pushed(s->encoded, placed);
            gst_app_src_push_buffer(GST_APP_SRC(s->encoded), copy);
        }
    }
    gst_sample_unref(sample);
    return GST_FLOW_OK;
}

/* Only keyframes reach the decoder unless every frame is wanted (detection, a preview): pictures for thumbnails,
 * snapshots and scrubbing cost one decode a GOP. */
static GstPadProbeReturn keyframes_only(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    NetworkSource *s = data;
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    if (g_atomic_int_get(&s->decode_all) || !GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT))
        return GST_PAD_PROBE_OK;
    return GST_PAD_PROBE_DROP;
}

/* The camera's H.264 pad → tee: appsink "encoded" (to `encoded`, as sent), and [keyframes only] queue ! avdec_h264
 * ! the "frames" appsink (decoded pictures for `target`); the keyframes-only probe is on the queue's sink. The units
 * go to `encoded` on the depayloader's thread, with no queue between: the hand-over never waits (a leaky appsrc),
 * and a queue's thread of its own cost 0.11 % of a core a 720p30 camera. */
static void link_as_sent(GstElement *pipeline, NetworkSource *s, GstPad *pad) {
    GstElement *tee = gst_element_factory_make("tee", "as-sent");
    GstElement *units = gst_element_factory_make("appsink", "encoded");
    GstElement *look = gst_element_factory_make("queue", "decode-queue");
    GstElement *decoder = gst_element_factory_make("avdec_h264", "decoder");
    GstElement *frames = gst_bin_get_by_name(GST_BIN(pipeline), "frames");
    if (!tee || !units || !look || !decoder || !frames) {
        GstElement *made[] = {tee, units, look, decoder};
        for (unsigned i = 0; i < G_N_ELEMENTS(made); i++)
            if (made[i]) gst_object_unref(made[i]);
        if (frames) gst_object_unref(frames);
        appl_bin_drop_pad(GST_BIN(pipeline), pad);
        fail(s, "avdec_h264 is missing (gstreamer1.0-libav): the camera's pictures cannot be decoded");
        return;
    }
    g_object_set(units, "sync", FALSE, "max-buffers", 0, "drop", FALSE, "enable-last-sample", FALSE, NULL);
    GstAppSinkCallbacks callbacks = {0};
    callbacks.new_sample = on_encoded_sample;
    gst_app_sink_set_callbacks(GST_APP_SINK(units), &callbacks, s, NULL);
    /* A decoder slower than the camera loses pictures, never units of the stored stream. */
    gst_util_set_object_arg(G_OBJECT(look), "leaky", "downstream");
    g_object_set(look, "max-size-buffers", 120, "max-size-bytes", 0, "max-size-time", (guint64)0, NULL);
    /* Delta units are left out before the queue, on the depayloader's thread: the queue's own thread then wakes
     * once a GOP rather than for every unit it would drop. */
    GstPad *look_sink = gst_element_get_static_pad(look, "sink");
    gst_pad_add_probe(look_sink, GST_PAD_PROBE_TYPE_BUFFER, keyframes_only, s, NULL);
    gst_object_unref(look_sink);
    g_mutex_lock(&s->lock);
    g_free(s->decoder);
    s->decoder = g_strdup("avdec_h264");
    s->video_linked = TRUE;
    g_mutex_unlock(&s->lock);
    gst_bin_add_many(GST_BIN(pipeline), tee, units, look, decoder, NULL);
    gboolean linked = gst_element_link(tee, units) && gst_element_link_many(tee, look, decoder, frames, NULL);
    GstElement *order[] = {units, frames, decoder, look, tee};
    for (unsigned i = 0; i < G_N_ELEMENTS(order); i++) gst_element_sync_state_with_parent(order[i]);
    gst_object_unref(frames);
    GstPad *input = gst_element_get_static_pad(tee, "sink");
    linked = linked && gst_pad_link(pad, input) == GST_PAD_LINK_OK;
    gst_object_unref(input);
    if (!linked) fail(s, "the camera's H.264 could not be linked to its store and decoder");
}

static void on_pad_added(GstElement *decode, GstPad *pad, gpointer data) {
    (void)decode;
    GstElement *pipeline = data;
    NetworkSource *s = state_of(pipeline);
    GstCaps *caps = gst_pad_get_current_caps(pad);
    if (!caps) caps = gst_pad_query_caps(pad, NULL);
    const gchar *media = caps && gst_caps_get_size(caps) > 0 ? gst_structure_get_name(gst_caps_get_structure(caps, 0)) : "";
    gboolean video = g_str_has_prefix(media, "video/");
    gboolean sound = g_str_has_prefix(media, "audio/");
    gboolean is_h264 = g_str_equal(media, "video/x-h264");
    if (caps) gst_caps_unref(caps);
    if (sound && link_sound(pipeline, s, pad)) return;
    if (s->encoded && video) {
        if (is_h264) {
            link_as_sent(pipeline, s, pad);
        } else {
            appl_bin_drop_pad(GST_BIN(pipeline), pad);
            fail(s, "the camera sends video other than H.264, which is stored only re-encoded: set passthrough = false "
                    "for its channel");
        }
        return;
    }
    GstElement *frames = gst_bin_get_by_name(GST_BIN(pipeline), "frames");
    GstPad *input = frames ? gst_element_get_static_pad(frames, "sink") : NULL;
    gboolean linked = video && input && !gst_pad_is_linked(input) && gst_pad_link(pad, input) == GST_PAD_LINK_OK;
    if (linked) {
        g_mutex_lock(&s->lock);
        s->video_linked = TRUE;
        g_mutex_unlock(&s->lock);
    } else {
        appl_bin_drop_pad(GST_BIN(pipeline), pad);
    }
    if (video && !linked && input && !gst_pad_is_linked(input)) {
        fail(s, "the camera's video decodes to frames in a memory the appliance cannot read (no system-memory output)");
    }
    if (input) gst_object_unref(input);
    if (frames) gst_object_unref(frames);
}

static void on_no_more_pads(GstElement *decode, gpointer data) {
    (void)decode;
    GstElement *pipeline = data;
    NetworkSource *s = state_of(pipeline);
    g_mutex_lock(&s->lock);
    gboolean linked = s->video_linked;
    g_mutex_unlock(&s->lock);
    /* Not a failure yet: a video pad can still come (measured: an appliance's RTSP stream, whose encoder starts on
     * demand, once had its sound's pad and no-more-pads before its video). The start's deadline decides; this
     * says why. */
    if (!linked) {
        g_mutex_lock(&s->lock);
        s->no_video_yet = TRUE;
        g_mutex_unlock(&s->lock);
    }
}

/* The RTP encoding of the camera's video (H264, H265, JPEG…), read from rtspsrc's pad as it appears. */
static GstPadProbeReturn note_codec(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    (void)pad;
    NetworkSource *s = data;
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
    if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS) return GST_PAD_PROBE_OK;
    GstCaps *caps = NULL;
    gst_event_parse_caps(event, &caps);
    const GstStructure *st = gst_caps_get_structure(caps, 0);
    const gchar *media = gst_structure_get_string(st, "media");
    const gchar *encoding = gst_structure_get_string(st, "encoding-name");
    if (media && encoding && strcmp(media, "video") == 0) {
        g_mutex_lock(&s->lock);
        if (!s->codec) s->codec = g_strdup(encoding);
        g_mutex_unlock(&s->lock);
    }
    if (media && encoding && strcmp(media, "audio") == 0) {
        g_mutex_lock(&s->lock);
        if (!s->sound_codec) s->sound_codec = g_strdup(encoding);
        g_mutex_unlock(&s->lock);
    }
    return GST_PAD_PROBE_OK;
}

static void on_source_pad(GstElement *source, GstPad *pad, gpointer data) {
    (void)source;
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, note_codec, data, NULL);
}

static void on_source_created(GstElement *decode, GstElement *source, gpointer data) {
    on_source_setup(decode, source, data);
    g_signal_connect(source, "pad-added", G_CALLBACK(on_source_pad), data);
}

static GstFlowReturn on_sample(GstAppSink *sink, gpointer data) {
    NetworkSource *s = data;
    GstSample *sample = gst_app_sink_pull_sample(sink);
    if (!sample) return GST_FLOW_EOS;
    GstCaps *caps = gst_sample_get_caps(sample);
    g_mutex_lock(&s->lock);
    s->frames++;
    gboolean changed = caps && (!s->caps || !gst_caps_is_equal(caps, s->caps));
    if (changed) {
        gst_caps_replace(&s->caps, caps);
        GstVideoInfo info;
        if (gst_video_info_from_caps(&info, caps)) {
            s->width = GST_VIDEO_INFO_WIDTH(&info);
            s->height = GST_VIDEO_INFO_HEIGHT(&info);
            s->fps_n = GST_VIDEO_INFO_FPS_N(&info);
            s->fps_d = GST_VIDEO_INFO_FPS_D(&info);
        }
    }
    g_mutex_unlock(&s->lock);
    if (s->target) {
        if (changed) gst_app_src_set_caps(GST_APP_SRC(s->target), caps);
        appl_app_src_push_unstamped(s->target, gst_sample_get_buffer(sample));
    }
    gst_sample_unref(sample);
    return GST_FLOW_OK;
}

static void on_eos(GstAppSink *sink, gpointer data) {
    (void)sink;
    NetworkSource *s = data;
    if (s->target) gst_app_src_end_of_stream(GST_APP_SRC(s->target));
}

/* The receiver's pipeline with its appsink ("frames") and state; the caller adds and links the source. */
static GstElement *make_receiver(GstElement *target, ApplNetworkFailure on_failure, void *context,
                                 GDestroyNotify release, NetworkSource **out) {
    GstElement *pipeline = gst_pipeline_new("network-camera");
    GstElement *frames = gst_element_factory_make("appsink", "frames");
    if (!pipeline || !frames) {
        if (pipeline) gst_object_unref(pipeline);
        if (frames) gst_object_unref(frames);
        return NULL;
    }
    NetworkSource *s = g_new0(NetworkSource, 1);
    g_mutex_init(&s->lock);
    appl_relay_init(&s->sound);
    s->target = target ? gst_object_ref(target) : NULL;
    s->on_failure = on_failure;
    s->context = context;
    s->release = release;
    g_object_set_data_full(G_OBJECT(pipeline), KEY, s, network_source_free);
    GstCaps *raw = gst_caps_from_string("video/x-raw");
    g_object_set(frames, "caps", raw, "sync", FALSE, "max-buffers", 2, "drop", TRUE, "enable-last-sample", FALSE, NULL);
    gst_caps_unref(raw);
    GstAppSinkCallbacks callbacks = {0};
    callbacks.new_sample = on_sample;
    callbacks.eos = on_eos;
    gst_app_sink_set_callbacks(GST_APP_SINK(frames), &callbacks, s, NULL);
    g_signal_connect(pipeline, "deep-element-added", G_CALLBACK(on_element_added), s);
    gst_bin_add(GST_BIN(pipeline), frames);
    GstBus *bus = gst_element_get_bus(pipeline);
    gst_bus_set_sync_handler(bus, on_message, pipeline, NULL);
    gst_object_unref(bus);
    *out = s;
    return pipeline;
}

GstElement *appl_network_source_new(const char *uri, const char *user, const char *password, int transport,
                                    unsigned latency_ms, unsigned timeout_s, GstElement *target,
                                    ApplNetworkFailure on_failure, void *context, GDestroyNotify release) {
    GstElement *decode = gst_element_factory_make("uridecodebin", "decode");
    if (!decode) return NULL;
    NetworkSource *s = NULL;
    GstElement *pipeline = make_receiver(target, on_failure, context, release, &s);
    if (!pipeline) {
        gst_object_unref(decode);
        return NULL;
    }
    s->user = g_strdup(user);
    s->password = g_strdup(password);
    s->transport = transport;
    s->latency_ms = latency_ms;
    s->timeout_s = timeout_s;
    g_object_set(decode, "uri", uri, NULL);
    g_signal_connect(decode, "source-setup", G_CALLBACK(on_source_created), s);
    g_signal_connect(decode, "pad-added", G_CALLBACK(on_pad_added), pipeline);
    g_signal_connect(decode, "no-more-pads", G_CALLBACK(on_no_more_pads), pipeline);
    gst_bin_add(GST_BIN(pipeline), decode);
    return pipeline;
}

GstElement *appl_source_receiver_new(GstElement *source, GstElement *target, ApplNetworkFailure on_failure, void *context,
                                     GDestroyNotify release) {
    NetworkSource *s = NULL;
    GstElement *pipeline = make_receiver(target, on_failure, context, release, &s);
    if (!pipeline) return NULL;
    gst_bin_add(GST_BIN(pipeline), source);
    GstElement *frames = gst_bin_get_by_name(GST_BIN(pipeline), "frames");
    gboolean linked = gst_element_link(source, frames);
    gst_object_unref(frames);
    if (!linked) {
        /* NULL leaves the context to the caller (the header's rule): the state freed with the pipeline must not
         * release it too (NetworkReceiver releases it on NULL: released twice before). */
        s->release = NULL;
        gst_object_unref(pipeline);
        return NULL;
    }
    s->video_linked = TRUE;
    /* Paced by the appsink (by the stream's timestamps) until the start finds the source live; not by the identity
     * the bin may have for that. */
    GstElement *pacer = gst_bin_get_by_name(GST_BIN(source), "dynamic-video");
    if (pacer) {
        g_object_set(pacer, "sync", FALSE, NULL);
        gst_object_unref(pacer);
    }
    frames = gst_bin_get_by_name(GST_BIN(pipeline), "frames");
    g_object_set(frames, "sync", TRUE, NULL);
    gst_object_unref(frames);
    return pipeline;
}

int appl_network_source_start(GstElement *pipeline) {
    GstStateChangeReturn paused = gst_element_set_state(pipeline, GST_STATE_PAUSED);
    if (paused == GST_STATE_CHANGE_FAILURE) return 0;
    if (paused == GST_STATE_CHANGE_NO_PREROLL) {
        /* A live source (a camera, RTSP): each frame goes on as it arrives; waiting for its timestamp would add the
         * jitterbuffer's whole latency. A file is paced to its timestamps, as a camera would deliver it. */
        GstElement *frames = gst_bin_get_by_name(GST_BIN(pipeline), "frames");
        g_object_set(frames, "sync", FALSE, NULL);
        gst_object_unref(frames);
        GstElement *sound = gst_bin_get_by_name(GST_BIN(pipeline), "sound");
        if (sound) {
            g_object_set(sound, "sync", FALSE, NULL);
            gst_object_unref(sound);
        }
    }
    return gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
}

void appl_network_source_stats(GstElement *pipeline, ApplNetworkSourceStats *out) {
    memset(out, 0, sizeof(*out));
    NetworkSource *s = state_of(pipeline);
    if (!s) return;
    g_mutex_lock(&s->lock);
    out->frames = s->frames;
    out->width = s->width;
    out->height = s->height;
    out->fps_n = s->fps_n;
    out->fps_d = s->fps_d;
    if (s->codec) g_strlcpy(out->codec, s->codec, sizeof(out->codec));
    if (s->decoder) g_strlcpy(out->decoder, s->decoder, sizeof(out->decoder));
    if (s->failure) g_strlcpy(out->failure, s->failure, sizeof(out->failure));
    out->no_video_track = s->no_video_yet && !s->video_linked;
    out->sound_buffers = appl_relay_received(&s->sound);
    if (s->sound_codec) g_strlcpy(out->sound_codec, s->sound_codec, sizeof(out->sound_codec));
    out->units = s->units;
    out->gop_ns = s->gop_ns;
    out->gop_frames = s->gop_frames;
    out->as_sent = s->encoded != NULL;
    g_mutex_unlock(&s->lock);
}

void appl_app_src_push_unstamped(GstElement *target, GstBuffer *buffer) {
    GstBuffer *copy = gst_buffer_copy(buffer);  /* shares the memory */
    GST_BUFFER_PTS(copy) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DTS(copy) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION(copy) = GST_CLOCK_TIME_NONE;
    gst_app_src_push_buffer(GST_APP_SRC(target), copy);  /* a leaky appsrc: never waits */
}

void appl_network_source_carry_sound(GstElement *pipeline, const char *caps) {
    NetworkSource *s = state_of(pipeline);
    if (!s) return;
    g_mutex_lock(&s->lock);
    g_free(s->sound_caps);
    s->sound_caps = caps ? g_strdup(caps) : NULL;
    g_mutex_unlock(&s->lock);
}

void appl_network_source_send_sound(GstElement *pipeline, GstElement *target) {
    NetworkSource *s = state_of(pipeline);
    if (!s) return;
    appl_relay_set_target(&s->sound, target);
}

void appl_network_source_store_as_sent(GstElement *pipeline, GstElement *encoded) {
    NetworkSource *s = state_of(pipeline);
    if (!s || !encoded) return;
    g_mutex_lock(&s->lock);
    if (s->encoded) gst_object_unref(s->encoded);
    s->encoded = gst_object_ref(encoded);
    s->last_key = GST_CLOCK_TIME_NONE;
    g_mutex_unlock(&s->lock);
    GstElement *decode = gst_bin_get_by_name(GST_BIN(pipeline), "decode");
    if (!decode) return;
    /* decodebin stops at parsed H.264 (the depayloader's AVC access units); other video is decoded, and refused. */
    GstCaps *caps = gst_caps_from_string("video/x-h264; video/x-raw(ANY); audio/x-raw(ANY)");
    g_object_set(decode, "caps", caps, NULL);
    gst_caps_unref(caps);
    gst_object_unref(decode);
}

void appl_network_source_decode_all(GstElement *pipeline, int all) {
    NetworkSource *s = state_of(pipeline);
    if (s) g_atomic_int_set(&s->decode_all, all ? 1 : 0);
}
