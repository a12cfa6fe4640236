//! The bodies of the fuzz targets, one function per target (`fuzz_targets/NAME.rs` calls
//! `targets::NAME`). They live here, free of libFuzzer, so that `tests/fuzz_regressions.rs`
//! runs the same code on the seeds and on every crash input kept in `fuzz/regressions/`.

use super::{check_chunk, check_frame, container, dparams, hash, MemIo, MAX_CHUNKS, MAX_NBYTES};
use arbitrary::Arbitrary;
use b2rs::b2nd::{Array, Meta};
use b2rs::bloscpack::{self, Header as PackHeader, Reader};
use b2rs::chunk::{self, Span};
use b2rs::frame::{header, index, trailer, Frame, Location};
use b2rs::params::filter_id;
use b2rs::{CParams, SplitMode};
use std::io::Cursor;
use std::path::Path;
use std::sync::Arc;

/// `chunk_decompress`: a chunk from untrusted bytes (any header, codec and filter pipeline):
/// whole decode, masked decode, getitem of derived ranges, VL-block decoders; getitem must
/// agree with the whole decode.
pub fn chunk_decompress(data: &[u8]) {
    check_chunk(&dparams(), data, hash(data));
}

/// How `chunk_roundtrip` makes its data from the pattern.
#[derive(Arbitrary, Debug)]
pub enum Fill {
    /// The pattern as it is.
    Raw,
    /// The pattern repeated to `len` bytes.
    Repeat,
    /// Runs: pattern bytes each repeated `k + 1` times.
    Runs(u8),
    /// Items of `typesize` bytes counting up from the pattern (good for delta and shuffles).
    Ramp,
    /// All zeros.
    Zeros,
}

/// The input of `chunk_roundtrip` (derived with `arbitrary`).
#[derive(Arbitrary, Debug)]
pub struct RoundtripInput {
    codec: u8,
    clevel: u8,
    typesize: u16,
    blocksize: u32,
    splitmode: u8,
    filters: [u8; 6],
    filters_meta: [u8; 6],
    use_dict: bool,
    basic_header: bool,
    schunk_typesize: Option<u8>,
    vl: bool,
    small_dst: bool,
    len: u16,
    fill: Fill,
    pattern: Vec<u8>,
}

/// Map a byte to a filter id, mostly the defined ones.
fn filter(b: u8) -> u8 {
    const IDS: [u8; 10] = [
        filter_id::NOFILTER,
        filter_id::SHUFFLE,
        filter_id::BITSHUFFLE,
        filter_id::DELTA,
        filter_id::TRUNC_PREC,
        filter_id::BYTEDELTA_BUGGY,
        filter_id::BYTEDELTA,
        filter_id::INT_TRUNC,
        filter_id::NOFILTER,
        filter_id::NOFILTER,
    ];
    if b >= 250 {
        b // anything, mostly invalid
    } else {
        IDS[b as usize % IDS.len()]
    }
}

fn roundtrip_data(inp: &RoundtripInput, typesize: usize) -> Vec<u8> {
    let len = inp.len as usize * 4;
    let p = &inp.pattern;
    match inp.fill {
        Fill::Raw => p.clone(),
        Fill::Zeros => vec![0; len],
        _ if p.is_empty() => vec![0; len],
        Fill::Repeat => p.iter().copied().cycle().take(len).collect(),
        Fill::Runs(k) => p
            .iter()
            .flat_map(|&b| std::iter::repeat_n(b, k as usize + 1))
            .cycle()
            .take(len)
            .collect(),
        Fill::Ramp => {
            let mut v = Vec::with_capacity(len + typesize);
            let mut i: u64 = p
                .iter()
                .fold(0, |a, &b| a.wrapping_mul(31).wrapping_add(b as u64));
            while v.len() < len {
                let bytes = i.to_le_bytes();
                v.extend((0..typesize).map(|k| bytes.get(k).copied().unwrap_or(0)));
                i = i.wrapping_add(1 + p[0] as u64 % 3);
            }
            v.truncate(len);
            v
        }
    }
}

