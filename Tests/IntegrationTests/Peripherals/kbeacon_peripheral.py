#!/usr/bin/env python3
# Copyright the beaconctl authors. Licensed under the Apache License, Version 2.0.
"""A KBeacon (KKM / Blue Charm) on Bumble, for the tests of beaconctl's kbeacon profile.

Written from the vendor's MIT-licensed Android SDK (kkmhogen/android_kbeaconlib2), playing the
beacon's side of what the SDK does as a central, independently of beaconctl's code:
  KBUtility.java         service 0xFEA0: 0xFEA1 written by the central, 0xFEA2 notified;
                         manufacturer id 0x0A53, service data 0x2080 (battery percent)
  KBAuthHandler.java     the MD5 challenge-response: the central writes 0x13 0x01 RANDOM4;
                         the beacon answers 0x13 0x01 RANDOM4 MD5(addr|A9 B1|central random|pwd)
                         (or 0x13 0x0B with the digest folded to 8 bytes when the MTU is small);
                         the central answers 0x13 0x02 MD5(addr|A9 B1|beacon random|pwd)
                         (0x13 0x0C folded); the beacon says 0x13 0x02 MTU or 0x13 0xF1.
                         addr is the beacon's address, least significant byte first.
  KBeacon.java           JSON messages in parts: [type<<4 | place][offset u16 BE][bytes];
                         the beacon acknowledges [0x2_][offset u16][window u16][cause u16][data]
                         with cause 4 (send from offset), 0 (done, the answer after it) or 5
                         (received; the answer follows as report parts [0x3_][offset u16][bytes],
                         each acknowledged by the central with [0x33][received u16][window][cause]).
  KBCfgPackage/*.java    {"msg":"getPara","type":3} reads; {"msg":"cfg",...} writes: meaPwr, pwd,
                         advObj [{slot, type (5 iBeacon), uuid, majorID, minorID, txPwr, advPrd}].

Usage: kbeacon_peripheral.py TRANSPORT ADDRESS [--mtu N] [--password P] [--locked]
           [--uuid U --major N --minor N --measured-power N --tx-power N --interval N]
           [--attempts N] [--no-ibeacon-slot] [--advertise-ibeacon] [--non-connectable] [--count N]

--advertise-ibeacon plays a beacon in service: its connectable advertisement is the iBeacon slot's
frame (Apple's layout: UUID, major, minor, the common meaPwr) every advPrd milliseconds, KKM's
data moves to the scan response, and a configuration applied shows in the advertisement once
the central has disconnected. --non-connectable advertises without accepting connections (a
beacon whose connectable window has closed). --hang-up-on-cfg N drops the link instead of
applying the first N configuration messages (a test fault: a link lost between writes).
--count N plays N such beacons at ADDRESS and the addresses after it, each on a controller of
its own (the provisioning benchmark's fleet); each line is then prefixed with its address.

Prints one line per event for the test to wait on:
  ready                        advertising has started (on every beacon, with --count)
  connected                    a central connected
  subscribed                   notifications on 0xFEA2 were enabled
  auth request                 a central's authentication request (phase 1) arrived
  auth folded | auth full      the challenge form the beacon answered with
  authenticated                the central's proof matched
  auth refused                 the central's proof did not match (or the beacon is locked)
  read                         a getPara message was answered
  cfg KEY,KEY                  a cfg message was applied (its top-level keys, sorted)
  cfg refused CAUSE            a cfg message was refused
  state JSON                   the iBeacon slot and meaPwr after each cfg message
  password changed             the password was changed
  disconnected REASON          the link ended (HCI error code, decimal)
"""

import argparse
import asyncio
import hashlib
import json
import os
import random
import sys

from bumble.core import AdvertisingData
from bumble.device import AdvertisingType, Device
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.hci import Address
from bumble.transport import open_transport

SERVICE = "0000FEA0-0000-1000-8000-00805F9B34FB"
WRITE = "0000FEA1-0000-1000-8000-00805F9B34FB"
NOTIFY = "0000FEA2-0000-1000-8000-00805F9B34FB"
FACTOR = bytes([0xA9, 0xB1])
FACTORY_PASSWORD = "0000000000000000"
WINDOW = 1000


def say(line: str) -> None:
    print(line, flush=True)


def md5(*parts: bytes) -> bytes:
    return hashlib.md5(b"".join(parts)).digest()


def fold(digest: bytes) -> bytes:
    return bytes(digest[i] ^ digest[i + 8] for i in range(8))


