/// Config text the channel tests share: two test cameras, and the same split into a `front` and a `rear` channel.
enum ChannelFixtures {
    static let twoCameras = """
        [[camera]]
        name = "road"
        source = "test"
        [[camera]]
        name = "cabin"
        source = "test"

        """

    static let frontAndRear =
        twoCameras + """
            [[channel]]
            name = "front"
            cameras = ["road"]
            [[channel]]
            name = "rear"
            cameras = ["cabin"]

            """
}
