//! Ethernet II / IPv4 / TCP headers of a traced packet (smoltcp `wire` style: a
//! `field` table of byte offsets per header and a `Repr` with `parse` / `emit` /
//! `buffer_len`).
//!
//! Sources: IEEE 802.3 Ethernet II framing; RFC 791 section 3.1 (IPv4 header, header
//! checksum, options and padding); RFC 793 section 3.1 (TCP header, checksum over the
//! pseudo-header); RFC 1071 (the Internet checksum); RFC 3168 section 5 (ECN field:
//! ECT(0) = 10, CE = 11) and section 6.1 (ECE, CWR); RFC 2474 (DSCP); RFC 2597 (AF11).
//!
//! The TCP payload is never materialised: it is all zeros, and zero words add nothing
//! to a one's-complement sum, so the TCP checksum over the pseudo-header, the header
//! and `payload_len` zero bytes is the checksum over the pseudo-header and header with
//! the TCP length counting the payload.

use admission::SpHeaderRepr;

/// Why a header did not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireError {
    Truncated,
    /// Version not 4, IHL below 5, or an unknown option.
    Malformed,
    /// The header checksum does not verify.
    Checksum,
}

/// RFC 1071: the 16-bit one's-complement sum of `data` (odd length: zero-padded) added
/// to `acc`, not yet folded.
pub fn sum16(data: &[u8], mut acc: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [b] = chunks.remainder() {
        acc += (*b as u32) << 8;
    }
    acc
}

