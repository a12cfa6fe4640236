//! Frames and arrays on object stores and HTTP servers: `s3://bucket/key`, `http://…` and
//! `https://…` opened like a file, reading only the bytes needed.
//!
//! [`RemoteIo`] is an [`Io`] back-end: a frame opened on it reads its header, trailer and index
//! through range requests, and its chunks when asked for; a sparse frame is a prefix holding
//! the index object `chunks.b2frame` and one object per chunk. One [`RemoteIo`] ([`shared`])
//! serves the whole process: one connection pool, one cache of ranges, any number
//! of threads.
//!
//! Writing goes to `s3://` (an HTTP server is read-only): an object opened for writing is
//! staged in a local temporary file and uploaded by [`Io::flush`] — a sparse frame's chunk
//! objects, then its index, at the end of every change (so a writer killed in the middle leaves
//! the previous state readable), a contiguous frame when it is flushed or dropped (multipart
//! past 16 MiB).
//!
//! # Examples
//!
//! ```no_run
//! use b2rs::frame::Frame;
//! use std::path::Path;
//!
//! let frame = Frame::open_path(Path::new("s3://bucket/run42.b2frame"), 0, b2rs::remote::shared())?;
//! println!("{} chunks", frame.nchunks());
//! # Ok::<(), b2rs::Error>(())
//! ```

mod cache;
pub mod client;
pub mod s3;
mod sigv4;
mod staging;
mod url;

pub use client::{Client, Fault, Stats};
pub use sigv4::Credentials;
pub use url::{is_url, Target};

use crate::error::{Error, Result};
use crate::frame::io::{Io, IoHandle, OpenMode};
use cache::{Cache, BLOCK};
use staging::Staging;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The remote back-end: a client, a cache of object sizes and blocks, and the staged writes.
///
/// # Examples
///
/// ```
/// use b2rs::remote::{Client, RemoteIo};
///
/// let io = RemoteIo::new(Client::from_env(), 4 << 20);
/// assert_eq!(io.stats().requests, 0);
/// ```
pub struct RemoteIo {
    client: Client,
    cache: Mutex<Cache>,
    staging: Mutex<Staging>,
}

/// Objects larger than this are uploaded in parts.
const MULTIPART_FROM: u64 = 16 << 20;
/// The size of an uploaded part (S3 wants at least 5 MiB but for the last).
const PART: u64 = 8 << 20;

/// The local files of staged objects are plain files.
static LOCAL: crate::frame::io::StdIo = crate::frame::io::StdIo;

/// The process's remote back-end (made at first use from the environment).
///
/// # Examples
///
/// ```
/// let a = b2rs::remote::shared();
/// let b = b2rs::remote::shared();
/// assert!(std::sync::Arc::ptr_eq(&a, &b));
/// ```
pub fn shared() -> Arc<RemoteIo> {
    static SHARED: OnceLock<Arc<RemoteIo>> = OnceLock::new();
    SHARED
        .get_or_init(|| Arc::new(RemoteIo::from_env()))
        .clone()
}

fn target_of(path: &Path) -> Result<Target> {
    let Some(s) = path.to_str() else {
        crate::trace_error!("The remote URL is not valid UTF-8");
        return Err(Error::InvalidParam);
    };
    Target::parse(s)
}

/// Report `fault` met on `url` while `doing` and map it to an error code. Messages name the
/// URL and the status, never a header (credentials stay out of traces).
fn failed(url: &str, doing: &str, fault: &Fault, code: Error) -> Error {
    crate::trace_error!("{}: {} failed: {}", url, doing, fault);
    code
}

impl RemoteIo {
    /// A back-end configured from the environment: [`Client::from_env`], and a cache of
    /// `B2RS_REMOTE_CACHE_MB` MiB (default 16).
    ///
    /// # Examples
    ///
    /// ```
    /// let io = b2rs::remote::RemoteIo::from_env();
    /// assert_eq!(io.stats().bytes, 0);
    /// ```
    pub fn from_env() -> RemoteIo {
        let mb = std::env::var("B2RS_REMOTE_CACHE_MB")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(16);
        RemoteIo::new(Client::from_env(), (mb * 1024 * 1024) as usize)
    }

    /// A back-end on `client` caching up to `cache_bytes` of remote ranges.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::remote::{Client, RemoteIo};
    ///
    /// let io = RemoteIo::new(Client::from_env(), 1 << 20);
    /// assert_eq!(io.stats().requests, 0);
    /// ```
    pub fn new(client: Client, cache_bytes: usize) -> RemoteIo {
        RemoteIo {
            client,
            cache: Mutex::new(Cache::new(cache_bytes / BLOCK as usize)),
            staging: Mutex::new(Staging::default()),
        }
    }

