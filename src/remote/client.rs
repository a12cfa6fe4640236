//! The one HTTP client of the process (a `ureq` agent over rustls, shared by every remote
//! frame and thread): range reads of objects on HTTP(S) servers and S3 stores, with
//! timeouts, retries with backoff, and S3 request signing.
//!
//! Settings (environment, read once):
//! - `B2RS_REMOTE_TIMEOUT`: seconds one request may take in all (default 30);
//! - `B2RS_REMOTE_RETRIES`: how many times a failed request is tried again (default 4; a
//!   refused connection, a timeout, a truncated body, a 5xx or a 429 are retried, with
//!   exponential backoff from 100 ms);
//! - S3: see [`super::s3::S3Config`].

use super::s3::S3Config;
use super::url::Target;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
///
/// # Examples
///
/// ```
/// use b2rs::remote::Fault;
///
/// assert_eq!(Fault::Denied(403).to_string(), "access denied (403)");
/// ```
pub enum Fault {
    /// 404: no such object.
    NotFound,
    /// 401 or 403: the server refuses access.
    Denied(u16),
    /// 416: the range starts past the end (`Some(size)` when the server said the size).
    BadRange(Option<u64>),
    /// 412, or a reply carrying another ETag than the one asked for: the object was replaced
    /// since its ETag was recorded (`Some`: the ETag the reply carried).
    Changed(Option<String>),
    /// Another status the request cannot go on with.
    Status(u16),
    /// The connection or the transfer failed (refused, reset, timed out, truncated body).
    Network(String),
    /// The server's TLS certificate is not trusted (not retried).
    Tls(String),
}

impl Fault {
    fn retryable(&self) -> bool {
        match self {
            Fault::Network(_) => true,
            Fault::Status(s) => *s >= 500 || *s == 429,
            _ => false,
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::NotFound => write!(f, "not found (404)"),
            Fault::Denied(s) => write!(f, "access denied ({})", s),
            Fault::BadRange(_) => write!(f, "range not satisfiable (416)"),
            Fault::Changed(Some(e)) => write!(f, "the object changed (its ETag is now {})", e),
            Fault::Changed(None) => write!(f, "the object changed (412 Precondition Failed)"),
            Fault::Status(s) => write!(f, "HTTP status {}", s),
            Fault::Network(m) => write!(f, "{}", m),
            Fault::Tls(m) => write!(f, "TLS: {}", m),
        }
    }
}

/// The bytes a range read got.
#[derive(Debug)]
///
/// # Examples
///
/// ```no_run
/// use b2rs::remote::{Client, Target};
///
/// let client = Client::from_env();
/// let t = Target::parse("https://example.org/data/temps.b2frame")?;
/// let head = client.get_range(&t, 0, 64).map_err(|_| b2rs::Error::FileRead)?;
/// println!("{} bytes of {:?}", head.data.len(), head.total);
/// # Ok::<(), b2rs::Error>(())
/// ```
pub struct Ranged {
    /// The bytes from the start asked for (fewer when the object ends first).
    pub data: Vec<u8>,
    /// The size of the whole object, when the server told it.
    pub total: Option<u64>,
    /// The object's ETag, when the server sent one.
    pub etag: Option<String>,
}

/// How many requests and bytes the client has made and received (all threads).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
///
/// # Examples
///
/// ```
/// assert_eq!(b2rs::remote::Client::from_env().stats(), b2rs::remote::Stats::default());
/// ```
pub struct Stats {
    /// Requests sent (each retry counts).
    pub requests: u64,
    /// Body bytes received.
    pub bytes: u64,
}

/// The client: an agent (connection pool), the retry policy and the S3 settings.
///
/// # Examples
///
/// ```no_run
/// use b2rs::remote::{Client, Target};
///
/// let client = Client::from_env();
/// let t = Target::parse("https://example.org/data/temps.b2frame")?;
/// let head = client.get_range(&t, 0, 64).map_err(|_| b2rs::Error::FileRead)?;
/// println!("{} bytes of {:?}", head.data.len(), head.total);
/// # Ok::<(), b2rs::Error>(())
/// ```
pub struct Client {
    agent: ureq::Agent,
    retries: u32,
    s3: S3Config,
    requests: AtomicU64,
    bytes: AtomicU64,
    /// Writes (PUT, POST, DELETE) still allowed: a test stops a writer after some uploads.
    writes_left: AtomicU64,
}

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn env_secs(name: &str, default: f64) -> Duration {
    let v = std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v > 0.0)
        .unwrap_or(default);
    Duration::from_secs_f64(v)
}

