//! `b2rs salvage IN OUT`: a new frame holding every chunk of a damaged frame (or b2nd array)
//! that still decodes, in its place; lost chunks become zero chunks and are listed. Exit 0
//! when nothing was lost, 3 when something was (the new frame is written), 1 when nothing
//! could be written.

use crate::fail::{d, Res};
use crate::json::{self, int, obj, s, Json};
use crate::opts::Rescue;
use b2rs::salvage::{self, Recovery, Report};

pub(crate) fn salvage(t: &Rescue) -> Res<u8> {
    if t.output.exists() {
        let r = if t.output.is_dir() {
            std::fs::remove_dir_all(&t.output)
        } else {
            std::fs::remove_file(&t.output)
        };
        r.map_err(|e| format!("{}: {e}", d(&t.output)))?;
    }
    let r = salvage::salvage(&t.input, &t.output, t.sparse)
        .map_err(|e| format!("{}: cannot salvage: {e}", d(&t.input)))?;
    let v = report(t, &r);
    if t.json {
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        print!("{}", json::to_text(&v));
    }
    Ok(if r.lost_anything() { 3 } else { 0 })
}

fn report(t: &Rescue, r: &Report) -> Json {
    let how = match r.recovery {
        Recovery::Index => "the frame's index",
        Recovery::WalkedIndex => "the offsets chunk found by walking the stored chunks",
        Recovery::Walk => "the stored chunks in file order (no usable index)",
    };
    let lost: Vec<Json> = r
        .lost
        .iter()
        .map(|l| {
            obj(vec![
                ("chunk".into(), int(l.n)),
                ("reason".into(), s(l.reason.clone())),
                ("zeroed".into(), Json::Bool(l.zeroed)),
            ])
        })
        .collect();
    let names = |v: &[String]| Json::Array(v.iter().map(|n| s(n.clone())).collect());
    obj(vec![
        ("input".into(), s(d(&t.input))),
        ("output".into(), s(d(&t.output))),
        (
            "damage".into(),
            r.damage.as_ref().map_or(Json::Null, |m| s(m.clone())),
        ),
        ("chunks found through".into(), s(how)),
        ("chunks".into(), int(r.nchunks)),
        ("recovered".into(), int(r.recovered.len() as i64)),
        ("recovered chunks".into(), s(ranges(&r.recovered))),
        ("lost".into(), Json::Array(lost)),
        ("metalayers".into(), names(&r.metalayers)),
        ("vlmetalayers".into(), names(&r.vlmetalayers)),
        (
            "notes".into(),
            Json::Array(r.notes.iter().map(|n| s(n.clone())).collect()),
        ),
    ])
}

/// Chunk numbers as ranges: `0-3, 5, 7-9`.
fn ranges(v: &[i64]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    out.join(", ")
}
