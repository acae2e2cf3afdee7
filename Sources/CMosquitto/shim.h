#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H
/* Debian's libmosquitto (2.0): the MQTT client library of the Eclipse Mosquitto project, used as it is. */
#include <mosquitto.h>
#endif
