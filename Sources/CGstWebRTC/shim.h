#ifndef CGSTWEBRTC_SHIM_H
#define CGSTWEBRTC_SHIM_H
#include <gst/sdp/sdp.h>
#include <gst/webrtc/webrtc.h>
#endif
