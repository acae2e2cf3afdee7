#!/usr/bin/python3
"""Makes the small ONNX models the object tests load through OpenCV (Debian's python3-onnx; nothing downloaded).

yolo OUT.onnx: input `images` [1, 3, 64, 64]; output [1, 2, 7] in YOLOv5's layout (cx, cy, w, h, objectness, two
class scores), computed by a convolution over the whole picture: both rows' objectness is the picture's mean
(0 for black, 1 for white once scaled by 1/255), the second row's times 0.8; the boxes and class scores are the
convolution's bias: row 0 at (32, 32) 20x40 with class scores (0.9, 0.1), row 1 the same box moved by one pixel
(suppressed by NMS). So a white picture gives one detection of class 0 at score 0.9, a black one none.

red OUT.onnx: the same, but objectness is the mean of the input's first channel only, red in a network's R, G, B:
a red picture gives the detection, a blue one none (colour reaches the network in the order models are trained on).

tiny OUT.onnx: a network of a small real detector's size and shape for measuring cost (the benchmark): input
`images` [1, 3, 320, 320], four 3x3 convolutions of stride 2 (16, 32, 64, 128 channels, ReLU), a 1x1 convolution to
85 values per cell and the output [1, 400, 85] in YOLOv5's layout. Its weights are seeded noise and its last layer
zero, so it finds nothing: what it costs, not what it sees.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def yolo(path, channels=(0, 1, 2)):
    rows, fields, size = 2, 7, 64
    weights = np.zeros((rows * fields, 3, size, size), dtype=np.float32)
    bias = np.zeros(rows * fields, dtype=np.float32)
    mean = 1.0 / (len(channels) * size * size)
    for row, (shift, objectness) in enumerate([(0.0, 1.0), (1.0, 0.8)]):
        base = row * fields
        bias[base:base + 4] = [32 + shift, 32 + shift, 20, 40]
        for channel in channels:
            weights[base + 4, channel] = mean * objectness
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


def tiny(path):
    rng = np.random.default_rng(7)
    nodes, inits, previous, channels = [], [], "images", 3
    for index, width in enumerate([16, 32, 64, 128]):
        w = (rng.standard_normal((width, channels, 3, 3)) * 0.1).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"W{index}"), numpy_helper.from_array(np.zeros(width, np.float32), f"B{index}")]
        nodes += [helper.make_node("Conv", [previous, f"W{index}", f"B{index}"], [f"c{index}"], kernel_shape=[3, 3],
                                   strides=[2, 2], pads=[1, 1, 1, 1]),
                  helper.make_node("Relu", [f"c{index}"], [f"r{index}"])]
        previous, channels = f"r{index}", width
    inits += [numpy_helper.from_array(np.zeros((85, channels, 1, 1), np.float32), "WH"),
              numpy_helper.from_array(np.zeros(85, np.float32), "BH"),
              numpy_helper.from_array(np.array([1, 85, 400], dtype=np.int64), "shape")]
    nodes += [helper.make_node("Conv", [previous, "WH", "BH"], ["head"], kernel_shape=[1, 1]),
              helper.make_node("Reshape", ["head", "shape"], ["flat"]),
              helper.make_node("Transpose", ["flat"], ["output"], perm=[0, 2, 1])]
    graph = helper.make_graph(nodes, "tiny-yolo-like",
                              [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 320, 320])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 400, 85])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.ir_version = 6
    onnx.checker.check_model(model)
    onnx.save(model, path)


if __name__ == "__main__":
    {"yolo": yolo, "red": lambda path: yolo(path, channels=(0,)), "tiny": tiny}[sys.argv[1]](sys.argv[2])
