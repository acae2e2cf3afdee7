#!/usr/bin/env python3
"""Home Assistant's ONVIF set-up, walked against the appliance with the library Home Assistant's integration uses
(onvif-zeep-async) and the event parsers it calls (onvif-parsers), in the order of its config flow and device set-up
(homeassistant/components/onvif: config_flow.py, device.py, event.py).

Prints one JSON object per line: each step's findings, then every event entity Home Assistant would update, as the
events are pulled (PullPoint, PT1M long polls, 100 messages). Ends when stdin closes: it unsubscribes as HA does on
unload and prints {"step": "done"}. With --setup-only it takes every profile's snapshot and ends instead of following
the events. With --wrong-password it only tries to set up with a wrong password and prints
whether the failure was an authentication error in Home Assistant's sense.
"""
import argparse
import asyncio
import datetime as dt
import json
import os
import sys

import onvif
import onvif_parsers
from onvif import ONVIFCamera
from onvif.exceptions import ONVIFAuthError, ONVIFError
from onvif.util import is_auth_error
from zeep.exceptions import Fault

WSDL = f"{os.path.dirname(onvif.__file__)}/wsdl/"


def say(**fields):
    print(json.dumps(fields, default=str), flush=True)


def camera(args, password):
    # As HA's get_device: no_cache, no adjust_time.
    return ONVIFCamera(args.host, args.port, args.user, password, WSDL, no_cache=True)


async def config_flow(cam):
    """config_flow.async_setup_profiles: xaddrs, the MAC, the serial number, the H.264 profiles."""
    await cam.update_xaddrs()
    device = await cam.create_devicemgmt_service()
    interfaces = await device.GetNetworkInterfaces()
    mac = next((i.Info.HwAddress for i in interfaces if i.Enabled), None)
    info = await device.GetDeviceInformation()
    media = await cam.create_media_service()
    profiles = await media.GetProfiles()
    h264 = [p for p in profiles if p.VideoEncoderConfiguration and p.VideoEncoderConfiguration.Encoding == "H264"]
    say(step="config_flow", xaddrs=cam.xaddrs, mac=mac, serial=info.SerialNumber, manufacturer=info.Manufacturer,
        model=info.Model, firmware=info.FirmwareVersion, h264_profiles=[p.token for p in h264])
    return device, media, h264, mac or info.SerialNumber


async def device_setup(cam, device, media, profiles):
    """device.async_setup: capabilities, the clock, the snapshot capability, each profile's stream."""
    capabilities = await cam.get_capabilities()
    clock = await device.GetSystemDateAndTime()
    utc = clock.UTCDateTime
    device_time = dt.datetime(utc.Date.Year, utc.Date.Month, utc.Date.Day, utc.Time.Hour, utc.Time.Minute, utc.Time.Second,
                              tzinfo=dt.timezone.utc)
    skew = abs((dt.datetime.now(dt.timezone.utc) - device_time).total_seconds())
    media_capabilities = await media.GetServiceCapabilities()
    streams = {}
    for profile in profiles:
        uri = await media.GetStreamUri({"ProfileToken": profile.token,
                                        "StreamSetup": {"Stream": "RTP-Unicast", "Transport": {"Protocol": "RTSP"}}})
        streams[profile.token] = {"uri": uri.Uri, "width": profile.VideoEncoderConfiguration.Resolution.Width,
                                  "height": profile.VideoEncoderConfiguration.Resolution.Height,
                                  "framerate": profile.VideoEncoderConfiguration.RateControl.FrameRateLimit,
                                  "bitrate": profile.VideoEncoderConfiguration.RateControl.BitrateLimit,
                                  "gov": profile.VideoEncoderConfiguration.H264.GovLength,
                                  "audio": profile.AudioEncoderConfiguration.Encoding if profile.AudioEncoderConfiguration else None}
    say(step="device_setup", date_time_type=clock.DateTimeType, skew_s=skew, snapshot_uri=media_capabilities.SnapshotUri,
        events_pullpoint=bool(capabilities and capabilities.get("Events", {}).get("WSPullPointSupport")), streams=streams)


