#include <string.h>
#include "CGStreamerShim.h"

static gpointer appl_gst_init_once(gpointer unused) {
    (void)unused;
    gst_init(NULL, NULL);
    return NULL;
}

/* g_once: a caller on another thread waits until the first call's gst_init has returned, whatever
 * gst_is_initialized() says in the meantime. */
void appl_gst_init(void) {
    static GOnce once = G_ONCE_INIT;
    g_once(&once, appl_gst_init_once, NULL);
}

static GParamSpec *find_property(gpointer object, const char *name) {
    return g_object_class_find_property(G_OBJECT_GET_CLASS(object), name);
}

int appl_object_has_property(gpointer object, const char *name) {
    return find_property(object, name) != NULL;
}

int appl_object_set_from_string(gpointer object, const char *name, const char *value) {
    if (!find_property(object, name)) return 0;
    gst_util_set_object_arg(G_OBJECT(object), name, value);
    return 1;
}

void appl_object_set_bool(gpointer object, const char *name, int value) { g_object_set(object, name, (gboolean)(value != 0), NULL); }
void appl_object_set_int(gpointer object, const char *name, gint value) { g_object_set(object, name, value, NULL); }
void appl_object_set_uint(gpointer object, const char *name, guint value) { g_object_set(object, name, value, NULL); }
void appl_object_set_int64(gpointer object, const char *name, gint64 value) { g_object_set(object, name, value, NULL); }
void appl_object_set_uint64(gpointer object, const char *name, guint64 value) { g_object_set(object, name, value, NULL); }
void appl_object_set_string(gpointer object, const char *name, const char *value) { g_object_set(object, name, value, NULL); }
void appl_object_set_caps(gpointer object, const char *name, GstCaps *caps) { g_object_set(object, name, caps, NULL); }
void appl_object_set_object(gpointer object, const char *name, gpointer value) { g_object_set(object, name, value, NULL); }
char *appl_object_get_object_name(gpointer object, const char *name) {
    GObject *value = NULL;
    g_object_get(object, name, &value, NULL);
    if (!value) return NULL;
    char *result = GST_IS_OBJECT(value) ? gst_object_get_name(GST_OBJECT(value)) : NULL;
    g_object_unref(value);
    return result;
}

char *appl_object_get_string_form(gpointer object, const char *name) {
    GParamSpec *spec = find_property(object, name);
    if (!spec) return NULL;
    GValue value = G_VALUE_INIT;
    g_value_init(&value, spec->value_type);
    g_object_get_property(G_OBJECT(object), name, &value);
    char *text;
    if (G_VALUE_HOLDS_STRING(&value)) {
        text = g_value_dup_string(&value);
        if (!text) text = g_strdup("");
    } else {
        text = gst_value_serialize(&value);
        if (!text) text = g_strdup_value_contents(&value);
    }
    g_value_unset(&value);
    return text;
}

const char *appl_object_type_name(gpointer object) { return G_OBJECT_TYPE_NAME(object); }

GstBuffer *appl_probe_info_buffer(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_BUFFER(info); }
GstBufferList *appl_probe_info_buffer_list(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_BUFFER_LIST(info); }
GstEvent *appl_probe_info_event(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_EVENT(info); }
GstQuery *appl_probe_info_query(GstPadProbeInfo *info) { return GST_PAD_PROBE_INFO_QUERY(info); }
int appl_buffer_is_keyframe(GstBuffer *buffer) { return !GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT); }

GstFlowReturn appl_pad_push_copies(GstPad *pad, GstBuffer *buffer, guint64 start, guint64 step, int count) {
    GstFlowReturn result = GST_FLOW_OK;
    for (int i = 0; i < count && result == GST_FLOW_OK; i++) {
        GstBuffer *copy = gst_buffer_copy(buffer);
        GST_BUFFER_PTS(copy) = start + (guint64)i * step;
        GST_BUFFER_DTS(copy) = GST_CLOCK_TIME_NONE;
        GST_BUFFER_DURATION(copy) = step;
        GST_BUFFER_FLAG_UNSET(copy, GST_BUFFER_FLAG_DISCONT);
        result = gst_pad_push(pad, copy);
    }
    return result;
}

void appl_probe_info_set_timing(GstPadProbeInfo *info, guint64 pts, guint64 duration) {
    GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
    GST_BUFFER_PTS(buffer) = pts;
    GST_BUFFER_DURATION(buffer) = duration;
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
}

void appl_probe_info_shift_timing(GstPadProbeInfo *info, gint64 delta) {
    GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
    if (GST_BUFFER_PTS_IS_VALID(buffer)) GST_BUFFER_PTS(buffer) += delta;
    if (GST_BUFFER_DTS_IS_VALID(buffer)) GST_BUFFER_DTS(buffer) += delta;
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
}

gsize appl_probe_info_fill_buffer(GstPadProbeInfo *info, gsize offset, const guint8 *bytes, gsize size) {
    GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
    return gst_buffer_fill(buffer, offset, bytes, size);
}

void appl_probe_info_set_delta_unit(GstPadProbeInfo *info) {
    GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
    GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT);
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
}

void appl_probe_info_set_sync_after(GstPadProbeInfo *info) {
    GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
    GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_SYNC_AFTER);
    GST_PAD_PROBE_INFO_DATA(info) = buffer;
}

int appl_probe_info_answer_not_seekable(GstPadProbeInfo *info) {
    GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
    if (!query || GST_QUERY_TYPE(query) != GST_QUERY_SEEKING) return 0;
    GstFormat format;
    gst_query_parse_seeking(query, &format, NULL, NULL, NULL);
    gst_query_set_seeking(query, format, FALSE, 0, -1);
    return 1;
}

