#ifndef APPLIANCE_SYSTEM_CALLS_H
#define APPLIANCE_SYSTEM_CALLS_H
/* What Swift's Glibc module does not export: sys/vfs.h, sys/timex.h, mallopt, mallinfo2. */

/** Caps glibc's malloc arenas at two (see system_calls.c for the measurements behind it). */
void appl_tune_malloc(void);
/** Bytes the program holds from malloc now (mallinfo2: in-use chunks of every arena plus mmapped blocks): a
 *  precise leak gauge, unlike RSS, which keeps pages freed memory leaves behind. */
unsigned long long appl_heap_in_use(void);
/** statfs(2) f_type (the filesystem's magic number) into *type; 0 on success, -1 with errno set. */
int appl_statfs_type(const char *path, unsigned long *type);
/** adjtimex(2) as a query (modes = 0): the clock state, TIME_OK (0) … TIME_ERROR (5), or -1. */
int appl_clock_state(void);

#endif
