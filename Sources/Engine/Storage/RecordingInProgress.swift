/// What retention needs of the recorder: which clip is being written (never removed), whether one is, and a way to
/// stop it when the disk is full. A protocol, so Storage does not reach into Recording (which uses Storage's
/// recovery and headroom): the folders depend one way.
package protocol RecordingInProgress: Sendable {
    var activeID: String? { get async }
    var isRecording: Bool { get async }
    /// Stops the recording because the disk is full (`[storage] on_full = "stop"`).
    func stopForFullStorage() async
}
