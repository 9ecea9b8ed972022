#!/usr/bin/env python3
# Copyright the beaconctl authors. Licensed under the Apache License, Version 2.0.
"""A GATT peripheral on Bumble for the tests of beaconctl's LE central.

Written from the Bluetooth Core Specification (Vol 3 Part G: a primary service, its
characteristics and their Client Characteristic Configuration) and Bumble's documented
device API, independently of beaconctl's code.

Usage: gatt_peripheral.py TRANSPORT ADDRESS [--mtu N] [--security-request]
                          [--parameter-update] [--hang-up-after-notification]

TRANSPORT is a Bumble transport (tcp-client:127.0.0.1:PORT for RootCanal). The device
advertises connectably from ADDRESS (a static random address) and prints one line per
event on standard output, for the test to wait on:
  ready                      advertising has started
  connected                  a central connected
  mtu N                      the ATT MTU changed to N
  subscribed N I             the event characteristic's CCCD was written (N, I: 0 or 1)
  notified                   the notification was sent
  confirmed                  the indication was confirmed by the central
  pairing failed REASON      the central refused the Security Request (SMP reason, decimal)
  parameters accepted        the central accepted the L2CAP parameter update request
  parameters refused …       it refused it
  parameters updated         the link's parameters changed (the central's LE Connection Update)
  disconnected REASON        the link ended (REASON: the HCI error code, decimal)
"""

import argparse
import asyncio
import sys

from bumble.device import Device
from bumble.gatt import Characteristic, Service
from bumble.hci import Address
from bumble.transport import open_transport

SERVICE = "3c0f0000-2c4b-4e4b-8f1c-6a2b2c3d4e5f"
NAME = "3c0f0001-2c4b-4e4b-8f1c-6a2b2c3d4e5f"
LONG = "3c0f0002-2c4b-4e4b-8f1c-6a2b2c3d4e5f"
EVENTS = "3c0f0003-2c4b-4e4b-8f1c-6a2b2c3d4e5f"

NAME_VALUE = b"beaconctl"
# 300 bytes: longer than one ATT_MTU of 247, so that a read needs Read Blob at any MTU.
LONG_VALUE = bytes(i % 251 for i in range(300))
NOTIFICATION = b"\x01\x02"
INDICATION = b"\x03"


def say(line: str) -> None:
    print(line, flush=True)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport")
    parser.add_argument("address")
    parser.add_argument("--mtu", type=int, default=247, help="the largest ATT MTU the server accepts")
    parser.add_argument("--security-request", action="store_true", help="ask the central for security on connection")
    parser.add_argument("--parameter-update", action="store_true", help="ask for new connection parameters over L2CAP")
    parser.add_argument(
        "--hang-up-after-notification", action="store_true", help="disconnect once the notification was sent"
    )
    args = parser.parse_args()

    async with await open_transport(args.transport) as hci:
        device = Device.with_hci("beaconctl-peripheral", Address(args.address), hci.source, hci.sink)
        device.gatt_server.max_mtu = args.mtu

        name = Characteristic(NAME, Characteristic.Properties.READ, Characteristic.READABLE, NAME_VALUE)
        long_value = Characteristic(
            LONG,
            Characteristic.Properties.READ | Characteristic.Properties.WRITE,
            Characteristic.READABLE | Characteristic.WRITEABLE,
            LONG_VALUE,
        )
        events = Characteristic(
            EVENTS,
            Characteristic.Properties.READ | Characteristic.Properties.NOTIFY | Characteristic.Properties.INDICATE,
            Characteristic.READABLE,
            b"\x00",
        )
        device.add_service(Service(SERVICE, [name, long_value, events]))

        async def send_events(notify: bool, indicate: bool) -> None:
            if notify:
                await device.notify_subscribers(events, NOTIFICATION)
                say("notified")
                if args.hang_up_after_notification:
                    for connection in list(device.connections.values()):
                        await connection.disconnect()
            if indicate:
                # Returns once the central confirmed (Core Vol 3 Part F 3.4.7.2).
                await device.indicate_subscribers(events, INDICATION)
                say("confirmed")

        def on_subscription(_bearer, notify: bool, indicate: bool) -> None:
            say(f"subscribed {int(notify)} {int(indicate)}")
            asyncio.create_task(send_events(notify, indicate))

        events.on("subscription", on_subscription)

        async def ask_for_parameters(connection) -> None:
            # 30–45 ms interval, no latency, 4 s supervision timeout: within every range.
            try:
                await device.update_connection_parameters(connection, 30.0, 45.0, 0, 4000.0, use_l2cap=True)
                say("parameters accepted")
            except Exception as error:  # the refusal, whatever Bumble raises for it
                say(f"parameters refused {error}")

        def on_connection(connection) -> None:
            say("connected")
            connection.on("disconnection", lambda reason: say(f"disconnected {reason}"))
            connection.on("connection_att_mtu_update", lambda: say(f"mtu {connection.att_mtu}"))
            connection.on("pairing_failure", lambda reason: say(f"pairing failed {int(reason)}"))
            connection.on("connection_parameters_update", lambda: say("parameters updated"))
            if args.security_request:
                connection.request_pairing()
            if args.parameter_update:
                asyncio.create_task(ask_for_parameters(connection))

        device.on("connection", on_connection)
        await device.power_on()
        await device.start_advertising(auto_restart=False)
        say("ready")
        await hci.source.wait_for_termination()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
