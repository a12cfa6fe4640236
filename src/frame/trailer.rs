//! The frame trailer (FRAME.md §6): vlmetalayers, `trailer_len` and the fingerprint.

use super::header::parse_named_values;
use super::{Metalayer, MAX_VLMETALAYERS_READ, MAX_VLMETALAYERS_WRITE};
use crate::error::{Error, Result};

/// C-Blosc2's minimum trailer length (the bytes read to find `trailer_len`).
pub const TRAILER_MINLEN: usize = 25;
/// Trailer format version written.
pub const TRAILER_VERSION: u8 = 1;
/// Bytes from the end of the frame to `trailer_len`.
const TRAILER_LEN_FROM_END: usize = 22;

/// `trailer_len` from the last 25 bytes of a frame (`tail.len() == 25`).
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
/// # use b2rs::{chunk, CParams, DParams};
/// #
/// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
/// # let cparams = CParams { typesize: 1, ..CParams::default() };
/// # let params = FrameParams::from_cparams(&cparams, 1);
/// # let chunk_of = |b: u8| {
/// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
/// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
/// #     buf.truncate(n);
/// #     buf
/// # };
/// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
/// # for b in 1..=3 {
/// #     frame.append_chunk(&chunk_of(b)).unwrap();
/// # }
/// # let first_byte = |frame: &Frame, n: i64| {
/// #     let mut out = vec![0u8; 1000];
/// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
/// #     out[0]
/// # };
/// use b2rs::frame::trailer::trailer_len_of;
///
/// let bytes = frame.to_bytes().unwrap();
/// let len = trailer_len_of(&bytes[bytes.len() - 25..]).unwrap();
/// assert!(len >= 25 && (len as usize) < bytes.len());
/// ```
pub fn trailer_len_of(tail: &[u8]) -> Result<u32> {
    let at = TRAILER_MINLEN - TRAILER_LEN_FROM_END;
    if tail.len() != TRAILER_MINLEN {
        return Err(Error::ReadBuffer);
    }
    if tail[at - 1] != 0xCE {
        crate::trace_error!("Invalid trailer: no uint32 marker before its length");
        return Err(Error::InvalidHeader);
    }
    Ok(u32::from_be_bytes([
        tail[at],
        tail[at + 1],
        tail[at + 2],
        tail[at + 3],
    ]))
}

/// Check `trailer_len` against the frame length (C-Blosc2's rule:
/// `25 ≤ trailer_len ≤ frame_len − 87`).
///
/// # Examples
///
/// ```
/// use b2rs::frame::trailer::check_trailer_len;
///
/// assert!(check_trailer_len(25, 200).is_ok());
/// assert!(check_trailer_len(24, 200).is_err());
/// assert!(check_trailer_len(150, 200).is_err()); // more than frame_len - 87
/// ```
pub fn check_trailer_len(trailer_len: u32, frame_len: i64) -> Result<()> {
    let min_header = super::header::HEADER_MINLEN as i64;
    if (trailer_len as usize) < TRAILER_MINLEN
        || trailer_len > i32::MAX as u32
        || trailer_len as i64 > frame_len - min_header
    {
        crate::trace_error!("Invalid trailer length {}", trailer_len);
        return Err(Error::InvalidHeader);
    }
    Ok(())
}