GstFlowReturn appl_pad_chain_to_peer(GstPad *pad, GstMiniObject *data) {
    GstPad *peer = gst_pad_get_peer(pad);
    if (!peer) {
        gst_mini_object_unref(data);
        return GST_FLOW_NOT_LINKED;
    }
    GstFlowReturn ret = GST_IS_BUFFER_LIST(data) ? gst_pad_chain_list(peer, GST_BUFFER_LIST_CAST(data))
                                                 : gst_pad_chain(peer, GST_BUFFER_CAST(data));
    gst_object_unref(peer);
    return ret;
}

GstFlowReturn appl_probe_info_chain_to_peer(GstPad *pad, GstPadProbeInfo *info) {
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    GST_PAD_PROBE_INFO_DATA(info) = NULL;
    GST_PAD_PROBE_INFO_FLOW_RETURN(info) = GST_FLOW_OK;
    return appl_pad_chain_to_peer(pad, GST_MINI_OBJECT_CAST(buffer));
}

static char *structure_string(const GstStructure *s, const char *field) {
    if (!s || !gst_structure_has_field(s, field)) return NULL;
    const GValue *v = gst_structure_get_value(s, field);
    return G_VALUE_HOLDS_STRING(v) ? g_value_dup_string(v) : gst_value_serialize(v);
}

void appl_device_describe(GstDevice *device, char **name, char **device_class, char **caps, char **path) {
    *name = gst_device_get_display_name(device);
    *device_class = gst_device_get_device_class(device);
    GstCaps *c = gst_device_get_caps(device);
    *caps = c ? gst_caps_to_string(c) : NULL;
    if (c) gst_caps_unref(c);
    GstStructure *props = gst_device_get_properties(device);
    *path = NULL;
    const char *fields[] = { "api.v4l2.path", "device.path", "object.path", "api.alsa.path", "alsa.card", NULL };
    for (int i = 0; fields[i] && !*path; i++) *path = structure_string(props, fields[i]);
    if (props) gst_structure_free(props);
}

GstDevice *appl_message_parse_device(GstMessage *message, int *added) {
    GstDevice *device = NULL;
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_DEVICE_ADDED) { gst_message_parse_device_added(message, &device); *added = 1; }
    else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_DEVICE_REMOVED) { gst_message_parse_device_removed(message, &device); *added = 0; }
    return device;
}

guint64 appl_pad_to_running_time(GstPad *pad, guint64 timestamp) {
    if (!GST_CLOCK_TIME_IS_VALID(timestamp)) return GST_CLOCK_TIME_NONE;
    GstEvent *event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
    if (!event) return GST_CLOCK_TIME_NONE;
    const GstSegment *segment = NULL;
    gst_event_parse_segment(event, &segment);
    guint64 result = GST_CLOCK_TIME_NONE;
    if (segment && segment->format == GST_FORMAT_TIME)
        result = gst_segment_to_running_time(segment, GST_FORMAT_TIME, timestamp);
    gst_event_unref(event);
    return result;
}

guint64 appl_element_running_time_now(GstElement *element) {
    GstClock *clock = gst_element_get_clock(element);
    if (!clock) return GST_CLOCK_TIME_NONE;
    GstClockTime now = gst_clock_get_time(clock);
    gst_object_unref(clock);
    GstClockTime base = gst_element_get_base_time(element);
    return now >= base ? now - base : 0;
}

guint64 appl_element_running_time_when_playing(GstElement *element) {
    GST_OBJECT_LOCK(element);
    gboolean playing = GST_STATE(element) == GST_STATE_PLAYING && GST_STATE_PENDING(element) == GST_STATE_VOID_PENDING;
    GST_OBJECT_UNLOCK(element);
    return playing ? appl_element_running_time_now(element) : GST_CLOCK_TIME_NONE;
}

guint64 appl_element_start_now(GstElement *element, GstElement *pipeline) {
    GstClock *clock = gst_element_get_clock(pipeline);
    guint64 running = 0;
    GstClockTime base = gst_element_get_base_time(pipeline);
    if (clock) {
        GstClockTime now = gst_clock_get_time(clock);
        running = now > base ? now - base : 0;
        gst_element_set_clock(element, clock);
        gst_object_unref(clock);
    }
    gst_element_set_base_time(element, base + running);
    gst_element_set_start_time(element, GST_CLOCK_TIME_NONE);
    return running;
}

void appl_pad_set_offset(GstPad *pad, gint64 offset) { gst_pad_set_offset(pad, offset); }

const char *appl_object_name(gpointer object) { return GST_OBJECT_NAME(object); }
char *appl_object_path(gpointer object) {
    /* "/pipeline/bin/element": names only, unlike gst_object_get_path_string's "/GstPipeline:pipeline/…". */
    GString *path = g_string_new("");
    GstObject *current = gst_object_ref(GST_OBJECT(object));
    while (current) {
        gchar *name = gst_object_get_name(current);
        g_string_prepend(path, name ? name : "?");
        g_string_prepend_c(path, '/');
        g_free(name);
        GstObject *parent = gst_object_get_parent(current);
        gst_object_unref(current);
        current = parent;
    }
    return g_string_free(path, FALSE);
}

char *appl_bin_file_locations(GstBin *bin) {
    GString *locations = g_string_new("");
    GstIterator *it = gst_bin_iterate_all_by_element_factory_name(bin, "filesrc");
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        gchar *location = NULL;
        g_object_get(g_value_get_object(&item), "location", &location, NULL);
        if (location) {
            if (locations->len > 0) g_string_append_c(locations, '\n');
            g_string_append(locations, location);
            g_free(location);
        }
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(it);
    return g_string_free(locations, locations->len == 0);
}

