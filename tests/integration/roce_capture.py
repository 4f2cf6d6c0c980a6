#!/usr/bin/env python3
"""Summarise the RoCE v2 packets of a pcap file (tcpdump -w), independently of rdmabench.

Usage: roce_capture.py FILE.pcap
Prints one JSON object: for each (source address, opcode name) the packet count, and the sets of
IPv4 TOS bytes, IPv6 traffic classes and IPv6 flow labels seen, over data packets only (the
CM's MADs, to destination QP 1, are counted apart); and for each source address the capture
times (Unix seconds) of its first and last data packet ("times"). Written by hand: a pcap's
layout is a 24-byte file header and a 16-byte header per packet (seconds, micro- or nanoseconds,
lengths); no pcap library is in Debian's python3 base."""
import ipaddress
import json
import struct
import sys

# Base Transport Header opcodes (InfiniBand Architecture, table 38) that rdmabench's runs send.
OPCODES = {
    0x00: "RC_SEND_FIRST", 0x01: "RC_SEND_MIDDLE", 0x02: "RC_SEND_LAST", 0x04: "RC_SEND_ONLY",
    0x06: "RC_WRITE_FIRST", 0x07: "RC_WRITE_MIDDLE", 0x08: "RC_WRITE_LAST",
    0x0A: "RC_WRITE_ONLY", 0x0C: "RC_READ_REQUEST", 0x10: "RC_READ_RESPONSE_ONLY",
    0x11: "RC_ACK", 0x64: "UD_SEND_ONLY",
}
ROCE_PORT = 4791


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        off += 16
        # (The nanosecond format's magic is 0xA1B23C4D; the other counts microseconds.)
        ts = sec + frac / (1e9 if magic in (0xA1B23C4D, 0x4D3CB2A1) else 1e6)
        yield linktype, data[off:off + incl], ts
        off += incl


def ip_layer(linktype, frame):
    """(version, header bytes, payload) of an Ethernet (1) or Linux cooked (113) frame."""
    if linktype == 1:
        ethertype, rest = struct.unpack(">H", frame[12:14])[0], frame[14:]
    elif linktype == 113:
        ethertype, rest = struct.unpack(">H", frame[14:16])[0], frame[16:]
    else:
        raise SystemExit(f"roce_capture.py: link type {linktype} not handled")
    if ethertype == 0x0800:
        ihl = (rest[0] & 0x0F) * 4
        return 4, rest[:ihl], rest[ihl:]
    if ethertype == 0x86DD:
        return 6, rest[:40], rest[40:]
    return None, None, None


def summarise(path):
    out = {"packets": 0, "cm_mads": 0, "counts": {}, "ipv4_tos": set(), "ipv6_tclass": set(),
           "ipv6_flow_label": set(), "times": {}}
    for linktype, frame, ts in packets(path):
        version, hdr, payload = ip_layer(linktype, frame)
        if version is None:
            continue
        proto = hdr[9] if version == 4 else hdr[6]
        if proto != 17 or len(payload) < 8 + 12:
            continue
        if struct.unpack(">H", payload[2:4])[0] != ROCE_PORT:
            continue
        bth = payload[8:20]
        dest_qp = int.from_bytes(bth[5:8], "big")
        if dest_qp == 1:
            out["cm_mads"] += 1
            continue
        if version == 4:
            src = str(ipaddress.IPv4Address(hdr[12:16]))
            out["ipv4_tos"].add(hdr[1])
        else:
            src = str(ipaddress.IPv6Address(hdr[8:24]))
            word = struct.unpack(">I", hdr[:4])[0]
            out["ipv6_tclass"].add((word >> 20) & 0xFF)
            out["ipv6_flow_label"].add(word & 0xFFFFF)
        name = OPCODES.get(bth[0], f"0x{bth[0]:02x}")
        key = f"{src} {name}"
        out["counts"][key] = out["counts"].get(key, 0) + 1
        first, last = out["times"].get(src, (ts, ts))
        out["times"][src] = (min(first, ts), max(last, ts))
        out["packets"] += 1
    for k in ("ipv4_tos", "ipv6_tclass", "ipv6_flow_label"):
        out[k] = sorted(out[k])
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: roce_capture.py FILE.pcap")
    json.dump(summarise(sys.argv[1]), sys.stdout, sort_keys=True)
    print()
