//! The super-packet header as an IPv4 option.
//!
//! Source: Li 2013 (UCB/EECS-2013-83) section 2.1 and Figure 2: every packet of a
//! super-packet carries `sid` (unique per (src, dst)), `len` (packets in the
//! super-packet) and `first` (true on the first packet only).
//!
//! Option type: 30 = 0x1E = copy 0 | class 0 | number 30, one of the four values
//! RFC 4727 reserves for RFC 3692-style experiments in the IANA "IP Option
//! Numbers" registry (30, 94, 158, 222: number 30 with each copy/class pair).
//! - class 0 ("control", RFC 791 section 3.1): the option steers forwarding
//!   (admission), it is not debugging or measurement (class 2, value 94).
//! - copy 0: on fragmentation only the first fragment carries it, so a
//!   super-packet of `len` packets still shows the router exactly `len`
//!   option-bearing packets. With copy 1 (158, 222) every fragment would consume
//!   one outstanding packet and the last legitimate packets would be refused.
//!   Super-packet senders should set DF anyway.
//!
//! RFC 3692 section 1: experimental values must not be shipped as defaults in
//! products; a deployment picks one of the four. Routers that do not know the
//! option ignore it (RFC 1122 section 3.2.1.8).
//!
//! Layout (network byte order; RFC 791 section 3.1 "case 2" option):
//! ```text
//!  0        1        2                                   6                 8        9
//! +--------+--------+--------+--------+--------+--------+--------+--------+--------+
//! |  type  | length |                sid                |       len       | flags  |
//! |  0x1E  |   9    |              (u32)                |      (u16)      |F000000 |
//! +--------+--------+--------+--------+--------+--------+--------+--------+--------+
//! ```
//! The option-length octet counts type, length and data (RFC 791 section 3.1), so it
//! is 9 and does NOT cover padding. The IPv4 header must end on a 32-bit boundary
//! (RFC 791 section 3.1, "Padding"): 3 more bytes of EOL (0) or NOP (1) pad it to
//! 12; they sit outside the option ([`SpHeaderRepr::emit_padded`] writes EOL).
//! Flags: bit 7 = `first`; bits 6..0 reserved, sent as zero, ignored on receipt.

use core::fmt;

/// IPv4 option type: RFC 4727 experimental value 30 (copy 0, class 0, number 30).
pub const OPTION_TYPE: u8 = 30;
/// Option length including type and length octets (value of the length octet).
pub const OPTION_LEN: usize = 9;
/// Option plus end-of-list padding to the next 32-bit boundary.
pub const PADDED_LEN: usize = 12;
/// The `first` bit in the flags octet.
pub const FLAG_FIRST: u8 = 0x80;
/// IPv4 End of Option List (RFC 791 section 3.1).
pub const IPOPT_EOL: u8 = 0;
/// IPv4 No Operation (RFC 791 section 3.1).
pub const IPOPT_NOP: u8 = 1;

/// Byte offsets of the option fields.
pub mod field {
    /// A byte range.
    pub type Field = core::ops::Range<usize>;
    /// Option type octet.
    pub const TYPE: usize = 0;
    /// Option length octet.
    pub const LENGTH: usize = 1;
    /// Super-packet id, u32 big-endian.
    pub const SID: Field = 2..6;
    /// Super-packet length in packets, u16 big-endian.
    pub const LEN: Field = 6..8;
    /// Flags octet (bit 7 = first).
    pub const FLAGS: usize = 8;
}

/// Why a super-packet option was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderError {
    /// The buffer ends before the option (or an option of the list) does.
    Truncated,
    /// The type octet is not [`OPTION_TYPE`].
    WrongType(u8),
    /// The length octet is not [`OPTION_LEN`].
    WrongLength(u8),
    /// `len == 0`: a super-packet has at least one packet.
    LenZero,
    /// `len` above the router's configured maximum.
    LenTooLarge {
        /// Length carried by the packet.
        len: u16,
        /// Configured maximum.
        max: u16,
    },
    /// An option of the IPv4 option list has a length octet below 2.
    BadOptionLength(u8),
    /// Two super-packet options in one header (ambiguous, refused).
    Duplicate,
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderError::Truncated => write!(f, "truncated IPv4 option"),
            HeaderError::WrongType(t) => write!(f, "option type {t}, expected {OPTION_TYPE}"),
            HeaderError::WrongLength(l) => write!(f, "option length {l}, expected {OPTION_LEN}"),
            HeaderError::LenZero => write!(f, "super-packet len 0"),
            HeaderError::LenTooLarge { len, max } => {
                write!(f, "super-packet len {len} above the maximum {max}")
            }
            HeaderError::BadOptionLength(l) => write!(f, "IPv4 option length {l} below 2"),
            HeaderError::Duplicate => write!(f, "two super-packet options in one header"),
        }
    }
}

impl std::error::Error for HeaderError {}

