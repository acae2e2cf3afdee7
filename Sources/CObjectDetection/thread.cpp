#include "CObjectDetection.h"
#include <opencv2/core.hpp>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern "C" int appl_detector_thread_prepare(int nice_increment) {
    // One thread for OpenCV's loops: a run's CPU time is then its own thread's, which the budget measures, and the
    // lower priority below covers all of it (OpenCV's pool threads would keep the priority they started with).
    cv::setNumThreads(1);
    pid_t thread = (pid_t)syscall(SYS_gettid);
    int current = getpriority(PRIO_PROCESS, (id_t)thread);
    return setpriority(PRIO_PROCESS, (id_t)thread, current + nice_increment);
}

extern "C" double appl_thread_cpu_seconds(void) {
    struct timespec now;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return 0;
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}
