//! AWS Signature Version 4 for S3 requests (header authentication), as the AWS documentation
//! "Signature Calculations for the Authorization Header" describes: a canonical request, the
//! string to sign and an HMAC-SHA256 key derived from the secret, the date, the region and the
//! service.

use sha2::{Digest, Sha256};

/// Credentials of an S3 client (from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
/// `AWS_SESSION_TOKEN`). `Debug` never shows the secret or the token.
///
/// # Examples
///
/// ```
/// use b2rs::remote::Credentials;
///
/// let c = Credentials { key_id: "AKID".into(), secret: "s3cr3t".into(), token: None };
/// assert!(!format!("{:?}", c).contains("s3cr3t"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The access key id.
    pub key_id: String,
    /// The secret access key.
    pub secret: String,
    /// The session token of temporary credentials.
    pub token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("key_id", &self.key_id)
            .field("secret", &"<hidden>")
            .field("token", &self.token.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// The SHA-256 of `data` in lower-case hexadecimal.
pub(super) fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{:02x}", x)).collect()
}

/// HMAC-SHA256 (RFC 2104).
pub(super) fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(k.map(|b| b ^ 0x36));
    inner.update(data);
    let mut outer = Sha256::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// `secs` since the Unix epoch as the `x-amz-date` format, `YYYYMMDDTHHMMSSZ` (UTC).
pub(super) fn amz_date(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // civil from days (H. Hinnant)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        y,
        m,
        d,
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// One request to sign.
pub(super) struct Request<'a> {
    /// `GET`, `PUT`, `HEAD`, `POST` or `DELETE`.
    pub method: &'a str,
    /// The `Host` header value (with `:port` when not the scheme's default).
    pub host: &'a str,
    /// The encoded path (see [`super::url::encode`]), starting with `/`.
    pub path: &'a str,
    /// The query parameters, encoded, in any order (`("uploadId", "x")`; `("uploads", "")`).
    pub query: &'a [(String, String)],
    /// The hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
    pub payload_hash: &'a str,
}

/// The headers that sign `req` with `creds` for `region` at `secs` since the epoch:
/// `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` (temporary credentials)
/// and `authorization`.
pub(super) fn sign(
    req: &Request<'_>,
    extra_signed: &[(String, String)],
    creds: &Credentials,
    region: &str,
    secs: u64,
) -> Vec<(String, String)> {
    let date = amz_date(secs);
    let day = &date[..8];
    let mut headers: Vec<(String, String)> = vec![
        ("host".into(), req.host.to_string()),
        ("x-amz-content-sha256".into(), req.payload_hash.to_string()),
        ("x-amz-date".into(), date.clone()),
    ];
    if let Some(t) = &creds.token {
        headers.push(("x-amz-security-token".into(), t.clone()));
    }
    for (k, v) in extra_signed {
        headers.push((k.to_ascii_lowercase(), v.trim().to_string()));
    }
    headers.sort();
    let signed: Vec<&str> = headers.iter().map(|(k, _)| k.as_str()).collect();
    let signed = signed.join(";");
    let mut query: Vec<&(String, String)> = req.query.iter().collect();
    query.sort();
    let query: Vec<String> = query.iter().map(|(k, v)| format!("{}={}", k, v)).collect();
    let canonical = format!(
        "{}\n{}\n{}\n{}\n{}\n{}",
        req.method,
        req.path,
        query.join("&"),
        headers
            .iter()
            .map(|(k, v)| format!("{}:{}\n", k, v))
            .collect::<String>(),
        signed,
        req.payload_hash
    );
    let scope = format!("{}/{}/s3/aws4_request", day, region);
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{}\n{}\n{}",
        date,
        scope,
        sha256_hex(canonical.as_bytes())
    );
    let mut key = hmac_sha256(format!("AWS4{}", creds.secret).as_bytes(), day.as_bytes());
    for part in [region, "s3", "aws4_request"] {
        key = hmac_sha256(&key, part.as_bytes());
    }
    let signature = hex(&hmac_sha256(&key, to_sign.as_bytes()));
    let mut out: Vec<(String, String)> = headers
        .into_iter()
        .filter(|(k, _)| {
            k != "host" && !extra_signed.iter().any(|(e, _)| e.eq_ignore_ascii_case(k))
        })
        .collect();
    out.push((
        "authorization".into(),
        format!(
            "AWS4-HMAC-SHA256 Credential={}/{}, SignedHeaders={}, Signature={}",
            creds.key_id, scope, signed, signature
        ),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        // RFC 4231, test case 2
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(mac[..4], [0x5b, 0xdc, 0xc1, 0x46]);
        assert_eq!(amz_date(0), "19700101T000000Z");
        assert_eq!(amz_date(1_369_353_600), "20130524T000000Z");
        assert_eq!(amz_date(951_825_600 + 3661), "20000229T130101Z");
    }

    #[test]
    fn aws_get_example() {
        // AWS S3 documentation, "GET Object" example of header authentication (a range)
        let creds = Credentials {
            key_id: "AKIAIOSFODNN7EXAMPLE".into(),
            secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
            token: None,
        };
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let req = Request {
            method: "GET",
            host: "examplebucket.s3.amazonaws.com",
            path: "/test.txt",
            query: &[],
            payload_hash: empty,
        };
        let extra = [("range".to_string(), "bytes=0-9".to_string())];
        let h = sign(&req, &extra, &creds, "us-east-1", 1_369_353_600);
        let auth = &h.iter().find(|(k, _)| k == "authorization").unwrap().1;
        assert!(auth.ends_with(
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        ));
    }

    #[test]
    fn debug_hides_secrets() {
        let c = Credentials {
            key_id: "AKID".into(),
            secret: "s3cr3t".into(),
            token: Some("t0k3n".into()),
        };
        let s = format!("{:?}", c);
        assert!(s.contains("AKID") && !s.contains("s3cr3t") && !s.contains("t0k3n"));
    }

    #[test]
    fn aws_put_example() {
        // AWS S3 documentation, "PUT Object" example of header authentication
        let creds = Credentials {
            key_id: "AKIAIOSFODNN7EXAMPLE".into(),
            secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
            token: None,
        };
        let body = b"Welcome to Amazon S3.";
        let hash = sha256_hex(body);
        assert_eq!(
            hash,
            "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"
        );
        let req = Request {
            method: "PUT",
            host: "examplebucket.s3.amazonaws.com",
            path: "/test%24file.text",
            query: &[],
            payload_hash: &hash,
        };
        let extra = [
            (
                "date".to_string(),
                "Fri, 24 May 2013 00:00:00 GMT".to_string(),
            ),
            (
                "x-amz-storage-class".to_string(),
                "REDUCED_REDUNDANCY".to_string(),
            ),
        ];
        let h = sign(&req, &extra, &creds, "us-east-1", 1_369_353_600);
        let auth = &h.iter().find(|(k, _)| k == "authorization").unwrap().1;
        assert!(
            auth.ends_with(
                "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"
            ),
            "{}",
            auth
        );
    }
}
