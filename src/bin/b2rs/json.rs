//! A tiny JSON value (for `info --json` and the text report) and a msgpack → JSON decoder for
//! metalayer contents.

use std::fmt::Write;

/// A JSON value; objects keep their key order.
#[derive(Debug, Clone)]
pub enum Json {
    Null,
    Bool(bool),
    /// A number, already formatted as valid JSON.
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub fn int(v: impl Into<i128>) -> Json {
        Json::Num(v.into().to_string())
    }

    pub fn float(v: f64) -> Json {
        if v.is_finite() {
            let mut s = format!("{v}");
            if !s.contains(['.', 'e', 'E']) {
                s.push_str(".0");
            }
            Json::Num(s)
        } else {
            // JSON has no NaN/inf
            Json::Str(format!("{v}"))
        }
    }

    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// Compact JSON text.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out, 0, true);
        out
    }

    /// Indented JSON text.
    pub fn to_json_pretty(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out, 0, false);
        out
    }

    fn write_json(&self, out: &mut String, indent: usize, compact: bool) {
        let nl = |out: &mut String, n: usize| {
            if !compact {
                out.push('\n');
                out.push_str(&"  ".repeat(n));
            }
        };
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) => out.push_str(n),
            Json::Str(s) => write_str(out, s),
            Json::Arr(v) => {
                // short arrays of scalars stay on one line
                let flat = compact || v.iter().all(|x| !matches!(x, Json::Arr(_) | Json::Obj(_)));
                out.push('[');
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                        if flat && !compact {
                            out.push(' ');
                        }
                    }
                    if !flat {
                        nl(out, indent + 1);
                    }
                    x.write_json(out, indent + 1, compact);
                }
                if !flat && !v.is_empty() {
                    nl(out, indent);
                }
                out.push(']');
            }
            Json::Obj(v) => {
                out.push('{');
                for (i, (k, x)) in v.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    nl(out, indent + 1);
                    write_str(out, k);
                    out.push(':');
                    if !compact {
                        out.push(' ');
                    }
                    x.write_json(out, indent + 1, compact);
                }
                if !v.is_empty() {
                    nl(out, indent);
                }
                out.push('}');
            }
        }
    }

    /// A human-readable rendering: `key: value` lines, nested objects indented.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if let Json::Obj(v) = self {
            text_obj(&mut out, v, 0);
        } else {
            out.push_str(&self.to_json());
            out.push('\n');
        }
        out
    }
}

fn is_scalar_list(v: &[Json]) -> bool {
    v.iter().all(|x| !matches!(x, Json::Obj(_)))
}

fn text_obj(out: &mut String, v: &[(String, Json)], indent: usize) {
    let pad = "  ".repeat(indent);
    for (k, x) in v {
        match x {
            Json::Obj(inner) if inner.is_empty() => {
                let _ = writeln!(out, "{pad}{k}: {{}}");
            }
            Json::Obj(inner) => {
                let _ = writeln!(out, "{pad}{k}:");
                text_obj(out, inner, indent + 1);
            }
            Json::Arr(items) if !items.is_empty() && !is_scalar_list(items) => {
                let _ = writeln!(out, "{pad}{k}:");
                for it in items {
                    match it {
                        Json::Obj(inner) => {
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
        Json::Str(s) => s.clone(),
        other => other.to_json(),
    }
}

fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Lower-case hex of `b`.
pub fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// Decode `b` as exactly one msgpack value; `None` if it is not valid msgpack (or has trailing
/// bytes).
pub fn msgpack_to_json(b: &[u8]) -> Option<Json> {
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
        let s = self.take(n)?;
        Some(match std::str::from_utf8(s) {
            Ok(s) => Json::str(s),
            Err(_) => Json::Obj(vec![("hex".into(), Json::str(hex(s)))]),
        })
    }

    fn bin(&mut self, n: usize) -> Option<Json> {
        let s = self.take(n)?;
        Some(Json::Obj(vec![("bin".into(), Json::str(hex(s)))]))
    }

    fn ext(&mut self, n: usize) -> Option<Json> {
        let t = self.take(1)?[0] as i8;
        let s = self.take(n)?;
        Some(Json::Obj(vec![
            ("ext".into(), Json::int(t)),
            ("hex".into(), Json::str(hex(s))),
        ]))
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
        Some(Json::Arr(v))
    }

    fn map(&mut self, n: usize, depth: usize) -> Option<Json> {
        if n > self.b.len() - self.pos {
            return None;
        }
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let k = match self.value(depth + 1)? {
                Json::Str(s) => s,
                other => other.to_json(),
            };
            v.push((k, self.value(depth + 1)?));
        }
        Some(Json::Obj(v))
    }

    fn value(&mut self, depth: usize) -> Option<Json> {
        if depth > 64 {
            return None;
        }
        let t = self.take(1)?[0];
        match t {
            0x00..=0x7f => Some(Json::int(t)),
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
                Some(Json::float(f32::from_bits(u) as f64))
            }
            0xcb => {
                let u = self.uint(8)?;
                Some(Json::float(f64::from_bits(u)))
            }
            0xcc => Some(Json::int(self.uint(1)?)),
            0xcd => Some(Json::int(self.uint(2)?)),
            0xce => Some(Json::int(self.uint(4)?)),
            0xcf => Some(Json::int(self.uint(8)?)),
            0xd0 => Some(Json::int(self.int(1)?)),
            0xd1 => Some(Json::int(self.int(2)?)),
            0xd2 => Some(Json::int(self.int(4)?)),
            0xd3 => Some(Json::int(self.int(8)?)),
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
            0xe0..=0xff => Some(Json::int(t as i8)),
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
                .to_json(),
            r#"{"a":1,"b":[true,-1]}"#
        );
        assert!(msgpack_to_json(&[0x92, 0x01]).is_none());
        assert!(msgpack_to_json(&[0x01, 0x02]).is_none());
        assert_eq!(
            Json::Str("a\"\n".into()).to_json(),
            r#""a\"\n""#.to_string()
        );
    }
}
