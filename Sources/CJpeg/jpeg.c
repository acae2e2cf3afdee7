#include "CJpeg.h"
#include <gst/video/video.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <errno.h>
#include <unistd.h>
#include <jpeglib.h>

/* The size that fits width×height into max_w×max_h keeping the aspect ratio (even values, never upscaled); a
 * bound of 0 means unbounded. */
static void appl_fit_size(int width, int height, int max_w, int max_h, int *out_w, int *out_h) {
    double scale = 1.0;
    if (max_w > 0 && width > max_w) scale = (double)max_w / width;
    if (max_h > 0 && height * scale > max_h) scale = (double)max_h / height;
    int w = (int)(width * scale + 0.5), h = (int)(height * scale + 0.5);
    w &= ~1; h &= ~1;
    if (w < 2) w = 2;
    if (h < 2) h = 2;
    *out_w = w; *out_h = h;
}

/* Area-average resampling of one 8-bit plane: each output pixel is the mean of the source box it covers. */
static void scale_plane(const guint8 *src, int src_stride, int sw, int sh, guint8 *dst, int dw, int dh) {
    for (int y = 0; y < dh; y++) {
        int y0 = (int)((long)y * sh / dh), y1 = (int)((long)(y + 1) * sh / dh);
        if (y1 <= y0) y1 = y0 + 1;
        for (int x = 0; x < dw; x++) {
            int x0 = (int)((long)x * sw / dw), x1 = (int)((long)(x + 1) * sw / dw);
            if (x1 <= x0) x1 = x0 + 1;
            unsigned sum = 0, count = 0;
            for (int yy = y0; yy < y1; yy++) {
                const guint8 *row = src + (size_t)yy * src_stride;
                for (int xx = x0; xx < x1; xx++) { sum += row[xx]; count++; }
            }
            dst[(size_t)y * dw + x] = (guint8)((sum + count / 2) / count);
        }
    }
}

struct error_mgr { struct jpeg_error_mgr pub; jmp_buf jump; char message[JMSG_LENGTH_MAX]; };

static void on_jpeg_error(j_common_ptr cinfo) {
    struct error_mgr *err = (struct error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

/* A 2-pixel red frame around `box` (fractions of the picture: x, y, width, height) in the scaled planes. */
static void draw_box(guint8 *y, guint8 *u, guint8 *v, int dw, int dh, const float *box) {
    int x0 = (int)(box[0] * dw), y0 = (int)(box[1] * dh);
    int x1 = (int)((box[0] + box[2]) * dw) - 1, y1 = (int)((box[1] + box[3]) * dh) - 1;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 >= dw) x1 = dw - 1;
    if (y1 >= dh) y1 = dh - 1;
    if (x1 <= x0 || y1 <= y0) return;
    int cw = dw / 2;
    for (int row = y0; row <= y1; row++) {
        for (int col = x0; col <= x1; col++) {
            int edge = row - y0 < 2 || y1 - row < 2 || col - x0 < 2 || x1 - col < 2;
            if (!edge) continue;
            y[row * dw + col] = 82;
            if (col / 2 < cw && row / 2 < dh / 2) {
                u[(row / 2) * cw + col / 2] = 90;
                v[(row / 2) * cw + col / 2] = 240;
            }
        }
    }
}

int appl_jpeg_write_sample(GstSample *sample, const char *path, int max_w, int max_h, int quality,
                           int *out_w, int *out_h, char **error) {
    return appl_jpeg_write_sample_box(sample, path, max_w, max_h, quality, NULL, out_w, out_h, error);
}

int appl_jpeg_write_sample_box(GstSample *sample, const char *path, int max_w, int max_h, int quality, const float *box,
                               int *out_w, int *out_h, char **error) {
    GstVideoInfo info;
    GstCaps *caps = gst_sample_get_caps(sample);
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    if (!caps || !buffer || !gst_video_info_from_caps(&info, caps)) {
        *error = g_strdup("sample has no raw video caps or buffer");
        return -1;
    }
    if (GST_VIDEO_INFO_FORMAT(&info) != GST_VIDEO_FORMAT_I420) {
        *error = g_strdup_printf("unsupported frame format %s (I420 expected)",
                                 gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)));
        return -1;
    }
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ)) {
        *error = g_strdup("cannot map the video frame");
        return -1;
    }
    int sw = GST_VIDEO_INFO_WIDTH(&info), sh = GST_VIDEO_INFO_HEIGHT(&info);
    int dw, dh;
    appl_fit_size(sw, sh, max_w, max_h, &dw, &dh);
    int cw = dw / 2, ch = dh / 2;
    guint8 *y = malloc((size_t)dw * dh), *u = malloc((size_t)cw * ch), *v = malloc((size_t)cw * ch);
    scale_plane(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0), GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0), sw, sh, y, dw, dh);
    scale_plane(GST_VIDEO_FRAME_PLANE_DATA(&frame, 1), GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 1), (sw + 1) / 2, (sh + 1) / 2, u, cw, ch);
    scale_plane(GST_VIDEO_FRAME_PLANE_DATA(&frame, 2), GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 2), (sw + 1) / 2, (sh + 1) / 2, v, cw, ch);
    gst_video_frame_unmap(&frame);
    if (box) draw_box(y, u, v, dw, dh, box);

    char *tmp_path = g_strdup_printf("%s.tmp", path);
    FILE *file = fopen(tmp_path, "wb");
    guint8 *line = NULL;
    int result = -1;
    if (!file) {
        *error = g_strdup_printf("cannot write %s: %s", tmp_path, g_strerror(errno));
        goto done;
    }
    struct jpeg_compress_struct cinfo;
    struct error_mgr jerr;
    cinfo.err = jpeg_std_error(&jerr.pub);
    jerr.pub.error_exit = on_jpeg_error;
    if (setjmp(jerr.jump)) {
        *error = g_strdup_printf("libjpeg: %s", jerr.message);
        jpeg_destroy_compress(&cinfo);
        fclose(file);
        unlink(tmp_path);
        goto done;
    }
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, file);
    cinfo.image_width = dw;
    cinfo.image_height = dh;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_YCbCr;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    line = malloc((size_t)dw * 3);
    while (cinfo.next_scanline < cinfo.image_height) {
        int row = cinfo.next_scanline;
        for (int x = 0; x < dw; x++) {
            line[x * 3 + 0] = y[(size_t)row * dw + x];
            line[x * 3 + 1] = u[(size_t)(row / 2) * cw + x / 2];
            line[x * 3 + 2] = v[(size_t)(row / 2) * cw + x / 2];
        }
        JSAMPROW rows[1] = { line };
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    if (fflush(file) != 0 || fsync(fileno(file)) != 0) {
        *error = g_strdup_printf("cannot write %s: %s", tmp_path, g_strerror(errno));
        fclose(file);
        unlink(tmp_path);
        goto done;
    }
    fclose(file);
    if (rename(tmp_path, path) != 0) {
        *error = g_strdup_printf("cannot rename %s: %s", tmp_path, g_strerror(errno));
        unlink(tmp_path);
        goto done;
    }
    if (out_w) *out_w = dw;
    if (out_h) *out_h = dh;
    result = 0;
done:
    free(line); free(y); free(u); free(v);
    g_free(tmp_path);
    return result;
}
