import ApplianceBase
import ApplianceProtocol
import Encoders
import Engine
import Logging
import MediaLibrary
import Settings

extension Appliance {
    /// Starts the channels after the first, in order (`ChannelRig`); when one cannot start, those already started
    /// are stopped again and the error is the start's one line.
    static func startChannels(
        _ views: ArraySlice<ApplianceConfig>, firstEncoder: EncoderSelection, data: DataDirectory, library: Library,
        events: EventHub, health: Health, archive: (any RecordingArchive)?, sharedSound: SharedSound, logger: Logger
    ) async throws -> [ChannelRig] {
        var rigs: [ChannelRig] = []
        for view in views {
            do {
                rigs.append(
                    try await ChannelRig.start(
                        view, firstEncoder: firstEncoder, data: data, library: library, events: events,
                        health: health, archive: archive, sharedSound: sharedSound, logger: logger))
            } catch {
                await stop(rigs)
                throw error
            }
        }
        return rigs
    }

    /// Runs a start-up step; when it fails, the other channels' graphs are stopped (the first's is stopped by the
    /// step itself, `stoppingGraphOnFailure`).
    static func stoppingChannelsOnFailure<T>(_ rigs: [ChannelRig], _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            await stop(rigs)
            throw error
        }
    }

    /// Stops the graphs of channels started before a start-up step failed.
    private static func stop(_ rigs: [ChannelRig]) async {
        for rig in rigs { _ = try? await blocking { rig.stop() } }
    }
}