/// Folds the carries of a 32-bit sum and complements it (RFC 1071 section 4.1).
pub fn fold(mut acc: u32) -> u16 {
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

/// The Internet checksum of `data`.
pub fn checksum(data: &[u8]) -> u16 {
    fold(sum16(data, 0))
}

// ---------------------------------------------------------------- Ethernet II

pub mod eth_field {
    use core::ops::Range;
    pub const DST: Range<usize> = 0..6;
    pub const SRC: Range<usize> = 6..12;
    pub const ETHERTYPE: Range<usize> = 12..14;
    pub const HEADER_LEN: usize = 14;
}

pub const ETHERTYPE_IPV4: u16 = 0x0800;

/// A locally administered unicast MAC (02:..) carrying a node id in its last 4 bytes.
pub fn mac_of(node: u32) -> [u8; 6] {
    let n = node.to_be_bytes();
    [0x02, 0x00, n[0], n[1], n[2], n[3]]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EthernetRepr {
    pub src: [u8; 6],
    pub dst: [u8; 6],
    pub ethertype: u16,
}

impl EthernetRepr {
    pub const fn buffer_len(&self) -> usize {
        eth_field::HEADER_LEN
    }

    pub fn emit(&self, buf: &mut [u8]) {
        buf[eth_field::DST].copy_from_slice(&self.dst);
        buf[eth_field::SRC].copy_from_slice(&self.src);
        buf[eth_field::ETHERTYPE].copy_from_slice(&self.ethertype.to_be_bytes());
    }

    pub fn parse(buf: &[u8]) -> Result<EthernetRepr, WireError> {
        let b = buf.get(..eth_field::HEADER_LEN).ok_or(WireError::Truncated)?;
        let mut r = EthernetRepr { src: [0; 6], dst: [0; 6], ethertype: 0 };
        r.dst.copy_from_slice(&b[eth_field::DST]);
        r.src.copy_from_slice(&b[eth_field::SRC]);
        r.ethertype = u16::from_be_bytes([b[12], b[13]]);
        Ok(r)
    }
}

// ---------------------------------------------------------------- IPv4

pub mod ip_field {
    use core::ops::Range;
    pub const VER_IHL: usize = 0;
    pub const TOS: usize = 1;
    pub const LENGTH: Range<usize> = 2..4;
    pub const IDENT: Range<usize> = 4..6;
    pub const FLG_OFF: Range<usize> = 6..8;
    pub const TTL: usize = 8;
    pub const PROTOCOL: usize = 9;
    pub const CHECKSUM: Range<usize> = 10..12;
    pub const SRC: Range<usize> = 12..16;
    pub const DST: Range<usize> = 16..20;
    pub const OPTIONS: usize = 20;
    pub const FIXED_LEN: usize = 20;
}

pub const IPPROTO_TCP: u8 = 6;
pub const IPPROTO_UDP: u8 = 17;
/// "Don't fragment" (RFC 791 section 3.1); super-packet senders set it (header.rs).
pub const IP_DF: u16 = 0x4000;
/// ECN field codepoints (RFC 3168 section 5).
pub const ECN_ECT0: u8 = 0b10;
pub const ECN_CE: u8 = 0b11;
/// DSCP of RIO's "In" tag: AF11 (RFC 2597), the lowest drop precedence.
pub const DSCP_IN: u8 = 10;

/// An IPv4 header carrying TCP; `sp` adds the super-packet option (12 bytes, IHL 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4Repr {
    pub src: u32,
    pub dst: u32,
    /// DSCP << 2 | ECN.
    pub tos: u8,
    pub ident: u16,
    pub ttl: u8,
    /// Bytes after the IPv4 header (TCP or UDP header + payload).
    pub payload_len: u32,
    pub sp: Option<SpHeaderRepr>,
    /// IPPROTO_TCP or IPPROTO_UDP.
    pub protocol: u8,
}

impl Ipv4Repr {
    pub const fn buffer_len(&self) -> usize {
        ip_field::FIXED_LEN + if self.sp.is_some() { admission::header::PADDED_LEN } else { 0 }
    }

    /// Total length field (saturates at 65535: an oversized packet cannot be IPv4).
    pub fn total_len(&self) -> u16 {
        u16::try_from(self.buffer_len() as u32 + self.payload_len).unwrap_or(u16::MAX)
    }

    /// Writes the header, options and checksum into `buf[..buffer_len()]`.
    pub fn emit(&self, buf: &mut [u8]) {
        let hl = self.buffer_len();
        let b = &mut buf[..hl];
        b[ip_field::VER_IHL] = 0x40 | (hl / 4) as u8;
        b[ip_field::TOS] = self.tos;
        b[ip_field::LENGTH].copy_from_slice(&self.total_len().to_be_bytes());
        b[ip_field::IDENT].copy_from_slice(&self.ident.to_be_bytes());
        b[ip_field::FLG_OFF].copy_from_slice(&IP_DF.to_be_bytes());
        b[ip_field::TTL] = self.ttl;
        b[ip_field::PROTOCOL] = self.protocol;
        b[ip_field::CHECKSUM].copy_from_slice(&[0, 0]);
        b[ip_field::SRC].copy_from_slice(&self.src.to_be_bytes());
        b[ip_field::DST].copy_from_slice(&self.dst.to_be_bytes());
        if let Some(sp) = self.sp {
            sp.emit_padded(&mut b[ip_field::OPTIONS..]);
        }
        let c = checksum(b);
        b[ip_field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
    }

    /// Parses and verifies a header (version, IHL, checksum, the option list).
    pub fn parse(buf: &[u8]) -> Result<Ipv4Repr, WireError> {
        let v = *buf.first().ok_or(WireError::Truncated)?;
        let hl = (v & 0x0F) as usize * 4;
        if v >> 4 != 4 || hl < ip_field::FIXED_LEN {
            return Err(WireError::Malformed);
        }
        let b = buf.get(..hl).ok_or(WireError::Truncated)?;
        if checksum(b) != 0 {
            return Err(WireError::Checksum);
        }
        let be16 = |r: core::ops::Range<usize>| u16::from_be_bytes([b[r.start], b[r.start + 1]]);
        let be32 = |r: core::ops::Range<usize>| {
            u32::from_be_bytes([b[r.start], b[r.start + 1], b[r.start + 2], b[r.start + 3]])
        };
        let protocol = b[ip_field::PROTOCOL];
        if protocol != IPPROTO_TCP && protocol != IPPROTO_UDP {
            return Err(WireError::Malformed);
        }
        let sp = admission::find_in_options(&b[ip_field::OPTIONS..], u16::MAX).map_err(|_| WireError::Malformed)?;
        let total = be16(ip_field::LENGTH) as usize;
        Ok(Ipv4Repr {
            src: be32(ip_field::SRC),
            dst: be32(ip_field::DST),
            tos: b[ip_field::TOS],
            ident: be16(ip_field::IDENT),
            ttl: b[ip_field::TTL],
            payload_len: total.checked_sub(hl).ok_or(WireError::Malformed)? as u32,
            sp,
            protocol,
        })
    }
}

// ---------------------------------------------------------------- TCP

pub mod tcp_field {
    use core::ops::Range;
    pub const SRC_PORT: Range<usize> = 0..2;
    pub const DST_PORT: Range<usize> = 2..4;
    pub const SEQ_NUM: Range<usize> = 4..8;
    pub const ACK_NUM: Range<usize> = 8..12;
    pub const DATA_OFF: usize = 12;
    pub const FLAGS: usize = 13;
    pub const WIN_SIZE: Range<usize> = 14..16;
    pub const CHECKSUM: Range<usize> = 16..18;
    pub const URGENT: Range<usize> = 18..20;
    pub const HEADER_LEN: usize = 20;
}

/// TCP flag bits of header byte 13 (RFC 793 section 3.1, RFC 3168 section 6.1).
pub mod tcp_flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const ACK: u8 = 0x10;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;
}

/// A TCP header without options, followed by `payload_len` zero bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    pub payload_len: u32,
}

