//! A frame generator for measuring the router's forwarding rate
//! (scripts/emu_accuracy.py pps): one IPv4/UDP frame (RFC 791, RFC 768; UDP checksum 0,
//! "no checksum") written on an AF_PACKET socket as fast as send(2) takes it, from a
//! host's namespace. A Python sender tops out at tens of thousands of datagrams a
//! second here, below what the router forwards.

use crate::sys::{self, PacketSocket};
use std::io;
use std::net::Ipv4Addr;

/// RFC 1071: the ones' complement of the ones' complement sum of the 16-bit words.
pub fn ipv4_checksum(hdr: &[u8]) -> u16 {
    let mut sum: u32 = hdr.chunks(2).map(|w| u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]))).sum();
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// An Ethernet frame carrying an IPv4/UDP datagram of `payload` zero bytes to port 9
/// (discard, RFC 863).
pub fn udp_frame(dst_mac: [u8; 6], src_mac: [u8; 6], src: Ipv4Addr, dst: Ipv4Addr, payload: usize) -> Vec<u8> {
    let total = 20 + 8 + payload;
    let mut f = Vec::with_capacity(14 + total);
    f.extend_from_slice(&dst_mac);
    f.extend_from_slice(&src_mac);
    f.extend_from_slice(&[0x08, 0x00]);
    let mut ip = [0u8; 20];
    ip[0] = 0x45; // version 4, 5 words
    ip[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    ip[6] = 0x40; // don't fragment
    ip[8] = 64; // TTL
    ip[9] = 17; // UDP
    ip[12..16].copy_from_slice(&src.octets());
    ip[16..20].copy_from_slice(&dst.octets());
    let c = ipv4_checksum(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    f.extend_from_slice(&ip);
    f.extend_from_slice(&9u16.to_be_bytes()); // source port
    f.extend_from_slice(&9u16.to_be_bytes()); // destination port
    f.extend_from_slice(&((8 + payload) as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]); // no checksum
    f.resize(14 + total, 0);
    f
}

/// Sends `frame` on `ifname` for `seconds`; (sent, refused by the kernel).
pub fn blast(ifname: &str, frame: &[u8], seconds: f64) -> io::Result<(u64, u64)> {
    let s = PacketSocket::open(ifname)?;
    let end = sys::now_ns() + (seconds * 1e9) as u64;
    let (mut sent, mut refused) = (0u64, 0u64);
    while sys::now_ns() < end {
        for _ in 0..64 {
            if s.send(frame) {
                sent += 1;
            } else {
                refused += 1;
            }
        }
    }
    Ok((sent, refused))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_of_a_known_header() {
        // the worked example of the IPv4 header checksum (192.168.0.1 -> 192.168.0.199,
        // length 0x73, TTL 64, UDP): 0xb861
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8,
            0x00, 0xc7,
        ];
        assert_eq!(ipv4_checksum(&h), 0xb861);
        // a header holding its checksum sums to 0xffff: its checksum is 0
        let mut g = h;
        g[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
        assert_eq!(ipv4_checksum(&g), 0);
    }

    #[test]
    fn frame_layout() {
        let f = udp_frame([2; 6], [3; 6], Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), 18);
        // 14 Ethernet + 20 IPv4 + 8 UDP + 18 = 60 bytes; IPv4 total length 46
        assert_eq!(f.len(), 60);
        assert_eq!(&f[16..18], &46u16.to_be_bytes());
        assert_eq!(ipv4_checksum(&f[14..34]), 0);
        assert_eq!(&f[30..34], &[10, 0, 0, 2]);
    }
}
