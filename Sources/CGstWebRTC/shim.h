#ifndef CGSTWEBRTC_SHIM_H
#define CGSTWEBRTC_SHIM_H
/* webrtcbin's library is marked unstable in 1.22; Debian 12 ships this version, and the API used here (descriptions,
 * transceivers, states) has not changed since. */
#define GST_USE_UNSTABLE_API
#include <gst/sdp/sdp.h>
#include <gst/webrtc/webrtc.h>
#endif
