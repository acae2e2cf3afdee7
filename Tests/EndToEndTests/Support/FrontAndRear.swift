/// The two-channel layout the channel tests share: `front` records camera `front` at the config's size, `rear`
/// records camera `rear` at 320x180 (another size, so each channel's files tell themselves apart).
enum FrontAndRear {
    static func channels(front: String, rear: String) -> String {
        """

        [[channel]]
        name = "front"
        cameras = ["\(front)"]
        [[channel]]
        name = "rear"
        cameras = ["\(rear)"]
        width = 320
        height = 180
        """
    }
}
