#ifndef APPLIANCE_LINUX_INPUT_H
#define APPLIANCE_LINUX_INPUT_H
/* Input devices and lines through their ioctls: evdev (keyboards, buttons) and the GPIO character device. */
#include "appl_evdev.h"
#include "appl_gpio.h"

#endif
