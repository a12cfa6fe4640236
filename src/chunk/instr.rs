//! Instrumented chunks (`cparams.instr_codec`, blosc2_flags bit 0x80), as C-Blosc2 writes them.
//!
//! Such a chunk measures the codec instead of storing the data: every stream a regular chunk
//! would hold (a block is split in `typesize` streams unless splitting is off or it is the
//! leftover block) is replaced by the stream length 16 and one 16-byte record
//!
//! ```text
//! f32 cratio        stream bytes / what the stream takes in a regular chunk, its 4-byte
//!                   length included (a zero run 4, another run 5, a stored stream n + 4)
//! f32 cspeed        stream bytes per second spent on run detection and compression
//! f32 filter_speed  stream bytes per second spent on the block's filter pipeline
//! u8  flags[4]      flags[0] = 1 for a run, the others 0
//! ```
//!
//! The header's `nbytes` and `blocksize` describe the records (16 bytes times the number of
//! streams, and times the streams of a full block), so that decompression, which runs no
//! filter on such a chunk, returns the records back to back. A chunk memcpyed up front
//! (`clevel` 0, tiny input) keeps the data but gets the same `nbytes`, `blocksize` and flag
//! (C-Blosc2 then refuses to decompress it: `cbytes` is not `nbytes` plus the header).
//!
//! Dictionaries are not used: C-Blosc2 trains one on the records themselves (timings) and
//! writes a header without the instrumentation flag, a chunk that decodes to garbage.

use super::header::{blosc2_flags, flags, EXTENDED_HEADER_LENGTH, MIN_BUFFERSIZE};
use super::pipeline::{self, PipelineInfo};
use super::plan::{run_value, write_memcpyed, Plan};
use super::worker::with_worker;
use crate::codecs::StreamInfo;
use crate::error::Result;
use crate::params::CParams;
use std::time::{Duration, Instant};

/// The size of one record (`blosc2_instr`).
pub const RECORD_LEN: usize = 16;

/// One measurement record.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::instr::{Record, RECORD_LEN};
///
/// let r = Record { cratio: 4.0, cspeed: 1e9, filter_speed: 2e9, special: false };
/// assert_eq!(r.to_bytes().len(), RECORD_LEN);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Record {
    /// Stream bytes over the bytes the stream takes in a regular chunk (length included).
    pub cratio: f32,
    /// Compression speed in bytes per second.
    pub cspeed: f32,
    /// Filter speed in bytes per second.
    pub filter_speed: f32,
    /// `flags[0]`: the stream is a run.
    pub special: bool,
}

impl Record {
    /// The 16 bytes of `blosc2_instr`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::chunk::instr::Record;
    ///
    /// let r = Record { cratio: 2.0, cspeed: 1.0, filter_speed: 4.0, special: true };
    /// let b = r.to_bytes();
    /// assert_eq!(b[..4], 2.0f32.to_le_bytes());
    /// assert_eq!(b[12..], [1, 0, 0, 0]);
    /// ```
    pub fn to_bytes(&self) -> [u8; RECORD_LEN] {
        let mut b = [0u8; RECORD_LEN];
        b[0..4].copy_from_slice(&self.cratio.to_le_bytes());
        b[4..8].copy_from_slice(&self.cspeed.to_le_bytes());
        b[8..12].copy_from_slice(&self.filter_speed.to_le_bytes());
        b[12] = self.special as u8;
        b
    }
}

/// Bytes per second; a duration below the clock's resolution counts as one nanosecond.
fn speed(bytes: usize, d: Duration) -> f32 {
    (bytes as f64 / d.as_secs_f64().max(1e-9)) as f32
}

/// The header's `nbytes` and `blocksize` for the records of `plan`'s blocks, split in
/// streams when `split` (C-Blosc2 reads it from the flags written: a chunk memcpyed up front
/// counts as split whatever the plan).
fn record_sizes(plan: &Plan, split: bool) -> (i32, i32) {
    let per_block = if split { plan.typesize.max(1) } else { 1 };
    let leftover = plan.nblocks > 0 && plan.bsize(plan.nblocks - 1) != plan.blocksize;
    let streams = if leftover {
        (plan.nblocks - 1) * per_block + 1
    } else {
        plan.nblocks * per_block
    };
    (
        (streams * RECORD_LEN) as i32,
        (per_block * RECORD_LEN) as i32,
    )
}

/// A memcpyed chunk of `data` with the instrumentation header fields.
fn memcpyed(plan: &Plan, data: &[u8], dst: &mut [u8], upfront: bool, nth: usize) -> Result<usize> {
    let n = write_memcpyed(plan, data, dst, upfront, nth)?;
    if n > 0 {
        let split = dst[2] & flags::DONT_SPLIT == 0;
        let (nbytes, blocksize) = record_sizes(plan, split);
        dst[4..8].copy_from_slice(&nbytes.to_le_bytes());
        dst[8..12].copy_from_slice(&blocksize.to_le_bytes());
        dst[EXTENDED_HEADER_LENGTH - 1] |= blosc2_flags::INSTR_CODEC;
    }
    Ok(n)
}

