//! Metalayers (fixed size, set up front) and variable-length metalayers (stored as compressed
//! Blosc chunks) of a super-chunk (FRAME.md §3, §6, §7).

use super::{compress_chunk, Schunk};
use crate::chunk::{self, header::Header};
use crate::error::{Error, Result};
use crate::frame::LockMode;
use crate::params::{CParams, DParams};

/// Maximum number of metalayers.
pub const MAX_METALAYERS: usize = 16;
/// Maximum number of variable-length metalayers (the size of the C struct's array).
pub const MAX_VLMETALAYERS: usize = 8 * 1024;
/// Maximum length of a metalayer name in bytes.
pub const METALAYER_NAME_MAXLEN: usize = 31;

/// A named metalayer. For variable-length metalayers `content` is the *compressed* Blosc chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metalayer {
    /// Name (at most [`METALAYER_NAME_MAXLEN`] bytes).
    pub name: String,
    /// Content (fixed metalayers) or stored chunk (variable-length metalayers).
    pub content: Vec<u8>,
}

/// The same metalayers as the frame layer holds them.
pub(crate) fn to_frame_metalayers(v: &[Metalayer]) -> Vec<crate::frame::Metalayer> {
    v.iter()
        .map(|m| crate::frame::Metalayer {
            name: m.name.clone(),
            content: m.content.clone(),
        })
        .collect()
}

fn check_name(name: &str) -> Result<()> {
    if name.len() > METALAYER_NAME_MAXLEN {
        crate::trace_error!(
            "Metalayer names cannot be larger than {} chars",
            METALAYER_NAME_MAXLEN
        );
        return Err(Error::InvalidParam);
    }
    Ok(())
}

fn find(list: &[Metalayer], name: &str) -> Result<usize> {
    check_name(name)?;
    list.iter()
        .position(|m| m.name == name)
        .ok_or(Error::NotFound)
}

impl Schunk {
    /// The fixed-size metalayers, in insertion order.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.meta_add("first", b"1").unwrap();
    /// sc.meta_add("second", b"22").unwrap();
    /// let names: Vec<&str> = sc.metalayers().iter().map(|m| m.name.as_str()).collect();
    /// assert_eq!(names, ["first", "second"]);
    /// assert_eq!(sc.metalayers()[1].content, b"22");
    /// ```
    pub fn metalayers(&self) -> &[Metalayer] {
        &self.metalayers
    }

    /// The variable-length metalayers (content = stored chunk), in insertion order.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// let cparams = CParams::default();
    /// sc.vlmeta_add("notes", b"some text", &cparams).unwrap();
    /// assert_eq!(sc.vlmetalayers().len(), 1);
    /// assert_eq!(sc.vlmetalayers()[0].name, "notes");
    /// // the content is stored as a compressed chunk
    /// assert_eq!(b2rs::chunk::Header::parse(&sc.vlmetalayers()[0].content).unwrap().nbytes, 9);
    /// ```
    pub fn vlmetalayers(&self) -> &[Metalayer] {
        &self.vlmetalayers
    }

    /// Index of the metalayer `name` (`NotFound` if absent, `InvalidParam` for a too long name).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams, Error};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.meta_add("a", b"x").unwrap();
    /// sc.meta_add("b", b"y").unwrap();
    /// assert_eq!(sc.meta_exists("b"), Ok(1));
    /// assert_eq!(sc.meta_exists("c"), Err(Error::NotFound));
    /// assert_eq!(sc.meta_exists(&"n".repeat(32)), Err(Error::InvalidParam));
    /// ```
    pub fn meta_exists(&self, name: &str) -> Result<usize> {
        find(&self.metalayers, name)
    }

    /// Add a metalayer; returns its index. At most [`MAX_METALAYERS`]; names must be unique.
    fn meta_add_unlocked(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        check_name(name)?;
        if self.meta_exists(name).is_ok() {
            crate::trace_error!("Metalayer \"{}\" already exists", name);
            return Err(Error::InvalidParam);
        }
        if self.metalayers.len() >= MAX_METALAYERS {
            crate::trace_error!("Cannot add more than {} metalayers", MAX_METALAYERS);
            return Err(Error::InvalidParam);
        }
        if let Some(f) = self.frame_mut() {
            f.add_metalayer(name, content)?;
        }
        self.metalayers.push(Metalayer {
            name: name.to_string(),
            content: content.to_vec(),
        });
        self.change_tick += 1;
        self.refresh_nd();
        Ok(self.metalayers.len() - 1)
    }

