#!/usr/bin/python3
"""Makes the small ONNX models the object tests load through OpenCV (Debian's python3-onnx; nothing downloaded).

yolo OUT.onnx: input `images` [1, 3, 64, 64]; output [1, 2, 7] in YOLOv5's layout (cx, cy, w, h, objectness, two
class scores), computed by a convolution over the whole picture: both rows' objectness is the picture's mean
(0 for black, 1 for white once scaled by 1/255), the second row's times 0.8; the boxes and class scores are the
convolution's bias: row 0 at (32, 32) 20x40 with class scores (0.9, 0.1), row 1 the same box moved by one pixel
(suppressed by NMS). So a white picture gives one detection of class 0 at score 0.9, a black one none.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def yolo(path):
    rows, fields, size = 2, 7, 64
    weights = np.zeros((rows * fields, 3, size, size), dtype=np.float32)
    bias = np.zeros(rows * fields, dtype=np.float32)
    mean = 1.0 / (3 * size * size)
    for row, (shift, objectness) in enumerate([(0.0, 1.0), (1.0, 0.8)]):
        base = row * fields
        bias[base:base + 4] = [32 + shift, 32 + shift, 20, 40]
        weights[base + 4] = mean * objectness
        bias[base + 5:base + 7] = [0.9, 0.1]
    graph = helper.make_graph(
        [helper.make_node("Conv", ["images", "W", "B"], ["conv"], kernel_shape=[size, size]),
         helper.make_node("Reshape", ["conv", "shape"], ["output"])],
        "yolo-like",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, rows, fields])],
        [numpy_helper.from_array(weights, "W"), numpy_helper.from_array(bias, "B"),
         numpy_helper.from_array(np.array([1, rows, fields], dtype=np.int64), "shape")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 6
    onnx.checker.check_model(model)
    onnx.save(model, path)


if __name__ == "__main__":
    {"yolo": yolo}[sys.argv[1]](sys.argv[2])
