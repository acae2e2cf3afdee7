/* evdev ioctl wrappers (see appl_evdev.h): the request macros, nothing more. */
#include "appl_evdev.h"

#include <linux/input.h>
#include <sys/ioctl.h>

int appl_evdev_name(int fd, char *name, unsigned int size) {
    return ioctl(fd, EVIOCGNAME(size), name);
}

int appl_evdev_keys_held(int fd, unsigned char *bits, unsigned int size) {
    return ioctl(fd, EVIOCGKEY(size), bits);
}

int appl_evdev_grab(int fd, int grab) {
    return ioctl(fd, EVIOCGRAB, grab);
}

int appl_evdev_set_clock(int fd, int clock_id) {
    return ioctl(fd, EVIOCSCLOCKID, &clock_id);
}

unsigned int appl_evdev_key_bitmap_size(void) {
    return (KEY_MAX + 8) / 8;
}
