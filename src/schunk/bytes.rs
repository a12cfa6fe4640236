//! How a super-chunk holds its chunks in memory: the [`ChunkBytes`] a stored chunk is, what can
//! be stored ([`IntoChunk`]), and the stamped list of an in-memory super-chunk's chunks.

use super::*;

/// The bytes of one stored chunk. Implemented for `Vec<u8>`, `Box<[u8]>` and `Arc<[u8]>`; the
/// C layer implements it for buffers taken over from C callers, so that they are released with
/// the allocator they came from. Only the first `cbytes` bytes (from the chunk header) are used.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::schunk::ChunkBytes;
///
/// let v: Vec<u8> = vec![1, 2, 3];
/// let a: Arc<[u8]> = Arc::from(&[4u8, 5][..]);
/// let stored: Vec<Box<dyn ChunkBytes>> = vec![Box::new(v), Box::new(a)];
/// assert_eq!(stored[0].bytes(), [1, 2, 3]);
/// assert_eq!(stored[1].bytes(), [4, 5]);
/// ```
pub trait ChunkBytes: Send + Sync {
    /// The buffer holding the chunk (at least `cbytes` long).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::ChunkBytes;
    ///
    /// let b: Box<[u8]> = vec![7u8; 4].into_boxed_slice();
    /// assert_eq!(ChunkBytes::bytes(&b), [7, 7, 7, 7]);
    /// ```
    fn bytes(&self) -> &[u8];

    /// This storage as a shared buffer when it is one already (a chunk stored by
    /// [`Schunk::chunk_to_share`]), so that sharing it again does not wrap it once more.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::ChunkBytes;
    /// use std::sync::Arc;
    ///
    /// let v: Vec<u8> = vec![1, 2, 3];
    /// assert!(v.shared().is_none());
    /// let a: Arc<dyn ChunkBytes> = Arc::new(v);
    /// assert_eq!(a.shared().unwrap().bytes(), [1, 2, 3]);
    /// ```
    fn shared(&self) -> Option<Arc<dyn ChunkBytes>> {
        None
    }
}

impl ChunkBytes for Arc<dyn ChunkBytes> {
    fn bytes(&self) -> &[u8] {
        (**self).bytes()
    }
    fn shared(&self) -> Option<Arc<dyn ChunkBytes>> {
        Some(self.clone())
    }
}

impl IntoChunk for Arc<dyn ChunkBytes> {
    fn bytes(&self) -> &[u8] {
        (**self).bytes()
    }
    fn into_stored(self) -> Box<dyn ChunkBytes> {
        Box::new(self)
    }
}

impl ChunkBytes for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl ChunkBytes for Box<[u8]> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl ChunkBytes for Arc<[u8]> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

/// A chunk handed to a super-chunk. Its bytes are validated first, and only when the chunk is
/// accepted is its storage taken over with [`IntoChunk::into_stored`], so that a rejected chunk
/// stays with the caller.
///
/// # Examples
///
/// ```
/// use b2rs::schunk::{IntoChunk, Schunk};
/// use b2rs::{chunk, CParams, DParams};
///
/// let cparams = CParams { typesize: 1, ..CParams::default() };
/// let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &[5u8; 1000], &mut buf).unwrap();
/// let mut sc = Schunk::new(cparams, DParams::default());
/// // a borrowed slice is copied when stored, a Vec is taken over
/// sc.append_chunk(&buf[..n]).unwrap();
/// buf.truncate(n);
/// sc.append_chunk(buf).unwrap();
/// assert_eq!(sc.nbytes(), 2000);
/// ```
pub trait IntoChunk {
    /// The chunk bytes (at least the `cbytes` of its header).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::IntoChunk;
    ///
    /// let chunk: &[u8] = &[1, 2, 3];
    /// assert_eq!(IntoChunk::bytes(&chunk), [1, 2, 3]);
    /// ```
    fn bytes(&self) -> &[u8];
    /// Take the storage over (the super-chunk keeps it, or drops it once copied elsewhere).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::IntoChunk;
    ///
    /// let stored = vec![9u8, 8, 7].into_stored();
    /// assert_eq!(stored.bytes(), [9, 8, 7]);
    /// ```
    fn into_stored(self) -> Box<dyn ChunkBytes>;
}

