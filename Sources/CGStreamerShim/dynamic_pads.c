#include "CGStreamerShim.h"
#include <string.h>

/* A source whose last element adds its pads later (uridecodebin, decodebin, rtspsrc with several streams): the bin
 * gets a "src" ghost pad on an `identity sync=true` of its own (a file decodes faster than real time: the identity
 * paces it by its timestamps, as a camera would deliver); the first video pad any of its elements adds is linked to
 * that identity, and every other pad it adds that nothing linked (the sound, a second video) goes to a fakesink of
 * its own in the bin, so an unlinked pad never stops the stream with "not-linked". Runs on the streaming thread that
 * adds the pad. */

static gboolean is_video(GstPad *pad) {
    GstCaps *caps = gst_pad_get_current_caps(pad);
    if (!caps) caps = gst_pad_query_caps(pad, NULL);
    gboolean video = FALSE;
    if (caps && gst_caps_get_size(caps) > 0) {
        const char *name = gst_structure_get_name(gst_caps_get_structure(caps, 0));
        video = g_str_has_prefix(name, "video/");
        if (!video && g_str_has_prefix(name, "application/x-rtp")) {
            const char *media = gst_structure_get_string(gst_caps_get_structure(caps, 0), "media");
            video = media && strcmp(media, "video") == 0;
        }
    }
    if (caps) gst_caps_unref(caps);
    return video;
}

void appl_bin_drop_pad(GstBin *bin, GstPad *pad) {
    GstElement *sink = gst_element_factory_make("fakesink", NULL);
    if (!sink) return;
    g_object_set(sink, "sync", FALSE, "async", FALSE, NULL);
    if (!gst_bin_add(bin, sink)) return;
    GstPad *sink_pad = gst_element_get_static_pad(sink, "sink");
    gst_pad_link(pad, sink_pad);
    gst_object_unref(sink_pad);
    gst_element_sync_state_with_parent(sink);
}

static void on_pad_added(GstElement *element, GstPad *pad, gpointer user_data) {
    (void)element;
    GstBin *bin = GST_BIN(user_data);
    if (gst_pad_get_direction(pad) != GST_PAD_SRC || gst_pad_is_linked(pad)) return;
    GstElement *pacer = gst_bin_get_by_name(bin, "dynamic-video");
    GstPad *input = pacer ? gst_element_get_static_pad(pacer, "sink") : NULL;
    /* rtspsrc's RTP pads are linked by the description's own depayloader; only a decoded (or raw) video pad is the
     * source's picture. */
    GstCaps *caps = gst_pad_get_current_caps(pad);
    if (!caps) caps = gst_pad_query_caps(pad, NULL);
    gboolean rtp = caps && gst_caps_get_size(caps) > 0 && g_str_has_prefix(gst_structure_get_name(gst_caps_get_structure(caps, 0)), "application/x-rtp");
    if (caps) gst_caps_unref(caps);
    if (!(input && !gst_pad_is_linked(input) && !rtp && is_video(pad) && gst_pad_link(pad, input) == GST_PAD_LINK_OK)) {
        appl_bin_drop_pad(bin, pad);
    }
    if (input) gst_object_unref(input);
    if (pacer) gst_object_unref(pacer);
}

/* A description parsed without ghosting (ghosting took the sink pad a delayed link needed: "rtspsrc ! rtph264depay"
 * then never linked) whose last element has its output already: that unlinked always-present src pad becomes the
 * bin's "src". Returns the new ghost (a reference), or NULL when there is none. */
static GstPad *ghost_unlinked_output(GstBin *bin) {
    GstPad *found = NULL;
    GstIterator *elements = gst_bin_iterate_elements(bin);
    GValue item = G_VALUE_INIT;
    while (!found && gst_iterator_next(elements, &item) == GST_ITERATOR_OK) {
        GstElement *element = GST_ELEMENT(g_value_get_object(&item));
        GstIterator *pads = gst_element_iterate_src_pads(element);
        GValue pad_item = G_VALUE_INIT;
        while (!found && gst_iterator_next(pads, &pad_item) == GST_ITERATOR_OK) {
            GstPad *pad = GST_PAD(g_value_get_object(&pad_item));
            GstPadTemplate *tmpl = gst_pad_get_pad_template(pad);
            gboolean always = tmpl && GST_PAD_TEMPLATE_PRESENCE(tmpl) == GST_PAD_ALWAYS;
            if (tmpl) gst_object_unref(tmpl);
            if (always && !gst_pad_is_linked(pad)) found = gst_object_ref(pad);
            g_value_reset(&pad_item);
        }
        g_value_unset(&pad_item);
        gst_iterator_free(pads);
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(elements);
    if (!found) return NULL;
    GstPad *ghost = gst_ghost_pad_new("src", found);
    gst_object_unref(found);
    gst_pad_set_active(ghost, TRUE);
    gst_element_add_pad(GST_ELEMENT(bin), ghost);
    return gst_object_ref(ghost);
}

int appl_bin_expose_dynamic_pads(GstBin *bin) {
    int watched = 0;
    GstPad *ghost = gst_element_get_static_pad(GST_ELEMENT(bin), "src");
    GstIterator *it = gst_bin_iterate_elements(bin);
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        GstElement *element = GST_ELEMENT(g_value_get_object(&item));
        GList *templates = gst_element_class_get_pad_template_list(GST_ELEMENT_GET_CLASS(element));
        for (GList *t = templates; t; t = t->next) {
            GstPadTemplate *tmpl = GST_PAD_TEMPLATE(t->data);
            if (GST_PAD_TEMPLATE_DIRECTION(tmpl) == GST_PAD_SRC && GST_PAD_TEMPLATE_PRESENCE(tmpl) == GST_PAD_SOMETIMES) {
                g_signal_connect_object(element, "pad-added", G_CALLBACK(on_pad_added), bin, G_CONNECT_AFTER);
                watched++;
                break;
            }
        }
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(it);
    if (!ghost && watched > 0) ghost = ghost_unlinked_output(bin);
    if (!ghost && watched > 0) {
        GstElement *pacer = gst_element_factory_make("identity", "dynamic-video");
        if (pacer && gst_bin_add(bin, pacer)) {
            g_object_set(pacer, "sync", TRUE, NULL);
            GstPad *output = gst_element_get_static_pad(pacer, "src");
            GstPad *pad = gst_ghost_pad_new("src", output);
            gst_object_unref(output);
            gst_pad_set_active(pad, TRUE);
            gst_element_add_pad(GST_ELEMENT(bin), pad);
        }
    }
    if (ghost) gst_object_unref(ghost);
    return watched;
}