/// The pseudo-header's sum (RFC 793 section 3.1): source, destination, zero, protocol,
/// TCP length.
fn pseudo_sum(src: u32, dst: u32, tcp_len: u32) -> u32 {
    pseudo_sum_of(IPPROTO_TCP, src, dst, tcp_len)
}

/// The pseudo-header's sum for `protocol` (TCP: RFC 793 3.1; UDP: RFC 768, the same).
fn pseudo_sum_of(protocol: u8, src: u32, dst: u32, len: u32) -> u32 {
    let mut acc = sum16(&src.to_be_bytes(), 0);
    acc = sum16(&dst.to_be_bytes(), acc);
    acc += protocol as u32;
    // the length is a 16-bit field of the pseudo-header
    acc + (len & 0xFFFF)
}

/// A UDP header (RFC 768) over a zero payload: the simulator's non-TCP packets (cross
/// traffic, MBS probe trains and reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload_len: u32,
}

impl UdpRepr {
    pub const HEADER_LEN: usize = 8;

    /// Writes the header with its checksum (pseudo-header, header, zero payload; 0
    /// computed is sent as 0xFFFF, RFC 768) into `buf[..8]`.
    pub fn emit(&self, buf: &mut [u8], src: u32, dst: u32) {
        let len = (Self::HEADER_LEN as u32 + self.payload_len).min(0xFFFF);
        let b = &mut buf[..Self::HEADER_LEN];
        b[0..2].copy_from_slice(&self.src_port.to_be_bytes());
        b[2..4].copy_from_slice(&self.dst_port.to_be_bytes());
        b[4..6].copy_from_slice(&(len as u16).to_be_bytes());
        b[6..8].copy_from_slice(&[0, 0]);
        let c = match fold(sum16(b, pseudo_sum_of(IPPROTO_UDP, src, dst, len))) {
            0 => 0xFFFF,
            c => c,
        };
        b[6..8].copy_from_slice(&c.to_be_bytes());
    }

    /// Parses a header, verifying the checksum over the zero payload.
    pub fn parse(buf: &[u8], src: u32, dst: u32) -> Result<UdpRepr, WireError> {
        let b = buf.get(..Self::HEADER_LEN).ok_or(WireError::Truncated)?;
        let len = u16::from_be_bytes([b[4], b[5]]) as u32;
        if (len as usize) < Self::HEADER_LEN {
            return Err(WireError::Malformed);
        }
        if fold(sum16(b, pseudo_sum_of(IPPROTO_UDP, src, dst, len))) != 0 {
            return Err(WireError::Checksum);
        }
        Ok(UdpRepr {
            src_port: u16::from_be_bytes([b[0], b[1]]),
            dst_port: u16::from_be_bytes([b[2], b[3]]),
            payload_len: len - Self::HEADER_LEN as u32,
        })
    }
}

