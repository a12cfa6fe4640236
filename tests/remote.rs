//! Frames and arrays read from HTTP servers and S3-compatible stores (src/remote), all on
//! 127.0.0.1: a small Python server that honours `Range` and logs every request
//! (tests/servers/range_http.py), and moto's S3 server (`python3 -m moto.server`, installed by
//! tools/fetch-reference.sh). Contiguous and sparse frames written by b2rs and arrays written
//! by the reference (Python blosc2) read back through both schemes, from Rust, from a C
//! program and from the CLI; what one chunk read costs in requests and bytes; parallel
//! readers; faults (5xx then success, truncated replies, 403/404, a stopped server, slow
//! replies past the time limit, damaged objects).

mod common;

use b2rs::frame::{Frame, FrameParams, Io, Location, StdIo};
use b2rs::remote::{s3::S3Config, Client, Credentials, RemoteIo};
use b2rs::{CParams, DParams, Error};
use common::{Rng, Scratch};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// Skip (locally) or fail (on CI) when a tool the test needs is missing.
fn require(ok: bool, test: &str, what: &str) -> bool {
    if !ok {
        assert!(
            !in_ci(),
            "{test}: {what} missing on CI (tools/fetch-reference.sh installs it)"
        );
        common::skip(test, &format!("{what} missing"));
    }
    ok
}

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_port(port: u16) {
    let t0 = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "server on port {port} never came up"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

impl Server {
    /// tests/servers/range_http.py serving `root`.
    fn http(root: &Path, extra: &[&str]) -> Server {
        let script = common::repo_root().join("tests/servers/range_http.py");
        let mut child = Command::new("python3")
            .arg(&script)
            .arg(root)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 tests/servers/range_http.py");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("range_http.py said {line:?}"));
        Server { child, port }
    }

    /// moto's S3 server (`python3 -m moto.server`), if installed.
    fn moto() -> Option<Server> {
        if !common::python_imports("moto.server") {
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("python3")
            .args([
                "-m",
                "moto.server",
                "-H",
                "127.0.0.1",
                "-p",
                &port.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        wait_port(port);
        Some(Server { child, port })
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn url(&self, name: &str) -> String {
        format!("{}/{}", self.base(), name)
    }

    /// One request to the server's control paths (`/__log`, `/__reset`, `/__control`).
    fn call(&self, method: &str, path: &str, body: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out.split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default()
    }

    fn control(&self, json: &str) {
        self.call("POST", "/__control", json);
    }

    /// The logged requests: (path, range, status, bytes).
    fn log(&self) -> Vec<(String, Option<String>, u16, u64)> {
        let text = self.call("GET", "/__log", "");
        text.lines()
            .map(|l| {
                let field = |k: &str| {
                    let at = l.find(&format!("\"{k}\": ")).unwrap() + k.len() + 4;
                    let rest = &l[at..];
                    let end = rest.find([',', '}']).unwrap();
                    rest[..end].trim().trim_matches('"').to_string()
                };
                let range = field("range");
                (
                    field("path"),
                    (range != "null").then_some(range),
                    field("status").parse().unwrap(),
                    field("bytes").parse().unwrap(),
                )
            })
            .collect()
    }

    fn reset(&self) {
        self.call("POST", "/__reset", "");
    }
}

fn client(retries: u32, timeout: Duration) -> Client {
    let s3 = S3Config {
        creds: None,
        region: "us-east-1".into(),
        endpoint: None,
    };
    Client::new(s3, timeout, retries)
}

fn remote(retries: u32) -> Arc<RemoteIo> {
    Arc::new(RemoteIo::new(
        client(retries, Duration::from_secs(20)),
        16 << 20,
    ))
}

fn cparams() -> CParams {
    CParams {
        typesize: 8,
        ..CParams::default()
    }
}

/// Chunk `i` of the test frames: `len` bytes of slowly varying 8-byte values (compressible
/// about 2x to 4x, so chunks are stored as real compressed streams).
fn chunk_data(i: usize, len: usize) -> Vec<u8> {
    let mut rng = Rng::new(i as u64 + 1);
    let mut v = Vec::with_capacity(len);
    let mut x = i as u64 * 1000;
    while v.len() < len {
        x = x.wrapping_add(rng.below(50));
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.truncate(len);
    v
}

fn compress(data: &[u8]) -> Vec<u8> {
    let mut dst = vec![0u8; data.len() + 64];
    let n = b2rs::chunk::compress(&cparams(), data, &mut dst).unwrap();
    dst.truncate(n);
    dst
}

fn decode(chunk: &[u8]) -> Vec<u8> {
    let (nbytes, _, _) = b2rs::chunk::Header::sizes(chunk).unwrap();
    let mut out = vec![0u8; nbytes as usize];
    b2rs::chunk::decompress(&DParams::default(), chunk, &mut out, None).unwrap();
    out
}

/// Write a frame of `n` chunks of `len` bytes at `loc`.
fn write_frame(loc: Location, n: usize, len: usize) {
    let params = FrameParams::from_cparams(&cparams(), 1);
    let mut f = Frame::create(loc, &params, Arc::new(StdIo)).unwrap();
    for i in 0..n {
        f.append_chunk(&compress(&chunk_data(i, len))).unwrap();
    }
}

/// In `root`, the contiguous frame `c.0` of `c.1.0` chunks of `c.1.1` bytes and the sparse
/// frame `sp.0` likewise (see [`write_frame`]).
fn write_frames(root: &Path, c: (&str, (usize, usize)), sp: (&str, (usize, usize))) {
    std::fs::create_dir_all(root).unwrap();
    let file = Location::File {
        path: root.join(c.0),
        offset: 0,
    };
    write_frame(file, c.1 .0, c.1 .1);
    write_frame(Location::Dir(root.join(sp.0)), sp.1 .0, sp.1 .1);
}

/// The test inputs in `root`: `c.b2frame` (`c.0` chunks of `c.1` bytes) and the sparse
/// `s.b2frame` (`sp.0` chunks of `sp.1` bytes) written by b2rs, and `a.b2nd` (a 10×12×5 int64
/// arange) written by the reference, Python blosc2; with `sparse_array` also `sa.b2nd` (the
/// same times 3, as a sparse frame).
fn make_inputs(root: &Path, c: (usize, usize), sp: (usize, usize), sparse_array: bool) {
    write_frames(root, ("c.b2frame", c), ("s.b2frame", sp));
    let mut py = format!(
        "import blosc2, numpy as np\n\
         a = np.arange(10*12*5, dtype=np.int64).reshape(10, 12, 5)\n\
         blosc2.asarray(a, urlpath='{0}/a.b2nd', mode='w', chunks=(4, 5, 5), blocks=(2, 3, 5))\n",
        root.display()
    );
    if sparse_array {
        py += &format!(
            "blosc2.asarray(a * 3, urlpath='{0}/sa.b2nd', mode='w', contiguous=False, chunks=(3, 4, 5), blocks=(1, 4, 5))\n",
            root.display()
        );
    }
    let o = common::run_cmd(
        Command::new("python3").args(["-c", &py]),
        Duration::from_secs(120),
    );
    assert!(o.ok(), "{}", o.describe());
}

/// tests/c/`name`.c built against b2rs and against the reference: (ours, reference).
fn build_c(s: &Scratch, name: &str, refd: &Path) -> (PathBuf, PathBuf) {
    let src = common::repo_root().join(format!("tests/c/{name}.c"));
    let (ours, reference) = (
        s.path(&format!("{name}_ours")),
        s.path(&format!("{name}_ref")),
    );
    common::compile_c(&src, &ours, common::Lib::Ours, refd).unwrap();
    common::compile_c(&src, &reference, common::Lib::Ref, refd).unwrap();
    (ours, reference)
}

fn content(f: &Frame) -> Vec<Vec<u8>> {
    (0..f.nchunks())
        .map(|i| decode(&f.get_chunk(i).unwrap()))
        .collect()
}

#[test]
fn http_frames_read_like_files() {
    let s = Scratch::new("remote", "http_frames");
    let root = s.path("www");
    write_frames(
        &root,
        ("c.b2frame", (7, 100_000)),
        ("s.b2frame", (5, 70_000)),
    );
    let srv = Server::http(&root, &[]);
    let io = remote(2);
    let stdio: Arc<dyn Io> = Arc::new(StdIo);
    for name in ["c.b2frame", "s.b2frame"] {
        let local = Frame::open_path(&root.join(name), 0, stdio.clone()).unwrap();
        let url = srv.url(name);
        let far = Frame::open_path(Path::new(&url), 0, io.clone()).unwrap();
        assert_eq!(far.is_sparse(), name.starts_with('s'), "{url}");
        assert_eq!(far.nchunks(), local.nchunks());
        assert_eq!(far.metalayers(), local.metalayers());
        assert_eq!(content(&far), content(&local), "{url}");
    }
    // a server that ignores Range (answers 200 with the whole body) still works
    let plain = Server::http(&root, &["--no-range"]);
    let far = Frame::open_path(Path::new(&plain.url("c.b2frame")), 0, remote(0)).unwrap();
    assert_eq!(far.nchunks(), 7);
    assert_eq!(decode(&far.get_chunk(6).unwrap()), chunk_data(6, 100_000));
    // a missing object
    let e = Frame::open_path(Path::new(&srv.url("nope.b2frame")), 0, io.clone()).unwrap_err();
    assert_eq!(e, Error::FileOpen);
    // writing is refused (not built yet), reading still works
    let mut far = Frame::open_path(Path::new(&srv.url("c.b2frame")), 0, io).unwrap();
    assert!(far.append_chunk(&compress(&chunk_data(9, 1000))).is_err());
    assert_eq!(decode(&far.get_chunk(0).unwrap()), chunk_data(0, 100_000));
}

/// What reading one chunk of a 1 GiB remote frame costs: the requests (header, trailer and
/// index, chunk) and bytes, counted in the server's log.
#[test]
fn one_chunk_of_1gib_costs_one_chunk() {
    let s = Scratch::new("remote", "one_chunk");
    let root = s.path("www");
    std::fs::create_dir_all(&root).unwrap();
    // 1024 chunks of 1 MiB stored as they are (clevel 0: quick to write), each starting with
    // its number
    let (n, len) = (1024u64, 1usize << 20);
    let cp = CParams {
        clevel: 0,
        ..cparams()
    };
    let path = root.join("big.b2frame");
    {
        let loc = Location::File {
            path: path.clone(),
            offset: 0,
        };
        let mut f =
            Frame::create(loc, &FrameParams::from_cparams(&cp, 1), Arc::new(StdIo)).unwrap();
        let mut data = chunk_data(0, len);
        let mut dst = vec![0u8; len + 64];
        for i in 0..n {
            data[..8].copy_from_slice(&i.to_le_bytes());
            let k = b2rs::chunk::compress(&cp, &data, &mut dst).unwrap();
            f.append_chunk(&dst[..k]).unwrap();
        }
    }
    let file_len = std::fs::metadata(&path).unwrap().len();
    assert!(file_len > 1 << 30, "{file_len}");
    let srv = Server::http(&root, &[]);
    let io = remote(0);
    let far = Frame::open_path(Path::new(&srv.url("big.b2frame")), 0, io.clone()).unwrap();
    assert_eq!(far.nchunks(), n as i64);
    let open = srv.log();
    srv.reset();
    let chunk = far.get_chunk(777).unwrap();
    let chunk_len = chunk.len() as u64;
    let got = decode(&chunk);
    assert_eq!(got[..8], 777u64.to_le_bytes());
    assert_eq!(got[8..], chunk_data(0, len)[8..]);
    let read = srv.log();
    let bytes = |l: &[(String, Option<String>, u16, u64)]| l.iter().map(|e| e.3).sum::<u64>();
    eprintln!(
        "frame {file_len} bytes, chunk {chunk_len} bytes; open: {} requests, {} bytes {:?}; \
         chunk: {} requests, {} bytes {:?}",
        open.len(),
        bytes(&open),
        open,
        read.len(),
        bytes(&read),
        read
    );
    // open: the first block (header), the last blocks (trailer, index)
    assert!(open.len() <= 3, "{open:?}");
    assert!(bytes(&open) <= 4 * 65536, "{open:?}");
    // one chunk: its header (with the blocks around it) and the rest of it
    assert!(read.len() <= 2, "{read:?}");
    assert!(bytes(&read) <= chunk_len + 3 * 65536, "{read:?}");
    // the client counted what the server logged
    assert_eq!(io.stats().requests, (open.len() + read.len()) as u64);
}

/// A remote frame with a large index (400 000 chunks: a 0.67 MB compressed offsets chunk) does
/// not download it at open: its block starts, then the compressed block holding an asked-for
/// entry (counted in the server's log).
#[test]
fn a_large_remote_index_is_read_a_piece_at_a_time() {
    let s = Scratch::new("remote", "large_index");
    let root = s.path("www");
    std::fs::create_dir_all(&root).unwrap();
    // chunks of 8 to 199 bytes stored as they are (clevel 0), each starting with its number:
    // chunk sizes that vary, so the offsets do not compress much
    let n = 400_000usize;
    let cp = CParams {
        clevel: 0,
        ..cparams()
    };
    let chunk_of = |i: usize| {
        let mut rng = Rng::new(i as u64 + 7);
        let len = 8 + rng.below(192) as usize;
        let mut data: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        data[..8].copy_from_slice(&(i as u64).to_le_bytes());
        let mut dst = vec![0u8; len + 64];
        let k = b2rs::chunk::compress(&cp, &data, &mut dst).unwrap();
        dst.truncate(k);
        (data, dst)
    };
    let chunks: Vec<Vec<u8>> = (0..n).map(|i| chunk_of(i).1).collect();
    let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
    let params = FrameParams::from_cparams(&cp, 1);
    let local = Frame::from_chunks(&params, &refs, &[], &[]).unwrap();
    let bytes = local.to_bytes().unwrap();
    drop(refs);
    drop(chunks);
    // the offsets chunk: what follows the chunks, less the trailer (under 100 bytes here)
    let (local_hl, local_cbytes) = (local.header_len(), local.cbytes());
    let off_len = bytes.len() as i64 - local_hl - local_cbytes;
    assert!(off_len > 600_000, "{off_len}");
    std::fs::write(root.join("many.b2frame"), &bytes).unwrap();
    let want = local.offsets().unwrap();
    drop(local);

    let srv = Server::http(&root, &[]);
    let io = remote(0);
    let far = Frame::open_path(Path::new(&srv.url("many.b2frame")), 0, io.clone()).unwrap();
    assert_eq!(far.nchunks(), n as i64);
    let total = |l: &[(String, Option<String>, u16, u64)]| l.iter().map(|e| e.3).sum::<u64>();
    let open = srv.log();
    srv.reset();
    let mut reads = Vec::new();
    for i in [250_000usize, 120_000, 250_001] {
        let got = decode(&far.get_chunk(i as i64).unwrap());
        assert_eq!(got, chunk_of(i).0, "chunk {i}");
        reads.push(srv.log());
        srv.reset();
    }
    eprintln!(
        "index {off_len} bytes; open: {} requests, {} bytes {open:?}; chunk reads: {:?}",
        open.len(),
        total(&open),
        reads
            .iter()
            .map(|l| (l.len(), total(l)))
            .collect::<Vec<_>>()
    );
    // open: the header, the trailer, the index's block starts (and its first block)
    assert!(open.len() <= 4, "{open:?}");
    assert!(total(&open) <= 4 * 2 * 65536, "{open:?}");
    // a chunk far from those read: an index piece and the chunk, a few blocks of each
    for (k, l) in reads.iter().enumerate() {
        assert!(l.len() <= 2, "read {k}: {l:?}");
        assert!(total(l) <= 4 * 65536, "read {k}: {l:?}");
    }
    // the next chunk: all cached
    assert!(reads[2].is_empty(), "{:?}", reads[2]);
    // the whole index on demand, the same as read from the file
    assert_eq!(far.offsets().unwrap(), want);
    let whole = srv.log();
    assert!(total(&whole) < off_len as u64, "{whole:?}");
    assert_eq!(decode(&far.get_chunk(77_777).unwrap()), chunk_of(77_777).0);

    // a damaged index: a block start out of the chunk fails at open; damaged compressed
    // bytes in a block, when that block is read (an error or other bytes, never a crash)
    let coff_at = (local_hl + local_cbytes) as usize;
    let mut bad = bytes.clone();
    bad[coff_at + 40..coff_at + 44].copy_from_slice(&u32::MAX.to_le_bytes());
    std::fs::write(root.join("bad.b2frame"), &bad).unwrap();
    let e = Frame::open_path(Path::new(&srv.url("bad.b2frame")), 0, remote(0)).unwrap_err();
    assert_eq!(e, Error::InvalidHeader);
    let mut bad = bytes.clone();
    let mid = coff_at + off_len as usize / 2;
    for b in &mut bad[mid..mid + 256] {
        *b ^= 0x5a;
    }
    std::fs::write(root.join("bad.b2frame"), &bad).unwrap();
    let far = Frame::open_path(Path::new(&srv.url("bad.b2frame")), 0, remote(0)).unwrap();
    assert_eq!(decode(&far.get_chunk(0).unwrap()), chunk_of(0).0);
    let wrong = (150_000..250_000i64)
        .filter(|&i| match far.get_chunk(i) {
            Ok(c) => b2rs::chunk::Header::sizes(&c).is_err() || c[..] != chunk_of(i as usize).1[..],
            Err(_) => true,
        })
        .count();
    assert!(wrong > 0, "the damaged index read like the good one");
}

#[test]
fn parallel_readers_share_one_client() {
    let s = Scratch::new("remote", "parallel");
    let root = s.path("www");
    write_frames(
        &root,
        ("p.b2frame", (32, 200_000)),
        ("p.sparse", (32, 50_000)),
    );
    let srv = Server::http(&root, &[]);
    let io = remote(2);
    let shared = Frame::open_path(Path::new(&srv.url("p.b2frame")), 0, io.clone()).unwrap();
    std::thread::scope(|sc| {
        for t in 0..4 {
            let (shared, io, srv) = (&shared, io.clone(), &srv);
            sc.spawn(move || {
                // one frame shared by the threads, and a frame of each thread's own
                let own = Frame::open_path(Path::new(&srv.url("p.sparse")), 0, io).unwrap();
                for i in (t..32).step_by(4) {
                    let i = i as i64;
                    assert_eq!(
                        decode(&shared.get_chunk(i).unwrap()),
                        chunk_data(i as usize, 200_000)
                    );
                    assert_eq!(
                        decode(&own.get_chunk(i).unwrap()),
                        chunk_data(i as usize, 50_000)
                    );
                }
            });
        }
    });
}

#[test]
fn faults_give_errors_not_hangs() {
    let s = Scratch::new("remote", "faults");
    let root = s.path("www");
    std::fs::create_dir_all(&root).unwrap();
    let path = root.join("f.b2frame");
    write_frame(
        Location::File {
            path: path.clone(),
            offset: 0,
        },
        8,
        300_000,
    );
    let bytes = std::fs::read(&path).unwrap();
    // damaged objects: cut short, and a chunk overwritten
    std::fs::write(root.join("short.b2frame"), &bytes[..bytes.len() / 2]).unwrap();
    let mut bad = bytes.clone();
    let mid = bytes.len() / 2;
    bad[mid..mid + 4096].fill(0xA5);
    std::fs::write(root.join("bad.b2frame"), &bad).unwrap();
    let srv = Server::http(&root, &[]);
    let url = srv.url("f.b2frame");

    // 5xx twice, then success: retried
    srv.control(r#"{"fail": 2}"#);
    let f = Frame::open_path(Path::new(&url), 0, remote(3)).unwrap();
    assert_eq!(f.nchunks(), 8);
    assert!(srv.log().iter().filter(|e| e.2 == 503).count() == 2);
    // 5xx more often than retried: an error
    srv.control(r#"{"fail": 3}"#);
    assert_eq!(
        Frame::open_path(Path::new(&url), 0, remote(1)).unwrap_err(),
        Error::FileRead
    );
    srv.control(r#"{"fail": 0}"#);
    // a truncated reply, then a good one
    let f = Frame::open_path(Path::new(&url), 0, remote(2)).unwrap();
    srv.control(r#"{"truncate": 1}"#);
    assert_eq!(decode(&f.get_chunk(3).unwrap()), chunk_data(3, 300_000));
    // refused: 403 and 404 at open
    for code in [403, 404] {
        srv.control(&format!(r#"{{"status": [1, {code}]}}"#));
        assert_eq!(
            Frame::open_path(Path::new(&url), 0, remote(2)).unwrap_err(),
            Error::FileOpen,
            "{code}"
        );
    }
    // damaged objects: negative codes
    assert!(Frame::open_path(Path::new(&srv.url("short.b2frame")), 0, remote(0)).is_err());
    let f = Frame::open_path(Path::new(&srv.url("bad.b2frame")), 0, remote(0)).unwrap();
    let mut damaged = 0;
    for i in 0..f.nchunks() {
        let got = f.get_chunk(i).ok().and_then(|c| {
            let mut out = vec![0u8; 300_000];
            b2rs::chunk::decompress(&DParams::default(), &c, &mut out, None)
                .ok()
                .map(|_| out)
        });
        if got.as_deref() != Some(&chunk_data(i as usize, 300_000)[..]) {
            damaged += 1;
        }
    }
    assert!(damaged >= 1);
    // slow replies past the time limit: an error within the limit and retries, not a hang
    srv.control(r#"{"delay": 1.5}"#);
    let slow = Arc::new(RemoteIo::new(
        client(1, Duration::from_millis(300)),
        1 << 20,
    ));
    let t0 = Instant::now();
    assert!(Frame::open_path(Path::new(&url), 0, slow).is_err());
    assert!(t0.elapsed() < Duration::from_secs(20));
    // slow but within the limit: fine
    srv.control(r#"{"delay": 0.2}"#);
    assert_eq!(
        Frame::open_path(Path::new(&url), 0, remote(0))
            .unwrap()
            .nchunks(),
        8
    );
    srv.control(r#"{"delay": 0}"#);
    // the server stops in the middle: reads not yet cached fail
    let f = Frame::open_path(Path::new(&url), 0, remote(2)).unwrap();
    assert_eq!(decode(&f.get_chunk(0).unwrap()), chunk_data(0, 300_000));
    drop(srv);
    let t0 = Instant::now();
    assert_eq!(f.get_chunk(6).unwrap_err(), Error::FileRead);
    assert!(t0.elapsed() < Duration::from_secs(20));
}

/// The C program of a C-Blosc2 user reads URLs with b2rs as it reads the same files locally
/// with C-Blosc2: frames written by b2rs, and an array written by the reference.
#[test]
fn c_program_reads_urls() {
    let test = "c_program_reads_urls";
    let Some(refd) = common::ref_dir() else {
        assert!(!in_ci(), "{}", common::missing_ref_message());
        return common::skip(test, &common::missing_ref_message());
    };
    if !require(
        common::python_imports("blosc2, numpy"),
        test,
        "python blosc2",
    ) {
        return;
    }
    let s = Scratch::new("remote", "c_program");
    let root = s.path("www");
    make_inputs(&root, (5, 80_000), (4, 60_000), true);
    let (ours_bin, ref_bin) = build_c(&s, "remote_read", &refd);
    let srv = Server::http(&root, &[]);
    for (frame, array) in [("c.b2frame", "a.b2nd"), ("s.b2frame", "sa.b2nd")] {
        let local = common::run_cmd(
            Command::new(&ref_bin)
                .arg(root.join(frame))
                .arg(root.join(array)),
            Duration::from_secs(60),
        );
        assert!(local.ok(), "{}", local.describe());
        let far = common::run_cmd(
            Command::new(&ours_bin)
                .arg(srv.url(frame))
                .arg(srv.url(array)),
            Duration::from_secs(60),
        );
        assert!(far.ok(), "{}", far.describe());
        assert_eq!(far.stdout, local.stdout, "{frame} {array}");
        assert!(local.stdout.contains("slice sum"), "{}", local.stdout);
    }
    // a missing URL: NULL, with a trace naming it
    let missing = srv.url("missing.b2frame");
    let o = common::run_cmd(
        Command::new(&ours_bin)
            .arg(&missing)
            .env("BLOSC_TRACE", "1"),
        Duration::from_secs(60),
    );
    assert!(o.stdout.contains("open failed"), "{}", o.describe());
    assert!(o.stderr.contains(&missing), "{}", o.stderr);
}

fn s3_env<'a>(cmd: &'a mut Command, endpoint: &str) -> &'a mut Command {
    cmd.env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "very-secret-key-42")
        .env("AWS_SESSION_TOKEN", "session-token-43")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ENDPOINT_URL", endpoint)
}

/// moto's server for `test`, with boto3 and Python blosc2 beside it (`None`: skipped locally,
/// a failure on CI).
fn moto_for(test: &str) -> Option<Server> {
    let Some(moto) = Server::moto() else {
        require(false, test, "moto (python3 -m moto.server)");
        return None;
    };
    let py = common::python_imports("boto3, blosc2, numpy");
    require(py, test, "python boto3/blosc2").then_some(moto)
}

fn b2rs_tool() -> PathBuf {
    common::profile_dir().join("b2rs")
}

/// S3 through moto: frames and arrays uploaded by boto3 read back by b2rs (Rust, C, CLI),
/// signed with SigV4; credentials never in traces.
#[test]
fn s3_objects_read_like_files() {
    let test = "s3_objects_read_like_files";
    let Some(moto) = moto_for(test) else {
        return;
    };
    let s = Scratch::new("remote", "s3");
    let root = s.path("data");
    make_inputs(&root, (6, 90_000), (3, 40_000), false);
    let tool = common::repo_root().join("tests/servers/s3_tool.py");
    for (local, key) in [
        ("c.b2frame", "runs/c.b2frame"),
        ("s.b2frame", "runs/s.b2frame"),
        ("a.b2nd", "arrays/a.b2nd"),
    ] {
        let o = common::run_cmd(
            s3_env(Command::new("python3").arg(&tool).arg("put"), &moto.base())
                .arg(moto.base())
                .arg("bucket")
                .arg(root.join(local))
                .arg(key),
            Duration::from_secs(120),
        );
        assert!(o.ok(), "{}", o.describe());
    }
    // Rust: signed requests to the endpoint
    let s3 = S3Config {
        creds: Some(Credentials {
            key_id: "testing".into(),
            secret: "very-secret-key-42".into(),
            token: None,
        }),
        region: "us-east-1".into(),
        endpoint: Some(moto.base()),
    };
    let io = Arc::new(RemoteIo::new(
        Client::new(s3, Duration::from_secs(20), 2),
        16 << 20,
    ));
    for name in ["c.b2frame", "s.b2frame"] {
        let local = Frame::open_path(&root.join(name), 0, Arc::new(StdIo)).unwrap();
        let url = format!("s3://bucket/runs/{name}");
        let far = Frame::open_path(Path::new(&url), 0, io.clone()).unwrap();
        assert_eq!(far.is_sparse(), name.starts_with('s'));
        assert_eq!(content(&far), content(&local), "{url}");
    }
    assert_eq!(
        Frame::open_path(Path::new("s3://bucket/runs/none.b2frame"), 0, io.clone()).unwrap_err(),
        Error::FileOpen
    );
    // anonymous (unsigned) requests, as to a public bucket
    let anon = S3Config {
        creds: None,
        region: "us-east-1".into(),
        endpoint: Some(moto.base()),
    };
    let anon = Arc::new(RemoteIo::new(
        Client::new(anon, Duration::from_secs(20), 2),
        1 << 20,
    ));
    assert_eq!(
        Frame::open_path(Path::new("s3://bucket/runs/c.b2frame"), 0, anon.clone()).unwrap_err(),
        Error::FileOpen // 403: a private object
    );
    let o = common::run_cmd(
        s3_env(Command::new("python3").arg(&tool).arg("put"), &moto.base())
            .arg(moto.base())
            .arg("bucket")
            .arg(root.join("c.b2frame"))
            .args(["public/c.b2frame", "public"]),
        Duration::from_secs(120),
    );
    assert!(o.ok(), "{}", o.describe());
    let far = Frame::open_path(Path::new("s3://bucket/public/c.b2frame"), 0, anon).unwrap();
    assert_eq!(decode(&far.get_chunk(5).unwrap()), chunk_data(5, 90_000));

    // C: the same program, through the environment's settings
    if let Some(refd) = common::ref_dir() {
        let (ours_bin, ref_bin) = build_c(&s, "remote_read", &refd);
        let local = common::run_cmd(
            Command::new(&ref_bin)
                .arg(root.join("c.b2frame"))
                .arg(root.join("a.b2nd")),
            Duration::from_secs(60),
        );
        let far = common::run_cmd(
            s3_env(&mut Command::new(&ours_bin), &moto.base())
                .arg("s3://bucket/runs/c.b2frame")
                .arg("s3://bucket/arrays/a.b2nd"),
            Duration::from_secs(60),
        );
        assert!(far.ok(), "{}", far.describe());
        assert_eq!(far.stdout, local.stdout);
        // a missing key: the trace names the URL, never the secret or the token
        let o = common::run_cmd(
            s3_env(&mut Command::new(&ours_bin), &moto.base())
                .arg("s3://bucket/runs/missing.b2frame")
                .env("BLOSC_TRACE", "1"),
            Duration::from_secs(60),
        );
        assert!(o.stdout.contains("open failed"), "{}", o.describe());
        assert!(
            o.stderr.contains("s3://bucket/runs/missing.b2frame"),
            "{}",
            o.stderr
        );
        assert!(!o.stderr.contains("very-secret") && !o.stderr.contains("session-token"));
    }

    // the CLI: info and decompress of s3:// inputs
    let tool = b2rs_tool();
    if tool.is_file() {
        let o = common::run_cmd(
            s3_env(&mut Command::new(&tool), &moto.base()).args([
                "info",
                "--json",
                "s3://bucket/arrays/a.b2nd",
            ]),
            Duration::from_secs(60),
        );
        assert!(o.ok(), "{}", o.describe());
        assert!(o.stdout.contains("b2nd"), "{}", o.stdout);
        let out = s.path("c.raw");
        let o = common::run_cmd(
            s3_env(&mut Command::new(&tool), &moto.base())
                .args(["decompress", "s3://bucket/runs/c.b2frame"])
                .arg(&out),
            Duration::from_secs(60),
        );
        assert!(o.ok(), "{}", o.describe());
        let want: Vec<u8> = (0..6).flat_map(|i| chunk_data(i, 90_000)).collect();
        assert_eq!(std::fs::read(&out).unwrap(), want);
        // verify, and convert from s3:// to a file and from a file to s3://
        let cli = |args: &[&std::ffi::OsStr]| {
            let o = common::run_cmd(
                s3_env(&mut Command::new(&tool), &moto.base()).args(args),
                Duration::from_secs(60),
            );
            assert!(o.ok(), "{args:?}: {}", o.describe());
            o.stdout
        };
        let os = |x: &str| std::ffi::OsString::from(x);
        let out = cli(&[&os("verify"), &os("s3://bucket/runs/s.b2frame")]);
        assert!(out.contains("OK (3 chunks"), "{out}");
        let local = s.path("a_copy.b2nd");
        cli(&[
            &os("convert"),
            &os("s3://bucket/arrays/a.b2nd"),
            local.as_os_str(),
        ]);
        let py = format!(
            "import blosc2, numpy as np\n\
             assert (blosc2.open('{}')[:] == np.arange(600).reshape(10, 12, 5)).all()\n",
            local.display()
        );
        let o = common::run_cmd(
            Command::new("python3").args(["-c", &py]),
            Duration::from_secs(60),
        );
        assert!(o.ok(), "{}", o.describe());
        cli(&[
            &os("convert"),
            root.join("c.b2frame").as_os_str(),
            &os("s3://bucket/conv/c.b2frame"),
            &os("--sparse"),
        ]);
        let out = cli(&[&os("verify"), &os("s3://bucket/conv/c.b2frame")]);
        assert!(
            out.contains("OK (") && out.contains("540000 bytes"),
            "{out}"
        );
    } else {
        assert!(!in_ci(), "{} not built", tool.display());
    }
}

fn s3_tool(moto: &Server, args: &[&str]) -> common::Out {
    let tool = common::repo_root().join("tests/servers/s3_tool.py");
    let mut cmd = Command::new("python3");
    s3_env(cmd.arg(&tool).arg(args[0]).arg(moto.base()), &moto.base()).args(&args[1..]);
    let o = common::run_cmd(&mut cmd, Duration::from_secs(120));
    assert!(o.ok(), "s3_tool {args:?}: {}", o.describe());
    o
}

fn nchunks_of(read_out: &str) -> i64 {
    read_out
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("nchunks "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no nchunks in {read_out:?}"))
}

/// S3 writes by b2rs: a C program creates sparse and contiguous super-chunks (one large enough
/// for a multipart upload) and a b2nd array at `s3://` URLs, appends to them, and is killed in
/// the middle of appending; Python blosc2 reads the downloaded objects; the CLI compresses to
/// and decompresses from `s3://`.
#[test]
fn s3_frames_written_by_b2rs() {
    let test = "s3_frames_written_by_b2rs";
    let Some(refd) = common::ref_dir() else {
        assert!(!in_ci(), "{}", common::missing_ref_message());
        return common::skip(test, &common::missing_ref_message());
    };
    let Some(moto) = moto_for(test) else {
        return;
    };
    let s = Scratch::new("remote", "s3_write");
    let (wr, _) = build_c(&s, "remote_write", &refd);
    let (rd, rd_ref) = build_c(&s, "remote_read", &refd);
    // the bucket
    let empty = s.path("empty");
    std::fs::write(&empty, b"").unwrap();
    s3_tool(&moto, &["put", "bucket", empty.to_str().unwrap(), "empty"]);
    let run = |bin: &Path, args: &[&str], clevel: Option<&str>| {
        let mut cmd = Command::new(bin);
        s3_env(&mut cmd, &moto.base()).args(args);
        if let Some(c) = clevel {
            cmd.env("CLEVEL", c);
        }
        let o = common::run_cmd(&mut cmd, Duration::from_secs(300));
        assert!(o.ok(), "{bin:?} {args:?}: {}", o.describe());
        o.stdout
    };
    // what a writer killed before it uploaded left (a process id no system reaches) is swept by
    // the next writer
    let stale = std::env::temp_dir().join("b2rs-remote-4294967295");
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::write(stale.join("1.part"), b"left over").unwrap();
    let out = run(&wr, &["sparse", "s3://bucket/w/s.b2frame", "5"], None);
    assert!(!stale.exists(), "{} left", stale.display());
    assert!(out.ends_with("free 0\n"), "{out}");
    let out = run(&wr, &["contiguous", "s3://bucket/w/c.b2frame", "5"], None);
    assert!(out.ends_with("free 0\n"), "{out}");
    // 700 chunks of 40 kB stored uncompressed: 28 MB, uploaded in parts
    let out = run(
        &wr,
        &["contiguous", "s3://bucket/w/big.b2frame", "700"],
        Some("0"),
    );
    assert!(out.ends_with("free 0\n"), "{out}");
    let out = run(&wr, &["b2nd", "s3://bucket/w/a.b2nd"], None);
    assert!(
        out.contains("from_cbuffer 0") && out.ends_with("free 0\n"),
        "{out}"
    );
    let listing = s3_tool(&moto, &["list", "bucket", "w/"]).stdout;
    assert!(listing.contains("w/s.b2frame/chunks.b2frame"), "{listing}");
    assert!(listing.contains("w/s.b2frame/00000004.chunk"), "{listing}");
    let big = listing
        .lines()
        .find_map(|l| l.strip_prefix("w/big.b2frame "))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .unwrap();
    assert!(big > 24 << 20, "{listing}");

    // appends: the sparse frame object by object, the contiguous one uploaded at free
    run(&wr, &["append", "s3://bucket/w/s.b2frame", "3"], None);
    run(&wr, &["append", "s3://bucket/w/c.b2frame", "2"], None);

    // an update and a delete on each (sparse: a new chunk object and the index; contiguous:
    // uploaded at free): chunk 3 becomes -1s, chunk 0 goes, the others move down by one
    for url in ["s3://bucket/w/s.b2frame", "s3://bucket/w/c.b2frame"] {
        let out = run(&wr, &["update", url, "3"], None);
        assert!(
            out.contains("update 8") || out.contains("update 7"),
            "{out}"
        );
        assert!(
            out.ends_with("free 0\n") && !out.contains("delete -"),
            "{out}"
        );
    }

    // the sparse frame's dropped chunk object went after its new index was stored
    let listing = s3_tool(&moto, &["list", "bucket", "w/s.b2frame/"]).stdout;
    assert!(!listing.contains("w/s.b2frame/00000000.chunk"), "{listing}");
    assert!(listing.contains("w/s.b2frame/00000001.chunk"), "{listing}");

    // Python blosc2 reads the downloaded objects
    let dl = s.path("dl");
    std::fs::create_dir_all(&dl).unwrap();
    for name in ["s.b2frame", "c.b2frame", "big.b2frame", "a.b2nd"] {
        let key = format!("w/{name}");
        let local = dl.join(name);
        s3_tool(&moto, &["get", "bucket", &key, local.to_str().unwrap()]);
    }
    let py = format!(
        "import blosc2, numpy as np\n\
         for name, n, shift in [('s.b2frame', 7, 1), ('c.b2frame', 6, 1), ('big.b2frame', 700, 0)]:\n\
         \x20   sc = blosc2.open('{0}/' + name)\n\
         \x20   assert sc.nchunks == n, (name, sc.nchunks)\n\
         \x20   for i in range(n):\n\
         \x20       got = np.frombuffer(sc.decompress_chunk(i), dtype=np.int32)\n\
         \x20       c = i + shift\n\
         \x20       want = np.full(10000, -1, dtype=np.int32) if (shift and c == 3) else np.arange(c * 10000, (c + 1) * 10000, dtype=np.int32)\n\
         \x20       assert (got == want).all(), (name, i)\n\
         a = blosc2.open('{0}/a.b2nd')\n\
         assert (a[:] == np.arange(600, dtype=np.int64).reshape(10, 12, 5)).all()\n\
         print('ok')\n",
        dl.display()
    );
    let o = common::run_cmd(
        Command::new("python3").args(["-c", &py]),
        Duration::from_secs(120),
    );
    assert!(o.ok() && o.stdout.contains("ok"), "{}", o.describe());

    // b2rs reads them back as the reference reads the downloads
    for name in ["s.b2frame", "c.b2frame"] {
        let far = run(
            &rd,
            &[&format!("s3://bucket/w/{name}"), "s3://bucket/w/a.b2nd"],
            None,
        );
        let near = run(
            &rd_ref,
            &[
                dl.join(name).to_str().unwrap(),
                dl.join("a.b2nd").to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(far, near, "{name}");
    }

    // a writer killed in the middle of appending leaves a readable frame: a sparse one with
    // the chunks appended before, a contiguous one as it was (uploaded only at free)
    for (name, grows) in [("s.b2frame", true), ("c.b2frame", false)] {
        let url = format!("s3://bucket/w/{name}");
        let before = nchunks_of(&run(&rd, &[&url], None));
        let mut cmd = Command::new(&wr);
        s3_env(&mut cmd, &moto.base())
            .args(["append", &url, "1000", "100"])
            .stdout(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut seen = 0;
        while seen < 3 {
            let l = lines.next().expect("the writer stopped early").unwrap();
            assert!(l.starts_with("appended"), "{l}");
            seen += 1;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let after = run(&rd, &[&url], None);
        assert!(!after.contains("error"), "{after}");
        let n = nchunks_of(&after);
        if grows {
            assert!(n >= before + 3, "{name}: {before} then {n}");
        } else {
            assert_eq!(n, before, "{name}");
        }
    }

    // a new sparse frame at the prefix of an older, larger one: its chunk objects are numbered
    // past the older ones, which are deleted (after its index is stored); other objects stay
    let note = s.path("note.txt");
    std::fs::write(&note, b"not a chunk").unwrap();
    for key in ["w/s.b2frame/notes.txt", "w/s.b2frame/sub/00000005.chunk"] {
        s3_tool(&moto, &["put", "bucket", note.to_str().unwrap(), key]);
    }
    let before = s3_tool(&moto, &["list", "bucket", "w/s.b2frame/"]).stdout;
    assert!(before.lines().count() > 8, "{before}");
    let out = run(&wr, &["sparse", "s3://bucket/w/s.b2frame", "2"], None);
    assert!(out.ends_with("free 0\n"), "{out}");
    let mut after: Vec<String> = s3_tool(&moto, &["list", "bucket", "w/s.b2frame/"])
        .stdout
        .lines()
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect();
    after.sort();
    assert_eq!(
        after,
        [
            // numbered past the older frame's chunk objects (0000000A the largest)
            "w/s.b2frame/0000000B.chunk",
            "w/s.b2frame/0000000C.chunk",
            "w/s.b2frame/chunks.b2frame",
            "w/s.b2frame/notes.txt",
            "w/s.b2frame/sub/00000005.chunk"
        ],
        "before: {before}"
    );
    assert_eq!(nchunks_of(&run(&rd, &["s3://bucket/w/s.b2frame"], None)), 2);
    // the listing goes through every page (here of 2 keys), the keys below the prefix only
    let creds = Credentials {
        key_id: "testing".into(),
        secret: "testing".into(),
        token: None,
    };
    let lister = Client::new(
        S3Config {
            creds: Some(creds),
            region: "us-east-1".into(),
            endpoint: Some(moto.base()),
        },
        Duration::from_secs(20),
        0,
    );
    let mut keys = lister
        .list_pages("bucket", "w/s.b2frame/", Some(2))
        .unwrap();
    keys.sort();
    assert_eq!(keys, after[..4], "{keys:?}");
    assert!(lister.stats().requests >= 2, "{:?}", lister.stats());

    // an HTTP URL is read-only
    let out = common::run_cmd(
        Command::new(&wr).args(["sparse", &moto.url("bucket/x"), "1"]),
        Duration::from_secs(60),
    );
    assert!(out.stdout.contains("create failed"), "{}", out.describe());

    // the CLI: compress to s3:// (contiguous and sparse), decompress from it
    let tool = b2rs_tool();
    if !tool.is_file() {
        assert!(!in_ci(), "{} not built", tool.display());
        return;
    }
    let raw = s.path("raw.bin");
    let data: Vec<u8> = (0..5).flat_map(|i| chunk_data(i, 300_000)).collect();
    std::fs::write(&raw, &data).unwrap();
    for (url, extra) in [
        ("s3://bucket/cli/x.b2frame", None),
        ("s3://bucket/cli/y.b2frame", Some("--sparse")),
    ] {
        let mut cmd = Command::new(&tool);
        s3_env(&mut cmd, &moto.base())
            .arg("compress")
            .arg(&raw)
            .arg(url);
        if let Some(e) = extra {
            cmd.arg(e);
        }
        let o = common::run_cmd(&mut cmd, Duration::from_secs(120));
        assert!(o.ok(), "{}", o.describe());
        let back = s.path("back.bin");
        let o = common::run_cmd(
            s3_env(&mut Command::new(&tool), &moto.base())
                .arg("decompress")
                .arg(url)
                .arg(&back),
            Duration::from_secs(120),
        );
        assert!(o.ok(), "{}", o.describe());
        assert_eq!(std::fs::read(&back).unwrap(), data, "{url}");
    }
}

/// HTTPS through rustls: a server with a certificate of its own is refused, and read once its
/// certificate is given as the CA bundle (`SSL_CERT_FILE`).
#[test]
fn https_checks_the_certificate() {
    let test = "https_checks_the_certificate";
    let Some(refd) = common::ref_dir() else {
        assert!(!in_ci(), "{}", common::missing_ref_message());
        return common::skip(test, &common::missing_ref_message());
    };
    if !require(common::have_command("openssl"), test, "openssl") {
        return;
    }
    let s = Scratch::new("remote", "https");
    let root = s.path("www");
    std::fs::create_dir_all(&root).unwrap();
    write_frame(
        Location::File {
            path: root.join("c.b2frame"),
            offset: 0,
        },
        3,
        50_000,
    );
    // a CA of the test's own, and the server's certificate signed by it
    let (ca, cert, key) = (s.path("ca.pem"), s.path("cert.pem"), s.path("key.pem"));
    let ext = s.path("ext.cnf");
    std::fs::write(
        &ext,
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    for args in [
        "req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=b2rs-test-CA -keyout ca.key -out ca.pem",
        "req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout key.pem -out req.csr",
        "x509 -req -in req.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile ext.cnf -out cert.pem",
    ] {
        let o = common::run_cmd(
            Command::new("openssl").args(args.split(' ')).current_dir(&s.dir),
            Duration::from_secs(60),
        );
        assert!(o.ok(), "{}", o.describe());
    }
    let srv = Server::http(
        &root,
        &["--tls", cert.to_str().unwrap(), key.to_str().unwrap()],
    );
    let url = format!("https://127.0.0.1:{}/c.b2frame", srv.port);
    let (rd, rd_ref) = build_c(&s, "remote_read", &refd);
    let refused = common::run_cmd(
        Command::new(&rd)
            .arg(&url)
            .env("BLOSC_TRACE", "1")
            .env_remove("SSL_CERT_FILE")
            .env_remove("AWS_CA_BUNDLE"),
        Duration::from_secs(60),
    );
    assert!(
        refused.stdout.contains("open failed"),
        "{}",
        refused.describe()
    );
    let far = common::run_cmd(
        Command::new(&rd)
            .arg(&url)
            .env("SSL_CERT_FILE", &ca)
            .env_remove("AWS_CA_BUNDLE"),
        Duration::from_secs(60),
    );
    let near = common::run_cmd(
        Command::new(&rd_ref).arg(root.join("c.b2frame")),
        Duration::from_secs(60),
    );
    assert!(far.ok(), "{}", far.describe());
    assert_eq!(far.stdout, near.stdout);
}

/// Version `v` of the replaced frames: `n` chunks of `len` bytes stored as they are (clevel 0),
/// so that every version has the same size, header and index and only the chunk bytes differ.
fn versioned_frame(path: &Path, v: usize, n: usize, len: usize) -> Vec<Vec<u8>> {
    let cp = CParams {
        clevel: 0,
        ..cparams()
    };
    let params = FrameParams::from_cparams(&cp, 1);
    let loc = Location::File {
        path: path.to_path_buf(),
        offset: 0,
    };
    let mut f = Frame::create(loc, &params, Arc::new(StdIo)).unwrap();
    let mut want = Vec::new();
    for i in 0..n {
        let data = chunk_data(100 * v + i, len);
        let mut dst = vec![0u8; len + 64];
        let k = b2rs::chunk::compress(&cp, &data, &mut dst).unwrap();
        f.append_chunk(&dst[..k]).unwrap();
        want.push(data);
    }
    want
}

/// Chunk `i` as read from `frame`: `Ok(content)` or the error.
fn chunk_of(frame: &Frame, i: i64) -> Result<Vec<u8>, Error> {
    frame.get_chunk(i).map(|c| decode(&c))
}

/// An object replaced by one of the same size (same header and index) between a reader's
/// requests: with ETags (the HTTP server's, S3's through moto below) every read is of the
/// version the frame was read from or fails, and the frame re-read gives the new version; a
/// super-chunk re-reads itself and reads the new version. Never a chunk of two versions.
#[test]
fn replaced_http_objects_never_mix_versions() {
    let s = Scratch::new("remote", "replaced_http");
    let root = s.path("www");
    std::fs::create_dir_all(&root).unwrap();
    let (n, len) = (4, 150_000);
    let v1 = versioned_frame(&s.path("v1.b2frame"), 1, n, len);
    let v2 = versioned_frame(&s.path("v2.b2frame"), 2, n, len);
    let (b1, b2) = (
        std::fs::read(s.path("v1.b2frame")).unwrap(),
        std::fs::read(s.path("v2.b2frame")).unwrap(),
    );
    assert_eq!(b1.len(), b2.len());
    // replaced as a writer does: a new file renamed over the old one
    let put = |bytes: &[u8]| {
        let tmp = root.join("r.tmp");
        std::fs::write(&tmp, bytes).unwrap();
        std::fs::rename(&tmp, root.join("r.b2frame")).unwrap();
    };
    put(&b1);
    let srv = Server::http(&root, &[]);
    let url = srv.url("r.b2frame");
    let io = remote(0);
    let mut far = Frame::open_path(Path::new(&url), 0, io.clone()).unwrap();
    assert_eq!(chunk_of(&far, 0).unwrap(), v1[0]);
    put(&b2);
    for i in 1..n as i64 {
        // the old version or an error, never the new bytes under the old frame
        match chunk_of(&far, i) {
            Ok(c) => assert_eq!(c, v1[i as usize], "chunk {i}"),
            Err(e) => assert_eq!(e, Error::FileRead, "chunk {i}"),
        }
    }
    // the requests after the first carried If-Match, and the server answered 412
    let log = srv.log();
    assert!(log.iter().any(|l| l.2 == 412), "{log:?}");
    let text = srv.call("GET", "/__log", "");
    assert!(text.contains("\"if_match\": \"\\\""), "{text}");
    // re-read: the new version whole
    far.sync().unwrap();
    assert_eq!(content(&far), v2);
    // a super-chunk reads through a replacement: it re-reads the frame and reads again
    let mut sc = b2rs::schunk::Schunk::from_frame(
        Frame::open_path(Path::new(&url), 0, io.clone()).unwrap(),
        DParams::default(),
    );
    let mut out = vec![0u8; len];
    sc.decompress_chunk(0, &mut out).unwrap();
    assert_eq!(out, v2[0]);
    put(&b1);
    for (i, want) in v1.iter().enumerate() {
        sc.decompress_chunk(i as i64, &mut out).unwrap();
        assert_eq!(&out, want, "chunk {i}");
    }
    // an open in a process whose back-end holds a version reads what is stored now
    let held = Frame::open_path(Path::new(&url), 0, io.clone()).unwrap();
    assert_eq!(content(&held), v1);
    put(&b2);
    let again = Frame::open_path(Path::new(&url), 0, io.clone()).unwrap();
    assert_eq!(content(&again), v2);

    // without ETags (a plain server): a reader holding a frame cannot tell (documented), but
    // an open reads the stored version whole, whatever the back-end read before
    let plain = Server::http(&root, &["--no-etag"]);
    let pio = remote(0);
    let purl = plain.url("r.b2frame");
    let far = Frame::open_path(Path::new(&purl), 0, pio.clone()).unwrap();
    assert_eq!(content(&far), v2);
    let text = plain.call("GET", "/__log", "");
    assert!(!text.contains("\"if_match\": \""), "{text}");
    put(&b1);
    let again = Frame::open_path(Path::new(&purl), 0, pio.clone()).unwrap();
    assert_eq!(content(&again), v1);
    let again = Frame::open(
        Location::File {
            path: PathBuf::from(&purl),
            offset: 0,
        },
        pio,
    )
    .unwrap();
    assert_eq!(content(&again), v1);
}

/// A writer of S3 objects that stops after `writes` write requests (`None`: never).
fn s3_io(moto: &Server, writes: Option<u64>) -> Arc<RemoteIo> {
    let s3 = S3Config {
        creds: Some(Credentials {
            key_id: "testing".into(),
            secret: "testing".into(),
            token: None,
        }),
        region: "us-east-1".into(),
        endpoint: Some(moto.base()),
    };
    let client = Client::new(s3, Duration::from_secs(20), 0);
    client.limit_writes(writes);
    Arc::new(RemoteIo::new(client, 16 << 20))
}

/// Write the sparse frame of chunks `data` at `url` through `io`, one append at a time.
fn append_sparse(url: &str, data: &[Vec<u8>], io: Arc<RemoteIo>) -> Result<(), Error> {
    let params = FrameParams::from_cparams(&cparams(), 1);
    let mut f = Frame::create(Location::Dir(PathBuf::from(url)), &params, io)?;
    for d in data {
        f.append_chunk(&compress(d))?;
    }
    f.flush()
}

/// S3 through moto: an object replaced between a reader's requests (moto answers 412 to a
/// stale If-Match); a sparse frame re-created at its prefix by a writer stopped after each of
/// its uploads and deletions reads as the older frame whole or as the new one (never a mix),
/// and a reader holding the older index never reads a chunk of the new frame in its place.
#[test]
fn s3_replacements_never_mix_versions() {
    let test = "s3_replacements_never_mix_versions";
    let Some(moto) = moto_for(test) else {
        return;
    };
    let s = Scratch::new("remote", "s3_versions");
    // a contiguous object replaced by one of the same size
    let (n, len) = (3, 120_000);
    let v1 = versioned_frame(&s.path("v1.b2frame"), 1, n, len);
    let v2 = versioned_frame(&s.path("v2.b2frame"), 2, n, len);
    let put = |v: &str| {
        s3_tool(
            &moto,
            &["put", "bucket", s.path(v).to_str().unwrap(), "v/r.b2frame"],
        )
    };
    put("v1.b2frame");
    let mut far =
        Frame::open_path(Path::new("s3://bucket/v/r.b2frame"), 0, s3_io(&moto, None)).unwrap();
    assert_eq!(chunk_of(&far, 0).unwrap(), v1[0]);
    put("v2.b2frame");
    for i in 1..n as i64 {
        match chunk_of(&far, i) {
            Ok(c) => assert_eq!(c, v1[i as usize], "chunk {i}"),
            Err(e) => assert_eq!(e, Error::FileRead, "chunk {i}"),
        }
    }
    far.sync().unwrap();
    assert_eq!(content(&far), v2);

    // re-creating a sparse frame: the older one has 5 chunks, the new one 3
    let url = "s3://bucket/re/s.b2frame";
    let old: Vec<Vec<u8>> = (0..5).map(|i| chunk_data(i, 30_000)).collect();
    let new: Vec<Vec<u8>> = (0..3).map(|i| chunk_data(200 + i, 30_000)).collect();
    let local = s.path("new.b2frame");
    write_frame_of(&local, &new);
    let local = Frame::open_path(&local, 0, Arc::new(StdIo)).unwrap();
    let read_back = || match Frame::open_path(Path::new(url), 0, s3_io(&moto, None)) {
        Ok(f) => Some(content(&f)),
        Err(_) => None,
    };
    // a copy (blosc2_schunk_to_file, b2nd_save, `b2rs convert`): the older frame whole until
    // the new index lands, then the new one whole
    let mut k = 0;
    loop {
        append_sparse(url, &old, s3_io(&moto, None)).unwrap();
        let done = local
            .copy_to(Location::Dir(PathBuf::from(url)), s3_io(&moto, Some(k)))
            .is_ok();
        let got = read_back();
        assert!(
            got.as_ref() == Some(&old) || got.as_ref() == Some(&new),
            "after {k} writes: {:?}",
            got.map(|g| g.len())
        );
        if done {
            assert_eq!(got.as_ref(), Some(&new));
            break;
        }
        k += 1;
        assert!(k < 30, "the copy never ends");
    }
    // after the last write, only the new frame's objects are left
    let listing = s3_tool(&moto, &["list", "bucket", "re/s.b2frame/"]).stdout;
    assert_eq!(listing.lines().count(), 4, "{listing}");
    // appends (blosc2_schunk_new, then appending): the older frame whole until the first
    // append lands, then the new frame as of one of its appends
    let mut k = 0;
    loop {
        append_sparse(url, &old, s3_io(&moto, None)).unwrap();
        let done = append_sparse(url, &new, s3_io(&moto, Some(k))).is_ok();
        let got = read_back().expect("a frame");
        assert!(
            got == old || (!got.is_empty() && new.starts_with(&got)),
            "after {k} writes: {} chunks",
            got.len()
        );
        if done {
            assert_eq!(got, new);
            break;
        }
        k += 1;
        assert!(k < 30, "the writer never ends");
    }

    // a reader holding the older index while the frame is re-created: its chunks, or an
    // error, never a chunk of the new frame; once re-read, the new frame
    append_sparse(url, &old, s3_io(&moto, None)).unwrap();
    let rio = s3_io(&moto, None);
    let mut reader = Frame::open_path(Path::new(url), 0, rio.clone()).unwrap();
    assert_eq!(chunk_of(&reader, 0).unwrap(), old[0]);
    local
        .copy_to(Location::Dir(PathBuf::from(url)), s3_io(&moto, None))
        .unwrap();
    for i in 0..5 {
        // (an error: its chunk object is gone)
        if let Ok(c) = chunk_of(&reader, i) {
            assert_eq!(c, old[i as usize], "chunk {i}");
        }
    }
    reader.sync().unwrap();
    assert_eq!(content(&reader), new);
    // a super-chunk re-reads itself (opened afresh: what a back-end cached of a frame is
    // what a frame opened on it reads, until a refresh)
    append_sparse(url, &old, s3_io(&moto, None)).unwrap();
    let mut sc = b2rs::schunk::Schunk::from_frame(
        Frame::open_path(Path::new(url), 0, s3_io(&moto, None)).unwrap(),
        DParams::default(),
    );
    let mut out = vec![0u8; 30_000];
    sc.decompress_chunk(1, &mut out).unwrap();
    assert_eq!(out, old[1]);
    local
        .copy_to(Location::Dir(PathBuf::from(url)), s3_io(&moto, None))
        .unwrap();
    sc.decompress_chunk(2, &mut out).unwrap();
    assert_eq!(out, new[2]);

    // the prefix keeps the sparse-frame layout: a downloaded copy opens in C-Blosc2
    let dl = s.path("dl.b2frame");
    s3_tool(
        &moto,
        &["get", "bucket", "re/s.b2frame", dl.to_str().unwrap()],
    );
    let py = format!(
        "import blosc2\n\
         sc = blosc2.open('{}')\n\
         assert sc.nchunks == 3, sc.nchunks\n\
         print(len(sc.decompress_chunk(2)))\n",
        dl.display()
    );
    let o = common::run_cmd(
        Command::new("python3").args(["-c", &py]),
        Duration::from_secs(60),
    );
    assert!(o.ok() && o.stdout.contains("30000"), "{}", o.describe());
}

/// A contiguous frame at `path` holding the chunks `data`.
fn write_frame_of(path: &Path, data: &[Vec<u8>]) {
    let params = FrameParams::from_cparams(&cparams(), 1);
    let loc = Location::File {
        path: path.to_path_buf(),
        offset: 0,
    };
    let mut f = Frame::create(loc, &params, Arc::new(StdIo)).unwrap();
    for d in data {
        f.append_chunk(&compress(d)).unwrap();
    }
}