/// Encode a trailer holding `vlmetalayers` (content = stored Blosc chunks).
///
/// # Examples
///
/// ```
/// use b2rs::frame::trailer::{encode, parse_vlmetalayers};
/// use b2rs::frame::Metalayer;
///
/// let v = [Metalayer { name: "v".into(), content: vec![1, 2, 3] }];
/// let trailer = encode(&v).unwrap();
/// assert_eq!(parse_vlmetalayers(&trailer).unwrap(), v);
/// ```
pub fn encode(vlmetalayers: &[Metalayer]) -> Result<Vec<u8>> {
    if vlmetalayers.len() > MAX_VLMETALAYERS_WRITE {
        crate::trace_error!(
            "Too many vlmetalayers (at most {} can be written)",
            MAX_VLMETALAYERS_WRITE
        );
        return Err(Error::InvalidParam);
    }
    for m in vlmetalayers {
        super::header::check_name(&m.name)?;
    }
    let n = vlmetalayers.len() as u16;
    let mut t = vec![0x94, TRAILER_VERSION, 0x93, 0xCD, 0, 0, 0xDE];
    t.extend_from_slice(&n.to_be_bytes());
    let mut slots = Vec::with_capacity(vlmetalayers.len());
    for m in vlmetalayers {
        t.push(0xA0 + m.name.len() as u8);
        t.extend_from_slice(m.name.as_bytes());
        t.push(0xD2);
        slots.push(t.len());
        t.extend_from_slice(&[0; 4]);
    }
    // idx_size counts from the CD byte (position 3)
    let idx_size = u16::try_from(t.len() - 3).map_err(|_| Error::InvalidParam)?;
    t[4..6].copy_from_slice(&idx_size.to_be_bytes());
    t.push(0xDC);
    t.extend_from_slice(&n.to_be_bytes());
    for (m, slot) in vlmetalayers.iter().zip(slots) {
        let at = i32::try_from(t.len()).map_err(|_| Error::InvalidParam)?;
        t[slot..slot + 4].copy_from_slice(&at.to_be_bytes());
        let len = u32::try_from(m.content.len()).map_err(|_| Error::InvalidParam)?;
        t.push(0xC6);
        t.extend_from_slice(&len.to_be_bytes());
        t.extend_from_slice(&m.content);
    }
    let trailer_len = t.len() + 1 + 4 + 1 + 1 + 16;
    let trailer_len = u32::try_from(trailer_len)
        .ok()
        .filter(|&l| l <= i32::MAX as u32)
        .ok_or_else(|| {
            crate::trace_error!("The vlmetalayers are too large for a frame trailer");
            Error::InvalidParam
        })?;
    t.push(0xCE);
    t.extend_from_slice(&trailer_len.to_be_bytes());
    t.push(0xD8);
    t.push(0); // fingerprint type: none
    t.extend_from_slice(&[0; 16]);
    debug_assert_eq!(t.len(), trailer_len as usize);
    Ok(t)
}

/// Read the vlmetalayers of a whole trailer (`trailer.len() == trailer_len`).
///
/// # Examples
///
/// ```
/// use b2rs::frame::trailer::{encode, parse_vlmetalayers};
///
/// assert!(parse_vlmetalayers(&encode(&[]).unwrap()).unwrap().is_empty());
/// assert!(parse_vlmetalayers(&[0u8; 3]).is_err());
/// ```
pub fn parse_vlmetalayers(trailer: &[u8]) -> Result<Vec<Metalayer>> {
    // 0: 94, 1: version, 2: 93, 3: CD, 4–5: idx_size, 6: DE map
    parse_named_values(trailer, 6, MAX_VLMETALAYERS_READ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_trailer() {
        let t = encode(&[]).unwrap();
        let mut expected = vec![
            0x94, 0x01, 0x93, 0xcd, 0x00, 0x06, 0xde, 0x00, 0x00, 0xdc, 0x00, 0x00, 0xce, 0x00,
            0x00, 0x00, 0x23, 0xd8, 0x00,
        ];
        expected.extend_from_slice(&[0; 16]);
        assert_eq!(t, expected);
        assert_eq!(trailer_len_of(&t[t.len() - 25..]).unwrap(), 35);
        assert!(parse_vlmetalayers(&t).unwrap().is_empty());
    }

    #[test]
    fn roundtrip_vlmetalayers() {
        let v = vec![
            Metalayer {
                name: "vlmetalayer".into(),
                content: vec![1, 2, 3],
            },
            Metalayer {
                name: "x".into(),
                content: vec![],
            },
        ];
        let t = encode(&v).unwrap();
        assert_eq!(parse_vlmetalayers(&t).unwrap(), v);
        assert_eq!(
            trailer_len_of(&t[t.len() - 25..]).unwrap() as usize,
            t.len()
        );
        let too_many: Vec<Metalayer> = (0..17)
            .map(|i| Metalayer {
                name: format!("m{i}"),
                content: vec![],
            })
            .collect();
        assert_eq!(encode(&too_many).unwrap_err(), Error::InvalidParam);
    }
}
