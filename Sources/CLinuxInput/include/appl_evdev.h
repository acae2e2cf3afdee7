#ifndef APPL_EVDEV_H
#define APPL_EVDEV_H
/*
 * evdev ioctls for [[input]] kind = "evdev". Their request numbers are macros with the buffer size folded in
 * (EVIOCGNAME(len), EVIOCGKEY(len)), which Swift cannot import. Each wrapper is the ioctl and nothing else:
 * it returns what ioctl returns (-1 with errno set on failure; ENOTTY when the descriptor is not an input device).
 */

/** EVIOCGNAME: the device's name into `name` (NUL-terminated when it fits); the length copied, or -1. */
int appl_evdev_name(int fd, char *name, unsigned int size);
/** EVIOCGKEY: the bitmap of keys held down right now (bit n = key code n), `size` bytes; the length copied, or -1. */
int appl_evdev_keys_held(int fd, unsigned char *bits, unsigned int size);
/** EVIOCGRAB: `grab` 1 takes the device for this descriptor alone, 0 releases it. */
int appl_evdev_grab(int fd, int grab);
/** EVIOCSCLOCKID: the clock the device stamps its events with (CLOCK_MONOTONIC, …). */
int appl_evdev_set_clock(int fd, int clock_id);
/** The size in bytes of a key bitmap large enough for every key code (KEY_MAX + 1 bits). */
unsigned int appl_evdev_key_bitmap_size(void);

#endif
