/* Thin wrappers over the GPIO character device's v2 ioctls (see appl_gpio.h). */
#include "appl_gpio.h"

#include <string.h>
#include <sys/ioctl.h>

int appl_gpio_chip_info(int chip_fd, struct gpiochip_info *info) {
    memset(info, 0, sizeof *info);
    return ioctl(chip_fd, GPIO_GET_CHIPINFO_IOCTL, info);
}

int appl_gpio_line_info(int chip_fd, uint32_t offset, struct gpio_v2_line_info *info) {
    memset(info, 0, sizeof *info);
    info->offset = offset;
    return ioctl(chip_fd, GPIO_V2_GET_LINEINFO_IOCTL, info);
}

static void fill_request(struct gpio_v2_line_request *request, uint32_t offset, const char *consumer, uint64_t flags) {
    memset(request, 0, sizeof *request);
    request->offsets[0] = offset;
    request->num_lines = 1;
    if (consumer) strncpy(request->consumer, consumer, sizeof request->consumer - 1);
    request->config.flags = flags;
}

int appl_gpio_request_line(int chip_fd, uint32_t offset, const char *consumer, uint64_t flags, uint32_t debounce_us) {
    struct gpio_v2_line_request request;
    fill_request(&request, offset, consumer, flags);
    if (debounce_us > 0) {
        request.config.num_attrs = 1;
        request.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_DEBOUNCE;
        request.config.attrs[0].attr.debounce_period_us = debounce_us;
        request.config.attrs[0].mask = 1;
    }
    if (ioctl(chip_fd, GPIO_V2_GET_LINE_IOCTL, &request) < 0) return -1;
    return request.fd;
}

int appl_gpio_request_output(int chip_fd, uint32_t offset, const char *consumer, uint64_t flags, int initial) {
    struct gpio_v2_line_request request;
    fill_request(&request, offset, consumer, flags);
    request.config.num_attrs = 1;
    request.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES;
    request.config.attrs[0].attr.values = initial ? 1 : 0;
    request.config.attrs[0].mask = 1;
    if (ioctl(chip_fd, GPIO_V2_GET_LINE_IOCTL, &request) < 0) return -1;
    return request.fd;
}

int appl_gpio_set_values(int line_fd, uint64_t bits, uint64_t mask) {
    struct gpio_v2_line_values values = { .bits = bits, .mask = mask };
    return ioctl(line_fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &values);
}

