use super::*;
use core::mem::{align_of, offset_of, size_of};
use std::collections::BTreeMap;
use std::ffi::CStr;

const LAYOUT_REF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/abi/layout-ref.tsv");

fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

/// (struct, field or "" for the struct itself) -> (offset or size, size or align)
fn rust_layout() -> BTreeMap<(String, String), (usize, usize)> {
    let mut m = BTreeMap::new();
    macro_rules! layout {
        ($c_name:expr, $ty:ty; $($field:ident),* $(,)?) => {
            m.insert(($c_name.to_string(), String::new()), (size_of::<$ty>(), align_of::<$ty>()));
            $(
                m.insert(
                    ($c_name.to_string(), stringify!($field).to_string()),
                    (offset_of!($ty, $field), field_size(|s: &$ty| &s.$field)),
                );
            )*
        };
    }
    layout!("blosc2_instr", blosc2_instr; cratio, cspeed, filter_speed, flags);
    layout!("blosc2_io_cb", blosc2_io_cb; id, name, is_allocation_necessary, open, close, size,
        write, read, truncate, destroy);
    layout!("blosc2_io", blosc2_io; id, name, params);
    layout!("blosc2_tuner", blosc2_tuner; init, next_blocksize, next_cparams, update, free, id,
        name);
    layout!("blosc2_prefilter_params", blosc2_prefilter_params; user_data, input, output,
        output_size, output_typesize, output_offset, nchunk, nblock, tid, ttmp, ttmp_nbytes, ctx,
        output_is_disposable);
    layout!("blosc2_postfilter_params", blosc2_postfilter_params; user_data, input, output,
        size, typesize, offset, nchunk, nblock, tid, ttmp, ttmp_nbytes, ctx);
    layout!("blosc2_cparams", blosc2_cparams; compcode, compcode_meta, clevel, use_dict,
        typesize, nthreads, blocksize, splitmode, schunk, filters, filters_meta, prefilter,
        preparams, tuner_params, tuner_id, instr_codec, codec_params, filter_params);
    layout!("blosc2_dparams", blosc2_dparams; nthreads, schunk, postfilter, postparams,
        typesize);
    layout!("blosc2_storage", blosc2_storage; contiguous, urlpath, cparams, dparams, io);
    layout!("blosc2_metalayer", blosc2_metalayer; name, content, content_len);
    layout!("blosc2_schunk", blosc2_schunk; version, compcode, compcode_meta, clevel,
        splitmode, typesize, blocksize, chunksize, flags2, use_dict, filters, filters_meta,
        nchunks, current_nchunk, nbytes, cbytes, data, data_len, storage, frame, cctx, dctx,
        metalayers, nmetalayers, vlmetalayers, nvlmetalayers, tuner_params, tuner_id, ndim,
        blockshape, view, change_tick);
    layout!("blosc2_codec", blosc2_codec; compcode, compname, complib, version, encoder,
        decoder);
    layout!("blosc2_filter", blosc2_filter; id, name, version, forward, backward);
    layout!("struct chunk_cache_s", chunk_cache_s; data, nchunk);
    layout!("b2nd_array_t", b2nd_array_t; sc, shape, chunkshape, extshape, blockshape,
        extchunkshape, nitems, chunknitems, extnitems, blocknitems, extchunknitems, ndim,
        chunk_cache, item_array_strides, item_chunk_strides, item_extchunk_strides,
        item_block_strides, block_chunk_strides, chunk_array_strides, dtype, dtype_format,
        last_tick);
    layout!("blosc2_stdio_file", blosc2_stdio_file; file);
    layout!("blosc2_stdio_params", blosc2_stdio_params; locking);
    layout!("blosc2_stdio_mmap", blosc2_stdio_mmap; mode, initial_mapping_size, needs_free,
        addr, urlpath, file_size, mapping_size, is_memory_only, file, fd, access_flags,
        map_flags);
    layout!("codec_info", codec_info; encoder, decoder);
    layout!("filter_info", filter_info; forward, backward);
    layout!("tuner_info", tuner_info; init, next_blocksize, next_cparams, update, free);
    layout!("blosc_timestamp_t (=struct timespec)", blosc_timestamp_t; tv_sec, tv_nsec);
    m
}

fn read_ref() -> Option<String> {
    match std::fs::read_to_string(LAYOUT_REF) {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!("SKIPPED: cannot read {LAYOUT_REF} ({e}); layout not checked");
            None
        }
    }
}

#[test]
fn layouts_match_reference() {
    let Some(reference) = read_ref() else { return };
    let ours = rust_layout();
    let mut expected = BTreeMap::new();
    for line in reference.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        match cols[0] {
            "S" => {
                expected.insert(
                    (cols[2].to_string(), String::new()),
                    (cols[3].parse().unwrap(), cols[4].parse().unwrap()),
                );
            }
            "F" => {
                expected.insert(
                    (cols[1].to_string(), cols[2].to_string()),
                    (cols[3].parse().unwrap(), cols[4].parse().unwrap()),
                );
            }
            _ => {}
        }
    }
    let mut errors = Vec::new();
    for (key, want) in &expected {
        match ours.get(key) {
            None => errors.push(format!("{key:?}: missing in types.rs")),
            Some(got) if got != want => {
                errors.push(format!("{key:?}: reference {want:?}, ours {got:?}"))
            }
            Some(_) => {}
        }
    }
    for key in ours.keys() {
        if !expected.contains_key(key) {
            errors.push(format!("{key:?}: not in the reference"));
        }
    }
    assert!(
        errors.is_empty(),
        "layout mismatches:\n{}",
        errors.join("\n")
    );
    assert_eq!(size_of::<blosc2_schunk>(), 65840);
}