/// `chunk_roundtrip`: compress arbitrary data with arbitrary parameters (codec, level,
/// typesize, block size, split mode, filter pipeline and metas, dictionary, Blosc1 header),
/// then decode: lossless pipelines must give the data back, through decompress and getitem
/// alike. VL-block chunks likewise.
pub fn chunk_roundtrip(inp: &RoundtripInput) {
    let codec = match inp.codec % 8 {
        0 => 0,
        1 | 7 => 1,
        2 => 2,
        3 => 4,
        4 | 6 => 5,
        _ => inp.codec, // anything
    };
    let typesize = match inp.typesize % 16 {
        0 => inp.typesize as i32, // anything, up to 65535
        t if t <= 8 => t as i32,
        t => 1 << (t - 8),
    };
    #[allow(clippy::manual_is_multiple_of)] // is_multiple_of is newer than the MSRV (1.82)
    let blocksize = if inp.blocksize % 3 == 0 {
        0
    } else {
        (inp.blocksize % (1 << 17)) as i32
    };
    // the high bit of the split-mode byte (which only its value mod 5 names) asks for two
    // threads, compressing and decompressing
    let threads: i16 = if inp.splitmode >= 128 { 2 } else { 1 };
    let mut cp = CParams {
        compcode: codec,
        clevel: if inp.clevel >= 200 {
            inp.clevel
        } else {
            inp.clevel % 10
        },
        typesize,
        nthreads: threads,
        blocksize,
        splitmode: SplitMode::from_i32(inp.splitmode as i32 % 5),
        use_dict: inp.use_dict,
        basic_header: inp.basic_header,
        schunk_typesize: inp.schunk_typesize.map(i32::from),
        ..Default::default()
    };
    for k in 0..6 {
        cp.filters[k] = filter(inp.filters[k]);
        cp.filters_meta[k] = inp.filters_meta[k];
    }
    // lossy filters, and the legacy bytedelta (34), which leaves the bytes after the last
    // whole plane undefined (FILTERS.md §7)
    let lossy = cp.filters.iter().any(|&f| {
        f == filter_id::TRUNC_PREC
            || f == filter_id::INT_TRUNC
            || (f >= filter_id::LAST_FILTER && f != filter_id::BYTEDELTA)
    });
    let src = roundtrip_data(inp, typesize.clamp(1, 64) as usize);
    // the decoder sees the same super-chunk typesize (bytedelta with meta 0 needs it)
    let dp = b2rs::DParams {
        schunk_typesize: cp.schunk_typesize,
        nthreads: threads,
        ..dparams()
    };

    if inp.vl {
        // a VL-block chunk of up to four blocks cut from the data
        let cut = |k: usize| (inp.filters_meta[k] as usize * src.len() / 255).min(src.len());
        let mut idx = [0, cut(0), cut(1), cut(2), src.len()];
        idx.sort_unstable();
        let blocks: Vec<&[u8]> = idx.windows(2).map(|w| &src[w[0]..w[1]]).collect();
        let mut dst = vec![0u8; src.len() + 64 * (blocks.len() + 2)];
        if let Ok(n) = chunk::vlcompress(&cp, &blocks, &mut dst) {
            if n > 0 {
                let got = chunk::vldecompress(&dp, &dst[..n]);
                if !lossy {
                    let got = got.expect("a VL-block chunk we made must decode");
                    assert_eq!(got.len(), blocks.len());
                    for (g, b) in got.iter().zip(&blocks) {
                        assert_eq!(g.as_slice(), *b, "VL-block round trip");
                    }
                }
                check_chunk(&dp, &dst[..n], hash(&src));
            }
        }
        return;
    }

    let cap = if inp.small_dst {
        src.len() / 2
    } else {
        src.len() + chunk::header::MAX_OVERHEAD
    };
    let mut dst = vec![0u8; cap];
    let r = chunk::compress(&cp, &src, &mut dst);
    if threads > 1 {
        // the parallel path writes the serial layout: the same result and bytes
        let mut one = vec![0u8; cap];
        let r1 = chunk::compress(
            &CParams {
                nthreads: 1,
                ..cp.clone()
            },
            &src,
            &mut one,
        );
        assert_eq!(r, r1, "1 and {threads} threads disagree: {cp:?}");
        if let Ok(n) = r {
            assert!(
                dst[..n] == one[..n],
                "1 and {threads} threads wrote different bytes: {cp:?}"
            );
        }
    }
    let Ok(n) = r else {
        return;
    };
    if n == 0 {
        assert!(
            inp.small_dst,
            "compress gave up with a big enough destination"
        );
        return;
    }
    let c = &dst[..n];
    let h = chunk::Header::parse(c).unwrap_or_else(|e| {
        panic!(
            "a chunk we made must parse ({e:?}): {cp:?}, header {:?}",
            &c[..c.len().min(32)]
        )
    });
    assert_eq!(h.nbytes as usize, src.len());
    assert_eq!(h.cbytes as usize, n);
    let mut out = vec![0u8; src.len()];
    let r = chunk::decompress(&dp, c, &mut out, None);
    if !lossy {
        let r = r.unwrap_or_else(|e| {
            panic!(
                "a chunk we made must decode ({e:?}): {cp:?}, {} bytes, header {:?}",
                src.len(),
                &c[..c.len().min(32)]
            )
        });
        assert_eq!(r, src.len());
        assert!(out == src, "round trip changed the data");
        let start = src.len() / 3;
        let len = src.len() / 3;
        let mut part = vec![0u8; len];
        let g = chunk::getitem(&dp, c, Span::Bytes { start, len }, &mut part)
            .expect("getitem of a chunk we made");
        assert_eq!(g, len);
        assert!(part == src[start..start + len], "getitem changed the data");
    }
    check_chunk(&dp, c, hash(c));
}