    /// Overwrite the start of metalayer `name` with `content`, which may not be longer than the
    /// existing content (the length of the metalayer does not change, as in C-Blosc2; a longer
    /// update is an error here, C-Blosc2 ignores it). Returns its index.
    fn meta_update_unlocked(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        let i = self.meta_exists(name)?;
        let old = &mut self.metalayers[i].content;
        if content.len() > old.len() {
            crate::trace_error!(
                "`content_len` cannot exceed the existing size of {} bytes",
                old.len()
            );
            return Err(Error::InvalidParam);
        }
        if let Some(f) = self.frame_mut() {
            f.update_metalayer(i, content)?;
        }
        let old = &mut self.metalayers[i].content;
        old[..content.len()].copy_from_slice(content);
        self.change_tick += 1;
        self.refresh_nd();
        Ok(i)
    }

    /// Index of the variable-length metalayer `name`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams, Error};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.vlmeta_add("doc", b"text", &CParams::default()).unwrap();
    /// assert_eq!(sc.vlmeta_exists("doc"), Ok(0));
    /// assert_eq!(sc.vlmeta_exists("other"), Err(Error::NotFound));
    /// ```
    pub fn vlmeta_exists(&self, name: &str) -> Result<usize> {
        find(&self.vlmetalayers, name)
    }

    /// Add a variable-length metalayer, compressing `content` with `cparams`; returns its index.
    pub(super) fn vlmeta_add_unlocked(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: &CParams,
    ) -> Result<usize> {
        check_name(name)?;
        if self.vlmeta_exists(name).is_ok() {
            crate::trace_error!("Variable-length metalayer \"{}\" already exists", name);
            return Err(Error::InvalidParam);
        }
        if self.vlmetalayers.len() >= MAX_VLMETALAYERS {
            crate::trace_error!(
                "Cannot add more than {} variable-length metalayers",
                MAX_VLMETALAYERS
            );
            return Err(Error::InvalidParam);
        }
        let chunk = compress_chunk(cparams, -1, content)?;
        if let Some(f) = self.frame_mut() {
            f.set_vlmetalayer(name, &chunk)?;
        }
        self.vlmetalayers.push(Metalayer {
            name: name.to_string(),
            content: chunk,
        });
        self.change_tick += 1;
        Ok(self.vlmetalayers.len() - 1)
    }

    /// Replace the content of variable-length metalayer `name`; returns its index.
    pub(super) fn vlmeta_update_unlocked(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: &CParams,
    ) -> Result<usize> {
        let i = self.vlmeta_exists(name)?;
        let chunk = compress_chunk(cparams, -1, content)?;
        if let Some(f) = self.frame_mut() {
            f.set_vlmetalayer(name, &chunk)?;
        }
        self.vlmetalayers[i].content = chunk;
        self.change_tick += 1;
        Ok(i)
    }

    /// The decompressed content of variable-length metalayer `name`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// let long = b"a long variable-length metalayer ".repeat(100);
    /// sc.vlmeta_add("long", &long, &CParams::default()).unwrap();
    /// assert_eq!(sc.vlmeta_get("long").unwrap(), long);
    /// assert!(sc.vlmeta_get("missing").is_err());
    /// ```
    pub fn vlmeta_get(&self, name: &str) -> Result<Vec<u8>> {
        let i = self.vlmeta_exists(name)?;
        let stored = &self.vlmetalayers[i].content;
        let h = Header::parse(stored)?;
        if h.cbytes as usize != stored.len() {
            crate::trace_error!("User metalayer \"{}\" is corrupted", name);
            return Err(Error::Data);
        }
        let dp = DParams {
            postfilter: None,
            nchunk: -1,
            ..self.dparams.clone()
        };
        // (a negative nbytes decodes to nothing)
        let mut out = crate::error::zeroed_vec(h.data_len())?;
        let n = chunk::decompress(&dp, stored, &mut out, None)?;
        if n != out.len() {
            crate::trace_error!("User metalayer \"{}\" is corrupted", name);
            return Err(Error::ReadBuffer);
        }
        Ok(out)
    }

    /// Delete variable-length metalayer `name`; returns the number left.
    fn vlmeta_delete_unlocked(&mut self, name: &str) -> Result<usize> {
        let i = self.vlmeta_exists(name)?;
        if let Some(f) = self.frame_mut() {
            f.delete_vlmetalayer(name)?;
        }
        self.vlmetalayers.remove(i);
        self.change_tick += 1;
        Ok(self.vlmetalayers.len())
    }
}