impl TcpRepr {
    pub const fn buffer_len(&self) -> usize {
        tcp_field::HEADER_LEN
    }

    /// Writes the header with its checksum (over the pseudo-header of `src`/`dst`, the
    /// header and the zero payload) into `buf[..20]`.
    pub fn emit(&self, buf: &mut [u8], src: u32, dst: u32) {
        let b = &mut buf[..tcp_field::HEADER_LEN];
        b[tcp_field::SRC_PORT].copy_from_slice(&self.src_port.to_be_bytes());
        b[tcp_field::DST_PORT].copy_from_slice(&self.dst_port.to_be_bytes());
        b[tcp_field::SEQ_NUM].copy_from_slice(&self.seq.to_be_bytes());
        b[tcp_field::ACK_NUM].copy_from_slice(&self.ack.to_be_bytes());
        b[tcp_field::DATA_OFF] = ((tcp_field::HEADER_LEN / 4) as u8) << 4;
        b[tcp_field::FLAGS] = self.flags;
        b[tcp_field::WIN_SIZE].copy_from_slice(&self.window.to_be_bytes());
        b[tcp_field::CHECKSUM].copy_from_slice(&[0, 0]);
        b[tcp_field::URGENT].copy_from_slice(&[0, 0]);
        let tcp_len = tcp_field::HEADER_LEN as u32 + self.payload_len;
        let c = fold(sum16(b, pseudo_sum(src, dst, tcp_len)));
        b[tcp_field::CHECKSUM].copy_from_slice(&c.to_be_bytes());
    }