impl Client {
    /// A client configured from the environment (see the module documentation).
    ///
    /// # Examples
    ///
    /// ```
    /// let c = b2rs::remote::Client::from_env();
    /// assert_eq!(c.stats().requests, 0);
    /// ```
    pub fn from_env() -> Client {
        Client::new(
            S3Config::from_env(),
            env_secs("B2RS_REMOTE_TIMEOUT", 30.0),
            env_num("B2RS_REMOTE_RETRIES", 4) as u32,
        )
    }

    /// A client with these S3 settings, a time limit per request and a number of retries.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::remote::{s3::S3Config, Client};
    /// use std::time::Duration;
    ///
    /// let s3 = S3Config { creds: None, region: "us-east-1".into(), endpoint: None };
    /// let c = Client::new(s3, Duration::from_secs(5), 2);
    /// assert_eq!(c.stats().requests, 0);
    /// ```
    pub fn new(s3: S3Config, timeout: Duration, retries: u32) -> Client {
        let tls = ureq::tls::TlsConfig::builder()
            .root_certs(root_certs())
            .build();
        let config = ureq::Agent::config_builder()
            .tls_config(tls)
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .timeout_connect(Some(timeout.min(Duration::from_secs(10))))
            .user_agent(concat!("b2rs/", env!("CARGO_PKG_VERSION")))
            .max_idle_connections_per_host(16)
            .build();
        Client {
            agent: config.new_agent(),
            retries,
            s3,
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            writes_left: AtomicU64::new(u64::MAX),
        }
    }