/// Zero-copy view of a super-packet option (smoltcp `wire` style).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpOption<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> SpOption<T> {
    /// Wrap a buffer without checking it; accessors panic if it is too short.
    pub const fn new_unchecked(buffer: T) -> Self {
        SpOption { buffer }
    }

    /// Wrap a buffer after [`check_len`](Self::check_len).
    pub fn new_checked(buffer: T) -> Result<Self, HeaderError> {
        let opt = Self::new_unchecked(buffer);
        opt.check_len()?;
        Ok(opt)
    }

    /// Ensure every accessor stays inside the buffer.
    pub fn check_len(&self) -> Result<(), HeaderError> {
        if self.buffer.as_ref().len() < OPTION_LEN {
            Err(HeaderError::Truncated)
        } else {
            Ok(())
        }
    }

    /// The wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Option type octet.
    pub fn option_type(&self) -> u8 {
        self.buffer.as_ref()[field::TYPE]
    }

    /// Option length octet.
    pub fn option_len(&self) -> u8 {
        self.buffer.as_ref()[field::LENGTH]
    }

    /// Super-packet id.
    pub fn sid(&self) -> u32 {
        let b = &self.buffer.as_ref()[field::SID];
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    /// Super-packet length in packets.
    pub fn sp_len(&self) -> u16 {
        let b = &self.buffer.as_ref()[field::LEN];
        u16::from_be_bytes([b[0], b[1]])
    }

    /// Raw flags octet.
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS]
    }

    /// The `first` bit.
    pub fn first(&self) -> bool {
        self.flags() & FLAG_FIRST != 0
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> SpOption<T> {
    /// Set the option type octet.
    pub fn set_option_type(&mut self, v: u8) {
        self.buffer.as_mut()[field::TYPE] = v;
    }

    /// Set the option length octet.
    pub fn set_option_len(&mut self, v: u8) {
        self.buffer.as_mut()[field::LENGTH] = v;
    }

    /// Set the super-packet id.
    pub fn set_sid(&mut self, v: u32) {
        self.buffer.as_mut()[field::SID].copy_from_slice(&v.to_be_bytes());
    }

    /// Set the super-packet length.
    pub fn set_sp_len(&mut self, v: u16) {
        self.buffer.as_mut()[field::LEN].copy_from_slice(&v.to_be_bytes());
    }

    /// Set the flags octet (reserved bits must be zero).
    pub fn set_flags(&mut self, v: u8) {
        self.buffer.as_mut()[field::FLAGS] = v;
    }
}

/// A validated super-packet header (section 2.1: sid, len, first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SpHeaderRepr {
    /// Super-packet id, unique per (src, dst).
    pub sid: u32,
    /// Packets in the super-packet, 1..=max_len.
    pub len: u16,
    /// True on the first packet of the super-packet.
    pub first: bool,
}

impl SpHeaderRepr {
    /// Parse and validate an option starting at `buf[0]` (bytes past the option,
    /// such as padding, are ignored). `max_len` is the router's configured maximum.
    pub fn parse(buf: &[u8], max_len: u16) -> Result<Self, HeaderError> {
        let kind = *buf.get(field::TYPE).ok_or(HeaderError::Truncated)?;
        if kind != OPTION_TYPE {
            return Err(HeaderError::WrongType(kind));
        }
        let len = *buf.get(field::LENGTH).ok_or(HeaderError::Truncated)?;
        if len as usize != OPTION_LEN {
            return Err(HeaderError::WrongLength(len));
        }
        let opt = SpOption::new_checked(buf)?;
        let repr = SpHeaderRepr { sid: opt.sid(), len: opt.sp_len(), first: opt.first() };
        repr.validate(max_len)?;
        Ok(repr)
    }

    /// Check the field ranges: `1 <= len <= max_len`.
    pub fn validate(&self, max_len: u16) -> Result<(), HeaderError> {
        if self.len == 0 {
            Err(HeaderError::LenZero)
        } else if self.len > max_len {
            Err(HeaderError::LenTooLarge { len: self.len, max: max_len })
        } else {
            Ok(())
        }
    }

    /// Bytes [`emit`](Self::emit) writes: the option alone, without padding.
    pub const fn buffer_len(&self) -> usize {
        OPTION_LEN
    }

    /// Bytes [`emit_padded`](Self::emit_padded) writes: option plus padding.
    pub const fn padded_len(&self) -> usize {
        PADDED_LEN
    }

    /// Write the option into `buf[..9]`.
    ///
    /// # Panics
    /// If `buf` is shorter than [`buffer_len`](Self::buffer_len).
    pub fn emit(&self, buf: &mut [u8]) {
        let mut opt = SpOption::new_unchecked(&mut buf[..OPTION_LEN]);
        opt.set_option_type(OPTION_TYPE);
        opt.set_option_len(OPTION_LEN as u8);
        opt.set_sid(self.sid);
        opt.set_sp_len(self.len);
        opt.set_flags(if self.first { FLAG_FIRST } else { 0 });
    }

    /// Write the option followed by 3 EOL bytes, for the end of an option list
    /// (RFC 791 section 3.1: the header padding is zero, i.e. EOL).
    ///
    /// # Panics
    /// If `buf` is shorter than [`padded_len`](Self::padded_len).
    pub fn emit_padded(&self, buf: &mut [u8]) {
        self.emit(buf);
        buf[OPTION_LEN..PADDED_LEN].fill(IPOPT_EOL);
    }
}

/// Find and parse the super-packet option in an IPv4 options area (the bytes
/// after the 20-byte fixed header). `Ok(None)`: no super-packet option, a normal
/// packet. Walks the list per RFC 791 section 3.1: EOL ends it, NOP is one byte,
/// any other option is type, length (>= 2, counting itself), data.
pub fn find_in_options(options: &[u8], max_len: u16) -> Result<Option<SpHeaderRepr>, HeaderError> {
    let mut found = None;
    let mut i = 0;
    while i < options.len() {
        match options[i] {
            IPOPT_EOL => break,
            IPOPT_NOP => i += 1,
            kind => {
                let len = *options.get(i + 1).ok_or(HeaderError::Truncated)?;
                if len < 2 {
                    return Err(HeaderError::BadOptionLength(len));
                }
                let end = i + len as usize;
                let opt = options.get(i..end).ok_or(HeaderError::Truncated)?;
                if kind == OPTION_TYPE {
                    if found.is_some() {
                        return Err(HeaderError::Duplicate);
                    }
                    found = Some(SpHeaderRepr::parse(opt, max_len)?);
                }
                i = end;
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
#[path = "header_tests.rs"]
mod tests;
