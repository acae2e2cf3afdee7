#include "CObjectDetection.h"
#include "message.h"
#include <cstdlib>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/objdetect.hpp>
#include <vector>

struct ApplHog {
    cv::HOGDescriptor descriptor;
};

extern "C" ApplHog *appl_hog_new(void) {
    try {
        ApplHog *hog = new ApplHog();
        hog->descriptor.setSVMDetector(cv::HOGDescriptor::getDefaultPeopleDetector());
        return hog;
    } catch (...) {
        return nullptr;
    }
}

extern "C" void appl_hog_free(ApplHog *hog) { delete hog; }

extern "C" int appl_hog_detect(const ApplHog *hog, const uint8_t *gray, int width, int height, int stride,
                               double hit_threshold, ApplDetection *out, int capacity, char **error) {
    try {
        // A picture smaller than the window has no place for a person.
        if (width < hog->descriptor.winSize.width || height < hog->descriptor.winSize.height) return 0;
        cv::Mat picture(height, width, CV_8UC1, const_cast<uint8_t *>(gray), static_cast<size_t>(stride));
        std::vector<cv::Rect> found;
        std::vector<double> weights;
        hog->descriptor.detectMultiScale(picture, found, weights, hit_threshold, cv::Size(8, 8), cv::Size(8, 8), 1.05, 2.0, false);
        int count = static_cast<int>(found.size());
        for (int i = 0; i < count && i < capacity; i++) {
            out[i].x = static_cast<float>(found[i].x);
            out[i].y = static_cast<float>(found[i].y);
            out[i].width = static_cast<float>(found[i].width);
            out[i].height = static_cast<float>(found[i].height);
            out[i].score = i < static_cast<int>(weights.size()) ? static_cast<float>(weights[i]) : 0.0f;
        }
        return count;
    } catch (const cv::Exception &e) {
        if (error) *error = appl_copy_message(e.what());
        return -1;
    } catch (...) {
        if (error) *error = appl_copy_message("OpenCV failed in the HOG detector");
        return -1;
    }
}
