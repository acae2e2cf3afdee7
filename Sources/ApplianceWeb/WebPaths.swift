/// Names both the routes and the OpenAPI document use (the document describes what the routes serve, from one
/// source).
enum WebPaths {
    /// The SOAP endpoints of ONVIF's device, media and event services.
    static let soapPaths = ["onvif/device_service", "onvif/media_service", "onvif/events_service"]
    /// WHEP's offers and answers.
    static let sdpType = "application/sdp"
}
