//! Links the C-Blosc2 named by `B2RS_REF_LIB` (the directory holding its `libblosc2.so`).
fn main() {
    println!("cargo:rerun-if-env-changed=B2RS_REF_LIB");
    let dir = std::env::var("B2RS_REF_LIB")
        .expect("B2RS_REF_LIB: the directory of C-Blosc2's libblosc2.so");
    println!("cargo:rustc-link-search=native={dir}");
    println!("cargo:rustc-link-lib=dylib=blosc2");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
}
