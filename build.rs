//! Generates the C headers in `include/` (C-Blosc2 3.3 file names and include structure).
//!
//! Every header comes from a template `include-parts/<name>.in` whose marker lines are replaced:
//! * `/* @b2rs:types */`     the `#[repr(C)]` structs and callback typedefs of `src/capi/types.rs`
//!   listed for that header in [`HEADERS`] (one cbindgen pass over `types.rs` per header);
//! * `/* @b2rs:functions */` every `#[no_mangle] pub extern "C" fn` of the `src/capi/` files of the
//!   header's group (one cbindgen pass per group): `src/capi/b2nd*.rs` → `b2nd.h`,
//!   `src/capi/stdio.rs` → `blosc2/blosc2-stdio.h`, `src/capi/b2rs.rs` → `b2rs.h`, every other file
//!   (except `types.rs` and `consts.rs`) → `blosc2.h`; a folder `src/capi/<x>/` counts as `<x>.rs`;
//! * `/* @b2rs:pending */`   `include-parts/pending_*.h`: the reference declarations of the functions
//!   not written yet, minus those that cbindgen printed (a cargo warning names such stale entries).
//!
//! Shared cbindgen settings are in `cbindgen.toml`. A header is rewritten only when its content
//! changes, so its mtime stays put; CI checks `git diff --exit-code -- include/` after a build.

use std::collections::BTreeSet;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Group {
    Blosc2,
    B2nd,
    Stdio,
    B2rs,
}

struct Header {
    /// Template in `include-parts/`.
    template: &'static str,
    /// Output path under `include/`.
    output: &'static str,
    /// Items of `src/capi/types.rs` printed at the `types` marker.
    types: &'static [&'static str],
    /// Functions printed at the `functions` marker.
    functions: Option<Group>,
    /// Pending declarations pasted at the `pending` marker.
    pending: Option<&'static str>,
}

const HEADERS: &[Header] = &[
    Header {
        template: "blosc2-export.h.in",
        output: "blosc2/blosc2-export.h",
        types: &[],
        functions: None,
        pending: None,
    },
    Header {
        template: "blosc2-common.h.in",
        output: "blosc2/blosc2-common.h",
        types: &[],
        functions: None,
        pending: None,
    },
    Header {
        template: "blosc2-stdio.h.in",
        output: "blosc2/blosc2-stdio.h",
        types: &[
            "blosc2_stdio_file",
            "blosc2_stdio_params",
            "blosc2_stdio_mmap",
        ],
        functions: Some(Group::Stdio),
        pending: Some("pending_stdio.h"),
    },
    Header {
        template: "blosc2.h.in",
        output: "blosc2.h",
        types: &[
            "blosc2_instr",
            "blosc_threads_callback",
            "blosc2_open_cb",
            "blosc2_close_cb",
            "blosc2_size_cb",
            "blosc2_write_cb",
            "blosc2_read_cb",
            "blosc2_truncate_cb",
            "blosc2_destroy_cb",
            "blosc2_io_cb",
            "blosc2_io",
            "blosc2_tuner",
            "blosc2_prefilter_params",
            "blosc2_postfilter_params",
            "blosc2_prefilter_fn",
            "blosc2_postfilter_fn",
            "blosc2_cparams",
            "blosc2_dparams",
            "blosc2_storage",
            "blosc2_metalayer",
            "blosc2_schunk",
            "blosc2_codec_encoder_cb",
            "blosc2_codec_decoder_cb",
            "blosc2_codec",
            "blosc2_filter_forward_cb",
            "blosc2_filter_backward_cb",
            "blosc2_filter",
        ],
        functions: Some(Group::Blosc2),
        pending: Some("pending_blosc2.h"),
    },
    Header {
        template: "b2nd.h.in",
        output: "b2nd.h",
        types: &["chunk_cache_s", "b2nd_array_t"],
        functions: Some(Group::B2nd),
        pending: Some("pending_b2nd.h"),
    },
    Header {
        template: "codecs-registry.h.in",
        output: "blosc2/codecs-registry.h",
        types: &["codec_info"],
        functions: None,
        pending: None,
    },
    Header {
        template: "filters-registry.h.in",
        output: "blosc2/filters-registry.h",
        types: &["filter_info"],
        functions: None,
        pending: None,
    },
    Header {
        template: "tuners-registry.h.in",
        output: "blosc2/tuners-registry.h",
        types: &["tuner_info"],
        functions: None,
        pending: None,
    },
    Header {
        template: "b2rs.h.in",
        output: "b2rs.h",
        types: &["b2rs_bloscpack_params", "b2rs_bloscpack_info"],
        functions: Some(Group::B2rs),
        pending: None,
    },
];

