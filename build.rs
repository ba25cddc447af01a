//! Links the `loopd` binary smaller, where the linker and C library allow:
//! - packed relative relocations (`DT_RELR`), when the glibc it is built
//!   against loads them (2.36 and later: Debian 12, Ubuntu 24.04, Raspberry
//!   Pi OS bookworm): the table of addresses fixed at start-up takes 40 KB
//!   instead of 2.8 MB, and the binary stays position-independent;
//! - identical code folding, on x86-64 Linux where rustc links with its own
//!   lld: the many identical copies of generic functions become one (1.7 MB).
//!   Rust does not promise distinct functions distinct addresses, and links
//!   this way on Windows by default.
//!
//! Cross builds and other linkers or C libraries link as before.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER");
    let env = |key: &str| std::env::var(key).unwrap_or_default();
    let target = env("TARGET");
    if target != env("HOST")
        || env("CARGO_CFG_TARGET_OS") != "linux"
        || env("CARGO_CFG_TARGET_ENV") != "gnu"
    {
        return;
    }
    if host_glibc().is_some_and(|version| version >= (2, 36)) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    let own_linker = env("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_empty()
        && !env("CARGO_ENCODED_RUSTFLAGS").contains("link");
    if target == "x86_64-unknown-linux-gnu" && own_linker {
        println!("cargo:rustc-link-arg-bins=-Wl,--icf=all");
    }
}

/// The version of the glibc this build script runs on: for a native build,
/// the one the binary will load.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn host_glibc() -> Option<(u32, u32)> {
    extern "C" {
        fn gnu_get_libc_version() -> *const std::ffi::c_char;
    }
    // SAFETY: glibc returns a pointer to a static, NUL-terminated string.
    let version = unsafe { std::ffi::CStr::from_ptr(gnu_get_libc_version()) };
    let mut parts = version.to_str().ok()?.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn host_glibc() -> Option<(u32, u32)> {
    None
}