async def audio_output(media):
    """Not Home Assistant's: what a two-way audio client (go2rtc, an NVR's talk button) reads of the media service
    before it talks on RTSP's backchannel: the audio outputs, their configurations and the decoder's, and the profile's."""
    outputs = await media.GetAudioOutputs()
    configurations = await media.GetAudioOutputConfigurations()
    decoders = await media.GetAudioDecoderConfigurations()
    options = await media.GetAudioDecoderConfigurationOptions({"ConfigurationToken": decoders[0].token})
    profile = (await media.GetProfiles())[0]
    # tt:ProfileExtension opens with an xs:any (##other) that zeep fills greedily: the typed configurations may come
    # in its _value_1 instead of their own fields; either way they are read by their schema type.
    extension = profile.Extension
    found = [] if extension is None else [extension.AudioOutputConfiguration, extension.AudioDecoderConfiguration] + list(extension._value_1 or [])
    typed = {getattr(getattr(item, "_xsd_type", None), "name", None): item for item in found if item is not None}
    say(step="audio_output", outputs=[o.token for o in outputs], output_tokens=[c.OutputToken for c in configurations],
        decoders=[d.token for d in decoders], g711=bool(options.G711DecOptions),
        profile_output=typed["AudioOutputConfiguration"].token if "AudioOutputConfiguration" in typed else None,
        profile_decoder=typed["AudioDecoderConfiguration"].token if "AudioDecoderConfiguration" in typed else None)


async def snapshot(cam, token):
    """__init__.py's snapshot-auth probe: Digest first, then Basic."""
    for basic in (False, True):
        try:
            image = await cam.get_snapshot(token, basic_auth=basic)
        except ONVIFAuthError:
            continue
        if image:
            say(step="snapshot", token=token, auth="basic" if basic else "digest", bytes=len(image),
                jpeg=image[:2] == b"\xff\xd8")
            return
    say(step="snapshot", token=token, auth=None, bytes=0, jpeg=False)


async def follow_events(cam, uid):
    """event.py: a PullPoint subscription, a synchronization point, then PullMessages in a loop; each message parsed
    by onvif_parsers as HA does (topic = the Topic's text without a trailing / or .)."""
    manager = await cam.create_pullpoint_manager(dt.timedelta(minutes=10), lambda: say(step="subscription_lost"))
    await manager.set_synchronization_point()
    service = manager.get_service()
    subscription = await cam.create_subscription_service("PullPointSubscription")
    renewed = await subscription.Renew(cam.get_next_termination_time(dt.timedelta(minutes=10)))
    say(step="subscribed", address=cam.xaddrs["http://www.onvif.org/ver10/events/wsdl/PullPointSubscription"],
        renewed_until=renewed.TerminationTime)

    async def pull_forever():
        while True:
            response = await service.PullMessages({"MessageLimit": 100, "Timeout": dt.timedelta(seconds=60)})
            for message in response.NotificationMessage or []:
                topic = message.Topic._value_1.rstrip("/.")
                for entity in await onvif_parsers.parse(topic, uid, message) or []:
                    say(step="event", topic=topic, uid=entity.uid, name=entity.name, device_class=entity.device_class,
                        value=entity.value, operation=getattr(message.Message._value_1, "PropertyOperation", None))
            await asyncio.sleep(0.75)  # HA's PULLPOINT_MESSAGE_LIMIT loop pause

    puller = asyncio.create_task(pull_forever())
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    puller.cancel()
    try:
        await puller
    except asyncio.CancelledError:
        pass
    await manager.shutdown()
    try:
        await service.PullMessages({"MessageLimit": 1, "Timeout": dt.timedelta(seconds=1)})
        say(step="after_unsubscribe", fault=None)
    except Fault as fault:
        say(step="after_unsubscribe", fault=fault.message)


async def wrong_password(args):
    cam = camera(args, args.password + "x")
    try:
        await cam.update_xaddrs()
        await (await cam.create_devicemgmt_service()).GetNetworkInterfaces()
        say(step="wrong_password", refused=False)
    except Fault as fault:
        say(step="wrong_password", refused=True, auth_error=is_auth_error(fault), message=fault.message)
    except ONVIFError as error:
        say(step="wrong_password", refused=True, auth_error=False, message=str(error))
    finally:
        await cam.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--user", default="appliance")
    parser.add_argument("--password", required=True)
    parser.add_argument("--wrong-password", action="store_true")
    parser.add_argument("--audio-output", action="store_true", help="also read the audio output (two-way audio)")
    parser.add_argument("--setup-only", action="store_true",
                        help="set up, fetch every profile's snapshot and end (no events)")
    args = parser.parse_args()
    if args.wrong_password:
        await wrong_password(args)
        return
    cam = camera(args, args.password)
    try:
        device, media, profiles, uid = await config_flow(cam)
        await device_setup(cam, device, media, profiles)
        if args.audio_output:
            await audio_output(media)
        if args.setup_only:
            for profile in profiles:
                await snapshot(cam, profile.token)
        else:
            await snapshot(cam, profiles[0].token)
            await follow_events(cam, uid)
    finally:
        await cam.close()
    say(step="done")


if __name__ == "__main__":
    asyncio.run(main())