fn ptr_str(p: *const c_void) -> String {
    if p.is_null() {
        "(nil)".into()
    } else {
        format!("{p:p}")
    }
}

fn ptrs(ps: &[*mut c_void]) -> String {
    let v: Vec<String> = ps.iter().map(|p| ptr_str(*p)).collect();
    format!("{{{}}}", v.join(","))
}

fn bytes(bs: &[u8]) -> String {
    let v: Vec<String> = bs.iter().map(|b| b.to_string()).collect();
    format!("{{{}}}", v.join(","))
}

fn cstr(p: *const c_char) -> String {
    // SAFETY: only called on the string literals of the default consts.
    format!("\"{}\"", unsafe { CStr::from_ptr(p) }.to_str().unwrap())
}

fn fnptr<T>(f: Option<T>) -> String {
    if f.is_none() {
        "(nil)".into()
    } else {
        "non-null".into()
    }
}

/// The `V` rows of layout-ref.tsv: every field of every header default struct.
#[test]
fn defaults_match_reference() {
    let Some(reference) = read_ref() else { return };
    let c = BLOSC2_CPARAMS_DEFAULTS;
    let d = BLOSC2_DPARAMS_DEFAULTS;
    let s = BLOSC2_STORAGE_DEFAULTS;
    let io = BLOSC2_IO_DEFAULTS;
    let sp = BLOSC2_STDIO_PARAMS_DEFAULTS;
    let mm = BLOSC2_STDIO_MMAP_DEFAULTS;
    let mut ours: Vec<(String, String, String)> = Vec::new();
    let mut add = |name: &str, rows: Vec<(&str, String)>| {
        for (field, value) in rows {
            ours.push((name.to_string(), field.to_string(), value));
        }
    };
    add(
        "BLOSC2_CPARAMS_DEFAULTS",
        vec![
            ("compcode", c.compcode.to_string()),
            ("compcode_meta", c.compcode_meta.to_string()),
            ("clevel", c.clevel.to_string()),
            ("use_dict", c.use_dict.to_string()),
            ("typesize", c.typesize.to_string()),
            ("nthreads", c.nthreads.to_string()),
            ("blocksize", c.blocksize.to_string()),
            ("splitmode", c.splitmode.to_string()),
            ("schunk", ptr_str(c.schunk)),
            ("filters", bytes(&c.filters)),
            ("filters_meta", bytes(&c.filters_meta)),
            ("prefilter", fnptr(c.prefilter)),
            ("preparams", ptr_str(c.preparams as *const c_void)),
            ("tuner_params", ptr_str(c.tuner_params)),
            ("tuner_id", c.tuner_id.to_string()),
            ("instr_codec", c.instr_codec.to_string()),
            ("codec_params", ptr_str(c.codec_params)),
            ("filter_params", ptrs(&c.filter_params)),
        ],
    );
    add(
        "BLOSC2_DPARAMS_DEFAULTS",
        vec![
            ("nthreads", d.nthreads.to_string()),
            ("schunk", ptr_str(d.schunk)),
            ("postfilter", fnptr(d.postfilter)),
            ("postparams", ptr_str(d.postparams as *const c_void)),
            ("typesize", d.typesize.to_string()),
        ],
    );
    add(
        "BLOSC2_STORAGE_DEFAULTS",
        vec![
            ("contiguous", s.contiguous.to_string()),
            ("urlpath", ptr_str(s.urlpath as *const c_void)),
            ("cparams", ptr_str(s.cparams as *const c_void)),
            ("dparams", ptr_str(s.dparams as *const c_void)),
            ("io", ptr_str(s.io as *const c_void)),
        ],
    );
    add(
        "BLOSC2_IO_DEFAULTS",
        vec![
            ("id", io.id.to_string()),
            ("name", cstr(io.name)),
            ("params", ptr_str(io.params)),
        ],
    );
    add(
        "BLOSC2_STDIO_PARAMS_DEFAULTS",
        vec![("locking", sp.locking.to_string())],
    );
    add(
        "BLOSC2_STDIO_MMAP_DEFAULTS",
        vec![
            ("mode", cstr(mm.mode)),
            ("initial_mapping_size", mm.initial_mapping_size.to_string()),
            ("needs_free", mm.needs_free.to_string()),
            ("addr", ptr_str(mm.addr as *const c_void)),
            ("urlpath", ptr_str(mm.urlpath as *const c_void)),
            ("file_size", mm.file_size.to_string()),
            ("mapping_size", mm.mapping_size.to_string()),
            ("is_memory_only", mm.is_memory_only.to_string()),
            ("file", ptr_str(mm.file as *const c_void)),
            ("fd", mm.fd.to_string()),
            ("access_flags", mm.access_flags.to_string()),
            ("map_flags", mm.map_flags.to_string()),
        ],
    );
    let expected: Vec<(String, String, String)> = reference
        .lines()
        .filter(|l| l.starts_with("V\t"))
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            (c[1].to_string(), c[2].to_string(), c[3].to_string())
        })
        .collect();
    assert_eq!(ours, expected);
    // Default impls agree with the consts.
    assert_eq!(blosc2_cparams::default().typesize, 8);
    assert_eq!(blosc2_stdio_mmap::default().fd, -1);
}
