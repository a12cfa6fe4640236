//! Writing VL-block chunks (CHUNK.md §7): blocks of any length, one stream each, with an
//! optional dictionary trained on the blocks.

use super::*;

/// The dictionary of a VL-block chunk: each block is one sample.
pub(super) fn train_vl_dict(
    params: &CParams,
    blocks: &[&[u8]],
    filtered: &[u8],
) -> Option<Vec<u8>> {
    if params.clevel == 0 {
        return None;
    }
    let dict_maxsize = MAX_DICT_SIZE.min(filtered.len() / 20);
    if dict_maxsize < MIN_USEFUL_DICT {
        return None;
    }
    match params.compcode {
        codecs::ZSTD => {
            let sizes: Vec<usize> = blocks.iter().map(|b| b.len()).collect();
            codecs::zstd::train(filtered, &sizes, dict_maxsize).filter(|d| !d.is_empty())
        }
        _ => Some(filtered[..dict_maxsize.min(filtered.len())].to_vec()),
    }
}

/// Compress variable-length blocks into one VL-block chunk (CHUNK.md §7).
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams, DParams};
///
/// let blocks: [&[u8]; 3] = [b"short", &[7u8; 3000], b"a third block"];
/// let mut buf = vec![0u8; 4096];
/// let n = chunk::vlcompress(&CParams { typesize: 1, ..CParams::default() }, &blocks, &mut buf).unwrap();
/// let header = chunk::Header::parse(&buf[..n]).unwrap();
/// assert!(header.is_vlblocks());
/// assert_eq!(header.nblocks(), 3);
/// let back = chunk::vldecompress(&DParams::default(), &buf[..n]).unwrap();
/// assert_eq!(back, blocks);
/// ```
pub fn vlcompress(params: &CParams, blocks: &[&[u8]], dst: &mut [u8]) -> Result<usize> {
    check_cparams(params)?;
    if blocks.is_empty() {
        crate::trace_error!("At least one block is needed");
        return Err(Error::InvalidParam);
    }
    let nbytes: usize = blocks.iter().map(|b| b.len()).sum();
    if nbytes > MAX_BUFFERSIZE as usize {
        return Err(Error::MaxBufsizeExceeded);
    }
    if dst.len() < EXTENDED_HEADER_LENGTH {
        crate::trace_error!(
            "Output buffer size should be larger than {} bytes",
            EXTENDED_HEADER_LENGTH
        );
        return Err(Error::MaxBufsizeExceeded);
    }
    if blocks.iter().any(|b| b.is_empty()) {
        crate::trace_error!("VL blocks cannot be empty");
        return Err(Error::InvalidParam);
    }
    let nblocks = blocks.len();
    let typesize_stored: u8 = if params.typesize > 255 {
        1
    } else {
        params.typesize as u8
    };
    let mut fl = flags::DOSHUFFLE
        | flags::DOBITSHUFFLE
        | flags::DONT_SPLIT
        | (codecs::format_of(params.compcode) << 5);
    if params.filters.contains(&filter_id::DELTA) {
        fl |= flags::DODELTA;
    }
    let mut header = Header {
        version: VERSION_FORMAT_VL_BLOCKS,
        versionlz: 1,
        flags: fl,
        typesize: typesize_stored,
        nbytes: nbytes as i32,
        blocksize: nblocks as i32,
        cbytes: 0,
        extended: true,
        filters: params.filters,
        udcompcode: params.compcode,
        compcode_meta: params.compcode_meta,
        filters_meta: params.filters_meta,
        blosc2_flags2: 0x01,
        blosc2_flags: 0,
    };
    let mut pos = EXTENDED_HEADER_LENGTH + 4 * nblocks;
    if dst.len() < pos {
        return Ok(0);
    }
    let mut hdr_bytes = [0u8; EXTENDED_HEADER_LENGTH];
    header.write(&mut hdr_bytes);
    let pinfo = PipelineInfo {
        filters: &params.filters,
        filters_meta: &params.filters_meta,
        typesize: typesize_stored as usize,
        version: VERSION_FORMAT_VL_BLOCKS,
        stream: StreamInfo {
            meta: 0,
            chunk: &hdr_bytes,
            cparams: Some(params),
            dparams: None,
        },
    };
    let maxlen = blocks.iter().map(|b| b.len()).max().unwrap_or(0);
    // Filter every block first (each block is its own delta reference).
    let mut filtered: Vec<u8> = Vec::with_capacity(nbytes);
    with_worker(|w| -> Result<()> {
        for block in blocks {
            let (_, a, b, _) = w.buffers(maxlen);
            let len = block.len();
            let f = pipeline::forward(&pinfo, block, 0, block, &mut a[..len], &mut b[..len])?;
            filtered.extend_from_slice(f);
        }
        Ok(())
    })?;
    // VL blocks are the dictionary samples (as many as there are blocks, at least 8).
    let dict_bytes = if params.use_dict && !params.basic_header && nblocks >= 8 {
        train_vl_dict(params, blocks, &filtered)
    } else {
        None
    };
    let cdict = match (&dict_bytes, params.compcode) {
        (Some(d), codecs::ZSTD) => Some(CDict::Zstd(codecs::zstd::cdict(d))),
        (Some(d), _) => Some(CDict::Lz4(d.as_slice())),
        (None, _) => None,
    };
    if let Some(d) = &dict_bytes {
        header.blosc2_flags |= blosc2_flags::USEDICT;
        header.write(&mut hdr_bytes);
        if dst.len() < pos + 4 + d.len() {
            return Ok(0);
        }
        dst[pos..pos + 4].copy_from_slice(&(d.len() as i32).to_le_bytes());
        dst[pos + 4..pos + 4 + d.len()].copy_from_slice(d);
        pos += 4 + d.len();
    }
    let ok = with_worker(|w| -> Result<bool> {
        let mut off = 0usize;
        for (j, block) in blocks.iter().enumerate() {
            let len = block.len();
            let filtered = &filtered[off..off + len];
            off += len;
            if dst.len() < pos + 4 {
                return Ok(false);
            }
            dst[EXTENDED_HEADER_LENGTH + 4 * j..EXTENDED_HEADER_LENGTH + 4 * j + 4]
                .copy_from_slice(&(pos as i32).to_le_bytes());
            dst[pos..pos + 4].copy_from_slice(&(len as i32).to_le_bytes());
            pos += 4;
            let maxout = len.min(dst.len() - pos);
            let n = if params.clevel == 0 || maxout == 0 {
                0
            } else {
                w.codec.compress(
                    params.compcode,
                    params.clevel,
                    filtered,
                    &mut dst[pos..pos + maxout],
                    cdict.as_ref(),
                    StreamInfo {
                        meta: params.compcode_meta,
                        chunk: &hdr_bytes,
                        cparams: Some(params),
                        dparams: None,
                    },
                )?
            };
            if n == 0 || n >= len {
                if dst.len() < pos + len {
                    return Ok(false);
                }
                dst[pos..pos + len].copy_from_slice(filtered);
                pos += len;
            } else {
                pos += n;
            }
        }
        Ok(true)
    })?;
    if !ok {
        return Ok(0);
    }
    header.cbytes = pos as i32;
    header.write(&mut dst[..EXTENDED_HEADER_LENGTH]);
    Ok(pos)
}
