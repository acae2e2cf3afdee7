import CObjectDetection

/// The thread detection runs on: OpenCV's loops on it alone, below capture and encoding in priority, and its CPU
/// time, which the detector's budget (`[objects] cpu_budget`) is measured in.
public enum DetectorThread {
    /// How far below the daemon's other threads the detector runs (nice).
    public static let niceIncrement: Int32 = 10

    /// Called once on the detector's thread; false when its priority could not be lowered (it then runs at the
    /// daemon's, still within its budget).
    public static func prepare() -> Bool { appl_detector_thread_prepare(niceIncrement) == 0 }

    /// The calling thread's CPU time, in seconds.
    public static func cpuSeconds() -> Double { appl_thread_cpu_seconds() }
}
