//! S3 settings the way the AWS tools read them, and the URL and signed headers of one request.
//!
//! - `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`: credentials; without
//!   them requests go unsigned (anonymous reads of public buckets), as with
//!   `AWS_NO_SIGN_REQUEST=1`;
//! - `AWS_REGION` (else `AWS_DEFAULT_REGION`, else `us-east-1`);
//! - `AWS_ENDPOINT_URL_S3` (else `AWS_ENDPOINT_URL`): an S3-compatible store (MinIO, Ceph,
//!   moto, …), addressed path-style (`<endpoint>/<bucket>/<key>`); without it, AWS S3 at
//!   `https://<bucket>.s3.<region>.amazonaws.com/<key>`.

use super::sigv4::{self, Credentials};
use super::url::encode;

/// The S3 settings of the process.
///
/// # Examples
///
/// ```
/// use b2rs::remote::s3::S3Config;
///
/// let minio = S3Config {
///     creds: None,
///     region: "us-east-1".into(),
///     endpoint: Some("http://127.0.0.1:9000".into()),
/// };
/// assert_eq!(minio.request("GET", "b", "k", &[], vec![]).0, "http://127.0.0.1:9000/b/k");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Config {
    /// Credentials (`None`: unsigned requests).
    pub creds: Option<Credentials>,
    /// The region requests are signed for.
    pub region: String,
    /// The endpoint of an S3-compatible store (`scheme://host[:port][/base]`, no trailing `/`).
    pub endpoint: Option<String>,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl S3Config {
    /// The settings from the environment (see the module documentation).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::remote::s3::S3Config;
    ///
    /// let c = S3Config::from_env();
    /// assert!(!c.region.is_empty());
    /// ```
    pub fn from_env() -> S3Config {
        let no_sign = env("AWS_NO_SIGN_REQUEST").is_some_and(|v| v != "0" && v != "false");
        let creds = match (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
            (Some(key_id), Some(secret)) if !no_sign => Some(Credentials {
                key_id,
                secret,
                token: env("AWS_SESSION_TOKEN"),
            }),
            _ => None,
        };
        S3Config {
            creds,
            region: env("AWS_REGION")
                .or_else(|| env("AWS_DEFAULT_REGION"))
                .unwrap_or_else(|| "us-east-1".into()),
            endpoint: env("AWS_ENDPOINT_URL_S3")
                .or_else(|| env("AWS_ENDPOINT_URL"))
                .map(|e| e.trim_end_matches('/').to_string()),
        }
    }

    /// The URL of `bucket`/`key` and the request headers (`extra` plus, with credentials, the
    /// signature headers) for `method` with `query` (encoded pairs).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::remote::s3::S3Config;
    ///
    /// let c = S3Config { creds: None, region: "eu-west-1".into(), endpoint: None };
    /// let (url, h) = c.request("GET", "data", "runs/a b.b2nd", &[], vec![]);
    /// assert_eq!(url, "https://data.s3.eu-west-1.amazonaws.com/runs/a%20b.b2nd");
    /// assert!(h.is_empty()); // anonymous: unsigned
    ///
    /// let c = S3Config { endpoint: Some("http://127.0.0.1:9000".into()), ..c };
    /// let (url, _) = c.request("GET", "data", "k", &[("partNumber".into(), "1".into())], vec![]);
    /// assert_eq!(url, "http://127.0.0.1:9000/data/k?partNumber=1");
    /// ```
    pub fn request(
        &self,
        method: &str,
        bucket: &str,
        key: &str,
        query: &[(String, String)],
        extra: Vec<(String, String)>,
    ) -> (String, Vec<(String, String)>) {
        let (base, path) = match &self.endpoint {
            Some(e) => (
                e.clone(),
                format!("/{}/{}", encode(bucket, false), encode(key, true)),
            ),
            None if bucket.contains('.') => (
                format!("https://s3.{}.amazonaws.com", self.region),
                format!("/{}/{}", encode(bucket, false), encode(key, true)),
            ),
            None => (
                format!("https://{}.s3.{}.amazonaws.com", bucket, self.region),
                format!("/{}", encode(key, true)),
            ),
        };
        let (scheme_host, base_path) = split_base(&base);
        let path = format!("{}{}", base_path, path);
        let qs: Vec<String> = query
            .iter()
            .map(|(k, v)| {
                if v.is_empty() && k == "uploads" {
                    k.clone()
                } else {
                    format!("{}={}", k, v)
                }
            })
            .collect();
        let url = if qs.is_empty() {
            format!("{}{}", scheme_host, path)
        } else {
            format!("{}{}?{}", scheme_host, path, qs.join("&"))
        };
        let Some(creds) = &self.creds else {
            return (url, extra);
        };
        let host = scheme_host
            .split_once("://")
            .map_or(scheme_host, |(_, h)| h);
        // the default port is not part of the Host header
        let host = host
            .strip_suffix(":443")
            .filter(|_| scheme_host.starts_with("https"))
            .or_else(|| {
                host.strip_suffix(":80")
                    .filter(|_| scheme_host.starts_with("http:"))
            })
            .unwrap_or(host);
        let req = sigv4::Request {
            method,
            host,
            path: &path,
            query,
            payload_hash: "UNSIGNED-PAYLOAD",
        };
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut headers = sigv4::sign(&req, &extra, creds, &self.region, secs);
        headers.extend(extra);
        (url, headers)
    }
}

/// `scheme://host[:port]` and the base path (`""` or `/base`) of an endpoint.
fn split_base(e: &str) -> (&str, &str) {
    let after = e.find("://").map_or(0, |i| i + 3);
    match e[after..].find('/') {
        Some(i) => (&e[..after + i], &e[after + i..]),
        None => (e, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_requests() {
        let c = S3Config {
            creds: Some(Credentials {
                key_id: "AKID".into(),
                secret: "SECRET".into(),
                token: Some("TOKEN".into()),
            }),
            region: "us-east-1".into(),
            endpoint: Some("http://127.0.0.1:5000/".trim_end_matches('/').into()),
        };
        let (url, h) = c.request(
            "GET",
            "b",
            "d/x.chunk",
            &[],
            vec![("range".into(), "bytes=0-9".into())],
        );
        assert_eq!(url, "http://127.0.0.1:5000/b/d/x.chunk");
        let names: Vec<&str> = h.iter().map(|(k, _)| k.as_str()).collect();
        for n in [
            "authorization",
            "x-amz-date",
            "x-amz-content-sha256",
            "x-amz-security-token",
            "range",
        ] {
            assert!(names.contains(&n), "{} in {:?}", n, names);
        }
        let auth = &h.iter().find(|(k, _)| k == "authorization").unwrap().1;
        assert!(auth.contains(
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date;x-amz-security-token"
        ));
        assert!(!auth.contains("SECRET"));
        assert_eq!(split_base("http://h:1/base"), ("http://h:1", "/base"));
        assert_eq!(split_base("https://h"), ("https://h", ""));
    }
}