    /// Requests sent and bytes received so far.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(b2rs::remote::shared().stats().requests, 0);
    /// ```
    pub fn stats(&self) -> Stats {
        self.client.stats()
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn staging(&self) -> std::sync::MutexGuard<'_, Staging> {
        self.staging.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stage `t` for writing: a new empty local file (`create`), else a copy of the object
    /// (missing: an error unless `may_be_new`).
    fn stage(&self, t: &Target, url: &str, create: bool, may_be_new: bool) -> Result<PathBuf> {
        if !matches!(t, Target::S3 { .. }) {
            return Err(read_only(url));
        }
        if create {
            return self.staging().add(url);
        }
        let found = self.probe(t)?;
        if found.is_none() && !may_be_new {
            crate::trace_error!("{}: no such object (404)", url);
            return Err(Error::FileOpen);
        }
        let local = self.staging().add(url)?;
        let mut h = LOCAL.open(&local, OpenMode::Create)?;
        let (size, etag) = found.unwrap_or((0, None));
        let mut at = 0;
        while at < size {
            let end = (at + PART).min(size);
            let mut buf = vec![0u8; (end - at) as usize];
            // every part of the one version
            self.read(t, url, (size, etag.as_deref()), at, &mut buf)?;
            h.write_at(at, &buf)?;
            at = end;
        }
        Ok(local)
    }

    /// Upload the local file `local` as `t`.
    fn upload(&self, t: &Target, url: &str, local: &Path) -> Result<()> {
        let size = std::fs::metadata(local).map(|m| m.len()).map_err(|e| {
            crate::trace_error!("{}: the staged copy is gone: {}", url, e);
            Error::FileWrite
        })?;
        let r = if size <= MULTIPART_FROM {
            let data = crate::frame::io::read_file(&LOCAL, local)?;
            self.client.put(t, &data)
        } else {
            let mut h = LOCAL.open(local, OpenMode::Read)?;
            self.client.put_multipart(t, |n| {
                let at = n as u64 * PART;
                (at < size).then(|| {
                    let mut buf = vec![0u8; (size - at).min(PART) as usize];
                    h.read_at(at, &mut buf)
                        .map(|_| buf)
                        .map_err(|e| std::io::Error::other(e.to_string()))
                })
            })
        };
        r.map_err(|f| failed(url, "uploading", &f, Error::FileWrite))
    }

    /// The size and ETag of the object (`None`: no such object), fetching its first block on
    /// first use.
    fn probe(&self, t: &Target) -> Result<Option<(u64, Option<String>)>> {
        let url = t.url();
        if let Some(s) = self.cache().size(&url) {
            return Ok(Some(s));
        }
        let r = match self.client.get_range(t, 0, BLOCK) {
            Ok(r) => r,
            Err(Fault::NotFound) => {
                self.forget_index_of(&url);
                return Ok(None);
            }
            Err(Fault::BadRange(Some(0)) | Fault::BadRange(None)) => {
                self.cache().set_size(&url, 0, None);
                return Ok(Some((0, None)));
            }
            Err(f @ Fault::Denied(_)) => return Err(failed(&url, "opening", &f, Error::FileOpen)),
            Err(f) => return Err(failed(&url, "opening", &f, Error::FileRead)),
        };
        let size = match r.total {
            Some(t) => t,
            None if (r.data.len() as u64) < BLOCK => r.data.len() as u64,
            None => {
                crate::trace_error!("{}: the server does not tell the size of the object", url);
                return Err(Error::FileRead);
            }
        };
        if (r.data.len() as u64) != size.min(BLOCK) {
            crate::trace_error!("{}: a short reply to the first read", url);
            return Err(Error::FileRead);
        }
        let mut c = self.cache();
        c.set_size(&url, size, r.etag.clone());
        c.insert(&url, 0, r.data.into(), r.etag.as_deref());
        Ok(Some((size, r.etag)))
    }

    /// A chunk object of a sparse frame was found replaced or gone: forget what is known of
    /// the frame's index too, so the frame's next look at its index reads the stored one (and
    /// re-reads the frame if it changed).
    fn forget_index_of(&self, url: &str) {
        if let Some((dir, name)) = url.rsplit_once('/') {
            if name.ends_with(".chunk") {
                self.cache()
                    .forget(&format!("{}/{}", dir, crate::frame::INDEX_NAME));
            }
        }
    }

    /// Bytes `start..end` of the version `etag` of `t` (all inside the object). A reply of
    /// another version forgets what is known of the object (and of its sparse frame's index)
    /// and fails: nothing of two versions is put together.
    fn fetch(
        &self,
        t: &Target,
        url: &str,
        etag: Option<&str>,
        start: u64,
        end: u64,
    ) -> Result<Vec<u8>> {
        let r = self.client.get_range_of(t, start, end, etag).map_err(|f| {
            if let Fault::Changed(_) = f {
                self.cache().forget_version(url, etag);
                self.forget_index_of(url);
                crate::trace_error!(
                    "{}: the object was replaced since it was opened (ETag {}): read it again \
                     (blosc2_schunk_refresh, or open it again)",
                    url,
                    etag.unwrap_or("-")
                );
            }
            failed(
                url,
                &format!("reading bytes {}..{}", start, end),
                &f,
                Error::FileRead,
            )
        })?;
        if r.data.len() as u64 != end - start {
            crate::trace_error!(
                "{}: {} bytes at {} asked, {} received (object changed or damaged?)",
                url,
                end - start,
                start,
                r.data.len()
            );
            return Err(Error::FileRead);
        }
        Ok(r.data)
    }

    /// Read `buf` at `pos` of the object `t` of (size, ETag) `version`.
    fn read(
        &self,
        t: &Target,
        url: &str,
        version: (u64, Option<&str>),
        pos: u64,
        buf: &mut [u8],
    ) -> Result<()> {
        let (size, etag) = version;
        let len = buf.len() as u64;
        if pos.checked_add(len).is_none_or(|e| e > size) {
            crate::trace_error!(
                "{}: cannot read {} bytes at {}: the object has {}",
                url,
                len,
                pos,
                size
            );
            return Err(Error::FileRead);
        }
        let mut done = 0u64;
        while done < len {
            let cur = pos + done;
            let b = cur / BLOCK;
            let held = self.cache().block(url, b, etag);
            if let Some(block) = held {
                let at = (cur - b * BLOCK) as usize;
                let n = (block.len().saturating_sub(at) as u64).min(len - done) as usize;
                if n == 0 {
                    crate::trace_error!("{}: a cached block is shorter than expected", url);
                    return Err(Error::FileRead);
                }
                buf[done as usize..done as usize + n].copy_from_slice(&block[at..at + n]);
                done += n as u64;
                continue;
            }
            if len - done >= BLOCK {
                // a large read (a chunk): straight into the caller's buffer, not cached
                let data = self.fetch(t, url, etag, cur, pos + len)?;
                buf[done as usize..].copy_from_slice(&data);
                return Ok(());
            }
            // a small read: the aligned blocks around it, and one more (the chunk after a
            // chunk header, the next index piece)
            let first = b * BLOCK;
            let end = ((pos + len).div_ceil(BLOCK) + 1) * BLOCK;
            let end = end.min(size);
            let data = self.fetch(t, url, etag, first, end)?;
            let mut c = self.cache();
            for (i, piece) in data.chunks(BLOCK as usize).enumerate() {
                c.insert(url, b + i as u64, piece.into(), etag);
            }
            drop(c);
            let at = (cur - first) as usize;
            let n = (data.len() - at).min((len - done) as usize);
            buf[done as usize..done as usize + n].copy_from_slice(&data[at..at + n]);
            done += n as u64;
        }
        Ok(())
    }
}

struct Handle<'a> {
    io: &'a RemoteIo,
    target: Target,
    url: String,
    size: u64,
    /// The version read: every read of the handle is of it (`If-Match`).
    etag: Option<String>,
}

