import ApplianceBase
import Hummingbird

/// The dashboard's one stylesheet and one script, served as they are (no build step). They are real files,
/// Resources/app.css and Resources/app.js (`node --check` reads the script in make check), compiled into the binary
/// by SwiftPM (`.embedInCode`): the daemon needs no file beside it.
enum Assets {
    static func response(_ bytes: [UInt8], type: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static let css = PackageResources.app_css
    static let script = PackageResources.app_js
}
