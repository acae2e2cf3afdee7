#ifndef APPLIANCE_GSTREAMER_SHIM_H
#define APPLIANCE_GSTREAMER_SHIM_H
/*
 * The thin C layer under GStreamerKit: wrappers for what Swift cannot call directly (varargs, macros, GType
 * lookups). No appliance logic here. JPEG is CJpeg; input devices CLinuxInput; other system calls CSystemCalls.
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

/* ---- init ---- */
/** gst_init with no arguments; safe to call more than once. */
void appl_gst_init(void);

/* ---- GObject properties ---- */
/** 1 when the object's class has a property called `name`. */
int appl_object_has_property(gpointer object, const char *name);
/** Sets a property from its string form (ints, bools, enums by nick, caps, …). 0 when the property is unknown. */
int appl_object_set_from_string(gpointer object, const char *name, const char *value);
void appl_object_set_bool(gpointer object, const char *name, int value);
void appl_object_set_int(gpointer object, const char *name, gint value);
void appl_object_set_uint(gpointer object, const char *name, guint value);
void appl_object_set_int64(gpointer object, const char *name, gint64 value);
void appl_object_set_uint64(gpointer object, const char *name, guint64 value);
void appl_object_set_string(gpointer object, const char *name, const char *value);
void appl_object_set_caps(gpointer object, const char *name, GstCaps *caps);
/** Sets an object-typed property (e.g. input-selector's "active-pad"). */
void appl_object_set_object(gpointer object, const char *name, gpointer value);
/** Name of the object held by an object-typed property; free with g_free. NULL when unset. */
char *appl_object_get_object_name(gpointer object, const char *name);
/** The property's value printed as text (g_strdup_value_contents); free with g_free. NULL if unknown. */
char *appl_object_get_string_form(gpointer object, const char *name);
/** The object's GType name, e.g. "GstX264Enc". */
const char *appl_object_type_name(gpointer object);

/* ---- probes, buffers, events ---- */
GstBuffer *appl_probe_info_buffer(GstPadProbeInfo *info);
GstBufferList *appl_probe_info_buffer_list(GstPadProbeInfo *info);
GstEvent *appl_probe_info_event(GstPadProbeInfo *info);
GstQuery *appl_probe_info_query(GstPadProbeInfo *info);
int appl_buffer_is_keyframe(GstBuffer *buffer);
/** Pushes `count` shallow copies of `buffer` out of `pad`, with PTS start, start + step, … (used to hold the last
 *  frame over a gap). Returns the last flow return. */
GstFlowReturn appl_pad_push_copies(GstPad *pad, GstBuffer *buffer, guint64 start, guint64 step, int count);
/** Rewrites the probed buffer's PTS and duration (making it writable first; metadata only when not shared). */
void appl_probe_info_set_timing(GstPadProbeInfo *info, guint64 pts, guint64 duration);
/** Moves the probed buffer's PTS and DTS (those that are set) by `delta` ns (the buffer is made writable). */
void appl_probe_info_shift_timing(GstPadProbeInfo *info, gint64 delta);
/** Hands the probed buffer to the peer pad itself (gst_pad_chain) and returns the peer's flow return; the probe
 *  must then answer GST_PAD_PROBE_HANDLED, and the push it interrupted returns GST_FLOW_OK whatever happened. */
GstFlowReturn appl_probe_info_chain_to_peer(GstPad *pad, GstPadProbeInfo *info);
/** Hands `data` (a buffer or a buffer list, transfer full) to the peer of `pad` directly, past the pad's own flags
 *  and probes; GST_FLOW_NOT_LINKED (and `data` dropped) without a peer. */
GstFlowReturn appl_pad_chain_to_peer(GstPad *pad, GstMiniObject *data);
/** Writes `size` bytes over the probed buffer from `offset` (the buffer is made writable first). Returns the bytes
 *  written (fewer when the buffer is shorter). */
gsize appl_probe_info_fill_buffer(GstPadProbeInfo *info, gsize offset, const guint8 *bytes, gsize size);
/** Sets GST_BUFFER_FLAG_DELTA_UNIT on the probed buffer (made writable): downstream takes it for a frame that
 *  depends on others (not a keyframe). */
void appl_probe_info_set_delta_unit(GstPadProbeInfo *info);
/** Sets GST_BUFFER_FLAG_SYNC_AFTER on the probed buffer (made writable): filesink fsyncs right after writing it. */
void appl_probe_info_set_sync_after(GstPadProbeInfo *info);
/** When the probed data is a SEEKING query, answers it "not seekable" and returns 1 (the probe then returns
 *  GST_PAD_PROBE_HANDLED); 0 for anything else. */
