#ifndef COBJECTDETECTION_H
#define COBJECTDETECTION_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One object found: its box in the picture's pixels and its score (the detector's own scale). */
typedef struct {
    float x, y, width, height;
    float score;
} ApplDetection;

/** Makes the calling thread the detector's: OpenCV runs its loops on it alone, and it runs `nice_increment` below
 *  the priority it had (capture and encoding first). 0 on success, -1 with errno set when the priority could not
 *  be changed. */
int appl_detector_thread_prepare(int nice_increment);
/** The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID). */
double appl_thread_cpu_seconds(void);

/** OpenCV's HOG people detector (the default SVM shipped inside OpenCV: no file, no download). */
typedef struct ApplHog ApplHog;

ApplHog *appl_hog_new(void);
void appl_hog_free(ApplHog *hog);

/**
 * People in an 8-bit gray picture (`stride` bytes a row), at its own size (no upscaling: HOG's 64x128 window finds
 * people at least that tall). Writes at most `capacity` detections with a score above `hit_threshold` and returns
 * how many were found (possibly more than written), or -1 with *error set (for the caller to free()) when OpenCV
 * failed.
 */
int appl_hog_detect(const ApplHog *hog, const uint8_t *gray, int width, int height, int stride, double hit_threshold,
                    ApplDetection *out, int capacity, char **error);

/** A network loaded by OpenCV's DNN module from a user's model file (ONNX, TensorFlow .pb with .pbtxt, Darknet
 *  .weights with .cfg). */
typedef struct ApplDnn ApplDnn;

/** Loads `model` (and `config`, or NULL): NULL with *error set (for the caller to free()) when it cannot. */
ApplDnn *appl_dnn_load(const char *model, const char *config, char **error);
void appl_dnn_free(ApplDnn *dnn);

/**
 * Runs the network on an 8-bit picture of `channels` 1 (gray: given to the network as three equal channels) or 3
 * (B, G, R; swapped to R, G, B for the network), `stride` bytes a row, resized to `input_width` x `input_height`
 * and multiplied by `scale`. Its first output comes back in *values
 * (malloc'd, for the caller to free()), its shape in `shape` (at most 8 sizes, *dims of them). 0, or -1 with *error
 * set when OpenCV failed (a model that does not fit the picture, a layer it lacks).
 */
int appl_dnn_forward(ApplDnn *dnn, const uint8_t *pixels, int width, int height, int channels, int stride, int input_width,
                     int input_height, double scale, float **values, int *shape, int *dims, char **error);

#ifdef __cplusplus
}
#endif
#endif