/// `frame_decode`: a contiguous frame (cframe) from untrusted bytes, opened from memory; every
/// chunk is fetched and decoded, then the frame is read again as a super-chunk.
pub fn frame_decode(data: &[u8]) {
    if let Ok(frame) = Frame::from_bytes(data.to_vec()) {
        check_frame(frame, hash(data));
    }
}

/// `sframe_decode`: a sparse frame directory from untrusted bytes (the index file
/// `chunks.b2frame` and the chunk files, see [`container`]), opened through an in-memory I/O
/// back-end; every chunk is fetched and decoded, then the frame is read again as a super-chunk.
pub fn sframe_decode(data: &[u8]) {
    let files = container::decode(data);
    if files.is_empty() {
        return;
    }
    let dir = Path::new("/sframe");
    let io = Arc::new(MemIo::sframe(dir, &files));
    if let Ok(frame) = Frame::open(Location::Dir(dir.to_path_buf()), io) {
        check_frame(frame, hash(data));
    }
}

/// `metalayers`: the frame header (fixed part and metalayers), the trailer (vlmetalayers,
/// `trailer_len`) and the offsets index chunk from untrusted bytes. What parses must encode and
/// parse back to the same; vlmetalayer contents are decoded as chunks.
pub fn metalayers(data: &[u8]) {
    let seed = hash(data);
    for sparse in [false, true] {
        if let Ok(h) = header::FixedHeader::parse(data, sparse) {
            if let Ok(metas) = header::parse_metalayers(data) {
                if header::check_metalayers(&metas).is_ok() {
                    if let Ok(enc) = h.encode(&metas) {
                        let again = header::parse_metalayers(&enc).expect("re-encoded header");
                        assert_eq!(again, metas, "metalayers do not survive a round trip");
                    }
                }
            }
        }
    }
    let _ = header::frame_len_of(data);
    if let Ok(metas) = header::parse_metalayers(data) {
        for m in &metas {
            let _ = header::check_name(&m.name);
        }
    }
    if data.len() >= 25 {
        let _ = trailer::trailer_len_of(&data[data.len() - 25..]);
    }
    if let Ok(vl) = trailer::parse_vlmetalayers(data) {
        if vl.len() <= b2rs::frame::MAX_VLMETALAYERS_WRITE
            && vl.iter().all(|m| header::check_name(&m.name).is_ok())
        {
            if let Ok(enc) = trailer::encode(&vl) {
                let again = trailer::parse_vlmetalayers(&enc).expect("re-encoded trailer");
                assert_eq!(again, vl, "vlmetalayers do not survive a round trip");
            }
        }
        let dp = dparams();
        for (i, m) in vl.iter().take(8).enumerate() {
            check_chunk(&dp, &m.content, seed ^ i as u64);
        }
    }
    if let Some((nbytes, _)) = index::sizes(data)
        .ok()
        .filter(|&(n, _)| n >= 0 && n as usize <= MAX_NBYTES)
    {
        let n = (nbytes / 8) as i64;
        if let Ok(offsets) = index::decode(data, n) {
            assert_eq!(offsets.len() as i64, n);
        }
        let _ = index::decode(data, n + 1);
    }
}