/// Names cbindgen must never print: hand-written in the templates (opaque structs, the
/// `struct timespec` typedef) or Rust-only (`c_bool`, printed as `bool` through a rename).
const NOT_EXPORTED: &[&str] = &[
    "c_bool",
    "blosc2_context",
    "blosc2_context_s",
    "blosc2_frame",
    "blosc2_frame_s",
    "b2nd_context_t",
    "b2nd_context_s",
    "blosc_timestamp_t",
];

const MARK_TYPES: &str = "/* @b2rs:types */";
const MARK_FUNCTIONS: &str = "/* @b2rs:functions */";
const MARK_PENDING: &str = "/* @b2rs:pending */";

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    for p in ["build.rs", "cbindgen.toml", "include-parts", "src/capi"] {
        println!("cargo:rerun-if-changed={p}");
    }
    // The shared library's SONAME (ELF platforms).
    if env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os != "macos" && os != "windows") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libb2rs.so.0");
    }

    // Without the C API (`default-features = false`) there are no headers to make.
    if env::var_os("CARGO_FEATURE_CAPI").is_none() {
        return;
    }

    let config = cbindgen::Config::from_file(root.join("cbindgen.toml"))
        .unwrap_or_else(|e| panic!("cbindgen.toml: {e}"));
    let types_rs = root.join("src/capi/types.rs");

    // Every item of types.rs must be assigned to exactly one header (or be NOT_EXPORTED).
    let declared_types = rust_type_names(&read(&types_rs));
    let mut assigned = BTreeSet::new();
    for h in HEADERS {
        for t in h.types {
            assert!(
                assigned.insert(*t),
                "build.rs: {t} is listed for two headers"
            );
            assert!(
                declared_types.contains(*t),
                "build.rs: {t} is not in src/capi/types.rs"
            );
        }
    }
    for t in &declared_types {
        assert!(
            assigned.contains(t.as_str()) || NOT_EXPORTED.contains(&t.as_str()),
            "build.rs: src/capi/types.rs defines {t}; list it for a header in HEADERS (or in NOT_EXPORTED)"
        );
    }

    // Functions, one cbindgen pass per group.
    let sources = function_sources(&root.join("src/capi"), &out_dir.join("capi-src"));
    let mut generated_fns: Vec<(Group, Vec<String>, String)> = Vec::new();
    for group in [Group::Blosc2, Group::B2nd, Group::Stdio, Group::B2rs] {
        let files: Vec<&PathBuf> = sources
            .iter()
            .filter(|(g, _)| *g == group)
            .map(|(_, p)| p)
            .collect();
        generated_fns.push(generate_functions(&config, group, &files));
    }
    let all_generated: BTreeSet<String> = generated_fns
        .iter()
        .flat_map(|(_, names, _)| names.iter().cloned())
        .collect();

    for h in HEADERS {
        let template_path = root.join("include-parts").join(h.template);
        let template = read(&template_path);
        let mut text = format!(
            "/* Generated by build.rs from include-parts/{}, src/capi/ and cbindgen.toml.\n   Do not edit: edit those and rebuild. */\n",
            h.template
        );
        let mut seen = BTreeSet::new();
        for line in template.lines() {
            let block = match line.trim() {
                MARK_TYPES => {
                    seen.insert(MARK_TYPES);
                    section(
                        "types generated from src/capi/types.rs",
                        &generate_types(&config, &types_rs, h, &declared_types),
                    )
                }
                MARK_FUNCTIONS => {
                    seen.insert(MARK_FUNCTIONS);
                    let group = h.functions.unwrap_or_else(|| {
                        panic!("{}: functions marker but no function group", h.template)
                    });
                    let (_, _, code) = generated_fns.iter().find(|(g, _, _)| *g == group).unwrap();
                    section("functions generated from src/capi/", code)
                }
                MARK_PENDING => {
                    seen.insert(MARK_PENDING);
                    let pending = h.pending.unwrap_or_else(|| {
                        panic!("{}: pending marker but no pending file", h.template)
                    });
                    section(
                        &format!("not implemented by b2rs yet (include-parts/{pending})"),
                        &filter_pending(&root.join("include-parts").join(pending), &all_generated),
                    )
                }
                _ => format!("{line}\n"),
            };
            text.push_str(&block);
        }
        let wanted = [
            (MARK_TYPES, !h.types.is_empty()),
            (MARK_FUNCTIONS, h.functions.is_some()),
            (MARK_PENDING, h.pending.is_some()),
        ];
        for (mark, needed) in wanted {
            assert_eq!(
                seen.contains(mark),
                needed,
                "include-parts/{}: marker {mark} present: {}, expected: {needed}",
                h.template,
                seen.contains(mark)
            );
        }
        write_if_changed(&root.join("include").join(h.output), &text);
    }
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn section(title: &str, body: &str) -> String {
    let body = body.trim_matches('\n');
    if body.is_empty() {
        format!("/* ---- {title}: none ---- */\n")
    } else {
        format!("/* ---- {title} ---- */\n\n{body}\n\n/* ---- end ---- */\n")
    }
}

fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).ok().as_deref() == Some(text) {
        return;
    }
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// `pub struct X` and `pub type X` names of a Rust file (good enough for types.rs).
fn rust_type_names(src: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in src.lines() {
        let t = line.trim_start();
        for kw in ["pub struct ", "pub type "] {
            if let Some(rest) = t.strip_prefix(kw) {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                names.insert(name);
            }
        }
    }
    names
}

fn base_config(config: &cbindgen::Config, items: Vec<cbindgen::ItemType>) -> cbindgen::Config {
    let mut c = config.clone();
    c.export.item_types = items;
    c.export
        .exclude
        .extend(NOT_EXPORTED.iter().map(|s| s.to_string()));
    c
}

fn generate_types(
    config: &cbindgen::Config,
    types_rs: &Path,
    h: &Header,
    declared: &BTreeSet<String>,
) -> String {
    let mut c = base_config(
        config,
        vec![cbindgen::ItemType::Structs, cbindgen::ItemType::Typedefs],
    );
    c.export.include = h.types.iter().map(|s| s.to_string()).collect();
    c.export.exclude.extend(
        declared
            .iter()
            .filter(|t| !h.types.contains(&t.as_str()))
            .cloned(),
    );
    let bindings = cbindgen::Builder::new()
        .with_config(c)
        .with_src(types_rs)
        .generate()
        .unwrap_or_else(|e| panic!("cbindgen on src/capi/types.rs for {}: {e}", h.output));
    let mut buf = Vec::new();
    bindings.write(&mut buf);
    let code = String::from_utf8(buf).unwrap();
    for t in h.types {
        assert!(
            code.contains(&format!("}} {t};")) || code.contains(&format!("(*{t})")),
            "cbindgen printed no definition of {t} for {}:\n{code}",
            h.output
        );
    }
    code
}