class Beacon:
    def __init__(self, args, address: str, device: Device, notify: Characteristic, say) -> None:
        self.args = args
        self.say = say
        self.device = device
        self.notify = notify
        self.address_le = bytes.fromhex(address.replace(":", ""))[::-1]
        self.password = args.password
        self.locked = args.locked
        self.failures = 0
        self.authenticated = False
        self.central_random = b""
        self.beacon_random = b""
        self.folded = False
        self.settings_changed = False
        self.incoming = b""
        self.outgoing = b""
        self.outgoing_sent = 0
        self.common = {
            "model": "BC011-sim",
            "ver": "5.31",
            "hver": "1.0",
            "btPt": 93,
            "meaPwr": args.measured_power,
            "minPwr": -40,
            "maxPwr": 4,
            "maxPrd": 20000.0,
            "maxSlot": 5,
        }
        self.slots = [{"slot": 0, "type": 2, "txPwr": 0, "advPrd": 1000.0, "conn": 1}] if args.no_ibeacon_slot else [
            {"slot": 0, "type": 2, "txPwr": 0, "advPrd": 1000.0, "conn": 1},
            {
                "slot": 1,
                "type": 5,
                "txPwr": args.tx_power,
                "advPrd": float(args.interval),
                "uuid": args.uuid,
                "majorID": args.major,
                "minorID": args.minor,
                "conn": 1,
            },
        ]

    def frame_length(self, connection) -> int:
        # A notification carries at most ATT_MTU - 3 bytes (Core Vol 3 Part F 3.4.7.1).
        return connection.att_mtu - 3

    async def send(self, connection, frame: bytes) -> None:
        await self.device.notify_subscriber(connection, self.notify, frame)

    async def on_write(self, connection, value: bytes) -> None:
        if not value:
            return
        kind, place = value[0] >> 4, value[0] & 0x0F
        if kind == 1:
            await self.on_authentication(connection, value)
        elif kind == 2:
            await self.on_json_part(connection, place, value)
        elif kind == 3:
            await self.on_report_ack(connection, value)

    async def on_authentication(self, connection, value: bytes) -> None:
        phase = value[1] if len(value) > 1 else None
        if phase == 0x01 and len(value) >= 6:
            self.say("auth request")
            self.authenticated = False
            if self.locked:
                self.say("auth refused")
                await self.send(connection, bytes([0x13, 0xF1]))
                return
            self.central_random = value[2:6]
            self.beacon_random = os.urandom(4)
            proof = md5(self.address_le, FACTOR, self.central_random, self.password.encode())
            # The full answer is 22 bytes: it fits only when a notification can carry them.
            self.folded = self.frame_length(connection) < 22
            self.say("auth folded" if self.folded else "auth full")
            if self.folded:
                await self.send(connection, bytes([0x13, 0x0B]) + self.beacon_random + fold(proof))
            else:
                await self.send(connection, bytes([0x13, 0x01]) + self.beacon_random + proof)
        elif phase in (0x02, 0x0C) and self.beacon_random:
            expected = md5(self.address_le, FACTOR, self.beacon_random, self.password.encode())
            if self.folded:
                expected = fold(expected)
            if phase == (0x0C if self.folded else 0x02) and value[2:] == expected:
                self.authenticated = True
                self.say("authenticated")
                await self.send(connection, bytes([0x13, 0x02, min(connection.att_mtu, 255)]))
            else:
                self.failures += 1
                if self.failures >= self.args.attempts:
                    self.locked = True
                self.say("auth refused")
                await self.send(connection, bytes([0x13, 0xF1]))

    async def acknowledge(self, connection, offset: int, cause: int, data: bytes = b"") -> None:
        header = bytes([0x23]) + offset.to_bytes(2, "big") + WINDOW.to_bytes(2, "big") + cause.to_bytes(2, "big")
        await self.send(connection, header + data)

    async def on_json_part(self, connection, place: int, value: bytes) -> None:
        if not self.authenticated:
            await self.acknowledge(connection, 0, 0x01)
            return
        offset = int.from_bytes(value[1:3], "big")
        data = value[3:]
        if place in (0, 3):
            self.incoming = b""
        if offset != len(self.incoming):
            await self.acknowledge(connection, len(self.incoming), 0x04)
            return
        self.incoming += data
        if place in (0, 1):
            await self.acknowledge(connection, len(self.incoming), 0x04)
            return
        message = json.loads(self.incoming.decode())
        self.incoming = b""
        if message.get("msg") == "getPara":
            await self.answer(connection, message)
        elif message.get("msg") == "cfg":
            if self.args.hang_up_on_cfg > 0:
                # The link lost mid-configuration (a test fault, not vendor behaviour):
                # nothing applied, no acknowledgement.
                self.args.hang_up_on_cfg -= 1
                self.say("hung up")
                await connection.disconnect()
                return
            cause = self.apply(message)
            await self.acknowledge(connection, 0, cause)
        else:
            await self.acknowledge(connection, 0, 0x03)

    async def answer(self, connection, message) -> None:
        reply = {}
        if message.get("type", 0) & 0x1:
            reply.update(self.common)
        if message.get("type", 0) & 0x2:
            reply["advObj"] = self.slots
        body = json.dumps(reply, separators=(",", ":")).encode()
        room = self.frame_length(connection) - 7
        self.say("read")
        if len(body) <= room:
            await self.acknowledge(connection, len(body), 0x00, body)
            return
        # Too long for one acknowledgement: its first part now, the rest as reports.
        self.outgoing = body
        self.outgoing_sent = room
        await self.acknowledge(connection, room, 0x05, body[:room])

    async def on_report_ack(self, connection, value: bytes) -> None:
        if len(value) < 7 or not self.outgoing:
            return
        received = int.from_bytes(value[1:3], "big")
        if received >= len(self.outgoing):
            self.outgoing = b""
            return
        room = self.frame_length(connection) - 3
        part = self.outgoing[received : received + room]
        last = received + len(part) >= len(self.outgoing)
        await self.send(connection, bytes([0x32 if last else 0x31]) + received.to_bytes(2, "big") + part)

    def apply(self, message) -> int:
        keys = sorted(key for key in message if key != "msg")
        if "meaPwr" in message and not -80 <= message["meaPwr"] <= 0:
            self.say("cfg refused 2")
            return 0x02
        for entry in message.get("advObj", []):
            if "txPwr" in entry and not -40 <= entry["txPwr"] <= 4:
                self.say("cfg refused 2")
                return 0x02
            if "advPrd" in entry and not 100 <= entry["advPrd"] <= 20000:
                self.say("cfg refused 2")
                return 0x02
        if "pwd" in message:
            if not 8 <= len(message["pwd"]) <= 16:
                self.say("cfg refused 2")
                return 0x02
            self.password = message["pwd"]
            self.say("password changed")
        if "meaPwr" in message:
            self.common["meaPwr"] = message["meaPwr"]
        for entry in message.get("advObj", []):
            slot = next((s for s in self.slots if s["slot"] == entry["slot"]), None)
            if slot is None:
                slot = {"slot": entry["slot"]}
                self.slots.append(slot)
            slot.update({key: value for key, value in entry.items() if key != "slot"})
            if "advPrd" in entry:
                slot["advPrd"] = float(entry["advPrd"])
        self.say("cfg " + ",".join(keys))
        self.settings_changed = True
        ibeacon = next((s for s in self.slots if s.get("type") == 5), {})
        self.say("state " + json.dumps({"meaPwr": self.common["meaPwr"], "slot": ibeacon}, sort_keys=True))
        return 0x00


