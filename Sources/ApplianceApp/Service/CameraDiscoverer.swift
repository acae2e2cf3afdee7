import ApplianceBase
import ApplianceProtocol
import Logging
import ONVIF

/// `cameras.discover`: probes from the interfaces ONVIF discovery serves on (`[onvif] listen`'s address; every
/// interface that is up for a wildcard or when ONVIF is off), and asks what answered for its streams.
struct CameraDiscoverer: Sendable {
    let host: String
    let logger: Logger

    func find(_ request: CameraDiscoveryRequest) async -> CameraDiscovery {
        let interfaces = DiscoveryInterfaces.allowed(host: host)
        let found = await CameraFinder.find(request, interfaces: interfaces, logger: logger)
        logger.info(
            "camera discovery",
            metadata: ["interfaces": "\(found.interfaces.joined(separator: ","))", "found": "\(found.cameras.count)"])
        return found
    }
}
