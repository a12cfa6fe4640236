//! `b2rs info FILE [--json]`: the header, codec, filters, sizes, special chunks and metalayers of
//! an input, as text or JSON.

use crate::fail::{d, Res};
use crate::input::{open_input, Input};
use crate::json::{self, int, obj, s, Json};
use crate::opts::Opts;
use b2rs::b2nd::Meta;
use b2rs::bloscpack;
use b2rs::chunk::header::{Header, Special};
use b2rs::frame::{index, Frame};
use b2rs::params::filter_id;
use b2rs::DParams;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;

pub(crate) fn special_name(s: Special) -> &'static str {
    match s {
        Special::Zero => "zeros",
        Special::Nan => "nan",
        Special::Value => "value",
        Special::Uninit => "uninit",
    }
}

pub(crate) fn filter_name(id: u8) -> String {
    match id {
        filter_id::NOFILTER => "none".into(),
        filter_id::SHUFFLE => "shuffle".into(),
        filter_id::BITSHUFFLE => "bitshuffle".into(),
        filter_id::DELTA => "delta".into(),
        filter_id::TRUNC_PREC => "trunc_prec".into(),
        filter_id::NDCELL => "ndcell".into(),
        filter_id::NDMEAN => "ndmean".into(),
        filter_id::BYTEDELTA_BUGGY => "bytedelta(old)".into(),
        filter_id::BYTEDELTA => "bytedelta".into(),
        filter_id::INT_TRUNC => "int_trunc".into(),
        other => format!("filter{other}"),
    }
}

pub(crate) fn codec_name(id: u8) -> String {
    b2rs::codecs::name_of(id).unwrap_or_else(|| format!("codec{id}"))
}

pub(crate) fn filters_json(filters: &[u8], meta: &[u8]) -> Json {
    Json::Array(
        filters
            .iter()
            .zip(meta)
            .filter(|(f, _)| **f != 0)
            .map(|(&f, &m)| {
                let mut v = vec![("name".into(), s(filter_name(f)))];
                if m != 0 {
                    v.push(("meta".into(), int(m)));
                }
                obj(v)
            })
            .collect(),
    )
}

pub(crate) fn ratio(nbytes: i64, cbytes: i64) -> Json {
    if cbytes > 0 {
        json::float((nbytes as f64 / cbytes as f64 * 1000.0).round() / 1000.0)
    } else {
        Json::Null
    }
}

pub(crate) fn meta_json(m: &Meta, typesize: i32) -> Json {
    let arr = |v: Vec<i64>| Json::Array(v.into_iter().map(int).collect());
    obj(vec![
        ("ndim".into(), int(m.ndim() as i64)),
        ("shape".into(), arr(m.shape.clone())),
        (
            "chunkshape".into(),
            arr(m.chunkshape.iter().map(|&x| x as i64).collect()),
        ),
        (
            "blockshape".into(),
            arr(m.blockshape.iter().map(|&x| x as i64).collect()),
        ),
        (
            "dtype".into(),
            match &m.dtype {
                Some(d) => s(String::from_utf8_lossy(d)),
                None => Json::Null,
            },
        ),
        ("dtype_format".into(), int(m.dtype_format)),
        ("itemsize".into(), int(typesize)),
    ])
}

/// A metalayer content: msgpack as JSON, else text, else hex.
pub(crate) fn content_json(b: &[u8]) -> Json {
    if let Some(j) = json::msgpack_to_json(b) {
        return j;
    }
    obj(vec![("hex".into(), s(json::hex(b)))])
}

/// Most chunks of a frame `inspect` looks at one by one (special and unreadable chunks).
pub(crate) const INSPECT_CHUNKS: i64 = 100_000;

