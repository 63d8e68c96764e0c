//! Packets: a small `Copy` struct in a slab, addressed by `PktId`.
//!
//! Packets carry their precomputed source route (route id + hop index, as htsim's
//! sim/route.h), so forwarding is an array lookup. Sizes are on-the-wire bytes
//! (SCENARIOS.md: a full data packet is MSS + 40 B IP/TCP; SYN, SYN-ACK, pure ACK 40 B).

use crate::core::time::SimTime;

pub type PktId = u32;
pub type FlowId = u32;
pub type LinkId = u32;
pub type NodeId = u32;
pub type RouteId = u32;

/// TCP/IP header bits carried by a packet.
pub mod flags {
    pub const SYN: u16 = 1 << 0;
    pub const ACK: u16 = 1 << 1;
    pub const FIN: u16 = 1 << 2;
    /// ECN-capable transport (RFC 3168 ECT(0)).
    pub const ECT: u16 = 1 << 3;
    /// Congestion experienced (RFC 3168).
    pub const CE: u16 = 1 << 4;
    /// ECN-echo, in TCP header (RFC 3168 section 6.1).
    pub const ECE: u16 = 1 << 5;
    /// Congestion window reduced (RFC 3168 section 6.1).
    pub const CWR: u16 = 1 << 6;
    /// Carries payload (travels sender -> receiver).
    pub const DATA: u16 = 1 << 7;
    /// This data packet is a retransmission (Karn's rule: no RTT sample from it).
    pub const RETX: u16 = 1 << 8;
    /// RIO "In" (short-flow) tag, carried as a DSCP value on the wire.
    pub const IN: u16 = 1 << 9;
    /// `ts_echo` of this ACK is a valid RTT sample (Karn's rule applied by the receiver).
    pub const TSV: u16 = 1 << 10;
    /// Not TCP: a packet of a non-TCP source (traffic/raw.rs); `flow` is the source's
    /// index. With ACK: an MBS probe's report travelling back.
    pub const RAW: u16 = 1 << 11;
}

/// The super-packet header fields (seeds/000 section 2.1): id unique per (src, dst),
/// length in packets, and whether this is the first packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SpHdr {
    pub sid: u32,
    pub len: u16,
    pub first: bool,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    /// First sequence number (bytes; SYN consumes sequence 0, data starts at 1).
    pub seq: u64,
    /// Cumulative acknowledgement (next byte expected).
    pub ack: u64,
    /// When the sender emitted it (timestamp option value).
    pub ts: SimTime,
    /// Timestamp echoed by an ACK (valid only with the TSV flag).
    pub ts_echo: SimTime,
    pub flow: FlowId,
    pub route: RouteId,
    /// Source and destination nodes (IPv4 10.x.y.z on the wire: `ipv4_of`).
    pub src: NodeId,
    pub dst: NodeId,
    /// On-the-wire size in bytes.
    pub size: u32,
    /// Payload bytes.
    pub payload: u32,
    pub flags: u16,
    /// Index into the route of the link the packet is on or about to enter.
    pub hop: u16,
    pub sp: Option<SpHdr>,
    /// SACK blocks of this ACK: 0 none, else 1 + their index in the simulator's side table
    /// (tcp/sack.rs; beside the packet, so the packet stays 72 B).
    pub sack: u32,
}

impl Packet {
    #[inline]
    pub fn has(&self, f: u16) -> bool {
        self.flags & f != 0
    }
}

/// The IPv4 address a node has on the wire and in the admission state: 10.x.y.z.
pub fn ipv4_of(node: NodeId) -> u32 {
    0x0A00_0000 | (node & 0x00FF_FFFF)
}

/// A slab of packets with a free list: packets are reused, never reallocated.
#[derive(Default)]
pub struct PacketSlab {
    pkts: Vec<Packet>,
    free: Vec<PktId>,
    live: usize,
    peak_live: usize,
}

impl PacketSlab {
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        self.live += 1;
        if self.live > self.peak_live {
            self.peak_live = self.live;
        }
        if let Some(id) = self.free.pop() {
            self.pkts[id as usize] = p;
            id
        } else {
            self.pkts.push(p);
            (self.pkts.len() - 1) as PktId
        }
    }

    #[inline]
    pub fn free(&mut self, id: PktId) {
        self.live -= 1;
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.pkts[id as usize]
    }

    /// Brings packet `id`'s cache line in ahead of its use (a hint; any id is safe).
    #[inline(always)]
    pub fn prefetch(&self, id: PktId) {
        if let Some(p) = self.pkts.get(id as usize) {
            prefetch(p);
        }
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.pkts[id as usize]
    }

    pub fn live(&self) -> usize {
        self.live
    }

    pub fn peak_live(&self) -> usize {
        self.peak_live
    }

    /// Bytes held by the slab (capacity), for memory accounting.
    pub fn memory_bytes(&self) -> usize {
        self.pkts.capacity() * std::mem::size_of::<Packet>() + self.free.capacity() * 4
    }
}

/// A hint to bring the cache line holding `*p` in (no effect where not x86_64).
#[inline(always)]
pub fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing architecturally and cannot fault; `p` is a valid
    // reference anyway
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const T as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
