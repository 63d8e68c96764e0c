//! A pcap file writer (smoltcp's phy/pcap_writer.rs, for files): the classic libpcap
//! format with nanosecond timestamps (magic 0xa1b23c4d) and link type Ethernet (1).
//!
//! Source: draft-ietf-opsawg-pcap (the "PCAP Capture File Format"), sections 4 (file
//! header) and 5 (packet record). Integers are written little-endian; readers detect the
//! byte order from the magic number.

use std::io::{self, Write};

use crate::core::time::SimTime;

/// Nanosecond-resolution pcap magic (draft-ietf-opsawg-pcap section 4).
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u32 = 1;
/// The file header's SnapLen when whole frames are kept (Wireshark's maximum).
pub const MAX_SNAPLEN: u32 = 262_144;
/// File header bytes.
pub const FILE_HEADER_LEN: usize = 24;
/// Packet record header bytes.
pub const RECORD_HEADER_LEN: usize = 16;

const ZEROS: [u8; 4096] = [0; 4096];

pub struct PcapWriter<W: Write> {
    w: W,
    snaplen: u32,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header. `snaplen`: bytes kept of each frame (0 = whole frames).
    pub fn new(mut w: W, snaplen: u32) -> io::Result<Self> {
        let snaplen = if snaplen == 0 { MAX_SNAPLEN } else { snaplen.min(MAX_SNAPLEN) };
        let mut h = [0u8; FILE_HEADER_LEN];
        h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes()); // major version
        h[6..8].copy_from_slice(&4u16.to_le_bytes()); // minor version
        h[8..16].fill(0); // two reserved fields (formerly thiszone, sigfigs)
        h[16..20].copy_from_slice(&snaplen.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        w.write_all(&h)?;
        Ok(PcapWriter { w, snaplen })
    }

    /// Writes one frame of `orig_len` bytes at time `t`: `headers`, then zero bytes up
    /// to the captured length min(orig_len, snaplen).
    pub fn frame(&mut self, t: SimTime, headers: &[u8], orig_len: u32) -> io::Result<()> {
        let caplen = orig_len.min(self.snaplen);
        let mut r = [0u8; RECORD_HEADER_LEN];
        r[0..4].copy_from_slice(&((t.ns() / 1_000_000_000) as u32).to_le_bytes());
        r[4..8].copy_from_slice(&((t.ns() % 1_000_000_000) as u32).to_le_bytes());
        r[8..12].copy_from_slice(&caplen.to_le_bytes());
        r[12..16].copy_from_slice(&orig_len.to_le_bytes());
        self.w.write_all(&r)?;
        let h = headers.len().min(caplen as usize);
        self.w.write_all(&headers[..h])?;
        let mut zeros = caplen as usize - h;
        while zeros > 0 {
            let n = zeros.min(ZEROS.len());
            self.w.write_all(&ZEROS[..n])?;
            zeros -= n;
        }
        Ok(())
    }

    pub fn into_inner(self) -> W {
        self.w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_and_record_headers() {
        let mut p = PcapWriter::new(Vec::new(), 0).unwrap();
        p.frame(SimTime(2_000_000_123), &[0xAA, 0xBB], 5).unwrap();
        let b = p.into_inner();
        assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes(b[16..20].try_into().unwrap()), MAX_SNAPLEN);
        assert_eq!(u32::from_le_bytes(b[20..24].try_into().unwrap()), 1);
        let r = &b[24..];
        assert_eq!(u32::from_le_bytes(r[0..4].try_into().unwrap()), 2);
        assert_eq!(u32::from_le_bytes(r[4..8].try_into().unwrap()), 123);
        assert_eq!(u32::from_le_bytes(r[8..12].try_into().unwrap()), 5);
        assert_eq!(u32::from_le_bytes(r[12..16].try_into().unwrap()), 5);
        assert_eq!(&r[16..], &[0xAA, 0xBB, 0, 0, 0]);
    }

    #[test]
    fn snaplen_truncates_the_capture_not_the_length() {
        let mut p = PcapWriter::new(Vec::new(), 3).unwrap();
        p.frame(SimTime(1), &[1, 2, 3, 4], 1514).unwrap();
        let b = p.into_inner();
        let r = &b[24..];
        assert_eq!(u32::from_le_bytes(r[8..12].try_into().unwrap()), 3);
        assert_eq!(u32::from_le_bytes(r[12..16].try_into().unwrap()), 1514);
        assert_eq!(&r[16..], &[1, 2, 3]);
    }
}
