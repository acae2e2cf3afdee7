#include "CGStreamerShim.h"
#include <gst/app/gstappsink.h>

/* A switchable hand-over from an appsink in one pipeline to an appsrc in another: the IP camera's sound to the
 * microphone while that camera is shown, a viewer's voice to the speaker while that viewer talks. The appsink's
 * streaming thread reads the target under a lock, takes a reference and pushes outside it, so switching the target
 * (from any thread) never waits on a push and a push never sees a freed target. */

static GstFlowReturn on_relay_sample(GstAppSink *sink, gpointer data) {
    ApplRelay *relay = data;
    GstSample *sample = gst_app_sink_pull_sample(sink);
    if (!sample) return GST_FLOW_EOS;
    g_mutex_lock(&relay->lock);
    relay->received++;
    GstElement *target = relay->target ? gst_object_ref(relay->target) : NULL;
    if (target) relay->forwarded++;
    g_mutex_unlock(&relay->lock);
    if (target) {
        appl_app_src_push_unstamped(target, gst_sample_get_buffer(sample));
        gst_object_unref(target);
    }
    gst_sample_unref(sample);
    return GST_FLOW_OK;
}

void appl_relay_init(ApplRelay *relay) {
    g_mutex_init(&relay->lock);
    relay->target = NULL;
    relay->received = 0;
    relay->forwarded = 0;
}

void appl_relay_clear(ApplRelay *relay) {
    if (relay->target) gst_object_unref(relay->target);
    relay->target = NULL;
    g_mutex_clear(&relay->lock);
}

void appl_relay_attach(ApplRelay *relay, GstElement *appsink) {
    GstAppSinkCallbacks callbacks = {0};
    callbacks.new_sample = on_relay_sample;
    gst_app_sink_set_callbacks(GST_APP_SINK(appsink), &callbacks, relay, NULL);
}

void appl_relay_set_target(ApplRelay *relay, GstElement *target) {
    g_mutex_lock(&relay->lock);
    GstElement *old = relay->target;
    relay->target = target ? gst_object_ref(target) : NULL;
    g_mutex_unlock(&relay->lock);
    if (old) gst_object_unref(old);
}

guint64 appl_relay_received(ApplRelay *relay) {
    g_mutex_lock(&relay->lock);
    guint64 count = relay->received;
    g_mutex_unlock(&relay->lock);
    return count;
}

guint64 appl_relay_forwarded(ApplRelay *relay) {
    g_mutex_lock(&relay->lock);
    guint64 count = relay->forwarded;
    g_mutex_unlock(&relay->lock);
    return count;
}

static GstFlowReturn on_forward_sample(GstAppSink *sink, gpointer data) {
    GstSample *sample = gst_app_sink_pull_sample(sink);
    if (!sample) return GST_FLOW_EOS;
    appl_app_src_push_unstamped(GST_ELEMENT(data), gst_sample_get_buffer(sample));
    gst_sample_unref(sample);
    return GST_FLOW_OK;
}

void appl_app_sink_forward(GstElement *appsink, GstElement *target) {
    GstAppSinkCallbacks callbacks = {0};
    callbacks.new_sample = on_forward_sample;
    gst_app_sink_set_callbacks(GST_APP_SINK(appsink), &callbacks, gst_object_ref(target), gst_object_unref);
}

static void relay_free(gpointer data) {
    ApplRelay *relay = data;
    appl_relay_clear(relay);
    g_free(relay);
}

ApplRelay *appl_relay_attach_new(GstElement *appsink) {
    ApplRelay *relay = g_new0(ApplRelay, 1);
    appl_relay_init(relay);
    GstAppSinkCallbacks callbacks = {0};
    callbacks.new_sample = on_relay_sample;
    gst_app_sink_set_callbacks(GST_APP_SINK(appsink), &callbacks, relay, relay_free);
    return relay;
}
