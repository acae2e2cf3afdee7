"""Schemathesis hooks for the appliance's API: bodies that are text but not JSON (a WHEP offer is SDP, ONVIF's are
SOAP) are sent as the UTF-8 of the generated string. Loaded with SCHEMATHESIS_HOOKS=schemathesis_hooks."""
import schemathesis


@schemathesis.serializer("application/sdp", "application/soap+xml")
def as_text(ctx, value):
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "surrogatepass")
