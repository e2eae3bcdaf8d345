#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""afpacket_frags.py - selftest helper: send RoCEv2 packets over IPv4 or
IPv6 whose IP header is NOT in the skb's linear head.

An AF_PACKET SOCK_RAW socket with PACKET_VNET_HDR and a virtio-net header
whose hdr_len is 0 makes packet_snd() put only the device's hard header
length (the 14-byte Ethernet header) of the frame in the linear part and
the rest in page fragments, for frames of a page or more.  The qdisc then sees an IP
header it cannot rewrite in place: it cannot set CE on such a packet.

Usage: afpacket_frags.py DEV DST_MAC SRC_IP DST_IP --job J --step S
                         [--psn P] [--count N] [--ecn E] [--size BYTES]
                         [--lead STEP:PSN] [--dest-opts BYTES]
The job goes in the BTH reserved bits, the step in the UDP source port (the
qdisc's defaults).  The device's MTU must hold --size (default 4200) bytes.
--lead sends, before each of those packets, a small (linear) packet of the
same job's STEP at PSN, so that the lowest step's progress is fresh.
IPv6 addresses send IPv6; --dest-opts puts a Destination Options extension
header of BYTES (a multiple of 8) before UDP, so that the parser must follow
the extension header across the fragments.
"""
import argparse
import errno
import socket
import struct
import sys

ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86DD
IPPROTO_DSTOPTS = 60
SOL_PACKET = 263
PACKET_VNET_HDR = 15
ROCEV2_PORT = 4791
OP_RC_WRITE_MIDDLE = 0x07


def checksum(data):
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def packet(args, step, psn, size):
    bth = struct.pack("!BBHII", OP_RC_WRITE_MIDDLE, 0, 0xffff,
                      ((args.job >> 7) & 0x3f) << 24 | 1,
                      (args.job & 0x7f) << 24 | (psn & 0xffffff))
    if args.ipv6:
        ext = b""
        if args.dest_opts:
            # next header UDP, length in 8-byte units beyond the first,
            # then one PadN option filling the rest
            ext = struct.pack("!BBBB", socket.IPPROTO_UDP, args.dest_opts // 8 - 1,
                              1, args.dest_opts - 4) + bytes(args.dest_opts - 4)
        payload = bth + bytes(size - 40 - len(ext) - 8 - len(bth))
        udp = struct.pack("!HHHH", step, ROCEV2_PORT, 8 + len(payload), 0)
        nxt = IPPROTO_DSTOPTS if ext else socket.IPPROTO_UDP
        ip6 = struct.pack("!IHBB16s16s", 6 << 28 | args.ecn << 20,
                          len(ext) + len(udp) + len(payload), nxt, 64,
                          socket.inet_pton(socket.AF_INET6, args.src),
                          socket.inet_pton(socket.AF_INET6, args.dst))
        return ip6 + ext + udp + payload
    payload = bth + bytes(size - 20 - 8 - len(bth))
    udp = struct.pack("!HHHH", step, ROCEV2_PORT, 8 + len(payload), 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, args.ecn, 20 + len(udp) + len(payload),
                     psn & 0xffff, 0, 64, socket.IPPROTO_UDP, 0,
                     socket.inet_aton(args.src), socket.inet_aton(args.dst))
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return ip + udp + payload


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dev")
    p.add_argument("dst_mac")
    p.add_argument("src")
    p.add_argument("dst")
    p.add_argument("--job", type=int, required=True)
    p.add_argument("--step", type=int, required=True)
    p.add_argument("--psn", type=int, default=0)
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--ecn", type=int, default=2, choices=range(4))
    p.add_argument("--size", type=int, default=4200,
                   help="IP packet size, bytes (a page or more)")
    p.add_argument("--lead", metavar="STEP:PSN",
                   help="a linear packet of STEP at PSN before each one")
    p.add_argument("--dest-opts", type=int, default=0, metavar="BYTES",
                   help="IPv6 Destination Options header of BYTES")
    args = p.parse_args()
    args.ipv6 = ":" in args.dst
    if args.dest_opts and (not args.ipv6 or args.dest_opts % 8 or
                           not 8 <= args.dest_opts <= 2048):
        p.error("--dest-opts wants IPv6 and a multiple of 8 from 8 to 2048")
    lead = None
    if args.lead:
        try:
            lead = tuple(int(v) for v in args.lead.split(":"))
        except ValueError:
            lead = ()
        if len(lead) != 2:
            p.error("--lead wants STEP:PSN")
    if args.size < 4096:
        p.error("--size must be at least 4096 bytes for a paged skb")
    if not 0 <= args.job < 1 << 13 or not 0 <= args.step < 1 << 16:
        p.error("--job must fit 13 bits and --step 16 bits")

    proto = ETH_P_IPV6 if args.ipv6 else ETH_P_IP
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(proto))
    sock.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    mac = bytes.fromhex(args.dst_mac.replace(":", ""))
    with open("/sys/class/net/%s/address" % args.dev) as f:
        src_mac = bytes.fromhex(f.read().strip().replace(":", ""))
    # the virtio-net header: no checksum offload, no GSO, hdr_len 0
    vnet_hdr = bytes(10) + mac + src_mac + struct.pack("!H", proto)
    dropped = 0

    def send(frame):
        # A frame the qdisc drops at enqueue comes back as ENOBUFS
        # (NET_XMIT_DROP): expected when RED drops, so count it.
        nonlocal dropped
        try:
            sock.sendto(vnet_hdr + frame, (args.dev, proto, 0, 0, mac))
        except OSError as err:
            if err.errno != errno.ENOBUFS:
                raise
            dropped += 1

    for i in range(args.count):
        if lead:
            send(packet(args, lead[0], lead[1], 200))
        send(packet(args, args.step, args.psn + i, args.size))
    if dropped:
        print("afpacket_frags: %d frames dropped at enqueue (ENOBUFS)" % dropped,
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