    /// Parses a header followed by `tcp_len - header` payload bytes taken as zero,
    /// verifying the checksum.
    pub fn parse(buf: &[u8], src: u32, dst: u32, tcp_len: u32) -> Result<TcpRepr, WireError> {
        let b = buf.get(..tcp_field::HEADER_LEN).ok_or(WireError::Truncated)?;
        let hl = (b[tcp_field::DATA_OFF] >> 4) as usize * 4;
        if hl != tcp_field::HEADER_LEN || (tcp_len as usize) < hl {
            return Err(WireError::Malformed);
        }
        if fold(sum16(b, pseudo_sum(src, dst, tcp_len))) != 0 {
            return Err(WireError::Checksum);
        }
        let be16 = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
        let be32 = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Ok(TcpRepr {
            src_port: be16(0),
            dst_port: be16(2),
            seq: be32(4),
            ack: be32(8),
            flags: b[tcp_field::FLAGS],
            window: be16(14),
            payload_len: tcp_len - hl as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_of_textbook_ipv4_header() {
        // RFC 1071-style worked example (the widely used 192.168.0.1 -> .199 UDP header):
        // 4500 0073 0000 4000 4011 [0000] c0a8 0001 c0a8 00c7 -> checksum 0xb861
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8,
            0x00, 0xc7,
        ];
        assert_eq!(checksum(&h), 0xb861);
    }

    #[test]
    fn ipv4_and_tcp_checksums_match_hand_computation() {
        // A SYN from 10.0.0.2:10000 to 10.0.0.1:80, seq 0, window 65535, no payload.
        let ip = Ipv4Repr {
            src: 0x0A00_0002,
            dst: 0x0A00_0001,
            tos: 0,
            ident: 1,
            ttl: 64,
            payload_len: 20,
            sp: None,
            protocol: IPPROTO_TCP,
        };
        let mut b = [0u8; 40];
        ip.emit(&mut b);
        // 4500 + 0028 + 0001 + 4000 + 4006 + 0a00 + 0002 + 0a00 + 0001 = 0xd932; !0xd932 = 0x26cd
        assert_eq!(&b[10..12], &[0x26, 0xcd]);
        let tcp = TcpRepr {
            src_port: 10_000,
            dst_port: 80,
            seq: 0,
            ack: 0,
            flags: tcp_flags::SYN,
            window: 0xFFFF,
            payload_len: 0,
        };
        tcp.emit(&mut b[20..], ip.src, ip.dst);
        // pseudo: 0a00 + 0002 + 0a00 + 0001 + 0006 + 0014 = 0x141d
        // header: 2710 + 0050 + 5002 + ffff = 0x17761; 0x141d + 0x17761 = 0x18b7e
        // fold: 0x8b7e + 1 = 0x8b7f; !0x8b7f = 0x7480
        assert_eq!(&b[36..38], &[0x74, 0x80]);
        assert_eq!(Ipv4Repr::parse(&b), Ok(ip));
        assert_eq!(TcpRepr::parse(&b[20..], ip.src, ip.dst, 20), Ok(tcp));
    }

    #[test]
    fn zero_payload_counts_only_in_the_length() {
        // a 1460-byte zero payload: the checksum equals one over header + zeros spelled out
        let tcp = TcpRepr {
            src_port: 10_007,
            dst_port: 80,
            seq: 1461,
            ack: 1,
            flags: tcp_flags::ACK | tcp_flags::CWR,
            window: 0xFFFF,
            payload_len: 1460,
        };
        let mut seg = vec![0u8; 20 + 1460];
        tcp.emit(&mut seg, 0x0A00_0003, 0x0A00_0001);
        let mut explicit = pseudo_sum(0x0A00_0003, 0x0A00_0001, 1480);
        explicit = sum16(&seg, explicit);
        assert_eq!(fold(explicit), 0);
        assert_eq!(TcpRepr::parse(&seg, 0x0A00_0003, 0x0A00_0001, 1480), Ok(tcp));
        seg[5] ^= 1;
        assert_eq!(TcpRepr::parse(&seg, 0x0A00_0003, 0x0A00_0001, 1480), Err(WireError::Checksum));
    }

    /// A 1500 B UDP packet from 10.0.0.3:20000 to 10.0.0.1:9 (1472 zero bytes):
    /// UDP length 8 + 1472 = 1480 = 0x05c8; pseudo 0a00 + 0003 + 0a00 + 0001 + 0011 +
    /// 05c8 = 0x19dd; header 4e20 + 0009 + 05c8 = 0x53f1; sum 0x6dce, checksum !0x6dce =
    /// 0x9231.
    #[test]
    fn udp_checksum_by_hand() {
        let u = UdpRepr { src_port: 20_000, dst_port: 9, payload_len: 1472 };
        let mut b = [0u8; 8];
        u.emit(&mut b, 0x0A00_0003, 0x0A00_0001);
        assert_eq!(&b[6..8], &[0x92, 0x31]);
        assert_eq!(UdpRepr::parse(&b, 0x0A00_0003, 0x0A00_0001), Ok(u));
        b[0] ^= 1;
        assert_eq!(UdpRepr::parse(&b, 0x0A00_0003, 0x0A00_0001), Err(WireError::Checksum));
    }

    #[test]
    fn superpacket_option_grows_ihl_by_three_words() {
        let sp = SpHeaderRepr { sid: 0x0001_0000, len: 10, first: true };
        let ip = Ipv4Repr {
            src: 0x0A00_0002,
            dst: 0x0A00_0001,
            tos: ECN_ECT0,
            ident: 7,
            ttl: 63,
            payload_len: 1480,
            sp: Some(sp),
            protocol: IPPROTO_TCP,
        };
        let mut b = [0u8; 32];
        ip.emit(&mut b);
        assert_eq!(b[0], 0x48);
        assert_eq!(u16::from_be_bytes([b[2], b[3]]), 32 + 1480);
        assert_eq!(&b[20..32], &[30, 9, 0, 1, 0, 0, 0, 10, 0x80, 0, 0, 0]);
        assert_eq!(checksum(&b), 0);
        assert_eq!(Ipv4Repr::parse(&b), Ok(ip));
    }
}