/// `b2nd_meta`: the `b2nd` (and legacy `caterva`) metalayer from untrusted bytes: deserialise,
/// validate the geometry, and what deserialises must serialise and deserialise back to the
/// same.
pub fn b2nd_meta(data: &[u8]) {
    let _ = Meta::deserialize_dims(data);
    let _ = Meta::from_metalayers(None, Some(data));
    let Ok((meta, used)) = Meta::deserialize(data) else {
        return;
    };
    assert!(used <= data.len());
    let _ = meta.dtype_str();
    if let Ok(g) = meta.geometry() {
        let _ = g.shape();
    }
    if let Ok(enc) = meta.serialize() {
        let (again, n) = Meta::deserialize(&enc).expect("a serialised meta must deserialise");
        assert_eq!(n, enc.len());
        assert_eq!(again.shape, meta.shape);
        assert_eq!(again.chunkshape, meta.chunkshape);
        assert_eq!(again.blockshape, meta.blockshape);
    }
    if let Ok(enc) = meta.serialize_caterva() {
        let (again, _) = Meta::deserialize(&enc).expect("a serialised caterva meta");
        assert_eq!(again.shape, meta.shape);
    }
}

/// `b2nd_array`: a b2nd array opened from an untrusted contiguous frame: the whole array (when
/// small), a slice derived from the input and a few items by flat index.
pub fn b2nd_array(data: &[u8]) {
    let seed = hash(data);
    let Ok(mut a) = Array::from_cframe(data.to_vec()) else {
        return;
    };
    if !a.chunk_nbytes().is_ok_and(|n| n <= MAX_NBYTES) {
        return;
    }
    let _ = a.meta();
    let _ = a.dtype();
    let shape = a.shape().to_vec();
    let itemsize = a.itemsize();
    if a.nbytes().is_ok_and(|n| n <= MAX_NBYTES) {
        let _ = a.to_vec();
    }
    // the slice [start, stop), derived from the seed in every dimension
    let mut start = Vec::new();
    let mut stop = Vec::new();
    for (k, &s) in shape.iter().enumerate() {
        let r = seed.rotate_left(7 * k as u32);
        let s = s.max(0) as u64;
        let a0 = r % (s + 1);
        let b0 = a0 + (r >> 32) % (s - a0 + 1);
        start.push(a0 as i64);
        stop.push(b0 as i64);
    }
    let bufshape: Vec<i64> = start.iter().zip(&stop).map(|(a, b)| b - a).collect();
    let n = bufshape
        .iter()
        .try_fold(itemsize, |acc, &d| acc.checked_mul(d as usize));
    if let Some(n) = n.filter(|&n| n <= MAX_NBYTES) {
        let mut buf = vec![0u8; n];
        let _ = a.get_slice_cbuffer(&start, &stop, &mut buf, &bufshape);
    }
    // a few single items by flat index
    let nitems = shape
        .iter()
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
        .unwrap_or(0);
    if nitems > 0 && itemsize <= MAX_NBYTES / 4 {
        let flat: Vec<i64> = (0..3)
            .map(|k| ((seed >> (k * 16)) % nitems as u64) as i64)
            .collect();
        let mut buf = vec![0u8; itemsize * flat.len()];
        let _ = a.get_sparse_cbuffer(&flat, &mut buf);
    }
}

/// `bloscpack`: a Bloscpack file from untrusted bytes: the header alone, whole unpacking,
/// random access to every chunk through the offsets table, sequential reading.
pub fn bloscpack(data: &[u8]) {
    let Ok(h) = PackHeader::decode(data) else {
        let _ = Reader::new(Cursor::new(data));
        return;
    };
    let _ = h.nbytes();
    if h.validate().is_ok() {
        if let Ok(enc) = h.encode() {
            assert_eq!(PackHeader::decode(&enc).ok(), Some(h), "header round trip");
        }
    }
    // decompression bombs are legitimate: keep the chunks small enough to allocate
    if h.max_chunk_nbytes().is_none_or(|n| n > MAX_NBYTES) {
        return;
    }
    let _ = bloscpack::unpack(data);
    let Ok(mut r) = Reader::new(Cursor::new(data)) else {
        return;
    };
    let _ = r.metadata();
    let n = r.offsets().len().min(MAX_CHUNKS as usize);
    for i in (0..n as u64).rev() {
        let _ = r.read_chunk(i);
    }
    let _ = r.read_chunk(n as u64);
    if r.rewind().is_ok() {
        let mut out = Vec::new();
        let mut k = 0;
        while k < MAX_CHUNKS && matches!(r.read_next_chunk_into(&mut out), Ok(true)) {
            k += 1;
        }
    }
}