fn read_only(url: &str) -> Error {
    crate::trace_error!("{}: an HTTP server is read-only (write to s3:// URLs)", url);
    Error::FileWrite
}

impl IoHandle for Handle<'_> {
    fn size(&mut self) -> Result<u64> {
        Ok(self.size)
    }

    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let version = (self.size, self.etag.as_deref());
        self.io.read(&self.target, &self.url, version, pos, buf)
    }

    fn version(&self) -> Option<String> {
        self.etag.clone()
    }

    fn write_at(&mut self, _pos: u64, _data: &[u8]) -> Result<()> {
        Err(read_only(&self.url))
    }

    fn truncate(&mut self, _size: u64) -> Result<()> {
        Err(read_only(&self.url))
    }
}

impl Io for RemoteIo {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoHandle + '_>> {
        let target = target_of(path)?;
        let url = target.url();
        let staged = self.staging().local(&url);
        match (mode, staged) {
            (OpenMode::Read, Some(local)) => LOCAL.open(&local, OpenMode::Read),
            (OpenMode::Read, None) => match self.probe(&target)? {
                Some((size, etag)) => Ok(Box::new(Handle {
                    io: self,
                    target,
                    url,
                    size,
                    etag,
                })),
                None => {
                    crate::trace_error!("{}: no such object (404)", url);
                    Err(Error::FileOpen)
                }
            },
            (OpenMode::Create, _) => {
                let local = self.stage(&target, &url, true, true)?;
                LOCAL.open(&local, OpenMode::Create)
            }
            (_, Some(local)) => {
                self.staging().touch(&url);
                LOCAL.open(&local, OpenMode::ReadWrite)
            }
            (m, None) => {
                let local = self.stage(&target, &url, false, m == OpenMode::Append)?;
                LOCAL.open(&local, OpenMode::ReadWrite)
            }
        }
    }

    fn replace_file(&self, from: &Path, to: &Path) -> Result<bool> {
        let (from, to) = (target_of(from)?.url(), target_of(to)?.url());
        Ok(self.staging().rename(&from, &to))
    }

    /// Object stores hold no directories: nothing to create. The objects directly below an
    /// S3 prefix are listed (those of an older sparse frame there, to delete); an HTTP server
    /// cannot list.
    fn prepare_dir(&self, dir: &Path) -> Result<Option<Vec<PathBuf>>> {
        let target = target_of(dir)?;
        let Target::S3 { bucket, key } = &target else {
            return Ok(None);
        };
        let prefix = format!("{}/", key.trim_end_matches('/'));
        let keys = self
            .client
            .list(bucket, &prefix)
            .map_err(|f| failed(&target.url(), "listing", &f, Error::FileRead))?;
        Ok(Some(
            keys.iter()
                .filter(|k| k.starts_with(&prefix))
                .map(|k| PathBuf::from(format!("s3://{}/{}", bucket, k)))
                .collect(),
        ))
    }

    fn remove_file(&self, path: &Path) -> Result<()> {
        let target = target_of(path)?;
        let url = target.url();
        self.staging().remove(&url);
        self.cache().forget(&url);
        if !matches!(target, Target::S3 { .. }) {
            return Err(read_only(&url));
        }
        self.client
            .delete(&target)
            .map_err(|f| failed(&url, "deleting", &f, Error::FileRemove))
    }

    fn deferred_removal(&self) -> bool {
        true
    }

    /// Deleted at the next flush, after the index that no longer names it is uploaded.
    fn remove_after_flush(&self, path: &Path) -> Result<()> {
        let target = target_of(path)?;
        let url = target.url();
        if !matches!(target, Target::S3 { .. }) {
            return Err(read_only(&url));
        }
        self.staging().delete_later(&url);
        self.cache().forget(&url);
        Ok(())
    }

    /// Upload the staged objects at `path` and below it (a sparse frame's index last), then
    /// delete the objects a change dropped.
    fn flush(&self, path: &Path) -> Result<()> {
        let url = target_of(path)?.url();
        let dirty = self.staging().dirty_at(&url);
        for (u, local) in dirty {
            let t = Target::parse(&u)?;
            self.upload(&t, &u, &local)?;
            self.cache().forget(&u);
            self.staging().remove(&u);
        }
        let gone = self.staging().deletes_at(&url);
        for u in gone {
            let t = Target::parse(&u)?;
            self.client
                .delete(&t)
                .map_err(|f| failed(&u, "deleting", &f, Error::FileRemove))?;
            self.staging().deleted(&u);
        }
        Ok(())
    }

    /// Reads of an object are requests; not those of one staged here (being written).
    fn ranged(&self, path: &Path) -> bool {
        target_of(path).is_ok_and(|t| self.staging().local(&t.url()).is_none())
    }

    /// A sparse frame when `path` holds no frame object but `path/chunks.b2frame` exists (an
    /// HTTP server may answer a directory's URL with a listing page: not a frame either).
    fn is_dir(&self, path: &Path) -> Result<bool> {
        let target = target_of(path)?;
        let url = target.url();
        let found = self.probe(&target)?;
        if let Some((size, etag)) = &found {
            let magic = crate::frame::header::MAGIC;
            let mut head = vec![0u8; magic.len()];
            if *size >= magic.len() as u64
                && self
                    .read(&target, &url, (*size, etag.as_deref()), 0, &mut head)
                    .is_ok()
                && head == magic
            {
                return Ok(false);
            }
        }
        let index = target_of(&path.join(crate::frame::INDEX_NAME))?;
        match self.probe(&index)? {
            Some(_) => Ok(true),
            None if found.is_some() => Ok(false),
            None => {
                crate::trace_error!(
                    "{}: no such object (404), nor a sparse frame index below it",
                    url
                );
                Err(Error::FileOpen)
            }
        }
    }

    fn forget(&self, path: &Path) {
        if let Ok(t) = target_of(path) {
            self.cache().forget(&t.url());
        }
    }
}