/// Write the instrumented chunk of `data` (already prefiltered) laid out by `plan`; 0 if it
/// does not fit in `dst` (not even memcpyed).
pub(super) fn compress(
    params: &CParams,
    plan: &Plan,
    data: &[u8],
    dst: &mut [u8],
    nthreads: usize,
) -> Result<usize> {
    let hl = plan.hl;
    let bstarts_end = hl + 4 * plan.nblocks;
    if params.clevel == 0 || data.len() < MIN_BUFFERSIZE || bstarts_end > dst.len() {
        return memcpyed(plan, data, dst, true, nthreads);
    }
    let (nbytes, blocksize) = record_sizes(plan, plan.split);
    let total = bstarts_end + nbytes as usize / RECORD_LEN * (4 + RECORD_LEN);
    if total > dst.len() {
        // C-Blosc2 writes past the destination here.
        return memcpyed(plan, data, dst, false, nthreads);
    }
    let mut header = plan.header;
    header.blosc2_flags |= blosc2_flags::INSTR_CODEC;
    let mut hdr_bytes = [0u8; EXTENDED_HEADER_LENGTH];
    header.write(&mut hdr_bytes[..hl]);
    let hdr_bytes = &hdr_bytes[..hl];
    let stream = StreamInfo {
        meta: 0,
        chunk: hdr_bytes,
        cparams: Some(params),
        dparams: None,
    };
    let pinfo = PipelineInfo {
        filters: &params.filters,
        filters_meta: &params.filters_meta,
        typesize: plan.typesize,
        version: super::header::VERSION_FORMAT_STABLE,
        stream,
    };
    let codec_info = StreamInfo {
        meta: params.compcode_meta,
        ..stream
    };
    let mut pos = bstarts_end;
    with_worker(|w| -> Result<()> {
        for j in 0..plan.nblocks {
            let bsize = plan.bsize(j);
            let off = j * plan.blocksize;
            let (codec, a, b, c) = w.buffers(plan.blocksize);
            let t0 = Instant::now();
            let filtered = pipeline::forward(
                &pinfo,
                data,
                off,
                &data[off..off + bsize],
                &mut a[..bsize],
                &mut b[..bsize],
            )?;
            let filter_time = t0.elapsed();
            dst[hl + 4 * j..hl + 4 * j + 4].copy_from_slice(&(pos as i32).to_le_bytes());
            let nstreams = plan.nstreams(j);
            let neblock = bsize / nstreams;
            for s in 0..nstreams {
                let t1 = Instant::now();
                let piece = &filtered[s * neblock..(s + 1) * neblock];
                let (stored, special) = match run_value(piece) {
                    Some(0) => (0, true),
                    Some(_) => (1, true),
                    None => {
                        let n = codec.compress(
                            params.compcode,
                            params.clevel,
                            piece,
                            &mut c[..neblock],
                            None,
                            codec_info,
                        )?;
                        (if n == 0 || n >= neblock { neblock } else { n }, false)
                    }
                };
                let record = Record {
                    cratio: neblock as f32 / (stored + 4) as f32,
                    cspeed: speed(neblock, t1.elapsed()),
                    filter_speed: speed(neblock, filter_time),
                    special,
                };
                dst[pos..pos + 4].copy_from_slice(&(RECORD_LEN as i32).to_le_bytes());
                dst[pos + 4..pos + 4 + RECORD_LEN].copy_from_slice(&record.to_bytes());
                pos += 4 + RECORD_LEN;
            }
        }
        Ok(())
    })?;
    debug_assert_eq!(pos, total);
    header.nbytes = nbytes;
    header.blocksize = blocksize;
    header.cbytes = pos as i32;
    header.write(&mut dst[..hl]);
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::{speed, RECORD_LEN};
    use crate::chunk::{self, Header};
    use crate::params::{filter_id, CParams, DParams};
    use std::time::Duration;

    #[test]
    fn speeds_are_finite() {
        assert!(speed(100, Duration::ZERO).is_finite());
        assert_eq!(speed(1000, Duration::from_secs(1)), 1000.0);
    }

    /// 100 000 floats 0..99999, BloscLZ 5, shuffle: 2 blocks (4 streams and a leftover one).
    #[test]
    fn records_replace_the_streams() {
        let src: Vec<u8> = (0..100_000u32)
            .flat_map(|i| (i as f32).to_le_bytes())
            .collect();
        let mut filters = [0u8; 6];
        filters[5] = filter_id::SHUFFLE;
        let p = CParams {
            compcode: 0,
            clevel: 5,
            typesize: 4,
            filters,
            instr_codec: true,
            ..CParams::default()
        };
        let mut dst = vec![0u8; src.len() + 32];
        let n = chunk::compress(&p, &src, &mut dst).unwrap();
        assert_eq!(n, 140);
        let h = Header::parse(&dst[..n]).unwrap();
        assert_eq!((h.nbytes, h.blocksize, h.blosc2_flags), (80, 64, 0x80));
        let mut out = vec![0xffu8; src.len()];
        let d = chunk::decompress(&DParams::default(), &dst[..n], &mut out, None).unwrap();
        assert_eq!(d, 5 * RECORD_LEN);
        let cratio = |k: usize| f32::from_le_bytes(out[16 * k..16 * k + 4].try_into().unwrap());
        assert_eq!(cratio(0), 16384.0);
        assert_eq!(out[12], 1);
        assert_eq!(out[16 + 12], 0);
        assert!(out[80..].iter().all(|&b| b == 0xff));
    }
}
