#pragma once
#include <cstdlib>
#include <cstring>

/* A copy of `text` for a C caller to free(): how both detectors hand OpenCV's messages across the C interface. */
static inline char *appl_copy_message(const char *text) {
    size_t length = std::strlen(text);
    char *copy = static_cast<char *>(std::malloc(length + 1));
    if (copy) std::memcpy(copy, text, length + 1);
    return copy;
}
