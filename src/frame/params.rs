//! What describes a frame apart from its chunks: its parameters (the header's coding fields),
//! its fixed-size metalayers, and where it lives.

use super::*;

/// Super-chunk parameters recorded in a frame header (FRAME.md §2).
///
/// # Examples
///
/// ```
/// use b2rs::frame::FrameParams;
/// use b2rs::{codecs, CParams};
///
/// let p = FrameParams { compcode: codecs::ZSTD, clevel: 9, typesize: 4, ..FrameParams::default() };
/// let c = p.to_cparams();
/// assert_eq!((c.compcode, c.clevel, c.typesize), (codecs::ZSTD, 9, 4));
/// assert_eq!(FrameParams::default().to_cparams().filters, CParams::default().filters);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FrameParams {
    /// Real typesize, may exceed 255.
    pub typesize: i32,
    /// Block size parameter; 0 = automatic.
    pub blocksize: i32,
    /// Public codec id (0 blosclz, 1 lz4, 2 lz4hc, 4 zlib, 5 zstd, ≥ 32 plugin/user).
    pub compcode: u8,
    /// Codec parameter byte.
    pub compcode_meta: u8,
    /// Compression level.
    pub clevel: u8,
    /// Split mode.
    pub splitmode: SplitMode,
    /// Filter pipeline.
    pub filters: [u8; 6],
    /// Filter parameters.
    pub filters_meta: [u8; 6],
    /// Dictionaries in use.
    pub use_dict: bool,
    /// Compression threads (informational).
    pub nthreads_comp: i16,
    /// Decompression threads (informational).
    pub nthreads_decomp: i16,
}

impl Default for FrameParams {
    fn default() -> Self {
        FrameParams::from_cparams(&CParams::default(), 1)
    }
}

impl FrameParams {
    /// The frame parameters of a super-chunk compressing with `c`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::FrameParams;
    /// use b2rs::{codecs, CParams};
    ///
    /// let c = CParams { compcode: codecs::LZ4, typesize: 300, nthreads: 4, ..CParams::default() };
    /// let p = FrameParams::from_cparams(&c, 2);
    /// assert_eq!((p.compcode, p.typesize), (codecs::LZ4, 300));
    /// assert_eq!((p.nthreads_comp, p.nthreads_decomp), (4, 2));
    /// ```
    pub fn from_cparams(c: &CParams, nthreads_decomp: i16) -> FrameParams {
        FrameParams {
            typesize: c.typesize,
            blocksize: c.blocksize,
            compcode: c.compcode,
            compcode_meta: c.compcode_meta,
            clevel: c.clevel,
            splitmode: c.splitmode,
            filters: c.filters,
            filters_meta: c.filters_meta,
            use_dict: c.use_dict,
            nthreads_comp: c.nthreads,
            nthreads_decomp,
        }
    }

    /// Compression parameters matching the header (defaults for everything else).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::FrameParams;
    /// use b2rs::{codecs, CParams};
    ///
    /// let c = CParams { compcode: codecs::ZLIB, clevel: 2, typesize: 2, ..CParams::default() };
    /// let back = FrameParams::from_cparams(&c, 1).to_cparams();
    /// assert_eq!((back.compcode, back.clevel, back.typesize, back.filters), (c.compcode, c.clevel, c.typesize, c.filters));
    /// ```
    pub fn to_cparams(&self) -> CParams {
        CParams {
            typesize: self.typesize,
            blocksize: self.blocksize,
            compcode: self.compcode,
            compcode_meta: self.compcode_meta,
            clevel: self.clevel,
            splitmode: self.splitmode,
            filters: self.filters,
            filters_meta: self.filters_meta,
            use_dict: self.use_dict,
            nthreads: self.nthreads_comp.max(1),
            ..CParams::default()
        }
    }
}

/// A fixed-size metalayer (header) or a variable-length one (trailer; `content` is then the
/// *compressed* Blosc chunk exactly as stored).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location, Metalayer};
///
/// let mut frame = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
/// frame.add_metalayer("units", b"K").unwrap();
/// assert_eq!(frame.metalayers(), [Metalayer { name: "units".into(), content: b"K".to_vec() }]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metalayer {
    /// Name, 1 to 31 bytes.
    pub name: String,
    /// Content.
    pub content: Vec<u8>,
}

/// Where a frame lives.
///
/// # Examples
///
/// ```
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
/// use std::sync::Arc;
/// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
///
/// let dir = std::env::temp_dir().join(format!("b2rs-doc-{}.sparse", std::process::id()));
/// for loc in [Location::Memory, Location::File { path: path.clone(), offset: 0 }, Location::Dir(dir.clone())] {
///     let frame = Frame::create(loc.clone(), &FrameParams::default(), Arc::new(StdIo)).unwrap();
///     assert_eq!(frame.location(), loc);
///     assert_eq!(frame.is_sparse(), matches!(loc, Location::Dir(_)));
/// }
/// assert!(dir.join("chunks.b2frame").exists());
/// std::fs::remove_dir_all(&dir).unwrap();
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A contiguous frame held in a `Vec<u8>`.
    Memory,
    /// A contiguous frame in a file, starting at byte `offset` (0 usually).
    File {
        /// The file.
        path: PathBuf,
        /// Where the frame starts in the file.
        offset: u64,
    },
    /// A sparse frame directory (index `chunks.b2frame` + `NNNNNNNN.chunk` files).
    Dir(PathBuf),
}
