#!/usr/bin/env python3
# Copyright the beaconctl authors. Licensed under the Apache License, Version 2.0.
"""A beacon configured through a fixed characteristic table, on Bumble, for the tests of
beaconctl's declarative profiles.

Written from the table in Tests/BeaconProfilesTests/Fixtures/test-table.yaml (a test table,
not a vendor's), independently of beaconctl's code: service 0xFFF0; UUID 0xFFF1 (16 bytes,
most significant first); major 0xFFF2 (uint16 big-endian); minor 0xFFF3 (uint16
little-endian); measured power 0xFFF4 (int8); interval 0xFFF5 (uint16 little-endian, in
0.625 ms units); TX power 0xFFF6 (a level 0-7 of -30, -20, -16, -12, -8, -4, 0, 4 dBm);
password 0xFFF7 (6 ASCII characters; written to unlock, written again once unlocked to
change it); commit 0xFFF8 (0x01 applies the written values); state 0xFFF9 (0 locked,
1 unlocked). Device Information 0x180A (model 0x2A24, firmware 0x2A26) and Battery 0x180F
(0x2A19). While locked every table characteristic but the password and the state refuses
reads and writes (Read/Write Not Permitted); a wrong password leaves the state 0.

Usage: table_peripheral.py TRANSPORT ADDRESS [--password TEXT] [--major N] [--minor N]
           [--uuid HEX32] [--measured-power N] [--interval-units N] [--level N]

Prints one line per event:
  ready | connected | disconnected REASON
  unlocked | password refused
  write NAME HEX       a table value was written (not yet applied)
  committed            the written values were applied
  password changed
"""

import argparse
import asyncio
import sys

from bumble.att import ATT_Error, ErrorCode
from bumble.core import AdvertisingData
from bumble.device import Device
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.hci import Address
from bumble.transport import open_transport


def say(line: str) -> None:
    print(line, flush=True)


def short(number: int) -> str:
    return f"0000{number:04x}-0000-1000-8000-00805f9b34fb"


class Beacon:
    def __init__(self, args) -> None:
        self.password = args.password.encode("ascii")
        self.unlocked = False
        # Applied values, and the values written since the last commit.
        self.values = {
            0xFFF1: bytes.fromhex(args.uuid),
            0xFFF2: args.major.to_bytes(2, "big"),
            0xFFF3: args.minor.to_bytes(2, "little"),
            0xFFF4: args.measured_power.to_bytes(1, "big", signed=True),
            0xFFF5: args.interval_units.to_bytes(2, "little"),
            0xFFF6: bytes([args.level]),
        }
        self.pending = {}
        self.names = {0xFFF1: "uuid", 0xFFF2: "major", 0xFFF3: "minor", 0xFFF4: "measured-power", 0xFFF5: "interval", 0xFFF6: "tx-power"}
        self.lengths = {0xFFF1: 16, 0xFFF2: 2, 0xFFF3: 2, 0xFFF4: 1, 0xFFF5: 2, 0xFFF6: 1}

    def reader(self, number):
        def read(_connection):
            if not self.unlocked:
                raise ATT_Error(ErrorCode.READ_NOT_PERMITTED)
            return self.values[number]

        return read

    def writer(self, number):
        def write(_connection, value: bytes) -> None:
            if not self.unlocked:
                raise ATT_Error(ErrorCode.WRITE_NOT_PERMITTED)
            if len(value) != self.lengths[number] or (number == 0xFFF6 and value[0] > 7):
                raise ATT_Error(ErrorCode.INVALID_ATTRIBUTE_LENGTH)
            self.pending[number] = value
            say(f"write {self.names[number]} {value.hex()}")

        return write

    def write_password(self, _connection, value: bytes) -> None:
        if self.unlocked:
            if len(value) != 6:
                raise ATT_Error(ErrorCode.INVALID_ATTRIBUTE_LENGTH)
            self.password = value
            say("password changed")
        elif value == self.password:
            self.unlocked = True
            say("unlocked")
        else:
            say("password refused")

    def write_commit(self, _connection, value: bytes) -> None:
        if not self.unlocked:
            raise ATT_Error(ErrorCode.WRITE_NOT_PERMITTED)
        if value == bytes([0x01]):
            self.values.update(self.pending)
            self.pending = {}
            say("committed")

    def read_state(self, _connection) -> bytes:
        return bytes([1 if self.unlocked else 0])


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport")
    parser.add_argument("address")
    parser.add_argument("--password", default="123456")
    parser.add_argument("--uuid", default="00" * 16)
    parser.add_argument("--major", type=int, default=1)
    parser.add_argument("--minor", type=int, default=1)
    parser.add_argument("--measured-power", type=int, default=-58)
    parser.add_argument("--interval-units", type=int, default=1520)
    parser.add_argument("--level", type=int, default=7)
    args = parser.parse_args()
    beacon = Beacon(args)

    rw = Characteristic.Properties.READ | Characteristic.Properties.WRITE
    permissions = Characteristic.READABLE | Characteristic.WRITEABLE

    def characteristic(number, properties, read=None, write=None):
        return Characteristic(short(number), properties, permissions, CharacteristicValue(read=read, write=write))

    table = [characteristic(number, rw, read=beacon.reader(number), write=beacon.writer(number)) for number in range(0xFFF1, 0xFFF7)]
    table += [
        characteristic(0xFFF7, Characteristic.Properties.WRITE, write=beacon.write_password),
        characteristic(0xFFF8, Characteristic.Properties.WRITE, write=beacon.write_commit),
        characteristic(0xFFF9, Characteristic.Properties.READ, read=beacon.read_state),
    ]
    information = [
        characteristic(0x2A24, Characteristic.Properties.READ, read=lambda _c: b"TB-1"),
        characteristic(0x2A26, Characteristic.Properties.READ, read=lambda _c: b"2.1\x00"),
    ]
    battery = [characteristic(0x2A19, Characteristic.Properties.READ, read=lambda _c: bytes([87]))]

    async with await open_transport(args.transport) as hci:
        device = Device.with_hci("TEST-table", Address(args.address), hci.source, hci.sink)
        device.add_service(Service(short(0x180A), information))
        device.add_service(Service(short(0xFFF0), table))
        device.add_service(Service(short(0x180F), battery))
        device.advertising_data = bytes(
            AdvertisingData(
                [
                    (AdvertisingData.FLAGS, bytes([0x06])),
                    (AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS, bytes([0xF0, 0xFF])),
                    (AdvertisingData.COMPLETE_LOCAL_NAME, b"TEST-table"),
                ]
            )
        )

        def on_connection(connection) -> None:
            say("connected")
            connection.on("disconnection", lambda reason: say(f"disconnected {reason}"))

        device.on("connection", on_connection)
        await device.power_on()
        await device.start_advertising(auto_restart=True)
        say("ready")
        await hci.source.wait_for_termination()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
