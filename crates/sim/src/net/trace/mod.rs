//! Packet traces: every packet a traced link transmits, written as a pcap file with real
//! Ethernet II / IPv4 / TCP headers that Wireshark and tshark read, follow and verify.
//!
//! Where: a link fixes each accepted packet's service start when it is enqueued (link.rs),
//! so `Sim::link_arrive` records (service start, packet copy) there, in FIFO order:
//! timestamps never decrease within a file. Dropped packets are not in the trace (they
//! were never transmitted). Tracing off costs one `Option` test per enqueue.
//! Records stay in memory (80 B per packet) until `Sim::write_pcaps(dir)`, which writes
//! one file per traced link, named after the link (`R->d` -> `R-to-d.pcap`).
//!
//! What the headers say (wire.rs for the formats):
//! - Ethernet: source MAC of the link's `from` node, destination MAC of its `to` node
//!   (`wire::mac_of`: 02:00 + node id).
//! - IPv4: addresses `ipv4_of(node)` (10.x.y.z); DSCP AF11 for RIO's "In" tag; ECN field
//!   ECT(0) with the ECT flag, CE (11) once marked; identification counting per (src, dst)
//!   in each file; DF set; TTL 64 at the sender, one less per router passed (64 - hop);
//!   the super-packet header as IPv4 option 30 (`SpHeaderRepr::emit_padded`, IHL 8).
//! - TCP: ports 10000 + flow % 50000 (sender) and 80 (receiver); both ends use ISN 0,
//!   so the wire sequence number is the simulator's (SYN 0, data from 1) mod 2^32; the
//!   receiver sends no data, so its SYN-ACK has seq 0 and its ACKs seq 1 with the
//!   simulator's ack; the sender's segments after the SYN acknowledge 1. Flags SYN, ACK,
//!   FIN, ECE, CWR as the simulator set them; window 65535 (no options).
//! - Non-TCP packets (cross traffic, MBS probes: traffic/raw.rs): UDP (RFC 768) from
//!   port 20000 + source % 40000 to port 9, a probe's reports the other way; the IPv4
//!   total length is the packet's size; checksums over the zero payload.
//! - Lengths: the TCP payload is the packet's `payload` bytes, all zero, so stream
//!   reassembly lines up with the sequence numbers. The IPv4 total length is then
//!   20 + 20 + payload = `pkt.size` for the default 40-byte `header_bytes`, plus the
//!   option's 12 bytes on super-packet packets (which the simulator does not charge).
//! - Capture length: whole frames by default; `[output] pcap_snaplen = N` keeps N bytes
//!   of each (orig len stays the frame length). Checksums always cover the full zero
//!   payload, so they are right either way (Wireshark verifies the TCP one only on
//!   whole frames).

pub mod pcap_writer;
pub mod wire;

use std::collections::HashMap;
use std::io;

use crate::core::packet::{flags, ipv4_of, FlowId, Packet};
use crate::core::time::SimTime;
use pcap_writer::PcapWriter;

/// Bytes a traced packet holds until the run ends (`LinkTrace::records`).
pub const RECORD_BYTES: usize = std::mem::size_of::<(SimTime, Packet)>();
use wire::{tcp_flags, EthernetRepr, Ipv4Repr, TcpRepr, UdpRepr};

/// The receiver's TCP port.
pub const DST_PORT: u16 = 80;
/// Largest Ethernet + IPv4 (with the option) + TCP header.
pub const MAX_HEADERS: usize = 14 + 32 + 20;
const TTL: u8 = 64;
const WINDOW: u16 = 0xFFFF;

/// The sender's TCP port of flow `f`.
pub fn src_port(f: FlowId) -> u16 {
    10_000 + (f % 50_000) as u16
}

/// The packets one traced link transmitted: (service start, packet as it was enqueued).
#[derive(Default)]
pub struct LinkTrace {
    records: Vec<(SimTime, Packet)>,
    /// Bytes kept of each frame (0 = whole frames).
    snaplen: u32,
}

