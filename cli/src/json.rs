//! What `info` reports, as a `serde_json` value (objects keep their key order): constructors,
//! the text rendering of `info` without `--json`, and a msgpack → JSON decoder for metalayer
//! contents.

use std::fmt::Write;

/// A JSON value.
pub(crate) type Json = serde_json::Value;

/// An object with its keys in this order.
pub(crate) fn obj(v: Vec<(String, Json)>) -> Json {
    Json::Object(v.into_iter().collect())
}

/// A string.
pub(crate) fn s(x: impl Into<String>) -> Json {
    Json::String(x.into())
}

/// An integer.
pub(crate) fn int(v: impl Into<i128>) -> Json {
    let v = v.into();
    match (i64::try_from(v), u64::try_from(v)) {
        (Ok(i), _) => Json::from(i),
        (_, Ok(u)) => Json::from(u),
        _ => Json::String(v.to_string()),
    }
}

/// A float (JSON has no NaN or infinities: those become strings).
pub(crate) fn float(v: f64) -> Json {
    serde_json::Number::from_f64(v)
        .map(Json::Number)
        .unwrap_or_else(|| Json::String(format!("{v}")))
}

/// A human-readable rendering: `key: value` lines, nested objects indented.
pub(crate) fn to_text(v: &Json) -> String {
    let mut out = String::new();
    if let Json::Object(m) = v {
        text_obj(&mut out, m, 0);
    } else {
        out.push_str(&v.to_string());
        out.push('\n');
    }
    out
}

fn is_scalar_list(v: &[Json]) -> bool {
    v.iter().all(|x| !x.is_object())
}

fn text_obj(out: &mut String, m: &serde_json::Map<String, Json>, indent: usize) {
    let pad = "  ".repeat(indent);
    for (k, x) in m {
        match x {
            Json::Object(inner) if inner.is_empty() => {
                let _ = writeln!(out, "{pad}{k}: {{}}");
            }
            Json::Object(inner) => {
                let _ = writeln!(out, "{pad}{k}:");
                text_obj(out, inner, indent + 1);
            }
            Json::Array(items) if !items.is_empty() && !is_scalar_list(items) => {
                let _ = writeln!(out, "{pad}{k}:");
                for it in items {
                    match it {
                        Json::Object(inner) => {
                            // one line per small object
                            let line: Vec<String> = inner
                                .iter()
                                .map(|(k, v)| format!("{k}={}", scalar_text(v)))
                                .collect();
                            let _ = writeln!(out, "{pad}  - {}", line.join(" "));
                        }
                        other => {
                            let _ = writeln!(out, "{pad}  - {}", scalar_text(other));
                        }
                    }
                }
            }
            other => {
                let _ = writeln!(out, "{pad}{k}: {}", scalar_text(other));
            }
        }
    }
}