int appl_probe_info_answer_not_seekable(GstPadProbeInfo *info);
/** Batches the RTP packets leaving a payloader's `pad` into one buffer list per frame (`per_frame`: until the
 *  marker bit, or a packet of a new RTP timestamp) or per `max_packets` packets, so each frame costs its consumers
 *  one wake-up and one send instead of one per NAL unit (rtp_batch.c). Held packets go before any serialized event
 *  and are dropped at a flush. Returns the probe id. */
gulong appl_pad_add_rtp_batcher(GstPad *pad, guint max_packets, gboolean per_frame);
/** Converts a buffer timestamp on `pad` into running time using the pad's sticky segment.
 *  Returns GST_CLOCK_TIME_NONE when there is no segment or the time is outside it. */
guint64 appl_pad_to_running_time(GstPad *pad, guint64 timestamp);
/** Pipeline running time now: clock time minus base time; GST_CLOCK_TIME_NONE without a clock. */
guint64 appl_element_running_time_now(GstElement *element);
/** The same, but only while `element` is PLAYING with no state change pending; GST_CLOCK_TIME_NONE otherwise.
 *  On its way to PLAYING a pipeline hands its elements the clock before their new base time, so a reading in
 *  between is clock time minus a stale base time: on a first start, hours of uptime. Timestamps mapped from such a
 *  reading make every synchronised sink downstream wait that long (an RTSP media that stalled with its first
 *  client, measured in session 16). */
guint64 appl_element_running_time_when_playing(GstElement *element);

/** Prepares `element` (started on its own while `pipeline` runs, e.g. a camera bin with a locked state) to start
 *  "now": the pipeline's clock, and a base time of the pipeline's base time plus its current running time, which is
 *  returned. Its live sources then start at time 0 in real time — whether they stamp from the clock (v4l2src) or
 *  count from 0 (videotestsrc, which otherwise bursts out every frame since the pipeline started) — and a pad offset
 *  of the returned value on its output maps them into the pipeline's running time. */
guint64 appl_element_start_now(GstElement *element, GstElement *pipeline);
void appl_pad_set_offset(GstPad *pad, gint64 offset);

/* ---- flow guard (flow_guard.c) ---- */
/** Makes a bin's sink ghost pad return OK upstream whatever the bin returns (FLUSHING excepted), keeping the first
 *  error (a return below EOS); 0 if `pad` is not a sink ghost pad. */
int appl_pad_guard_flow(GstPad *pad);
/** The first GstFlowReturn the guard absorbed; 0 (OK) while none. */
int appl_pad_guarded_flow(GstPad *pad);

/* ---- messages and objects ---- */
const char *appl_object_name(gpointer object);

/** For a source bin whose elements add their pads later (uridecodebin, decodebin, rtspsrc): when the bin has no
 *  "src" pad, one on an `identity sync=true` ("dynamic-video", pacing a file to its timestamps) that the first video
 *  pad added is linked to; every other pad nothing linked goes to a fakesink in the bin. Returns how many elements are watched (0: a static source). */
int appl_bin_expose_dynamic_pads(GstBin *bin);
/** Links `pad` to a fakesink of its own in `bin` (synced to the bin's state): a pad nobody wants that must not stop
 *  the stream with not-linked. Safe from a pad-added handler. */
void appl_bin_drop_pad(GstBin *bin, GstPad *pad);

/** Pushes a copy of `buffer` (sharing its memory) with its timestamps cleared into the appsrc `target`, which stamps
 *  it on arrival (do-timestamp): a frame or sound handed from one pipeline to another's clock. Never waits (the
 *  appsrc is leaky). */
void appl_app_src_push_unstamped(GstElement *target, GstBuffer *buffer);

/** A switchable hand-over (relay.c): an appsink's buffers pushed unstamped into `target`, an appsrc in another
 *  pipeline, while there is one (NULL: dropped, still counted). Embedded in its owner, which outlives the appsink. */
typedef struct {
    GMutex lock;
    GstElement *target;
    guint64 received;
    guint64 forwarded;
} ApplRelay;
/** Ownership: an embedded relay is its owner's, who calls `appl_relay_clear` once nothing can call it any more
 *  (after its appsink is freed or detached); the relay holds a reference to its target (`appl_relay_set_target`
 *  takes one and drops the last one's), which `appl_relay_clear` drops. */
void appl_relay_init(ApplRelay *relay);
void appl_relay_clear(ApplRelay *relay);
/** Makes `relay` the appsink's new-sample callback (replacing any other). */
void appl_relay_attach(ApplRelay *relay, GstElement *appsink);
/** A relay owned by `appsink` (freed with it, or when its callbacks are replaced): valid while the appsink lives. */
ApplRelay *appl_relay_attach_new(GstElement *appsink);
void appl_relay_set_target(ApplRelay *relay, GstElement *target);
guint64 appl_relay_received(ApplRelay *relay);
guint64 appl_relay_forwarded(ApplRelay *relay);
/** Every buffer `appsink` receives pushed unstamped into the appsrc `target` (a fixed relay: the appsink holds a
 *  reference to `target` until it is freed or its callbacks are replaced). */
