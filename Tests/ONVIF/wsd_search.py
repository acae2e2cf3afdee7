#!/usr/bin/env python3
"""Finds ONVIF devices as Home Assistant's config flow does (components/onvif/config_flow.py `async_discovery`): the
WSDiscovery library's ThreadedWSDiscovery probes for the scope onvif://www.onvif.org/Profile/Streaming. Prints one
JSON list of what it found (endpoint, XAddrs, scopes, types). Run it on a host with a non-loopback address: the
library sends probes only from such addresses."""
import json

from wsdiscovery.discovery import ThreadedWSDiscovery
from wsdiscovery.scope import Scope

wsd = ThreadedWSDiscovery(ttl=4)
wsd.start()
try:
    services = wsd.searchServices(scopes=[Scope("onvif://www.onvif.org/Profile/Streaming")], timeout=3)
    print(json.dumps([{"epr": s.getEPR(), "xaddrs": s.getXAddrs(), "scopes": [x.getValue() for x in s.getScopes()],
                       "types": [str(t) for t in s.getTypes()]} for s in services]), flush=True)
finally:
    wsd.stop()
