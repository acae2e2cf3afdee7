import ApplianceProtocol
import Engine
import Settings

/// Check 2 for an `rtsp` camera: connects as the daemon would (password file, host name, credentials, transport),
/// reads one decoded frame, and says the stream as it comes and the decoder; or names what failed (the host's name,
/// the connection, the password, the path, no answer, no video track) with what to do about it.
enum NetworkCameraCheck {
    static func run(_ camera: ApplianceConfig.Camera) -> DoctorCheck {
        let name = CameraCheck.name(camera)
        let seconds = min(camera.startTimeoutS, 15)
        switch ReceivedSource.probe(camera, timeout: .milliseconds(Int(seconds * 1000))) {
        case .success(let stats):
            let stream = ReceivedSource.summary(stats) ?? "a frame"
            return .pass(name, "\(camera.url): \(stream)\(stats.decoder.map { ", decoded by \($0)" } ?? "")")
        case .failure(let error):
            return .fail(name, "\(camera.url): \(error.message)", fix: fix(for: error.message))
        }
    }

    static func fix(for reason: String) -> String {
        switch reason {
        case let r where r.contains("password_file"): "create the password file (one line) and chmod 600 it"
        case let r where r.contains("resolve"): "correct the host in [[camera]] url, or use the camera's address"
        case let r where r.contains("refused the user name or password"):
            "set [[camera]] username and put the camera account's password in password_file"
        case let r where r.contains("no stream at that path"):
            "correct the path in [[camera]] url (see the camera's manual for its RTSP address)"
        case let r where r.contains("cannot connect"):
            "check the camera is on and reachable, and the port in url (RTSP's default is 554)"
        case let r where r.contains("no video track"): "choose the camera's video stream in url"
        case let r where r.contains("does not answer") || r.contains("no frame"):
            "check the address, or try [[camera]] transport = \"tcp\" (UDP may be blocked)"
        default: "check the camera and [[camera]] url"
        }
    }
}