/// The C-layer source files with their group. Each file is copied to `copy_dir` with its `mod x;`
/// declarations turned into `mod x {}`, since cbindgen follows them from a lone source file and
/// every file is parsed on its own.
fn function_sources(capi: &Path, copy_dir: &Path) -> Vec<(Group, PathBuf)> {
    let mut files = Vec::new();
    collect_rs(capi, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let rel = file.strip_prefix(capi).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .to_string();
        if rel.components().count() == 1 && (first == "types.rs" || first == "consts.rs") {
            continue;
        }
        let stem = first.strip_suffix(".rs").unwrap_or(&first);
        let group = if stem.starts_with("b2nd") {
            Group::B2nd
        } else if stem == "stdio" {
            Group::Stdio
        } else if stem == "b2rs" {
            Group::B2rs
        } else {
            Group::Blosc2
        };
        let copy = copy_dir.join(rel);
        fs::create_dir_all(copy.parent().unwrap()).unwrap();
        write_if_changed(&copy, &neutralize_mods(&read(&file)));
        out.push((group, copy));
    }
    out
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Rewrites every `mod name;` as `mod name {}` (attributes stay attached to it).
fn neutralize_mods(src: &str) -> String {
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut copied = 0;
    let mut i = 0;
    while let Some(pos) = src[i..].find("mod") {
        let start = i + pos;
        i = start + 3;
        if start > 0 && is_ident(bytes[start - 1]) {
            continue;
        }
        let mut j = i;
        if j >= bytes.len() || !bytes[j].is_ascii_whitespace() {
            continue;
        }
        while j < bytes.len() && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        let name_start = j;
        while j < bytes.len() && is_ident(bytes[j]) {
            j += 1;
        }
        if j == name_start {
            continue;
        }
        while j < bytes.len() && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        if j < bytes.len() && bytes[j] == b';' {
            out.push_str(&src[copied..j]);
            out.push_str("{}");
            copied = j + 1;
            i = j + 1;
        }
    }
    out.push_str(&src[copied..]);
    out
}

/// Returns the names of the printed functions and their declarations.
fn generate_functions(
    config: &cbindgen::Config,
    group: Group,
    files: &[&PathBuf],
) -> (Group, Vec<String>, String) {
    if files.is_empty() {
        return (group, Vec::new(), String::new());
    }
    let c = base_config(config, vec![cbindgen::ItemType::Functions]);
    let mut builder = cbindgen::Builder::new().with_config(c);
    for f in files {
        builder = builder.with_src(f);
    }
    let bindings = builder
        .generate()
        .unwrap_or_else(|e| panic!("cbindgen on the {group:?} files of src/capi/: {e}"));
    let names: Vec<String> = bindings
        .functions
        .iter()
        .map(|f| f.path().name().to_string())
        .collect();
    let mut buf = Vec::new();
    bindings.write(&mut buf);
    (group, names, String::from_utf8(buf).unwrap())
}

/// The pending file without its leading comment and without the declarations of functions that
/// cbindgen printed (warned about: they should be deleted from the pending file).
fn filter_pending(path: &Path, generated: &BTreeSet<String>) -> String {
    let text = read(path);
    let mut kept = Vec::new();
    for (i, block) in text.split("\n\n").enumerate() {
        let block = block.trim_matches('\n');
        if block.trim().is_empty() {
            continue;
        }
        match declared_name(block) {
            None if i == 0 => {}
            None => kept.push(block),
            Some(name) if generated.contains(&name) => println!(
                "cargo:warning={name} is implemented in src/capi/: delete its declaration from {}",
                path.display()
            ),
            Some(_) => kept.push(block),
        }
    }
    kept.join("\n\n")
}

/// The function declared by a pending block: the first lower-case identifier followed by `(`
/// (upper-case ones are macros such as `B2ND_DEPRECATED(...)`), comments ignored.
fn declared_name(block: &str) -> Option<String> {
    let code = strip_comments(block);
    let bytes = code.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'(' {
            continue;
        }
        let before = code[..i].trim_end();
        let ident: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if !ident.is_empty() && ident.chars().any(|c| c.is_ascii_lowercase()) {
            return Some(ident);
        }
    }
    None
}

fn strip_comments(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, r)| r);
            out.push(' ');
        } else if let Some(r) = rest.strip_prefix("//") {
            rest = r.split_once('\n').map_or("", |(_, r)| r);
            out.push('\n');
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}
