#!/usr/bin/env python3
# Copyright the beaconctl authors. Licensed under the Apache License, Version 2.0.
"""A beacon offering the Eddystone Configuration GATT Service on Bumble, for the tests of
beaconctl's eddystone-gatt profile.

Written from google/eddystone configuration-service/README.md, independently of beaconctl's
code: service a3c87500-8ed3-4bdf-8a39-a01bebede295, characteristics a3c87501 (Capabilities)
to a3c8750b (Factory reset); values big-endian; every characteristic but Lock State refuses
reads (Read Not Permitted) and writes (Write Not Permitted) while locked; Unlock is read for a
16-byte one-time challenge and written with AES-128-ECB(key=lock code, challenge); a wrong
token is refused with Write Not Permitted; Lock State written with 0x00 + AES-128-ECB(key=old
code, new code) sets a new code and locks. AES comes from the `cryptography` package that
Bumble itself depends on.

Usage: eddystone_peripheral.py TRANSPORT ADDRESS [--mtu N] [--lock-code HEX32] [--unlocked]
           [--refuse-unlock] [--interval N] [--tx-power N]

Prints one line per event:
  ready | connected | disconnected REASON
  challenge                  a challenge was read
  unlocked | unlock refused  a token was written (right or wrong)
  write interval N | write tx-power N | write slot N
  lock code changed          a new lock code was set (and the beacon locked)
  factory reset
"""

import argparse
import asyncio
import os
import sys

from bumble.att import ATT_Error, ErrorCode
from bumble.core import AdvertisingData
from bumble.device import Device
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.hci import Address
from bumble.transport import open_transport
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def uuid(number: int) -> str:
    return f"a3c875{number:02x}-8ed3-4bdf-8a39-a01bebede295"


POWERS = [-20, -16, -12, -8, -4, 0, 4]


def say(line: str) -> None:
    print(line, flush=True)


def aes_encrypt(key: bytes, block: bytes) -> bytes:
    encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return encryptor.update(block) + encryptor.finalize()


def aes_decrypt(key: bytes, block: bytes) -> bytes:
    decryptor = Cipher(algorithms.AES(key), modes.ECB()).decryptor()
    return decryptor.update(block) + decryptor.finalize()