impl IntoChunk for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn into_stored(self) -> Box<dyn ChunkBytes> {
        Box::new(self)
    }
}

/// A chunk either borrowed (copied when stored) or owned (stored as it is).
///
/// # Examples
///
/// ```
/// use b2rs::schunk::{IntoChunk, Schunk};
/// use b2rs::{chunk, CParams, DParams};
/// use std::borrow::Cow;
///
/// let mut c = vec![0u8; 100 + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&CParams::default(), &[5u8; 100], &mut c).unwrap();
/// c.truncate(n);
/// let mut sc = Schunk::new(CParams::default(), DParams::default());
/// sc.append_chunk(Cow::Borrowed(&c[..])).unwrap();
/// assert_eq!(sc.append_chunk(Cow::<[u8]>::Owned(c)).unwrap(), 2);
/// ```
impl IntoChunk for std::borrow::Cow<'_, [u8]> {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn into_stored(self) -> Box<dyn ChunkBytes> {
        match self {
            std::borrow::Cow::Owned(v) => Box::new(v),
            std::borrow::Cow::Borrowed(b) => Box::new(b.to_vec()),
        }
    }
}

impl IntoChunk for &[u8] {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn into_stored(self) -> Box<dyn ChunkBytes> {
        Box::new(self.to_vec())
    }
}

/// One chunk held in memory, with the sizes read from its header.
pub(super) struct Stored {
    pub(super) buf: Box<dyn ChunkBytes>,
    pub(super) nbytes: i32,
    pub(super) cbytes: i32,
    /// Where `buf`'s bytes start (read without a call through `buf`: the C layer mirrors the
    /// addresses of all chunks after each change).
    pub(super) addr: usize,
}

impl Stored {
    pub(super) fn new(buf: Box<dyn ChunkBytes>, nbytes: i32, cbytes: i32) -> Stored {
        let addr = buf.bytes().as_ptr() as usize;
        Stored {
            buf,
            nbytes,
            cbytes,
            addr,
        }
    }

    pub(super) fn bytes(&self) -> &[u8] {
        &self.buf.bytes()[..self.cbytes as usize]
    }
}

/// The chunks of an in-memory super-chunk, with a stamp that changes whenever they may have
/// changed: every mutable access takes a new value from a process-wide counter, so two equal
/// stamps mean the same chunks in the same buffers (a C mirror of the chunk pointers is then
/// up to date without a pass over them).
pub(super) struct Chunks {
    pub(super) v: Vec<Stored>,
    pub(super) stamp: u64,
}

/// The source of [`Chunks`] stamps.
static CHUNK_STAMPS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub(super) fn new_stamp() -> u64 {
    CHUNK_STAMPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Chunks {
    pub(super) fn new() -> Chunks {
        Chunks {
            v: Vec::new(),
            stamp: new_stamp(),
        }
    }
}

impl std::ops::Deref for Chunks {
    type Target = Vec<Stored>;
    fn deref(&self) -> &Vec<Stored> {
        &self.v
    }
}

impl std::ops::DerefMut for Chunks {
    fn deref_mut(&mut self) -> &mut Vec<Stored> {
        self.stamp = new_stamp();
        &mut self.v
    }
}

/// A special chunk shared by many positions of a super-chunk.
pub(super) struct SharedChunk(pub(super) Arc<[u8]>);

impl IntoChunk for SharedChunk {
    fn bytes(&self) -> &[u8] {
        &self.0
    }
    fn into_stored(self) -> Box<dyn ChunkBytes> {
        Box::new(self.0)
    }
}
