#!/usr/bin/env python3
"""Writes the recordings the golden outputs are made from (run once; the files are committed).

cupertino.jsonl: 40 s of the Cupertino store of fleets/jays-donuts.yaml heard by one
receiver, times on its own clock (seconds since scanning started):
  entrance (1/1)      heard throughout, -65 dBm at first, stronger after 20 s (walking in)
  register (1/2)      advertises -50 dBm at 1 m where the manifest says -61 (wrong power)
  pickup (1/3)        heard for the first 12 s only (goes silent: the watch reports it)
  coffee bar (1/6)    never heard (missing)
  display case (1/10) two devices advertise it (duplicate)
  1/9                 not in the manifest (unexpected)
two-stores.jsonl: 20 s of Cupertino and Sunnyvale heard by a receiver in each store,
  Unix times (as `scan --mqtt` publishes them), the two streams merged in time order.
walk-*.jsonl: the register heard from 0.5, 1, 2, 3 and 5 m (n = 2.5), for calibrate --walk.
cupertino.jsonl and walk-*.jsonl carry no "clock", as other programs' recordings may not: read
on the receiver's own elapsed clock, the default of a recording.
"""
import math

UUID = "89D6E936-F61F-4227-BCD2-6E94C5A6B2E3"


def line(major, minor, power, address, rssi, time, receiver, random=False, clock=None):
    return ('{"uuid":"%s","major":%d,"minor":%d,"measured_power":%d,"address":"%s",'
            '"address_random":%s,"rssi":%d,"time":%s,%s"receiver":"%s"}'
            % (UUID, major, minor, power, address, "true" if random else "false", rssi,
               ("%.6f" % time).rstrip("0").rstrip("."), '"clock":"%s",' % clock if clock else "", receiver))


def write(name, rows):
    rows.sort(key=lambda row: row[0])
    with open(name, "w") as out:
        for _, text in rows:
            out.write(text + "\n")


def cupertino():
    rows = []
    for tick in range(400):  # 10 Hz for 40 s
        t = tick / 10
        wobble = (tick * 7) % 5 - 2
        rssi = (-65 if t < 20 else -52) + wobble
        rows.append((t, line(1, 1, -59, "C0:00:00:01:00:01", rssi, t, "hci0", True)))
        if tick % 2 == 0:
            rows.append((t + 0.013, line(1, 2, -50, "C0:00:00:01:00:02", -70 + wobble, t + 0.013, "hci0", True)))
        if t < 12:
            rows.append((t + 0.027, line(1, 3, -59, "C0:00:00:01:00:03", -74 + wobble, t + 0.027, "hci0", True)))
        if tick % 3 == 0:
            rows.append((t + 0.041, line(1, 10, -59, "C0:00:00:01:00:0A", -68 + wobble, t + 0.041, "hci0", True)))
            rows.append((t + 0.052, line(1, 10, -59, "C0:00:00:01:00:AA", -80 + wobble, t + 0.052, "hci0", True)))
        if tick % 10 == 0 and t < 15:
            rows.append((t + 0.066, line(1, 9, -59, "D0:00:00:00:01:09", -85, t + 0.066, "hci0", True)))
    write("cupertino.jsonl", rows)


def two_stores():
    rows = []
    start = 1790000000.0
    for tick in range(200):
        t = start + tick / 10
        wobble = (tick * 3) % 5 - 2
        for minor, offset in ((1, 0.0), (2, 0.011), (3, 0.022), (6, 0.033), (10, 0.044)):
            rows.append((t + offset, line(1, minor, -61 if minor == 2 else -59, "C0:00:00:01:00:%02X" % minor,
                                          -60 - 3 * minor // 2 + wobble, t + offset, "cupertino-pi:hci0", True, "unix")))
        for minor, offset in ((1, 0.005), (2, 0.016), (5, 0.027)):
            rows.append((t + offset, line(2, minor, -59, "C0:00:00:02:00:%02X" % minor,
                                          -66 - minor + wobble, t + offset, "sunnyvale-pi:hci0", True, "unix")))
    write("two-stores.jsonl", rows)


def walk():
    for distance in (0.5, 1, 2, 3, 5):
        level = -64 - 10 * 2.5 * math.log10(distance)
        rows = []
        for tick in range(200):
            rssi = round(level - (15 if tick % 5 == 4 else 0))
            rows.append((tick / 10, line(1, 2, -61, "C0:00:00:01:00:02", rssi, tick / 10, "hci0", True)))
        write("walk-%gm.jsonl" % distance, rows)


cupertino()
two_stores()
walk()
