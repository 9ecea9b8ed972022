"""Writes bumble-ibeacon.pcap: two Bumble devices on Bumble's in-process link, one
advertising an iBeacon (legacy ADV_NONCONN_IND), the other scanning with Bumble's
PcapSnooper on its host (link type 201, H4 with a direction pseudo-header).

    python make-bumble-pcap.py bumble-ibeacon.pcap
"""
import asyncio
import sys

from bumble.controller import Controller
from bumble.device import AdvertisingType, Device
from bumble.hci import Address, OwnAddressType
from bumble.host import Host
from bumble.link import LocalLink
from bumble.snoop import PcapSnooper
from bumble.transport.common import AsyncPipeSink

UUID = bytes.fromhex("E2C56DB5DFFB48D2B060D0F5A71096E0")


def ibeacon(major: int, minor: int, power: int) -> bytes:
    manufacturer = bytes([0x4C, 0x00, 0x02, 0x15]) + UUID + major.to_bytes(2, "big") + minor.to_bytes(2, "big") + power.to_bytes(1, "big", signed=True)
    return bytes([0x02, 0x01, 0x06, len(manufacturer) + 1, 0xFF]) + manufacturer


async def main(path: str) -> None:
    link = LocalLink()
    beacon_controller = Controller("beacon", link=link, public_address="C4:5B:BE:12:34:56")
    scanner_controller = Controller("scanner", link=link, public_address="F0:F0:F0:F0:F0:F0")
    beacon = Device(address=Address("C4:5B:BE:12:34:56"), host=Host(beacon_controller, AsyncPipeSink(beacon_controller)))
    scanner = Device(address=Address("F0:F0:F0:F0:F0:F0"), host=Host(scanner_controller, AsyncPipeSink(scanner_controller)))
    with open(path, "wb") as output:
        scanner.host.snooper = PcapSnooper(output)
        await beacon.power_on()
        await scanner.power_on()
        heard = []
        scanner.on("advertisement", lambda advertisement: heard.append(advertisement))
        await scanner.start_scanning(legacy=True, active=False, filter_duplicates=False)
        await beacon.start_advertising(
            advertising_type=AdvertisingType.UNDIRECTED,
            own_address_type=OwnAddressType.PUBLIC,
            advertising_data=ibeacon(7, 42, -59),
            advertising_interval_min=100,
            advertising_interval_max=100,
        )
        while len(heard) < 5:
            await asyncio.sleep(0.05)
        await beacon.stop_advertising()
        await scanner.stop_scanning()
    print(f"{path}: {len(heard)} advertisements heard")


asyncio.run(main(sys.argv[1]))