pub(crate) fn frame_info(f: &Frame, path: &Path, b2nd: Option<&Meta>) -> Json {
    let p = f.params();
    let mut v: Vec<(String, Json)> = vec![
        ("file".into(), s(d(path))),
        (
            "format".into(),
            s(match (b2nd.is_some(), f.is_sparse()) {
                (false, false) => "contiguous frame",
                (false, true) => "sparse frame",
                (true, false) => "b2nd array (contiguous frame)",
                (true, true) => "b2nd array (sparse frame)",
            }),
        ),
        ("typesize".into(), int(p.typesize)),
        ("blocksize".into(), int(p.blocksize)),
        ("codec".into(), s(codec_name(p.compcode))),
        ("codec_meta".into(), int(p.compcode_meta)),
        ("clevel".into(), int(p.clevel)),
        ("filters".into(), filters_json(&p.filters, &p.filters_meta)),
        ("splitmode".into(), s(format!("{:?}", p.splitmode))),
        ("use_dict".into(), Json::Bool(p.use_dict)),
        ("nbytes".into(), int(f.nbytes())),
        ("cbytes".into(), int(f.cbytes())),
        ("ratio".into(), ratio(f.nbytes(), f.cbytes())),
        ("chunksize".into(), int(f.chunksize())),
        ("nchunks".into(), int(f.nchunks())),
        ("vl_blocks".into(), Json::Bool(f.vl_blocks())),
    ];
    let mut specials = Vec::new();
    let mut errors = Vec::new();
    // the chunks are looked at one by one: only the first INSPECT_CHUNKS of a big frame
    let shown = f.nchunks().min(INSPECT_CHUNKS);
    if shown < f.nchunks() {
        v.push(("chunks_inspected".into(), int(shown)));
    }
    for i in 0..shown {
        let o = match f.chunk_offset(i) {
            Ok(o) => o,
            Err(e) => {
                errors.push(s(format!("chunk {i}: {e}")));
                continue;
            }
        };
        let kind = if o < 0 {
            index::special_of_offset(o).map(special_name)
        } else {
            match f
                .get_chunk(i)
                .map(|c| Header::parse(&c).map(|h| h.special()))
            {
                Ok(Ok(s)) => s.map(special_name),
                Ok(Err(e)) | Err(e) => {
                    errors.push(s(format!("chunk {i}: {e}")));
                    None
                }
            }
        };
        if let Some(k) = kind {
            specials.push(obj(vec![("chunk".into(), int(i)), ("kind".into(), s(k))]));
        }
    }
    v.push(("special_chunks".into(), Json::Array(specials)));
    if !errors.is_empty() {
        v.push(("unreadable_chunks".into(), Json::Array(errors)));
    }
    if let Some(m) = b2nd {
        v.push(("b2nd".into(), meta_json(m, p.typesize)));
    }
    let metas: Vec<(String, Json)> = f
        .metalayers()
        .iter()
        .map(|m| {
            let j = if m.name == "b2nd" || m.name == "caterva" {
                match Meta::deserialize(&m.content) {
                    Ok((mm, _)) => meta_json(&mm, p.typesize),
                    Err(_) => content_json(&m.content),
                }
            } else {
                content_json(&m.content)
            };
            (m.name.clone(), j)
        })
        .collect();
    v.push(("metalayers".into(), obj(metas)));
    let vl: Vec<(String, Json)> = f
        .vlmetalayers()
        .iter()
        .map(|m| {
            let j = match Header::parse(&m.content) {
                Ok(h) => {
                    let mut out = vec![0u8; h.nbytes.max(0) as usize];
                    match b2rs::chunk::decompress(&DParams::default(), &m.content, &mut out, None) {
                        Ok(n) => {
                            out.truncate(n);
                            content_json(&out)
                        }
                        Err(e) => obj(vec![("error".into(), s(e.to_string()))]),
                    }
                }
                Err(e) => obj(vec![("error".into(), s(e.to_string()))]),
            };
            (m.name.clone(), j)
        })
        .collect();
    v.push(("vlmetalayers".into(), obj(vl)));
    obj(v)
}

pub(crate) fn blp_info(r: &bloscpack::Reader<BufReader<File>>, path: &Path) -> Res<Json> {
    let h = r.header();
    let file_len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut v: Vec<(String, Json)> = vec![
        ("file".into(), s(d(path))),
        ("format".into(), s("bloscpack")),
        ("format_version".into(), int(h.format_version)),
        ("typesize".into(), int(h.typesize)),
        ("chunk_size".into(), int(h.chunk_size)),
        ("last_chunk".into(), int(h.last_chunk)),
        ("nchunks".into(), int(h.nchunks)),
        ("max_app_chunks".into(), int(h.max_app_chunks)),
        ("offsets".into(), Json::Bool(h.offsets)),
        ("checksum".into(), s(h.checksum.name())),
    ];
    // codec and filter from the first chunk's Blosc header
    if h.nchunks != 0 {
        let mut hb = [0u8; 32];
        let ok = File::open(path)
            .and_then(|mut f| {
                use std::io::{Seek, SeekFrom};
                f.seek(SeekFrom::Start(r.data_start()))?;
                f.read_exact(&mut hb[..16])
            })
            .is_ok();
        if ok {
            let flags = hb[2];
            v.push(("codec".into(), s(codec_name(flags >> 5))));
            let filter = if flags & 0x04 != 0 && flags & 0x01 == 0 {
                "bitshuffle"
            } else if flags & 0x01 != 0 && flags & 0x04 == 0 {
                "shuffle"
            } else {
                "none"
            };
            v.push((
                "filters".into(),
                Json::Array(vec![obj(vec![("name".into(), s(filter))])]),
            ));
            v.push(("blosc_version".into(), int(hb[0])));
        }
    }
    let nbytes = h.nbytes();
    v.push(("nbytes".into(), nbytes.map(int).unwrap_or(Json::Null)));
    v.push(("file_size".into(), int(file_len)));
    v.push((
        "ratio".into(),
        nbytes
            .map(|n| ratio(n as i64, file_len as i64))
            .unwrap_or(Json::Null),
    ));
    if let Some(m) = r.metadata() {
        let mh = &m.header;
        let data = match std::str::from_utf8(&m.data) {
            Ok(t) => s(t),
            Err(_) => obj(vec![("hex".into(), s(json::hex(&m.data)))]),
        };
        v.push((
            "metadata".into(),
            obj(vec![
                (
                    "magic_format".into(),
                    s(String::from_utf8_lossy(mh.magic_name())),
                ),
                ("codec".into(), s(format!("{:?}", mh.meta_codec))),
                ("checksum".into(), s(mh.meta_checksum.name())),
                ("size".into(), int(mh.meta_size)),
                ("max_size".into(), int(mh.max_meta_size)),
                ("data".into(), data),
            ]),
        ));
    }
    Ok(obj(v))
}

pub(crate) fn info(o: &Opts, path: &Path) -> Res<()> {
    let input = open_input(path)?;
    let j = match &input {
        Input::Frame(f) => frame_info(f, path, None),
        Input::B2nd(f, m) => frame_info(f, path, Some(m)),
        Input::Blp(r) => blp_info(r, path)?,
    };
    let text = if o.json {
        serde_json::to_string_pretty(&j).unwrap_or_default() + "\n"
    } else {
        json::to_text(&j)
    };
    let mut so = std::io::stdout().lock();
    let _ = so.write_all(text.as_bytes());
    Ok(())
}
