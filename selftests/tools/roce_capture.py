#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""roce_capture.py - selftest helper: the BTH of the RoCEv2 data packets
(RDMA WRITE FIRST/MIDDLE/LAST/ONLY) a device receives, one JSON object a
line: {"src": ADDR, "sport": PORT, "op": OPCODE, "qp": DESTQP, "psn": PSN}.

Usage: roce_capture.py DEV OUT [--src ADDR] [--ready FILE] [--timeout SEC]
Run it in the namespace of DEV.  It captures from an AF_PACKET socket
until SIGTERM or SIGINT (or --timeout seconds, default 120), then writes
OUT.  --src keeps the packets of one sender only; --ready FILE is created
once the socket listens, so that the caller can start its traffic.
"""
import argparse
import json
import signal
import socket
import struct
import sys

ETH_P_IP = 0x0800
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
ROCEV2_PORT = 4791
DATA_OPS = (0x06, 0x07, 0x08, 0x0a)


class Stop(Exception):
    pass


def on_signal(signum, frame):
    raise Stop()


def parse(pkt):
    """The fields of a RoCEv2 data packet in IPv4, or None."""
    if len(pkt) < 20 or pkt[0] >> 4 != 4 or pkt[9] != socket.IPPROTO_UDP:
        return None
    ihl = (pkt[0] & 15) * 4
    udp = pkt[ihl:]
    if len(udp) < 8 + 12:
        return None
    sport, dport = struct.unpack("!HH", udp[:4])
    bth = udp[8:]
    if dport != ROCEV2_PORT or bth[0] not in DATA_OPS:
        return None
    return {
        "src": socket.inet_ntoa(pkt[12:16]),
        "sport": sport,
        "op": bth[0],
        "qp": int.from_bytes(bth[5:8], "big"),
        "psn": int.from_bytes(bth[9:12], "big"),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dev")
    ap.add_argument("out")
    ap.add_argument("--src")
    ap.add_argument("--ready")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()

    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_IP))
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 << 20)
    s.bind((args.dev, 0))
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGALRM, on_signal)
    signal.setitimer(signal.ITIMER_REAL, args.timeout)
    packets = []
    try:
        if args.ready:
            open(args.ready, "w").close()
        while True:
            pkt, addr = s.recvfrom(65535)
            if addr[2] == PACKET_OUTGOING:
                continue
            p = parse(pkt)
            if p and (not args.src or p["src"] == args.src):
                packets.append(p)
    except Stop:
        pass
    signal.setitimer(signal.ITIMER_REAL, 0)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    with open(args.out, "w") as f:
        for p in packets:
            f.write(json.dumps(p) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
