//! The byte layout of a sparse frame directory in one fuzz input: a list of files, each as a
//! little-endian `u32` length followed by that many bytes. File 0 is the index file
//! `chunks.b2frame`, file `k + 1` is the chunk file number `k` (`%08X.chunk`). A length past
//! the end of the input takes what is left.

/// Split `data` into its files.
pub fn decode(mut data: &[u8]) -> Vec<&[u8]> {
    let mut files = Vec::new();
    while data.len() >= 4 {
        let n = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) as usize;
        let rest = &data[4..];
        let n = n.min(rest.len());
        files.push(&rest[..n]);
        data = &rest[n..];
    }
    files
}

/// Join `files` into one input.
pub fn encode(files: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in files {
        out.extend_from_slice(&(f.len() as u32).to_le_bytes());
        out.extend_from_slice(f);
    }
    out
}
