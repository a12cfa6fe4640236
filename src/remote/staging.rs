//! Writing remote objects: an object opened for writing is staged in a local temporary file
//! (downloaded first when it exists and is opened to be changed), every read and write of this
//! process goes to that file, and [`Staging::take_dirty`] hands the changed ones to
//! [`super::RemoteIo::flush`] for upload. Memory stays O(part): files, not buffers.

use crate::error::{Error, Result};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// One staged object.
struct Staged {
    local: PathBuf,
    dirty: bool,
}

/// The staged objects of a back-end, by URL.
#[derive(Default)]
pub(super) struct Staging {
    dir: Option<PathBuf>,
    files: HashMap<String, Staged>,
    next: u64,
    /// Objects to delete at the next flush of a prefix holding them.
    deletes: HashSet<String>,
}

impl Staging {
    /// The local file of `url`, if staged.
    pub(super) fn local(&self, url: &str) -> Option<PathBuf> {
        self.files.get(url).map(|s| s.local.clone())
    }

    /// A new local file for `url` (replacing an earlier one), marked changed.
    pub(super) fn add(&mut self, url: &str) -> Result<PathBuf> {
        let dir = match &self.dir {
            Some(d) => d.clone(),
            None => {
                sweep_dead(&std::env::temp_dir());
                let d = std::env::temp_dir().join(format!("b2rs-remote-{}", std::process::id()));
                std::fs::create_dir_all(&d).map_err(|e| {
                    crate::trace_error!(
                        "Cannot create the staging directory {}: {}",
                        d.display(),
                        e
                    );
                    Error::FileWrite
                })?;
                self.dir = Some(d.clone());
                d
            }
        };
        self.next += 1;
        self.deletes.remove(url);
        let local = dir.join(format!("{}.part", self.next));
        if let Some(old) = self.files.insert(
            url.to_string(),
            Staged {
                local: local.clone(),
                dirty: true,
            },
        ) {
            let _ = std::fs::remove_file(old.local);
        }
        Ok(local)
    }

    /// Mark `url` changed.
    pub(super) fn touch(&mut self, url: &str) {
        if let Some(s) = self.files.get_mut(url) {
            s.dirty = true;
        }
    }

    /// Move the staged `from` to `to` (a rename before upload).
    pub(super) fn rename(&mut self, from: &str, to: &str) -> bool {
        let Some(s) = self.files.remove(from) else {
            return false;
        };
        if let Some(old) = self
            .files
            .insert(to.to_string(), Staged { dirty: true, ..s })
        {
            let _ = std::fs::remove_file(old.local);
        }
        true
    }

    /// Drop `url` (and its local file).
    pub(super) fn remove(&mut self, url: &str) {
        if let Some(s) = self.files.remove(url) {
            let _ = std::fs::remove_file(s.local);
        }
    }

    /// Delete `url` at the next flush of a prefix holding it (its staged copy goes now).
    pub(super) fn delete_later(&mut self, url: &str) {
        self.remove(url);
        self.deletes.insert(url.to_string());
    }

    /// The objects at `url` or below it waiting to be deleted.
    pub(super) fn deletes_at(&self, url: &str) -> Vec<String> {
        let below = format!("{}/", url.trim_end_matches('/'));
        let mut v: Vec<String> = self
            .deletes
            .iter()
            .filter(|k| k.as_str() == url || k.starts_with(&below))
            .cloned()
            .collect();
        v.sort();
        v
    }

    /// `url` was deleted.
    pub(super) fn deleted(&mut self, url: &str) {
        self.deletes.remove(url);
    }

    /// The changed objects at `url` or below it, in upload order: a sparse frame's index
    /// (`…/chunks.b2frame`) after its chunk objects, so a reader never finds an index naming
    /// a chunk not yet stored.
    pub(super) fn dirty_at(&self, url: &str) -> Vec<(String, PathBuf)> {
        let below = format!("{}/", url.trim_end_matches('/'));
        let mut v: Vec<(String, PathBuf)> = self
            .files
            .iter()
            .filter(|(k, s)| s.dirty && (k.as_str() == url || k.starts_with(&below)))
            .map(|(k, s)| (k.clone(), s.local.clone()))
            .collect();
        let index = format!("/{}", crate::frame::INDEX_NAME);
        v.sort_by_key(|(k, _)| (k.ends_with(&index), k.clone()));
        v
    }
}

/// Remove the staging directories (`b2rs-remote-<pid>`) in `tmp` left by processes that no
/// longer run (a writer killed before it uploaded); Linux only (`/proc/<pid>`), a no-op
/// elsewhere.
fn sweep_dead(tmp: &std::path::Path) {
    if !std::path::Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix("b2rs-remote-"))
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != std::process::id()
                && !std::path::Path::new(&format!("/proc/{}", pid)).exists()
            {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        for s in self.files.values() {
            let _ = std::fs::remove_file(&s.local);
        }
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir(d);
        }
    }
}