void appl_app_sink_forward(GstElement *appsink, GstElement *target);

/* ---- network cameras (network_source.c) ---- */
/** What a network camera's receiver has seen: frames handed over, the decoded size and rate, the RTP encoding
 *  ("H264"), the decoder chosen, and the first failure in words ("" while none). */
typedef struct {
    guint64 frames;
    int width, height, fps_n, fps_d;
    char codec[32];
    char decoder[64];
    char failure[512];
    /* The source said it had no more pads and none was video (a video pad may still come). */
    int no_video_track;
    /* Sound buffers decoded (only when sound is carried), and the RTP encoding of the sound ("MPEG4-GENERIC"). */
    guint64 sound_buffers;
    char sound_codec[32];
    /* Stored as sent (appl_network_source_store_as_sent): units handed over, and the camera's last full GOP (its
     * length and frames; 0 before two keyframes came). */
    int as_sent;
    guint64 units;
    guint64 gop_ns;
    unsigned gop_frames;
} ApplNetworkSourceStats;
/** Called once, on the thread that saw it, with the receiver's first failure in words. Must not block. */
typedef void (*ApplNetworkFailure)(void *context, const char *reason);
/** A receiver pipeline for `uri` (uridecodebin; an rtspsrc in it gets user, password, transport 0 auto / 1 tcp /
 *  2 udp, latency and timeouts) handing each decoded frame to the appsrc `target` (may be NULL: frames are only
 *  counted). Its first failure goes to `on_failure` (may be NULL) and is posted again on `target` in words; its end
 *  of stream ends `target`'s. Start and stop it with gst_element_set_state.
 *  Ownership: the pipeline owns `context` and calls `release(context)` once, when it is freed. NULL (uridecodebin or
 *  appsink missing) leaves `context` to the caller: `release` is never called. */
GstElement *appl_network_source_new(const char *uri, const char *user, const char *password, int transport,
                                    unsigned latency_ms, unsigned timeout_s, GstElement *target,
                                    ApplNetworkFailure on_failure, void *context, GDestroyNotify release);
/** The same receiver around any source bin whose "src" pad gives raw video (a `pipeline` camera whose pads come
 *  later, see appl_bin_expose_dynamic_pads). NULL when the bin cannot be linked to raw video (a pipeline that ends
 *  in h264parse, say). Ownership as appl_network_source_new's: on NULL the caller still owns `context`. `source` is
 *  added to the pipeline either way (on NULL it is unparented again as the pipeline is freed). */
GstElement *appl_source_receiver_new(GstElement *source, GstElement *target, ApplNetworkFailure on_failure, void *context,
                                     GDestroyNotify release);
void appl_network_source_stats(GstElement *pipeline, ApplNetworkSourceStats *out);
/** Before start: decode the camera's first sound pad to `caps` (a raw audio format) instead of dropping it. */
void appl_network_source_carry_sound(GstElement *pipeline, const char *caps);
/** Where the carried sound goes from now on: the appsrc `target` (stamped on arrival, never waited on), or nowhere
 *  (NULL). Safe from any thread at any time. */
void appl_network_source_send_sound(GstElement *pipeline, GstElement *target);
/** Before start: the camera's H.264 also goes, as sent, to the appsrc `encoded` (its timestamps moved onto that
 *  appsrc's running time), and only the pictures a keyframe carries are decoded for `target` (all of them after
 *  `appl_network_source_decode_all`). Video other than H.264 is a failure in words. */
void appl_network_source_store_as_sent(GstElement *pipeline, GstElement *encoded);
/** Whether every frame is decoded for `target` (1) or only keyframes (0, the default). Safe from any thread. */
void appl_network_source_decode_all(GstElement *pipeline, int all);
/** Starts a receiver: a live source's frames go on as they arrive, a file's at its timestamps. 0 on failure. */
int appl_network_source_start(GstElement *pipeline);
/** Path of the object in the bin hierarchy ("/pipeline/cam0/src"); free with g_free. */
char *appl_object_path(gpointer object);
/** The `location` of every filesrc inside `bin` (at any depth), one per line; NULL when there is none. The caller
 *  frees the result with g_free. */
char *appl_bin_file_locations(GstBin *bin);

/* ---- device monitor ---- */
/** Name, class, caps (text) and a device path property ("api.v4l2.path", "device.path" or "alsa.card" …) of a
 *  device. Strings are newly allocated (g_free); any may be NULL. */
void appl_device_describe(GstDevice *device, char **name, char **device_class, char **caps, char **path);
GstDevice *appl_message_parse_device(GstMessage *message, int *added);

#endif
