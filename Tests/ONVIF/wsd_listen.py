#!/usr/bin/env python3
"""Listens on 239.255.255.250:3702 (WS-Discovery's group) on the interface with address ADDRESS and prints one JSON
line per message: its Action and, for Hello, its XAddrs. Prints {"listening": true} once joined. Ends on SIGTERM."""
import json
import socket
import struct
import sys
import xml.etree.ElementTree as ET

ADDRESSING = "{http://schemas.xmlsoap.org/ws/2004/08/addressing}"
DISCOVERY = "{http://schemas.xmlsoap.org/ws/2005/04/discovery}"

address = sys.argv[1]
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("", 3702))
sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                struct.pack("4s4s", socket.inet_aton("239.255.255.250"), socket.inet_aton(address)))
print(json.dumps({"listening": True}), flush=True)
while True:
    data, sender = sock.recvfrom(65536)
    root = ET.fromstring(data)
    action = root.findtext(f".//{ADDRESSING}Action") or ""
    print(json.dumps({"action": action.rsplit("/", 1)[-1], "from": sender[0], "xaddrs": root.findtext(f".//{DISCOVERY}XAddrs"),
                      "endpoint": root.findtext(f".//{ADDRESSING}Address")}), flush=True)
