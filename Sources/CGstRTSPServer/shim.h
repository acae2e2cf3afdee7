#ifndef CGSTRTSPSERVER_SHIM_H
#define CGSTRTSPSERVER_SHIM_H
#include <gst/rtsp-server/rtsp-server.h>
#endif
