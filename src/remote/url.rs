//! The remote places a `urlpath` can name: `s3://bucket/key`, `http://host/path` and
//! `https://host/path`.

use crate::error::{Error, Result};

/// Where a remote object is.
///
/// # Examples
///
/// ```
/// use b2rs::remote::Target;
///
/// assert_eq!(
///     Target::parse("s3://bucket/runs/42.b2nd").unwrap(),
///     Target::S3 { bucket: "bucket".into(), key: "runs/42.b2nd".into() }
/// );
/// assert_eq!(Target::parse("https://example.org/a.b2frame").unwrap().url(), "https://example.org/a.b2frame");
/// assert!(Target::parse("/tmp/local.b2frame").is_err());
/// assert!(Target::parse("s3://bucket-only").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// An object of an S3 (or S3-compatible) bucket.
    S3 {
        /// The bucket name.
        bucket: String,
        /// The object key (no leading `/`).
        key: String,
    },
    /// A resource of an HTTP(S) server: the whole URL.
    Http(String),
}

/// Whether `s` is a URL that b2rs opens remotely (`s3://`, `http://`, `https://`).
///
/// # Examples
///
/// ```
/// use b2rs::remote::is_url;
///
/// assert!(is_url("s3://b/k"));
/// assert!(is_url("HTTPS://example.org/x"));
/// assert!(!is_url("file.b2frame"));
/// ```
pub fn is_url(s: &str) -> bool {
    scheme_len(s).is_some()
}

fn scheme_len(s: &str) -> Option<usize> {
    ["s3://", "http://", "https://"]
        .iter()
        .find(|p| s.len() >= p.len() && s[..p.len()].eq_ignore_ascii_case(p))
        .map(|p| p.len())
}

impl Target {
    /// Parse a remote URL (see [`Target`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::remote::Target;
    ///
    /// assert_eq!(Target::parse("http://h/x").unwrap(), Target::Http("http://h/x".into()));
    /// ```
    pub fn parse(s: &str) -> Result<Target> {
        let Some(n) = scheme_len(s) else {
            crate::trace_error!("Not a remote URL: {}", s);
            return Err(Error::InvalidParam);
        };
        let rest = &s[n..];
        if s[..2].eq_ignore_ascii_case("s3") {
            let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
            let key = key.trim_start_matches('/');
            if bucket.is_empty() || key.is_empty() {
                crate::trace_error!("An s3:// URL names a bucket and a key: {}", s);
                return Err(Error::InvalidParam);
            }
            return Ok(Target::S3 {
                bucket: bucket.to_string(),
                key: key.to_string(),
            });
        }
        if rest.is_empty() || rest.starts_with('/') {
            crate::trace_error!("An http(s) URL names a host: {}", s);
            return Err(Error::InvalidParam);
        }
        Ok(Target::Http(s.to_string()))
    }

    /// The URL as given (`s3://bucket/key` or the HTTP URL), for messages.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::remote::Target;
    ///
    /// assert_eq!(Target::parse("s3://b/k/x").unwrap().url(), "s3://b/k/x");
    /// ```
    pub fn url(&self) -> String {
        match self {
            Target::S3 { bucket, key } => format!("s3://{}/{}", bucket, key),
            Target::Http(u) => u.clone(),
        }
    }
}

/// Percent-encode `s` as AWS wants in a canonical URI and in request paths: every byte but
/// the unreserved ones (`A-Z a-z 0-9 - _ . ~`) and, when `keep_slash`, `/`.
pub(super) fn encode(s: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'_' | b'.' | b'~')
            || (keep_slash && b == b'/');
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{:02X}", b));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse() {
        assert_eq!(
            Target::parse("S3://b//k").unwrap(),
            Target::S3 {
                bucket: "b".into(),
                key: "k".into()
            }
        );
        assert!(Target::parse("s3:///k").is_err());
        assert!(Target::parse("http://").is_err());
        assert!(Target::parse("http:///x").is_err());
        assert!(Target::parse("ftp://x/y").is_err());
        assert!(Target::parse("http://127.0.0.1:8000/a/b").is_ok());
        assert_eq!(encode("a b/c+d.chunk", true), "a%20b/c%2Bd.chunk");
        assert_eq!(encode("a/b", false), "a%2Fb");
    }
}
