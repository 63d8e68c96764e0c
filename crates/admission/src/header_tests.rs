//! Byte-vector tests of the super-packet option (hand-written expected bytes).

use super::*;

/// Figure 2 of Li 2013: sid 83, len 10; the first packet and a subsequent one.
const FIG2_FIRST: [u8; 9] = [0x1E, 0x09, 0x00, 0x00, 0x00, 0x53, 0x00, 0x0A, 0x80];
const FIG2_NEXT: [u8; 9] = [0x1E, 0x09, 0x00, 0x00, 0x00, 0x53, 0x00, 0x0A, 0x00];

#[test]
fn emit_figure2_first() {
    let repr = SpHeaderRepr { sid: 83, len: 10, first: true };
    let mut buf = [0xAAu8; 9];
    assert_eq!(repr.buffer_len(), 9);
    repr.emit(&mut buf);
    assert_eq!(buf, FIG2_FIRST);
}

#[test]
fn emit_padded_writes_eol_padding_outside_the_option() {
    let repr = SpHeaderRepr { sid: 0x0102_0304, len: 0x0506, first: false };
    let mut buf = [0xAAu8; 13];
    repr.emit_padded(&mut buf);
    assert_eq!(buf, [0x1E, 0x09, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0xAA]);
    assert_eq!(repr.padded_len() % 4, 0);
    // The length octet covers the 9 option bytes only, not the padding.
    assert_eq!(buf[field::LENGTH] as usize, repr.buffer_len());
}

#[test]
fn parse_figure2() {
    assert_eq!(SpHeaderRepr::parse(&FIG2_FIRST, 10), Ok(SpHeaderRepr { sid: 83, len: 10, first: true }));
    assert_eq!(SpHeaderRepr::parse(&FIG2_NEXT, 64), Ok(SpHeaderRepr { sid: 83, len: 10, first: false }));
}

#[test]
fn view_reads_fields() {
    let v = SpOption::new_checked(&FIG2_FIRST[..]).unwrap();
    assert_eq!(v.option_type(), OPTION_TYPE);
    assert_eq!(v.option_len(), 9);
    assert_eq!(v.sid(), 83);
    assert_eq!(v.sp_len(), 10);
    assert!(v.first());
    assert_eq!(v.into_inner(), &FIG2_FIRST[..]);
}

#[test]
fn view_writes_fields() {
    let mut buf = [0u8; 9];
    let mut v = SpOption::new_unchecked(&mut buf[..]);
    v.set_option_type(OPTION_TYPE);
    v.set_option_len(9);
    v.set_sid(0xDEAD_BEEF);
    v.set_sp_len(300);
    v.set_flags(FLAG_FIRST);
    assert_eq!(buf, [0x1E, 0x09, 0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x2C, 0x80]);
}

#[test]
fn reserved_flag_bits_are_ignored() {
    let mut b = FIG2_NEXT;
    b[8] = 0x7F;
    assert!(!SpHeaderRepr::parse(&b, 10).unwrap().first);
    b[8] = 0xFF;
    assert!(SpHeaderRepr::parse(&b, 10).unwrap().first);
}

#[test]
fn parse_rejects_truncated() {
    for n in 0..9 {
        assert_eq!(SpHeaderRepr::parse(&FIG2_FIRST[..n], 10), Err(HeaderError::Truncated), "{n} bytes");
    }
    assert_eq!(SpOption::new_checked(&FIG2_FIRST[..8]), Err(HeaderError::Truncated));
}

#[test]
fn parse_rejects_wrong_type_and_length() {
    let mut b = FIG2_FIRST;
    b[0] = 94;
    assert_eq!(SpHeaderRepr::parse(&b, 10), Err(HeaderError::WrongType(94)));
    let mut b = FIG2_FIRST;
    b[1] = 12; // a length that (wrongly) counts the padding
    assert_eq!(SpHeaderRepr::parse(&b, 10), Err(HeaderError::WrongLength(12)));
    b[1] = 8;
    assert_eq!(SpHeaderRepr::parse(&b, 10), Err(HeaderError::WrongLength(8)));
}

#[test]
fn parse_rejects_len_zero_and_len_above_max() {
    let zero = [0x1E, 0x09, 0, 0, 0, 1, 0x00, 0x00, 0x80];
    assert_eq!(SpHeaderRepr::parse(&zero, 10), Err(HeaderError::LenZero));
    assert_eq!(SpHeaderRepr::parse(&FIG2_FIRST, 9), Err(HeaderError::LenTooLarge { len: 10, max: 9 }));
    let max = [0x1E, 0x09, 0, 0, 0, 1, 0xFF, 0xFF, 0x80];
    assert_eq!(SpHeaderRepr::parse(&max, u16::MAX).unwrap().len, u16::MAX);
}

#[test]
fn find_in_options_walks_nop_eol_and_other_options() {
    // NOP, Router Alert (148, len 4), our option, EOL padding.
    let mut opts = vec![0x01, 0x94, 0x04, 0x00, 0x00];
    opts.extend_from_slice(&FIG2_FIRST);
    opts.extend_from_slice(&[0x00, 0x00]);
    assert_eq!(opts.len() % 4, 0);
    let repr = find_in_options(&opts, 10).unwrap().unwrap();
    assert_eq!((repr.sid, repr.len, repr.first), (83, 10, true));
    // Nothing after EOL is read.
    let after_eol = [0x00, 0x1E, 0x09, 0, 0, 0, 1, 0, 0];
    assert_eq!(find_in_options(&after_eol, 10), Ok(None));
    // No options at all: a normal packet.
    assert_eq!(find_in_options(&[], 10), Ok(None));
    assert_eq!(find_in_options(&[0x01, 0x01, 0x01, 0x00], 10), Ok(None));
}

#[test]
fn find_in_options_rejects_malformed_lists() {
    assert_eq!(find_in_options(&[0x94], 10), Err(HeaderError::Truncated));
    assert_eq!(find_in_options(&[0x94, 0x01, 0, 0], 10), Err(HeaderError::BadOptionLength(1)));
    assert_eq!(find_in_options(&[0x94, 0x08, 0, 0], 10), Err(HeaderError::Truncated));
    // Our option cut short by the end of the header.
    assert_eq!(find_in_options(&FIG2_FIRST[..7], 10), Err(HeaderError::Truncated));
    // Our type with a short length octet.
    assert_eq!(find_in_options(&[0x1E, 0x04, 0, 0], 10), Err(HeaderError::WrongLength(4)));
    let mut two = FIG2_FIRST.to_vec();
    two.extend_from_slice(&FIG2_NEXT);
    assert_eq!(find_in_options(&two, 10), Err(HeaderError::Duplicate));
}

#[test]
fn roundtrip_all_flag_and_edge_values() {
    for &(sid, len, first) in &[(0, 1, false), (u32::MAX, u16::MAX, true), (7, 2, true)] {
        let repr = SpHeaderRepr { sid, len, first };
        let mut buf = [0u8; PADDED_LEN];
        repr.emit_padded(&mut buf);
        assert_eq!(SpHeaderRepr::parse(&buf, u16::MAX), Ok(repr));
        assert_eq!(find_in_options(&buf, u16::MAX), Ok(Some(repr)));
    }
}