async def serve(args, address: str, say, started: asyncio.Event, delay: float = 0.0) -> None:
    """One KBeacon at `address` on a controller of its own, until the transport ends; it starts
    advertising after `delay` seconds."""
    async with await open_transport(args.transport) as hci:
        device = Device.with_hci("KBeacon-sim", Address(address), hci.source, hci.sink)
        device.gatt_server.max_mtu = args.mtu

        notify = Characteristic(NOTIFY, Characteristic.Properties.NOTIFY, Characteristic.READABLE, b"")
        holder = {}

        async def on_write(connection, value):
            await holder["beacon"].on_write(connection, bytes(value))

        write = Characteristic(
            WRITE,
            Characteristic.Properties.WRITE | Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
            Characteristic.WRITEABLE,
            CharacteristicValue(write=on_write),
        )
        device.add_service(Service(SERVICE, [write, notify]))
        holder["beacon"] = Beacon(args, address, device, notify, say)
        notify.on("subscription", lambda _bearer, notify_enabled, _indicate: say("subscribed") if notify_enabled else None)

        # KKM's manufacturer data and the 0x2080 service data (battery percent first).
        kkm = [
            (AdvertisingData.SERVICE_DATA_16_BIT_UUID, bytes([0x80, 0x20, 93, 0x00, 0x00])),
            (AdvertisingData.MANUFACTURER_SPECIFIC_DATA, bytes([0x53, 0x0A, 0x22, 0x00])),
        ]
        flags = (AdvertisingData.FLAGS, bytes([0x06]))
        beacon = holder["beacon"]

        def ibeacon_advertisement():
            slot = next((s for s in beacon.slots if s.get("type") == 5), None)
            if slot is None or "uuid" not in slot:
                return bytes(AdvertisingData([flags] + kkm)), b"", 100.0
            # Apple "Proximity Beacon Specification" r1, 2.1: 4C 00 02 15 UUID major minor power.
            frame = (
                bytes([0x4C, 0x00, 0x02, 0x15])
                + bytes.fromhex(slot["uuid"].replace("-", ""))
                + int(slot["majorID"]).to_bytes(2, "big")
                + int(slot["minorID"]).to_bytes(2, "big")
                + int(beacon.common["meaPwr"]).to_bytes(1, "big", signed=True)
            )
            data = bytes(AdvertisingData([flags, (AdvertisingData.MANUFACTURER_SPECIFIC_DATA, frame)]))
            return data, bytes(AdvertisingData(kkm)), float(slot["advPrd"])

        async def advertise():
            if args.advertise_ibeacon:
                data, response, interval = ibeacon_advertisement()
                await device.start_advertising(
                    advertising_data=data, scan_response_data=response,
                    advertising_interval_min=interval, advertising_interval_max=interval)
            elif args.non_connectable:
                await device.start_advertising(
                    advertising_type=AdvertisingType.UNDIRECTED, advertising_data=bytes(AdvertisingData([flags] + kkm)))
            else:
                await device.start_advertising(advertising_data=bytes(AdvertisingData([flags] + kkm)), auto_restart=True)

        def on_disconnection(reason) -> None:
            say(f"disconnected {reason}")
            if args.advertise_ibeacon:
                # Back on the air with what the central configured (a KBeacon applies its
                # slots' settings to its advertising once the configuration is saved).
                asyncio.get_running_loop().create_task(advertise())

        def on_connection(connection) -> None:
            say("connected")
            connection.on("disconnection", on_disconnection)

        device.on("connection", on_connection)
        await device.power_on()
        await asyncio.sleep(delay)
        await advertise()
        started.set()
        await hci.source.wait_for_termination()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport")
    parser.add_argument("address")
    parser.add_argument("--mtu", type=int, default=247, help="the largest ATT MTU the server accepts")
    parser.add_argument("--password", default=FACTORY_PASSWORD)
    parser.add_argument("--locked", action="store_true", help="refuse every authentication (locked out)")
    parser.add_argument("--attempts", type=int, default=3, help="failed proofs before the beacon locks itself")
    parser.add_argument("--uuid", default="7777772E-6B6B-6D63-6E2E-636F6D000001")
    parser.add_argument("--major", type=int, default=1)
    parser.add_argument("--minor", type=int, default=1)
    parser.add_argument("--measured-power", type=int, default=-59)
    parser.add_argument("--tx-power", type=int, default=0)
    parser.add_argument("--interval", type=int, default=1000)
    parser.add_argument("--no-ibeacon-slot", action="store_true", help="advertise Eddystone-UID only (slot 0, type 2)")
    parser.add_argument("--advertise-ibeacon", action="store_true", help="advertise the iBeacon slot's frame (KKM data in the scan response)")
    parser.add_argument("--non-connectable", action="store_true", help="advertise without accepting connections")
    parser.add_argument("--hang-up-on-cfg", type=int, default=0, help="disconnect instead of applying the first N cfg messages")
    parser.add_argument("--count", type=int, default=1, help="beacons to play, at ADDRESS and the addresses after it")
    args = parser.parse_args()

    # --count N plays N beacons at ADDRESS and the N - 1 addresses after it, each on a
    # controller of its own; their lines are then prefixed with their address.
    first = int(args.address.replace(":", ""), 16)
    addresses = [":".join(f"{(first + i) & 0xFFFFFFFFFFFF:012X}"[j : j + 2] for j in range(0, 12, 2)) for i in range(args.count)]

    def speaker(address: str):
        return say if args.count == 1 else (lambda line: say(f"{address} {line}"))

    # Beacons switched on by hand advertise out of step: each starts at a random point of the
    # factory interval (a second), not all on one beat.
    events = [asyncio.Event() for _ in addresses]
    tasks = [
        asyncio.create_task(serve(args, address, speaker(address), started, delay=random.random() if args.count > 1 else 0.0))
        for address, started in zip(addresses, events)
    ]
    waiting = asyncio.gather(*(event.wait() for event in events))
    done, _ = await asyncio.wait([waiting, *tasks], return_when=asyncio.FIRST_COMPLETED)
    if waiting not in done:
        # A device ended (its transport failed) before all were advertising: its error is the exit's.
        for task in done:
            task.result()
        sys.exit(1)
    say("ready")
    await asyncio.gather(*tasks)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
