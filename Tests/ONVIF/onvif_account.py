#!/usr/bin/env python3
"""An account signing in to the appliance's ONVIF services with onvif-zeep-async (Home Assistant's library): over
HTTPS, with WS-UsernameToken PasswordText (the device keeps only a bcrypt hash of an account's password, and a
PasswordDigest can only be checked against the password itself). One JSON object per line:
  read: what the account read (device information, profiles, the stream URI, the services' addresses)
  write: whether a change (SetHostname) was refused, and how
  digest: whether the same account signing with PasswordDigest was refused as an authentication error
  wrong: whether a wrong password was refused as an authentication error
  plain_http: whether the right password sent as PasswordText over plain HTTP was refused
"""
import argparse
import asyncio
import json
import os

import onvif
from onvif import ONVIFCamera
from onvif.exceptions import ONVIFError
from onvif.util import is_auth_error
from zeep.exceptions import Fault

WSDL = f"{os.path.dirname(onvif.__file__)}/wsdl/"


def say(**fields):
    print(json.dumps(fields, default=str), flush=True)


def camera(args, password, encrypt=False):
    return ONVIFCamera(args.host, args.port, args.user, password, WSDL, no_cache=True, encrypt=encrypt)


async def refused(args, password, encrypt, host=None):
    cam = ONVIFCamera(host or args.host, args.port, args.user, password, WSDL, no_cache=True, encrypt=encrypt)
    try:
        await cam.update_xaddrs()
        await (await cam.create_devicemgmt_service()).GetDeviceInformation()
        return {"refused": False}
    except Fault as fault:
        return {"refused": True, "auth_error": is_auth_error(fault), "message": fault.message}
    except ONVIFError as error:
        return {"refused": True, "auth_error": False, "message": str(error)}
    finally:
        await cam.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    args = parser.parse_args()
    cam = camera(args, args.password)
    try:
        await cam.update_xaddrs()
        device = await cam.create_devicemgmt_service()
        info = await device.GetDeviceInformation()
        media = await cam.create_media_service()
        profiles = await media.GetProfiles()
        uri = await media.GetStreamUri({"ProfileToken": profiles[0].token,
                                        "StreamSetup": {"Stream": "RTP-Unicast", "Transport": {"Protocol": "RTSP"}}})
        say(step="read", model=info.Model, profiles=[p.token for p in profiles], stream_uri=uri.Uri, xaddrs=cam.xaddrs)
        try:
            await device.SetHostname({"Name": "changed"})
            say(step="write", refused=False)
        except Fault as fault:
            say(step="write", refused=True, message=fault.message)
    finally:
        await cam.close()
    say(step="digest", **(await refused(args, args.password, encrypt=True)))
    say(step="wrong", **(await refused(args, args.password + "x", encrypt=False)))
    plain_host = args.host.replace("https://", "http://")
    say(step="plain_http", **(await refused(args, args.password, encrypt=False, host=plain_host)))


if __name__ == "__main__":
    asyncio.run(main())
