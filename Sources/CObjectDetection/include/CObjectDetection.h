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

#ifdef __cplusplus
}
#endif
#endif
