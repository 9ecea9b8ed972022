#!/usr/bin/env python3
# Copyright the beaconctl authors. Licensed under the Apache License, Version 2.0.
"""An iBeacon that interleaves Eddystone-TLM frames, on Bumble, for beaconctl's tests.

Written from google/eddystone's eddystone-tlm/tlm-plain.md (the unencrypted TLM frame:
frame type 0x20, version 0x00, VBATT in mV, TEMP in signed 8.8 fixed point, ADV_CNT,
SEC_CNT in 0.1 s, all big-endian, as service data of the 16-bit UUID 0xFEAA), Apple's
iBeacon layout (manufacturer data of company 0x004C: 0x02 0x15, UUID, major, minor,
measured power) and Bumble's documented device API, independently of beaconctl's code.

Usage: tlm_beacon.py TRANSPORT ADDRESS UUID MAJOR MINOR BATTERY_MV TEMPERATURE

The device advertises non-connectably from ADDRESS (a static random address), switching
its advertising data between the iBeacon and the TLM frame every 250 ms, and prints
"ready" on standard output once both have been on the air.
"""

import argparse
import asyncio
import struct
import uuid

from bumble.core import AdvertisingData
from bumble.device import AdvertisingType, Device
from bumble.hci import Address
from bumble.transport import open_transport

SWITCH_SECONDS = 0.25


def ibeacon_data(proximity: uuid.UUID, major: int, minor: int, measured_power: int) -> bytes:
    payload = struct.pack("<H", 0x004C) + bytes([0x02, 0x15]) + proximity.bytes + struct.pack(">HHb", major, minor, measured_power)
    return bytes(AdvertisingData([
        (AdvertisingData.FLAGS, bytes([0x06])),
        (AdvertisingData.MANUFACTURER_SPECIFIC_DATA, payload),
    ]))


def tlm_data(battery_mv: int, temperature: float, advertisements: int, tenths: int) -> bytes:
    fixed_8_8 = int(round(temperature * 256))
    frame = struct.pack(">BBHhII", 0x20, 0x00, battery_mv, fixed_8_8, advertisements, tenths)
    return bytes(AdvertisingData([
        (AdvertisingData.FLAGS, bytes([0x06])),
        (AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS, struct.pack("<H", 0xFEAA)),
        (AdvertisingData.SERVICE_DATA_16_BIT_UUID, struct.pack("<H", 0xFEAA) + frame),
    ]))


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport")
    parser.add_argument("address")
    parser.add_argument("uuid")
    parser.add_argument("major", type=int)
    parser.add_argument("minor", type=int)
    parser.add_argument("battery_mv", type=int)
    parser.add_argument("temperature", type=float)
    args = parser.parse_args()

    async with await open_transport(args.transport) as hci:
        device = Device.with_hci("beaconctl-tlm-beacon", Address(args.address), hci.source, hci.sink)
        await device.power_on()
        identifying = ibeacon_data(uuid.UUID(args.uuid), args.major, args.minor, -59)
        loop = asyncio.get_running_loop()
        started = loop.time()
        sent = 0
        announced = False
        while True:
            for frame in ("ibeacon", "tlm"):
                if frame == "ibeacon":
                    data = identifying
                else:
                    tenths = int((loop.time() - started) * 10)
                    data = tlm_data(args.battery_mv, args.temperature, sent, tenths)
                await device.start_advertising(
                    advertising_type=AdvertisingType.UNDIRECTED, advertising_data=data,
                    advertising_interval_min=100, advertising_interval_max=100)
                await asyncio.sleep(SWITCH_SECONDS)
                await device.stop_advertising()
                sent += 3
            if not announced:
                print("ready", flush=True)
                announced = True


if __name__ == "__main__":
    asyncio.run(main())
