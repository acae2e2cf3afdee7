#include "CGStreamerShim.h"

/*
 * A flow guard on a bin's sink ghost pad: what the bin returns upstream is always OK (or FLUSHING), and the first
 * error it returned (not-negotiated, error, not-supported) is kept for the application to read. The live graph puts one on its
 * video encoder: an encoder that fails returns GST_FLOW_ERROR to the queue feeding it, the queue then refuses every
 * buffer with that error, and the raw tee would hand it on to the camera selector and the camera — the whole graph
 * would stop for one failed encoder. Behind the guard the failure stays in the encoder's branch; the application
 * sees it (appl_pad_guarded_flow) and replaces the encoder.
 */

typedef struct {
    gint first; /* atomic: the first absorbed GstFlowReturn, 0 (OK) while none */
} FlowGuard;

static GQuark flow_guard_quark(void) { return g_quark_from_static_string("appl-flow-guard"); }

/* Errors (not-negotiated, error, not-supported and custom errors: below EOS) are kept; EOS and not-linked from
 * downstream are only absorbed: they say nothing about the encoder, and handed up they would stop the camera too. */
static GstFlowReturn absorb(GstPad *pad, GstFlowReturn ret) {
    if (ret == GST_FLOW_OK || ret == GST_FLOW_FLUSHING) return ret;
    FlowGuard *guard = g_object_get_qdata(G_OBJECT(pad), flow_guard_quark());
    if (guard && ret < GST_FLOW_EOS) g_atomic_int_compare_and_exchange(&guard->first, 0, (gint)ret);
    return GST_FLOW_OK;
}

static GstFlowReturn guarded_chain(GstPad *pad, GstObject *parent, GstBuffer *buffer) {
    return absorb(pad, gst_proxy_pad_chain_default(pad, parent, buffer));
}

static GstFlowReturn guarded_chain_list(GstPad *pad, GstObject *parent, GstBufferList *list) {
    return absorb(pad, gst_proxy_pad_chain_list_default(pad, parent, list));
}

int appl_pad_guard_flow(GstPad *pad) {
    if (!GST_IS_PROXY_PAD(pad) || GST_PAD_DIRECTION(pad) != GST_PAD_SINK) return 0;
    g_object_set_qdata_full(G_OBJECT(pad), flow_guard_quark(), g_new0(FlowGuard, 1), g_free);
    gst_pad_set_chain_function(pad, guarded_chain);
    gst_pad_set_chain_list_function(pad, guarded_chain_list);
    return 1;
}

int appl_pad_guarded_flow(GstPad *pad) {
    FlowGuard *guard = g_object_get_qdata(G_OBJECT(pad), flow_guard_quark());
    return guard ? g_atomic_int_get(&guard->first) : 0;
}
