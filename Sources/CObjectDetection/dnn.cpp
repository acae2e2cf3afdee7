#include "CObjectDetection.h"
#include "message.h"
#include <cstdlib>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

struct ApplDnn {
    cv::dnn::Net net;
};

extern "C" ApplDnn *appl_dnn_load(const char *model, const char *config, char **error) {
    try {
        cv::dnn::Net net = cv::dnn::readNet(model, config ? config : "");
        if (net.empty()) {
            if (error) *error = appl_copy_message("OpenCV read no network from the file");
            return nullptr;
        }
        net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        return new ApplDnn{net};
    } catch (const cv::Exception &e) {
        if (error) *error = appl_copy_message(e.what());
        return nullptr;
    } catch (...) {
        if (error) *error = appl_copy_message("OpenCV failed to load the model");
        return nullptr;
    }
}

extern "C" void appl_dnn_free(ApplDnn *dnn) { delete dnn; }

extern "C" int appl_dnn_forward(ApplDnn *dnn, const uint8_t *pixels, int width, int height, int channels, int stride,
                                int input_width, int input_height, double scale, float **values, int *shape, int *dims,
                                char **error) {
    try {
        cv::Mat picture(height, width, channels == 3 ? CV_8UC3 : CV_8UC1, const_cast<uint8_t *>(pixels), static_cast<size_t>(stride));
        cv::Mat color = picture;
        if (channels != 3) cv::cvtColor(picture, color, cv::COLOR_GRAY2BGR);
        // Models are trained on RGB: the B, G, R picture is swapped as it becomes the network's input.
        cv::Mat blob = cv::dnn::blobFromImage(color, scale, cv::Size(input_width, input_height), cv::Scalar(), true, false, CV_32F);
        dnn->net.setInput(blob);
        cv::Mat output = dnn->net.forward();
        if (output.depth() != CV_32F) output.convertTo(output, CV_32F);
        if (!output.isContinuous()) output = output.clone();
        *dims = output.dims < 8 ? output.dims : 8;
        for (int i = 0; i < *dims; i++) shape[i] = output.size[i];
        size_t count = output.total();
        *values = static_cast<float *>(std::malloc(count * sizeof(float) + 1));
        if (!*values) {
            if (error) *error = appl_copy_message("out of memory for the network's output");
            return -1;
        }
        std::memcpy(*values, output.ptr<float>(), count * sizeof(float));
        return 0;
    } catch (const cv::Exception &e) {
        if (error) *error = appl_copy_message(e.what());
        return -1;
    } catch (...) {
        if (error) *error = appl_copy_message("OpenCV failed to run the model");
        return -1;
    }
}
