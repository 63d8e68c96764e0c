//! The super-packet option decoder (crates/admission/src/header.rs): the bytes an
//! IPv4 header carries, parsed by `SpHeaderRepr::parse`, the zero-copy `SpOption`
//! view and `find_in_options` (which the router's `on_arrival_options` and the pcap
//! reader `sim::net::trace::wire::Ipv4Repr::parse` call).
//!
//! Input: two bytes of `max_len` (big-endian), then the bytes to decode. Checked:
//! - no panic on any input, for any `max_len`;
//! - `find_in_options` gives exactly what an independent RFC 791 option walker
//!   written here gives (none, the header, or the same error);
//! - `SpHeaderRepr::parse` agrees with a byte-by-byte reading of RFC 791 "case 2"
//!   and the layout in header.rs; the `SpOption` view reads the same fields;
//! - round trip: whatever decodes, re-encoded by `emit` / `emit_padded`, decodes to
//!   the same header, and the bytes differ from the input only in the flags'
//!   reserved bits; any (sid, len, first) taken from the input, encoded, decodes to
//!   itself (or to the range error its len deserves), alone, padded, and embedded in
//!   an option list after the input's own options.
#![no_main]

use admission::header::{HeaderError, FLAG_FIRST, IPOPT_EOL, IPOPT_NOP, OPTION_LEN, OPTION_TYPE, PADDED_LEN};
use admission::{find_in_options, SpHeaderRepr, SpOption};
use libfuzzer_sys::fuzz_target;

/// Reference decoding of one super-packet option at `b[0]`: written from the layout
/// in header.rs (type 30, length 9, sid u32 BE, len u16 BE, flags bit 7 = first),
/// not from its code.
fn reference_parse(b: &[u8], max_len: u16) -> Result<SpHeaderRepr, HeaderError> {
    match b {
        [] => Err(HeaderError::Truncated),
        [t, ..] if *t != 30 => Err(HeaderError::WrongType(*t)),
        [_] => Err(HeaderError::Truncated),
        [_, l, ..] if *l != 9 => Err(HeaderError::WrongLength(*l)),
        [_, _, s0, s1, s2, s3, l0, l1, f, ..] => {
            let sid = (*s0 as u32) << 24 | (*s1 as u32) << 16 | (*s2 as u32) << 8 | *s3 as u32;
            let len = (*l0 as u16) << 8 | *l1 as u16;
            if len == 0 {
                Err(HeaderError::LenZero)
            } else if len > max_len {
                Err(HeaderError::LenTooLarge { len, max: max_len })
            } else {
                Ok(SpHeaderRepr { sid, len, first: f & 0x80 == 0x80 })
            }
        }
        _ => Err(HeaderError::Truncated),
    }
}

/// Reference RFC 791 section 3.1 option-list walk, recursive on the rest of the
/// list: EOL (0) ends it, NOP (1) is one octet, any other option is type, length
/// octet (>= 2, counting type and length), data; a second super-packet option is
/// refused.
fn reference_find(opts: &[u8], max_len: u16, found: Option<SpHeaderRepr>) -> Result<Option<SpHeaderRepr>, HeaderError> {
    let Some((&kind, rest)) = opts.split_first() else { return Ok(found) };
    match kind {
        0 => Ok(found),
        1 => reference_find(rest, max_len, found),
        _ => {
            let Some(&len) = rest.first() else { return Err(HeaderError::Truncated) };
            if len < 2 {
                return Err(HeaderError::BadOptionLength(len));
            }
            if (len as usize) > opts.len() {
                return Err(HeaderError::Truncated);
            }
            let (opt, tail) = opts.split_at(len as usize);
            let found = if kind == 30 {
                if found.is_some() {
                    return Err(HeaderError::Duplicate);
                }
                Some(reference_parse(opt, max_len)?)
            } else {
                found
            };
            reference_find(tail, max_len, found)
        }
    }
}

fn check_roundtrip(repr: SpHeaderRepr) {
    let mut buf = [0xA5u8; PADDED_LEN + 1];
    repr.emit(&mut buf);
    assert_eq!(buf[OPTION_LEN..], [0xA5; PADDED_LEN + 1 - OPTION_LEN], "emit wrote past the option");
    assert_eq!(SpHeaderRepr::parse(&buf[..OPTION_LEN], u16::MAX), Ok(repr));
    assert_eq!(SpHeaderRepr::parse(&buf[..OPTION_LEN], repr.len), Ok(repr));
    repr.emit_padded(&mut buf);
    assert_eq!(buf[OPTION_LEN..PADDED_LEN], [IPOPT_EOL; PADDED_LEN - OPTION_LEN]);
    assert_eq!(buf[PADDED_LEN], 0xA5, "emit_padded wrote past the padding");
    assert_eq!(find_in_options(&buf[..PADDED_LEN], repr.len), Ok(Some(repr)));
    assert_eq!(
        buf[..OPTION_LEN],
        [
            OPTION_TYPE,
            OPTION_LEN as u8,
            (repr.sid >> 24) as u8,
            (repr.sid >> 16) as u8,
            (repr.sid >> 8) as u8,
            repr.sid as u8,
            (repr.len >> 8) as u8,
            repr.len as u8,
            if repr.first { FLAG_FIRST } else { 0 },
        ]
    );
}