    /// Refuse every write request (PUT, POST, DELETE) after the next `n` (`None`: no limit),
    /// as if the writer stopped there: how the tests stop a writer after each upload.
    #[doc(hidden)]
    pub fn limit_writes(&self, n: Option<u64>) {
        self.writes_left
            .store(n.unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Requests and bytes so far.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(b2rs::remote::Client::from_env().stats().bytes, 0);
    /// ```
    pub fn stats(&self) -> Stats {
        Stats {
            requests: self.requests.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }

    /// Read bytes `start..end` of `target` (`end` past the object's end reads to its end).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use b2rs::remote::{Client, Target};
    ///
    /// let client = Client::from_env();
    /// let t = Target::parse("https://example.org/data/temps.b2frame")?;
    /// let head = client.get_range(&t, 0, 64).map_err(|_| b2rs::Error::FileRead)?;
    /// println!("{} bytes of {:?}", head.data.len(), head.total);
    /// # Ok::<(), b2rs::Error>(())
    /// ```
    pub fn get_range(&self, target: &Target, start: u64, end: u64) -> Result<Ranged, Fault> {
        self.get_range_of(target, start, end, None)
    }

    /// [`Client::get_range`] of the version `etag` of the object (`None`: any version): a
    /// strong ETag is sent as `If-Match`, and a reply with another ETag (a server that ignores
    /// `If-Match`) or a 412 is [`Fault::Changed`].
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use b2rs::remote::{Client, Fault, Target};
    ///
    /// let client = Client::from_env();
    /// let t = Target::parse("https://example.org/data/temps.b2frame")?;
    /// let head = client.get_range(&t, 0, 64).map_err(|_| b2rs::Error::FileRead)?;
    /// match client.get_range_of(&t, 64, 128, head.etag.as_deref()) {
    ///     Ok(r) => println!("{} more bytes of the same version", r.data.len()),
    ///     Err(Fault::Changed(_)) => println!("replaced in between"),
    ///     Err(e) => println!("{e}"),
    /// }
    /// # Ok::<(), b2rs::Error>(())
    /// ```
    pub fn get_range_of(
        &self,
        target: &Target,
        start: u64,
        end: u64,
        etag: Option<&str>,
    ) -> Result<Ranged, Fault> {
        let r = self.retry(target, || self.get_once(target, start, end, etag))?;
        match (etag, &r.etag) {
            (Some(want), Some(got)) if want != got => Err(Fault::Changed(Some(got.clone()))),
            _ => Ok(r),
        }
    }

    fn retry<T>(
        &self,
        target: &Target,
        mut f: impl FnMut() -> Result<T, Fault>,
    ) -> Result<T, Fault> {
        let mut attempt = 0u32;
        loop {
            match f() {
                Err(e) if e.retryable() && attempt < self.retries => {
                    let wait =
                        Duration::from_millis(100u64 << attempt.min(5)).min(Duration::from_secs(2));
                    crate::trace_warning!(
                        "{}: {}; trying again in {} ms",
                        target.url(),
                        e,
                        wait.as_millis()
                    );
                    std::thread::sleep(wait);
                    attempt += 1;
                }
                r => return r,
            }
        }
    }

    fn get_once(
        &self,
        target: &Target,
        start: u64,
        end: u64,
        etag: Option<&str>,
    ) -> Result<Ranged, Fault> {
        debug_assert!(end > start);
        let range = format!("bytes={}-{}", start, end - 1);
        let mut extra = vec![("range", range.as_str())];
        // a weak ETag never matches in If-Match (strong comparison): compared on the reply
        if let Some(e) = etag.filter(|e| !e.starts_with("W/")) {
            extra.push(("if-match", e));
        }
        let (url, headers) = self.prepare("GET", target, &extra, &[]);
        let mut req = self.agent.get(&url);
        for (k, v) in &headers {
            req = req.header(k.as_str(), v.as_str());
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        let mut resp = req.call().map_err(network)?;
        let status = resp.status().as_u16();
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let etag = header("etag");
        let want = end - start;
        match status {
            206 => {
                let cr = header("content-range");
                let (first, total) =
                    cr.as_deref().and_then(parse_content_range).ok_or_else(|| {
                        Fault::Network("a 206 reply without a valid Content-Range".into())
                    })?;
                if first != Some(start) {
                    return Err(Fault::Network("a 206 reply for another range".into()));
                }
                let expect = match total {
                    Some(t) => want.min(t.saturating_sub(start)),
                    None => want,
                };
                let data = self.read_body(resp.body_mut().as_reader(), expect)?;
                if (data.len() as u64) < expect && total.is_some() {
                    return Err(Fault::Network(format!(
                        "truncated reply: {} of {} bytes",
                        data.len(),
                        expect
                    )));
                }
                Ok(Ranged { data, total, etag })
            }
            200 => {
                // the server ignores Range: skip to `start` and take what is asked
                let total = resp.body().content_length();
                let mut r = resp.body_mut().as_reader();
                let skipped = std::io::copy(&mut (&mut r).take(start), &mut std::io::sink())
                    .map_err(|e| Fault::Network(e.to_string()))?;
                let expect = match total {
                    Some(t) => want.min(t.saturating_sub(start)),
                    None => want,
                };
                let data = if skipped < start {
                    Vec::new()
                } else {
                    self.read_body(r, expect)?
                };
                if let Some(t) = total {
                    if skipped < start.min(t) || (data.len() as u64) < expect {
                        return Err(Fault::Network("truncated reply".into()));
                    }
                }
                Ok(Ranged { data, total, etag })
            }
            412 => Err(Fault::Changed(None)),
            416 => Err(Fault::BadRange(
                header("content-range")
                    .as_deref()
                    .and_then(parse_content_range)
                    .and_then(|(_, t)| t),
            )),
            404 => Err(Fault::NotFound),
            401 | 403 => Err(Fault::Denied(status)),
            s => Err(Fault::Status(s)),
        }
    }

    /// Store `body` as the whole object `target` (S3 `PutObject`).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use b2rs::remote::{Client, Target};
    ///
    /// let t = Target::parse("s3://bucket/notes.txt").unwrap();
    /// Client::from_env().put(&t, b"hello").unwrap();
    /// Client::from_env().delete(&t).unwrap();
    /// ```
    pub fn put(&self, target: &Target, body: &[u8]) -> Result<(), Fault> {
        self.retry(target, || self.send("PUT", target, &[], body).map(|_| ()))
    }

    /// Delete the object `target` (a missing one is no error).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use b2rs::remote::{Client, Target};
    ///
    /// Client::from_env().delete(&Target::parse("s3://bucket/old.b2frame").unwrap()).unwrap();
    /// ```
    pub fn delete(&self, target: &Target) -> Result<(), Fault> {
        match self.retry(target, || self.send("DELETE", target, &[], &[])) {
            Ok(_) | Err(Fault::NotFound) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The keys of the objects directly below the prefix `dir` of `bucket` (`dir` ends with
    /// `/`; deeper keys are not listed), through S3 `ListObjectsV2`, every page of it.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use b2rs::remote::Client;
    ///
    /// for key in Client::from_env().list("bucket", "runs/42.b2nd/").unwrap() {
    ///     println!("{key}");
    /// }
    /// ```
    pub fn list(&self, bucket: &str, dir: &str) -> Result<Vec<String>, Fault> {
        self.list_pages(bucket, dir, None)
    }

    /// [`Client::list`] asking for pages of at most `max_keys` keys (S3's default: 1000).
    #[doc(hidden)]
    pub fn list_pages(
        &self,
        bucket: &str,
        dir: &str,
        max_keys: Option<u32>,
    ) -> Result<Vec<String>, Fault> {
        let target = Target::S3 {
            bucket: bucket.to_string(),
            key: String::new(),
        };
        let mut keys = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut query = vec![
                ("delimiter".to_string(), "%2F".to_string()),
                ("list-type".to_string(), "2".to_string()),
                ("prefix".to_string(), super::url::encode(dir, false)),
            ];
            if let Some(m) = max_keys {
                query.push(("max-keys".to_string(), m.to_string()));
            }
            if let Some(t) = &token {
                query.push((
                    "continuation-token".to_string(),
                    super::url::encode(t, false),
                ));
            }
            let reply = self.retry(&target, || self.send("GET", &target, &query, &[]))?;
            let xml = String::from_utf8_lossy(&reply);
            keys.extend(xml_fields(&xml, "Key").map(|k| xml_unescape(&k)));
            match xml_field(&xml, "IsTruncated").as_deref() {
                Some("true") => match xml_field(&xml, "NextContinuationToken") {
                    Some(t) => token = Some(xml_unescape(&t)),
                    None => {
                        return Err(Fault::Network(
                            "a truncated listing without a continuation token".into(),
                        ))
                    }
                },
                _ => return Ok(keys),
            }
        }
    }

    /// Store the object `target` from `parts` (each at least 5 MiB but the last) through an S3
    /// multipart upload: create, upload each part, complete (or abort on a failure).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use b2rs::remote::{Client, Target};
    ///
    /// let data = vec![7u8; 12 << 20];
    /// let parts: Vec<Vec<u8>> = data.chunks(8 << 20).map(|p| p.to_vec()).collect();
    /// let t = Target::parse("s3://bucket/big.bin").unwrap();
    /// Client::from_env().put_multipart(&t, |n| parts.get(n).cloned().map(Ok)).unwrap();
    /// ```
    pub fn put_multipart(
        &self,
        target: &Target,
        mut parts: impl FnMut(usize) -> Option<std::io::Result<Vec<u8>>>,
    ) -> Result<(), Fault> {
        let q = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        let reply = self.retry(target, || self.send("POST", target, &q("uploads", ""), &[]))?;
        let text = String::from_utf8_lossy(&reply);
        let Some(id) = xml_field(&text, "UploadId") else {
            return Err(Fault::Network("no UploadId in the multipart reply".into()));
        };
        let enc_id = super::url::encode(&id, false);
        let mut etags = Vec::new();
        let r = (|| {
            let mut n = 0;
            while let Some(part) = parts(n) {
                let part =
                    part.map_err(|e| Fault::Network(format!("reading the upload: {}", e)))?;
                n += 1;
                let query = vec![
                    ("partNumber".to_string(), n.to_string()),
                    ("uploadId".to_string(), enc_id.clone()),
                ];
                let etag = self.retry(target, || self.send_etag("PUT", target, &query, &part))?;
                etags.push(etag);
            }
            let mut xml = String::from("<CompleteMultipartUpload>");
            for (i, e) in etags.iter().enumerate() {
                xml.push_str(&format!(
                    "<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>",
                    i + 1,
                    e
                ));
            }
            xml.push_str("</CompleteMultipartUpload>");
            let reply = self.retry(target, || {
                self.send("POST", target, &q("uploadId", &enc_id), xml.as_bytes())
            })?;
            // S3 may answer 200 with an error document
            if String::from_utf8_lossy(&reply).contains("<Error>") {
                return Err(Fault::Network(
                    "the multipart upload did not complete".into(),
                ));
            }
            Ok(())
        })();
        if r.is_err() {
            let _ = self.send("DELETE", target, &q("uploadId", &enc_id), &[]);
        }
        r
    }

    /// One request with a body; the reply's body on a 2xx status.
    fn send(
        &self,
        method: &str,
        target: &Target,
        query: &[(String, String)],
        body: &[u8],
    ) -> Result<Vec<u8>, Fault> {
        self.exchange(method, target, query, body).map(|(b, _)| b)
    }

    fn send_etag(
        &self,
        method: &str,
        target: &Target,
        query: &[(String, String)],
        body: &[u8],
    ) -> Result<String, Fault> {
        let (_, etag) = self.exchange(method, target, query, body)?;
        etag.ok_or_else(|| Fault::Network("no ETag in the reply to an uploaded part".into()))
    }

    fn exchange(
        &self,
        method: &str,
        target: &Target,
        query: &[(String, String)],
        body: &[u8],
    ) -> Result<(Vec<u8>, Option<String>), Fault> {
        let (url, headers) = self.prepare(method, target, &[], query);
        if method != "GET" {
            let allowed =
                self.writes_left
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| match n {
                        u64::MAX => Some(n),
                        0 => None,
                        n => Some(n - 1),
                    });
            if allowed.is_err() {
                return Err(Fault::Network("stopped: no more writes allowed".into()));
            }
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        let mut resp = match method {
            "DELETE" => {
                let mut r = self.agent.delete(&url);
                for (k, v) in &headers {
                    r = r.header(k.as_str(), v.as_str());
                }
                r.call()
            }
            "GET" => {
                let mut r = self.agent.get(&url);
                for (k, v) in &headers {
                    r = r.header(k.as_str(), v.as_str());
                }
                r.call()
            }
            _ => {
                let mut r = if method == "POST" {
                    self.agent.post(&url)
                } else {
                    self.agent.put(&url)
                };
                for (k, v) in &headers {
                    r = r.header(k.as_str(), v.as_str());
                }
                r.send(body)
            }
        }
        .map_err(network)?;
        let status = resp.status().as_u16();
        let etag = resp
            .headers()
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        // a listing page of 1000 keys is a few hundred kB
        let reply = self.read_body(resp.body_mut().as_reader(), 16 << 20)?;
        match status {
            200..=299 => Ok((reply, etag)),
            404 => Err(Fault::NotFound),
            401 | 403 => Err(Fault::Denied(status)),
            s => Err(Fault::Status(s)),
        }
    }

    fn read_body(&self, r: impl Read, expect: u64) -> Result<Vec<u8>, Fault> {
        let mut data = Vec::with_capacity(expect.min(1 << 26) as usize);
        r.take(expect)
            .read_to_end(&mut data)
            .map_err(|e| Fault::Network(format!("reading the reply: {}", e)))?;
        self.bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
        Ok(data)
    }

    /// The URL to send to and the headers to add (S3: signed) for `method` on `target`.
    fn prepare(
        &self,
        method: &str,
        target: &Target,
        headers: &[(&str, &str)],
        query: &[(String, String)],
    ) -> (String, Vec<(String, String)>) {
        let extra: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        match target {
            Target::Http(u) => (u.clone(), extra),
            Target::S3 { bucket, key } => self.s3.request(method, bucket, key, query, extra),
        }
    }
}

/// The certificates HTTPS servers are checked against: Mozilla's roots (webpki-roots), or the
/// PEM bundle named by `SSL_CERT_FILE` or else `AWS_CA_BUNDLE` (a private CA, a test server).
fn root_certs() -> ureq::tls::RootCerts {
    let file = ["SSL_CERT_FILE", "AWS_CA_BUNDLE"]
        .iter()
        .find_map(|v| std::env::var_os(v).filter(|p| !p.is_empty()));
    let Some(file) = file else {
        return ureq::tls::RootCerts::WebPki;
    };
    let certs: Vec<_> = match std::fs::read(&file) {
        Ok(pem) => ureq::tls::parse_pem(&pem)
            .filter_map(|item| match item {
                Ok(ureq::tls::PemItem::Certificate(c)) => Some(c.to_owned()),
                _ => None,
            })
            .collect(),
        Err(e) => {
            crate::trace_error!(
                "Cannot read the CA bundle {}: {}",
                file.to_string_lossy(),
                e
            );
            Vec::new()
        }
    };
    if certs.is_empty() {
        crate::trace_error!("No certificate in the CA bundle {}", file.to_string_lossy());
    }
    ureq::tls::RootCerts::new_with_certs(&certs)
}

fn network(e: ureq::Error) -> Fault {
    if let ureq::Error::Rustls(e) = &e {
        return Fault::Tls(e.to_string());
    }
    let text = e.to_string();
    if text.contains("certificate") {
        return Fault::Tls(text);
    }
    Fault::Network(match e {
        ureq::Error::Timeout(t) => format!("timed out ({:?})", t),
        ureq::Error::Io(e) => format!("connection failed: {}", e),
        ureq::Error::HostNotFound => "host not found".into(),
        ureq::Error::ConnectionFailed => "connection failed".into(),
        e => e.to_string(),
    })
}

/// `bytes A-B/T`, `bytes A-B/*` or `bytes */T`: (A, T).
///
/// # Examples
///
/// ```
/// use b2rs::remote::client::parse_content_range;
///
/// assert_eq!(parse_content_range("bytes 0-9/100"), Some((Some(0), Some(100))));
/// assert_eq!(parse_content_range("bytes 5-9/*"), Some((Some(5), None)));
/// assert_eq!(parse_content_range("bytes */42"), Some((None, Some(42))));
/// assert_eq!(parse_content_range("pages 1-2/3"), None);
/// ```
pub fn parse_content_range(v: &str) -> Option<(Option<u64>, Option<u64>)> {
    let rest = v.trim().strip_prefix("bytes")?.trim_start();
    let (span, total) = rest.split_once('/')?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    let first = match span.trim() {
        "*" => None,
        s => Some(s.split_once('-')?.0.trim().parse().ok()?),
    };
    Some((first, total))
}

/// The texts of every `<name>…</name>` element of an XML reply, in order.
fn xml_fields<'a>(xml: &'a str, name: &str) -> impl Iterator<Item = String> + 'a {
    let open = format!("<{}>", name);
    let close = format!("</{}>", name);
    let mut rest = xml;
    std::iter::from_fn(move || {
        let a = rest.find(&open)? + open.len();
        let b = rest[a..].find(&close)? + a;
        let v = rest[a..b].trim().to_string();
        rest = &rest[b + close.len()..];
        Some(v)
    })
}

/// XML text with its five predefined entities (and numeric references) replaced.
fn xml_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = tail.find(';').filter(|&e| e <= 10);
        let ent = end.map(|e| &tail[1..e]);
        let ch = match ent {
            Some("amp") => Some('&'),
            Some("lt") => Some('<'),
            Some("gt") => Some('>'),
            Some("quot") => Some('"'),
            Some("apos") => Some('\''),
            Some(e) if e.starts_with("#x") => u32::from_str_radix(&e[2..], 16)
                .ok()
                .and_then(char::from_u32),
            Some(e) if e.starts_with('#') => e[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match (ch, end) {
            (Some(c), Some(e)) => {
                out.push(c);
                rest = &tail[e + 1..];
            }
            _ => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text of the first `<name>…</name>` element of an XML reply.
fn xml_field(xml: &str, name: &str) -> Option<String> {
    xml_fields(xml, name).next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_replies() {
        let xml = "<ListBucketResult><IsTruncated>true</IsTruncated>\
                   <Contents><Key>d/a&amp;b.chunk</Key></Contents>\
                   <Contents><Key> d/&lt;x&gt;&#65;&#x42;&bogus;&amp</Key></Contents>\
                   <NextContinuationToken>t&amp;1</NextContinuationToken></ListBucketResult>";
        let keys: Vec<String> = xml_fields(xml, "Key").map(|k| xml_unescape(&k)).collect();
        assert_eq!(keys, ["d/a&b.chunk", "d/<x>AB&bogus;&amp"]);
        assert_eq!(xml_field(xml, "IsTruncated").as_deref(), Some("true"));
        assert_eq!(
            xml_field(xml, "NextContinuationToken").map(|t| xml_unescape(&t)),
            Some("t&1".to_string())
        );
        assert_eq!(xml_fields("<Key>unclosed", "Key").count(), 0);
    }
}