impl LinkTrace {
    /// An empty trace keeping `snaplen` bytes of each frame (0 = whole frames).
    pub fn new(snaplen: u32) -> LinkTrace {
        LinkTrace { records: Vec::new(), snaplen }
    }

    /// Sets the bytes kept of each frame (0 = whole frames).
    pub fn set_snaplen(&mut self, snaplen: u32) {
        self.snaplen = snaplen;
    }

    /// Out of line and cold, so tracing off leaves the enqueue path as it was.
    #[cold]
    #[inline(never)]
    pub fn record(&mut self, t: SimTime, p: &Packet) {
        self.records.push((t, *p));
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// The file name (without directory) of a link's trace: "R->d" -> "R-to-d.pcap", any
/// byte outside [A-Za-z0-9._-] replaced by '_'.
pub fn file_stem(link_name: &str) -> String {
    link_name
        .replace("->", "-to-")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' })
        .collect()
}

/// Ethernet + IPv4 + TCP headers of `p` on a link from node `from` to node `to`;
/// returns (header bytes, frame length).
pub fn headers(from: u32, to: u32, p: &Packet, ident: u16, buf: &mut [u8; MAX_HEADERS]) -> (usize, u32) {
    if p.has(flags::RAW) {
        return udp_headers(from, to, p, ident, buf);
    }
    // sender -> receiver: the SYN and data; receiver -> sender: SYN-ACK and ACKs
    let forward = p.has(flags::DATA) || (p.has(flags::SYN) && !p.has(flags::ACK));
    let mut f = 0;
    for (sim_flag, bit) in [
        (flags::SYN, tcp_flags::SYN),
        (flags::ACK, tcp_flags::ACK),
        (flags::FIN, tcp_flags::FIN),
        (flags::ECE, tcp_flags::ECE),
        (flags::CWR, tcp_flags::CWR),
    ] {
        if p.has(sim_flag) {
            f |= bit;
        }
    }
    let (sport, dport, seq, ack) = if forward {
        (src_port(p.flow), DST_PORT, p.seq as u32, if p.has(flags::ACK) { 1 } else { 0 })
    } else {
        let seq = if p.has(flags::SYN) { 0 } else { 1 };
        (DST_PORT, src_port(p.flow), seq, p.ack as u32)
    };
    let tcp = TcpRepr { src_port: sport, dst_port: dport, seq, ack, flags: f, window: WINDOW, payload_len: p.payload };
    let ecn = if p.has(flags::CE) {
        wire::ECN_CE
    } else if p.has(flags::ECT) {
        wire::ECN_ECT0
    } else {
        0
    };
    let dscp = if p.has(flags::IN) { wire::DSCP_IN } else { 0 };
    let ip = Ipv4Repr {
        src: ipv4_of(p.src),
        dst: ipv4_of(p.dst),
        tos: dscp << 2 | ecn,
        ident,
        ttl: TTL.saturating_sub(p.hop.min(63) as u8),
        payload_len: tcp.buffer_len() as u32 + p.payload,
        sp: p.sp.map(|h| admission::SpHeaderRepr { sid: h.sid, len: h.len, first: h.first }),
        protocol: wire::IPPROTO_TCP,
    };
    let eth = EthernetRepr { src: wire::mac_of(from), dst: wire::mac_of(to), ethertype: wire::ETHERTYPE_IPV4 };
    let (e, i) = (eth.buffer_len(), ip.buffer_len());
    eth.emit(&mut buf[..]);
    ip.emit(&mut buf[e..]);
    tcp.emit(&mut buf[e + i..], ip.src, ip.dst);
    let hl = e + i + tcp.buffer_len();
    (hl, e as u32 + ip.total_len() as u32)
}

/// The UDP port of non-TCP source `s` (its packets leave from it; a probe's reports
/// come back to it).
pub fn udp_port(s: u32) -> u16 {
    20_000 + (s % 40_000) as u16
}

/// The receiving UDP port of non-TCP packets (discard, RFC 863).
pub const UDP_SINK_PORT: u16 = 9;

/// Ethernet + IPv4 + UDP headers of a non-TCP packet (traffic/raw.rs): the IPv4 total
/// length is its size (20 + 8 + payload); a probe's report runs from port 9 back to the
/// source's port.
fn udp_headers(from: u32, to: u32, p: &Packet, ident: u16, buf: &mut [u8; MAX_HEADERS]) -> (usize, u32) {
    let (sport, dport) =
        if p.has(flags::ACK) { (UDP_SINK_PORT, udp_port(p.flow)) } else { (udp_port(p.flow), UDP_SINK_PORT) };
    let udp = UdpRepr { src_port: sport, dst_port: dport, payload_len: p.size.saturating_sub(28) };
    let ip = Ipv4Repr {
        src: ipv4_of(p.src),
        dst: ipv4_of(p.dst),
        tos: 0,
        ident,
        ttl: TTL.saturating_sub(p.hop.min(63) as u8),
        payload_len: UdpRepr::HEADER_LEN as u32 + udp.payload_len,
        sp: None,
        protocol: wire::IPPROTO_UDP,
    };
    let eth = EthernetRepr { src: wire::mac_of(from), dst: wire::mac_of(to), ethertype: wire::ETHERTYPE_IPV4 };
    let (e, i) = (eth.buffer_len(), ip.buffer_len());
    eth.emit(&mut buf[..]);
    ip.emit(&mut buf[e..]);
    udp.emit(&mut buf[e + i..], ip.src, ip.dst);
    (e + i + UdpRepr::HEADER_LEN, e as u32 + ip.total_len() as u32)
}

/// Writes a link's trace as pcap to `w`; the IPv4 identification counts per (src, dst).
pub fn write_pcap<W: io::Write>(w: W, from: u32, to: u32, tr: &LinkTrace) -> io::Result<W> {
    let mut pw = PcapWriter::new(w, tr.snaplen)?;
    let mut ids: HashMap<(u32, u32), u16> = HashMap::new();
    let mut buf = [0u8; MAX_HEADERS];
    for (t, p) in &tr.records {
        let id = ids.entry((p.src, p.dst)).or_insert(0);
        *id = id.wrapping_add(1);
        let (hl, len) = headers(from, to, p, *id, &mut buf);
        pw.frame(*t, &buf[..hl], len)?;
    }
    Ok(pw.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::packet::SpHdr;

    #[test]
    fn file_stems() {
        assert_eq!(file_stem("R->d"), "R-to-d");
        assert_eq!(file_stem("s 1/x->R1"), "s_1_x-to-R1");
    }

    fn data_pkt() -> Packet {
        Packet {
            seq: (1u64 << 32) + 1461,
            payload: 1460,
            size: 1500,
            flags: flags::DATA | flags::ACK | flags::ECT | flags::CE | flags::FIN,
            flow: 3,
            src: 2,
            dst: 1,
            hop: 1,
            ..Packet::default()
        }
    }

    #[test]
    fn data_packet_headers_parse_back() {
        let mut buf = [0u8; MAX_HEADERS];
        let (hl, len) = headers(0, 1, &data_pkt(), 9, &mut buf);
        assert_eq!((hl, len), (54, 1514));
        let eth = EthernetRepr::parse(&buf).unwrap();
        assert_eq!(eth.src, [2, 0, 0, 0, 0, 0]);
        assert_eq!(eth.dst, [2, 0, 0, 0, 0, 1]);
        let ip = Ipv4Repr::parse(&buf[14..]).unwrap();
        assert_eq!(
            (ip.src, ip.dst, ip.tos, ip.ident, ip.ttl, ip.payload_len),
            (0x0A00_0002, 0x0A00_0001, 0b11, 9, 63, 1480)
        );
        let tcp = TcpRepr::parse(&buf[34..], ip.src, ip.dst, ip.payload_len).unwrap();
        assert_eq!((tcp.src_port, tcp.dst_port, tcp.seq, tcp.ack), (10_003, 80, 1461, 1));
        assert_eq!(tcp.flags, tcp_flags::ACK | tcp_flags::FIN);
        assert_eq!(tcp.payload_len, 1460);
    }

    #[test]
    fn ack_and_superpacket_headers() {
        let mut buf = [0u8; MAX_HEADERS];
        let ack = Packet {
            ack: 2921,
            size: 40,
            flags: flags::ACK | flags::ECE,
            flow: 3,
            src: 1,
            dst: 2,
            ..Packet::default()
        };
        let (hl, len) = headers(1, 0, &ack, 1, &mut buf);
        assert_eq!((hl, len), (54, 54));
        let tcp = TcpRepr::parse(&buf[34..], 0x0A00_0001, 0x0A00_0002, 20).unwrap();
        assert_eq!((tcp.src_port, tcp.dst_port, tcp.seq, tcp.ack), (80, 10_003, 1, 2921));
        assert_eq!(tcp.flags, tcp_flags::ACK | tcp_flags::ECE);

        let mut p = data_pkt();
        p.sp = Some(SpHdr { sid: 5 << 16, len: 10, first: true });
        let (hl, len) = headers(0, 1, &p, 1, &mut buf);
        assert_eq!((hl, len), (66, 1526));
        let ip = Ipv4Repr::parse(&buf[14..]).unwrap();
        assert_eq!(ip.sp, Some(admission::SpHeaderRepr { sid: 5 << 16, len: 10, first: true }));
        TcpRepr::parse(&buf[46..], ip.src, ip.dst, ip.payload_len).unwrap();
    }

    /// The incast with super-packets, every link traced: every frame parses with valid
    /// checksums, times never decrease, and each sender's 10 super-packet packets carry
    /// len 10 with exactly one `first` per sid on the bottleneck.
    /// Non-TCP packets are UDP on the wire: a CBR stream and an MBS probe (trains one
    /// way, reports the other) through R; every frame parses back with valid checksums,
    /// the IPv4 length equals the packet's size (1500 B data, 40 B reports), and the
    /// ports say which source sent it.
    #[test]
    fn raw_packets_are_udp() {
        let toml = r#"
            name = "udp"
            duration = "200ms"
            [topology]
            kind = "graph"
            nodes = ["S", "X", "R", "D"]
            links = [
              { a = "S", b = "R", rate = "2Gbps", delay = "1ms" },
              { a = "X", b = "R", rate = "10Gbps", delay = "1ms" },
              { a = "R", b = "D", rate = "1Gbps", delay = "1ms", queue = { kind = "droptail", limit = 100 } },
            ]
            [[traffic]]
            kind = "cbr"
            from = "X"
            to = "D"
            rate = "300Mbps"
            [[traffic]]
            kind = "mbs_probe"
            from = "S"
            to = "D"
        "#;
        let sc = crate::Scenario::from_toml_str(toml).unwrap();
        let mut sim = sc.build(Some(1)).unwrap();
        sim.trace_by_name(&["R->D".to_string(), "R->S".to_string()], "pcap", 0).unwrap();
        sim.run_until(sc.duration.0);
        for (name, from_port, size) in [("R->D", None, 1500u32), ("R->S", Some(UDP_SINK_PORT), 40)] {
            let l = sim.net.link_by_name(name).unwrap();
            let tr = sim.trace(l).unwrap();
            assert!(tr.len() > 10, "{name}: {} packets", tr.len());
            let bytes = write_pcap(Vec::new(), 0, 1, tr).unwrap();
            let mut off = pcap_writer::FILE_HEADER_LEN;
            let mut ports = std::collections::BTreeSet::new();
            while off < bytes.len() {
                let r = &bytes[off..];
                let caplen = u32::from_le_bytes(r[8..12].try_into().unwrap()) as usize;
                let f = &r[16..16 + caplen];
                let ip = Ipv4Repr::parse(&f[14..]).unwrap();
                assert_eq!(ip.protocol, wire::IPPROTO_UDP);
                assert_eq!(ip.total_len() as u32, size);
                let u = UdpRepr::parse(&f[34..], ip.src, ip.dst).unwrap();
                if let Some(p) = from_port {
                    assert_eq!(u.src_port, p);
                    assert_eq!(u.dst_port, udp_port(1), "reports go back to the probe, source 1");
                } else {
                    assert_eq!(u.dst_port, UDP_SINK_PORT);
                    ports.insert(u.src_port);
                }
                off += 16 + caplen;
            }
            if from_port.is_none() {
                assert_eq!(ports.into_iter().collect::<Vec<_>>(), vec![udp_port(0), udp_port(1)], "CBR and probe");
            }
        }
    }

    #[test]
    fn incast_superpacket_trace_is_consistent() {
        let sc =
            crate::Scenario::from_toml_str(include_str!("../../../../../examples/incast-superpacket.toml")).unwrap();
        let mut sim = sc.build(Some(1)).unwrap();
        sim.trace_by_name(&["all".to_string()], "pcap", 0).unwrap();
        assert_eq!(sim.traced_links().len(), sim.net.links.len());
        sim.run_until(sc.duration.0);
        let l = sim.net.link_by_name("R->d").unwrap();
        let tr = sim.trace(l).unwrap();
        assert_eq!(tr.len() as u64, sim.net.links[l as usize].stats.delivered);
        let bytes = write_pcap(Vec::new(), 0, 1, tr).unwrap();
        let mut firsts: HashMap<u32, u32> = HashMap::new();
        let (mut off, mut last, mut n) = (pcap_writer::FILE_HEADER_LEN, 0u64, 0);
        while off < bytes.len() {
            let r = &bytes[off..];
            let le = |i: usize| u32::from_le_bytes(r[i..i + 4].try_into().unwrap());
            let t = le(0) as u64 * 1_000_000_000 + le(4) as u64;
            assert!(t >= last);
            last = t;
            let (caplen, len) = (le(8) as usize, le(12));
            assert_eq!(caplen, len as usize);
            let f = &r[16..16 + caplen];
            let ip = Ipv4Repr::parse(&f[14..]).unwrap();
            assert_eq!(14 + ip.total_len() as u32, len);
            let hl = (f[14] & 0x0F) as usize * 4;
            TcpRepr::parse(&f[14 + hl..], ip.src, ip.dst, ip.payload_len).unwrap();
            if let Some(h) = ip.sp {
                assert_eq!(h.len, 10);
                *firsts.entry(h.sid).or_default() += h.first as u32;
            }
            off += 16 + caplen;
            n += 1;
        }
        assert_eq!(n, tr.len());
        assert!(!firsts.is_empty());
        assert!(firsts.values().all(|&c| c == 1), "{firsts:?}");
        let dir = std::env::temp_dir().join(format!("sp-pcap-test-{}", std::process::id()));
        let files = sim.write_pcaps(&dir).unwrap();
        assert_eq!(files.len(), sim.net.links.len());
        assert!(files.iter().any(|p| p.ends_with("R-to-d.pcap")));
        assert_eq!(std::fs::read(dir.join("R-to-d.pcap")).unwrap(), bytes);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unknown_link_names_the_field() {
        let sc =
            crate::Scenario::from_toml_str(include_str!("../../../../../examples/incast-superpacket.toml")).unwrap();
        let mut sim = sc.build(Some(1)).unwrap();
        let e = sim.trace_by_name(&["R-to-d".into(), "R->x".into()], "output.pcap", 0).unwrap_err();
        assert!(e.starts_with("output.pcap[1]: unknown link \"R->x\""), "{e}");
        assert!(sim.traced_links().is_empty()); // all or nothing
    }
}
