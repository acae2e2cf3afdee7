#ifndef APPLIANCE_JPEG_H
#define APPLIANCE_JPEG_H
/* Thumbnails and snapshots: a raw video frame from GStreamer written as a JPEG file with libjpeg. */
#include <gst/gst.h>

/** Encodes the raw video frame in `sample` (I420, NV12, YUY2 or RGB-like formats via I420 only: I420 required)
 *  as a JPEG file at `path`, scaled (area average) to fit max_w×max_h. Returns 0 on success; on failure returns -1
 *  and sets *error to a newly allocated message (free with g_free). Writes to path.tmp then renames. */
int appl_jpeg_write_sample(GstSample *sample, const char *path, int max_w, int max_h, int quality,
                           int *out_w, int *out_h, char **error);

/** The same, with a red frame drawn around `box` (four floats: x, y, width, height as fractions of the picture). */
int appl_jpeg_write_sample_box(GstSample *sample, const char *path, int max_w, int max_h, int quality, const float *box,
                               int *out_w, int *out_h, char **error);

#endif