fuzz_target!(|data: &[u8]| {
    let (max_len, bytes) = match data {
        [a, b, rest @ ..] => (u16::from_be_bytes([*a, *b]), rest),
        _ => (64, data),
    };

    // 1. the option list, against the reference walk
    let got = find_in_options(bytes, max_len);
    assert_eq!(got, reference_find(bytes, max_len, None), "find_in_options on {bytes:02x?}, max_len {max_len}");
    if let Ok(Some(repr)) = got {
        assert_eq!(repr.validate(max_len), Ok(()));
        check_roundtrip(repr);
    }

    // 2. one option at the start of the bytes
    let parsed = SpHeaderRepr::parse(bytes, max_len);
    assert_eq!(parsed, reference_parse(bytes, max_len), "parse on {bytes:02x?}, max_len {max_len}");
    if let Ok(repr) = parsed {
        check_roundtrip(repr);
        let mut again = [0u8; OPTION_LEN];
        repr.emit(&mut again);
        // Only the reserved flag bits (6..0) may differ from the input.
        assert_eq!(again[..OPTION_LEN - 1], bytes[..OPTION_LEN - 1]);
        assert_eq!(again[OPTION_LEN - 1], bytes[OPTION_LEN - 1] & FLAG_FIRST);
    }

    // 3. the zero-copy view: checked iff at least 9 bytes, and reads what parse reads
    match SpOption::new_checked(bytes) {
        Ok(view) => {
            assert!(bytes.len() >= OPTION_LEN);
            assert_eq!(view.option_type(), bytes[0]);
            assert_eq!(view.option_len(), bytes[1]);
            assert_eq!(view.sid(), u32::from_be_bytes([bytes[2], bytes[3], bytes[4], bytes[5]]));
            assert_eq!(view.sp_len(), u16::from_be_bytes([bytes[6], bytes[7]]));
            assert_eq!(view.flags(), bytes[8]);
            assert_eq!(view.first(), bytes[8] >= 0x80);
            if let Ok(repr) = parsed {
                assert_eq!((repr.sid, repr.len, repr.first), (view.sid(), view.sp_len(), view.first()));
            }
        }
        Err(e) => {
            assert_eq!(e, HeaderError::Truncated);
            assert!(bytes.len() < OPTION_LEN);
        }
    }

    // 4. encode a header taken from the input, decode it back: alone, padded, and
    // appended to the input's own option list (cut at its first EOL, so the walk
    // reaches it) after a NOP.
    if bytes.len() >= 7 {
        let repr = SpHeaderRepr {
            sid: u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            len: u16::from_be_bytes([bytes[4], bytes[5]]),
            first: bytes[6] & 1 == 1,
        };
        let mut buf = [0u8; PADDED_LEN];
        repr.emit_padded(&mut buf);
        let expect = repr.validate(max_len).map(|()| repr);
        assert_eq!(SpHeaderRepr::parse(&buf, max_len), expect);
        assert_eq!(find_in_options(&buf, max_len), expect.map(Some));
        if expect.is_ok() {
            check_roundtrip(repr);
        }
        let prefix = &bytes[7..bytes.len().min(47)];
        let cut = prefix.iter().position(|&b| b == IPOPT_EOL).unwrap_or(prefix.len());
        let mut list = prefix[..cut].to_vec();
        list.push(IPOPT_NOP);
        let before = reference_find(&list, max_len, None);
        list.extend_from_slice(&buf);
        let combined = find_in_options(&list, max_len);
        assert_eq!(combined, reference_find(&list, max_len, None));
        match before {
            // A list that walks cleanly to its end now ends in our option: found,
            // or refused as a duplicate if the list already held one.
            Ok(None) => assert_eq!(combined, expect.map(Some)),
            Ok(Some(_)) => assert_eq!(combined, Err(HeaderError::Duplicate)),
            // A list that is already malformed stays refused (the same error
            // unless the walk now finds the bytes it lacked).
            Err(_) => assert!(combined.is_err() || before == Err(HeaderError::Truncated)),
        }
    }
});
