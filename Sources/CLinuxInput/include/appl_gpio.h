#ifndef APPLIANCE_GPIO_H
#define APPLIANCE_GPIO_H
/*
 * The kernel's GPIO character device, uAPI v2 (linux/gpio.h, Linux >= 5.10), without libgpiod: the ioctl numbers
 * are macros Swift cannot import and the request structs hold fixed arrays that are clumsy from Swift, so these
 * wrappers fill them and make the call. No policy: which flags, which line and what to do on failure is Swift's.
 * Each returns what the ioctl returns (-1 with errno set on failure) unless it says otherwise.
 */
#include <stdint.h>
#include <linux/gpio.h>

/** GPIO_GET_CHIPINFO_IOCTL: the chip's name ("gpiochip0"), label (the driver's, e.g. "pinctrl-bcm2711") and
 *  number of lines. */
int appl_gpio_chip_info(int chip_fd, struct gpiochip_info *info);

/** GPIO_V2_GET_LINEINFO_IOCTL for the line at `offset`: its name, consumer and flags. */
int appl_gpio_line_info(int chip_fd, uint32_t offset, struct gpio_v2_line_info *info);

/** GPIO_V2_GET_LINE_IOCTL for one line: `flags` is a sum of GPIO_V2_LINE_FLAG_* (e.g. INPUT | EDGE_RISING |
 *  EDGE_FALLING | ACTIVE_LOW | BIAS_PULL_UP); `debounce_us` > 0 adds the debounce attribute. `consumer` is what
 *  other tools show as the line's user. Returns the line request's descriptor (read it for
 *  struct gpio_v2_line_event records when edges were asked for; close it to release the line), or -1 with errno. */
int appl_gpio_request_line(int chip_fd, uint32_t offset, const char *consumer, uint64_t flags, uint32_t debounce_us);

/** GPIO_V2_GET_LINE_IOCTL for one output line (`flags` should hold GPIO_V2_LINE_FLAG_OUTPUT, maybe ACTIVE_LOW),
 *  set to `initial` (0 or 1, logical: the kernel applies ACTIVE_LOW) from the start. Returns the request's
 *  descriptor, or -1 with errno. */
int appl_gpio_request_output(int chip_fd, uint32_t offset, const char *consumer, uint64_t flags, int initial);

/** GPIO_V2_LINE_SET_VALUES_IOCTL: sets the lines of the request selected by `mask` to the bits of `bits`. */
int appl_gpio_set_values(int line_fd, uint64_t bits, uint64_t mask);

#endif