impl Schunk {
    /// Add a fixed-size metalayer; returns its index (under the exclusive frame lock when locking is on).
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams, Error};
    ///
    /// let cparams = CParams::default();
    /// let mut sc = Schunk::new(cparams.clone(), DParams::default());
    /// assert_eq!(sc.meta_add("shape", b"\x93\x01\x02\x03").unwrap(), 0);
    /// assert_eq!(sc.meta_exists("shape").unwrap(), 0);
    /// assert_eq!(sc.metalayers()[0].content, b"\x93\x01\x02\x03");
    /// // metalayers have a fixed size; vlmetalayers do not and are stored compressed
    /// assert_eq!(sc.vlmeta_add("history", b"created by b2rs", &cparams).unwrap(), 0);
    /// sc.vlmeta_update("history", b"created by b2rs, then updated", &cparams).unwrap();
    /// assert_eq!(sc.vlmeta_get("history").unwrap(), b"created by b2rs, then updated");
    /// assert!(matches!(sc.vlmeta_get("nope"), Err(Error::NotFound | Error::MetalayerNotFound)));
    /// ```
    pub fn meta_add(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        self.locked(LockMode::Exclusive, |s| s.meta_add_unlocked(name, content))
    }

    /// Update a fixed-size metalayer; returns its index (under the exclusive frame lock when locking is on).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.meta_add("version", b"0001").unwrap();
    /// assert_eq!(sc.meta_update("version", b"0002").unwrap(), 0);
    /// assert_eq!(sc.metalayers()[0].content, b"0002");
    /// // the content cannot grow
    /// assert!(sc.meta_update("version", b"00003").is_err());
    /// ```
    pub fn meta_update(&mut self, name: &str, content: &[u8]) -> Result<usize> {
        self.locked(LockMode::Exclusive, |s| {
            s.meta_update_unlocked(name, content)
        })
    }

    /// Add a variable-length metalayer; returns its index (under the exclusive frame lock when locking is on).
    ///
    /// [`CHECKSUMS_VLMETA`](super::CHECKSUMS_VLMETA) is b2rs's own: adding it records the
    /// checksums of the chunks as they are now, whatever `content` holds (a copy of it from
    /// another super-chunk would be stale), as [`Schunk::enable_checksums`] does.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// let cparams = CParams::default();
    /// assert_eq!(sc.vlmeta_add("a", b"first", &cparams).unwrap(), 0);
    /// assert_eq!(sc.vlmeta_add("b", b"second", &cparams).unwrap(), 1);
    /// // names are unique
    /// assert!(sc.vlmeta_add("a", b"again", &cparams).is_err());
    /// ```
    pub fn vlmeta_add(&mut self, name: &str, content: &[u8], cparams: &CParams) -> Result<usize> {
        if name == super::CHECKSUMS_VLMETA {
            return self.vlmeta_checksums(true);
        }
        self.locked(LockMode::Exclusive, |s| {
            s.vlmeta_add_unlocked(name, content, cparams)
        })
    }

    /// Replace a variable-length metalayer; returns its index (under the exclusive frame lock when locking is on).
    ///
    /// [`CHECKSUMS_VLMETA`](super::CHECKSUMS_VLMETA) is recorded anew from the chunks as they
    /// are now, whatever `content` holds.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// let cparams = CParams::default();
    /// sc.vlmeta_add("a", b"short", &cparams).unwrap();
    /// // the content may change size
    /// assert_eq!(sc.vlmeta_update("a", b"a much longer content", &cparams).unwrap(), 0);
    /// assert_eq!(sc.vlmeta_get("a").unwrap(), b"a much longer content");
    /// ```
    pub fn vlmeta_update(
        &mut self,
        name: &str,
        content: &[u8],
        cparams: &CParams,
    ) -> Result<usize> {
        if name == super::CHECKSUMS_VLMETA {
            return self.vlmeta_checksums(false);
        }
        self.locked(LockMode::Exclusive, |s| {
            s.vlmeta_update_unlocked(name, content, cparams)
        })
    }

    /// Delete a variable-length metalayer; returns the number left (under the exclusive frame lock when locking is on).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams, Error};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// let cparams = CParams::default();
    /// sc.vlmeta_add("a", b"1", &cparams).unwrap();
    /// sc.vlmeta_add("b", b"2", &cparams).unwrap();
    /// assert_eq!(sc.vlmeta_delete("a").unwrap(), 1);
    /// assert_eq!(sc.vlmeta_exists("b"), Ok(0));
    /// assert_eq!(sc.vlmeta_exists("a"), Err(Error::NotFound));
    /// ```
    pub fn vlmeta_delete(&mut self, name: &str) -> Result<usize> {
        self.locked(LockMode::Exclusive, |s| s.vlmeta_delete_unlocked(name))
    }
}