fn scalar_text(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Lower-case hex of `b`.
pub(crate) fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// Decode `b` as exactly one msgpack value; `None` if it is not valid msgpack (or has trailing
/// bytes).
pub(crate) fn msgpack_to_json(b: &[u8]) -> Option<Json> {
    let mut d = Dec { b, pos: 0 };
    let v = d.value(0)?;
    (d.pos == b.len()).then_some(v)
}

struct Dec<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Dec<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.b.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    fn uint(&mut self, n: usize) -> Option<u64> {
        Some(self.take(n)?.iter().fold(0u64, |a, &x| (a << 8) | x as u64))
    }

    fn int(&mut self, n: usize) -> Option<i64> {
        let u = self.uint(n)?;
        let shift = 64 - 8 * n as u32;
        Some(((u << shift) as i64) >> shift)
    }

    fn str(&mut self, n: usize) -> Option<Json> {
        let b = self.take(n)?;
        Some(match std::str::from_utf8(b) {
            Ok(t) => s(t),
            Err(_) => obj(vec![("hex".into(), s(hex(b)))]),
        })
    }

    fn bin(&mut self, n: usize) -> Option<Json> {
        let b = self.take(n)?;
        Some(obj(vec![("bin".into(), s(hex(b)))]))
    }

    fn ext(&mut self, n: usize) -> Option<Json> {
        let t = self.take(1)?[0] as i8;
        let b = self.take(n)?;
        Some(obj(vec![("ext".into(), int(t)), ("hex".into(), s(hex(b)))]))
    }

    fn array(&mut self, n: usize, depth: usize) -> Option<Json> {
        // every element takes at least one byte
        if n > self.b.len() - self.pos {
            return None;
        }
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.value(depth + 1)?);
        }
        Some(Json::Array(v))
    }

    fn map(&mut self, n: usize, depth: usize) -> Option<Json> {
        if n > self.b.len() - self.pos {
            return None;
        }
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let k = match self.value(depth + 1)? {
                Json::String(s) => s,
                other => other.to_string(),
            };
            v.push((k, self.value(depth + 1)?));
        }
        Some(obj(v))
    }

    fn value(&mut self, depth: usize) -> Option<Json> {
        if depth > 64 {
            return None;
        }
        let t = self.take(1)?[0];
        match t {
            0x00..=0x7f => Some(int(t)),
            0x80..=0x8f => self.map((t & 0x0f) as usize, depth),
            0x90..=0x9f => self.array((t & 0x0f) as usize, depth),
            0xa0..=0xbf => self.str((t & 0x1f) as usize),
            0xc0 => Some(Json::Null),
            0xc2 => Some(Json::Bool(false)),
            0xc3 => Some(Json::Bool(true)),
            0xc4 => {
                let n = self.uint(1)? as usize;
                self.bin(n)
            }
            0xc5 => {
                let n = self.uint(2)? as usize;
                self.bin(n)
            }
            0xc6 => {
                let n = self.uint(4)? as usize;
                self.bin(n)
            }
            0xc7 => {
                let n = self.uint(1)? as usize;
                self.ext(n)
            }
            0xc8 => {
                let n = self.uint(2)? as usize;
                self.ext(n)
            }
            0xc9 => {
                let n = self.uint(4)? as usize;
                self.ext(n)
            }
            0xca => {
                let u = self.uint(4)? as u32;
                Some(float(f32::from_bits(u) as f64))
            }
            0xcb => {
                let u = self.uint(8)?;
                Some(float(f64::from_bits(u)))
            }
            0xcc => Some(int(self.uint(1)?)),
            0xcd => Some(int(self.uint(2)?)),
            0xce => Some(int(self.uint(4)?)),
            0xcf => Some(int(self.uint(8)?)),
            0xd0 => Some(int(self.int(1)?)),
            0xd1 => Some(int(self.int(2)?)),
            0xd2 => Some(int(self.int(4)?)),
            0xd3 => Some(int(self.int(8)?)),
            0xd4 => self.ext(1),
            0xd5 => self.ext(2),
            0xd6 => self.ext(4),
            0xd7 => self.ext(8),
            0xd8 => self.ext(16),
            0xd9 => {
                let n = self.uint(1)? as usize;
                self.str(n)
            }
            0xda => {
                let n = self.uint(2)? as usize;
                self.str(n)
            }
            0xdb => {
                let n = self.uint(4)? as usize;
                self.str(n)
            }
            0xdc => {
                let n = self.uint(2)? as usize;
                self.array(n, depth)
            }
            0xdd => {
                let n = self.uint(4)? as usize;
                self.array(n, depth)
            }
            0xde => {
                let n = self.uint(2)? as usize;
                self.map(n, depth)
            }
            0xdf => {
                let n = self.uint(4)? as usize;
                self.map(n, depth)
            }
            0xe0..=0xff => Some(int(t as i8)),
            0xc1 => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msgpack() {
        assert_eq!(
            msgpack_to_json(&[0x82, 0xa1, b'a', 0x01, 0xa1, b'b', 0x92, 0xc3, 0xff])
                .unwrap()
                .to_string(),
            r#"{"a":1,"b":[true,-1]}"#
        );
        assert!(msgpack_to_json(&[0x92, 0x01]).is_none());
        assert!(msgpack_to_json(&[0x01, 0x02]).is_none());
        assert_eq!(s("a\"\n").to_string(), r#""a\"\n""#.to_string());
        assert_eq!(
            to_text(&obj(vec![(
                "shape".into(),
                Json::Array(vec![int(2), int(3)])
            )])),
            "shape: [2,3]\n"
        );
    }
}