class Beacon:
    def __init__(self, args) -> None:
        self.args = args
        self.lock_code = bytes.fromhex(args.lock_code)
        self.lock_state = 0x01 if args.unlocked else 0x00
        self.challenge = None
        self.interval = args.interval
        self.tx_power = args.tx_power
        self.advertised_tx_power = None
        self.slot_data = bytes([0x00, 0xF4]) + bytes(range(16))

    def require_unlocked(self, writing: bool) -> None:
        if self.lock_state == 0x00:
            raise ATT_Error(ErrorCode.WRITE_NOT_PERMITTED if writing else ErrorCode.READ_NOT_PERMITTED)

    def readable(self, getter):
        def read(_connection):
            self.require_unlocked(False)
            return getter()

        return read

    # Characteristic 1
    def capabilities(self) -> bytes:
        return bytes([0x00, 1, 0, 0x00, 0x00, 0x03]) + bytes(p & 0xFF for p in POWERS)

    # Characteristic 2
    def write_slot(self, _connection, value: bytes) -> None:
        self.require_unlocked(True)
        if len(value) != 1 or value[0] >= 1:
            raise ATT_Error(ErrorCode.INVALID_ATTRIBUTE_LENGTH)
        say(f"write slot {value[0]}")

    # Characteristic 3
    def write_interval(self, _connection, value: bytes) -> None:
        self.require_unlocked(True)
        if len(value) != 2:
            raise ATT_Error(ErrorCode.INVALID_ATTRIBUTE_LENGTH)
        # "the beacon shall clamp the value written to the nearest legal value"
        self.interval = min(max(int.from_bytes(value, "big"), 100), 10240)
        say(f"write interval {self.interval}")

    # Characteristic 4
    def write_tx_power(self, _connection, value: bytes) -> None:
        self.require_unlocked(True)
        if len(value) != 1:
            raise ATT_Error(ErrorCode.INVALID_ATTRIBUTE_LENGTH)
        asked = int.from_bytes(value, "big", signed=True)
        # "select the next highest power supported, or else the maximum power"
        self.tx_power = next((p for p in POWERS if p >= asked), POWERS[-1])
        say(f"write tx-power {self.tx_power}")

    # Characteristic 5
    def read_advertised(self) -> bytes:
        value = self.advertised_tx_power if self.advertised_tx_power is not None else self.tx_power
        return value.to_bytes(1, "big", signed=True)

    def write_advertised(self, _connection, value: bytes) -> None:
        self.require_unlocked(True)
        self.advertised_tx_power = int.from_bytes(value[:1], "big", signed=True)

    # Characteristic 6
    def read_lock_state(self, _connection) -> bytes:
        return bytes([self.lock_state])

    def write_lock_state(self, _connection, value: bytes) -> None:
        self.require_unlocked(True)
        if len(value) == 1 and value[0] == 0x00:
            self.lock_state = 0x00
        elif len(value) == 1 and value[0] == 0x02:
            self.lock_state = 0x02
        elif len(value) == 17 and value[0] == 0x00:
            self.lock_code = aes_decrypt(self.lock_code, value[1:])
            self.lock_state = 0x00
            say("lock code changed")
        else:
            raise ATT_Error(ErrorCode.INVALID_ATTRIBUTE_LENGTH)

    # Characteristic 7
    def read_challenge(self, _connection) -> bytes:
        if self.lock_state != 0x00:
            raise ATT_Error(ErrorCode.READ_NOT_PERMITTED)
        self.challenge = os.urandom(16)
        say("challenge")
        return self.challenge

    def write_unlock(self, _connection, value: bytes) -> None:
        if self.lock_state != 0x00 or self.challenge is None:
            raise ATT_Error(ErrorCode.WRITE_NOT_PERMITTED)
        expected = aes_encrypt(self.lock_code, self.challenge)
        # One-time use: a challenge answers one token, right or wrong.
        self.challenge = None
        if self.args.refuse_unlock or value != expected:
            say("unlock refused")
            raise ATT_Error(ErrorCode.WRITE_NOT_PERMITTED)
        self.lock_state = 0x01
        say("unlocked")

    # Characteristic 10
    def write_slot_data(self, _connection, value: bytes) -> None:
        self.require_unlocked(True)
        self.slot_data = value

    # Characteristic 11
    def write_reset(self, _connection, value: bytes) -> None:
        if self.lock_state != 0x01:
            raise ATT_Error(ErrorCode.WRITE_NOT_PERMITTED)
        if value == bytes([0x0B]):
            self.interval = 1000
            self.tx_power = 0
            say("factory reset")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport")
    parser.add_argument("address")
    parser.add_argument("--mtu", type=int, default=247)
    parser.add_argument("--lock-code", default="00" * 16)
    parser.add_argument("--unlocked", action="store_true", help="start unlocked (state 0x01)")
    parser.add_argument("--refuse-unlock", action="store_true", help="refuse every token (a locked-out beacon)")
    parser.add_argument("--interval", type=int, default=1000)
    parser.add_argument("--tx-power", type=int, default=0)
    args = parser.parse_args()
    beacon = Beacon(args)

    rw = Characteristic.Properties.READ | Characteristic.Properties.WRITE
    permissions = Characteristic.READABLE | Characteristic.WRITEABLE

    def characteristic(number, properties, read=None, write=None):
        return Characteristic(uuid(number), properties, permissions, CharacteristicValue(read=read, write=write))

    characteristics = [
        characteristic(0x01, Characteristic.Properties.READ, read=beacon.readable(beacon.capabilities)),
        characteristic(0x02, rw, read=beacon.readable(lambda: bytes([0])), write=beacon.write_slot),
        characteristic(0x03, rw, read=beacon.readable(lambda: beacon.interval.to_bytes(2, "big")), write=beacon.write_interval),
        characteristic(0x04, rw, read=beacon.readable(lambda: beacon.tx_power.to_bytes(1, "big", signed=True)), write=beacon.write_tx_power),
        characteristic(0x05, rw, read=beacon.readable(beacon.read_advertised), write=beacon.write_advertised),
        characteristic(0x06, rw, read=beacon.read_lock_state, write=beacon.write_lock_state),
        characteristic(0x07, rw, read=beacon.read_challenge, write=beacon.write_unlock),
        characteristic(0x0A, rw, read=beacon.readable(lambda: beacon.slot_data), write=beacon.write_slot_data),
        characteristic(0x0B, Characteristic.Properties.WRITE, write=beacon.write_reset),
    ]

    async with await open_transport(args.transport) as hci:
        device = Device.with_hci("Eddystone-sim", Address(args.address), hci.source, hci.sink)
        device.gatt_server.max_mtu = args.mtu
        device.add_service(Service(uuid(0x00), characteristics))
        # The service's 128-bit UUID in the advertisement, as the document recommends.
        device.advertising_data = bytes(
            AdvertisingData(
                [
                    (AdvertisingData.FLAGS, bytes([0x06])),
                    (AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS, bytes.fromhex(uuid(0x00).replace("-", ""))[::-1]),
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
