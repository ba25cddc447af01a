//! With the `cuda` feature, compiles loopd's CUDA kernels
//! (`src/model/cuda.cu`) to PTX with `nvcc` for `CUDA_COMPUTE_CAP` (as
//! candle's kernels are); without it, does nothing.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=src/model/cuda.cu");
    println!("cargo::rerun-if-env-changed=CUDA_COMPUTE_CAP");
    println!("cargo::rerun-if-env-changed=CUDA_ROOT");
    if std::env::var_os("CARGO_FEATURE_CUDA").is_none() {
        return;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("cuda.ptx");
    let cap = std::env::var("CUDA_COMPUTE_CAP").unwrap_or_else(|_| "75".into());
    let cap = cap.trim().replace('.', "");
    let nvcc = std::env::var_os("CUDA_ROOT")
        .map(|root| PathBuf::from(root).join("bin").join("nvcc"))
        .filter(|path| path.exists())
        .unwrap_or_else(|| PathBuf::from("nvcc"));
    let status = Command::new(&nvcc)
        .args(["--ptx", "-O3", "-std=c++17"])
        .arg(format!("-arch=compute_{cap}"))
        .arg("-o")
        .arg(&out)
        .arg("src/model/cuda.cu")
        .status();
    match status {
        Ok(status) if status.success() => {}
        Ok(status) => panic!("{} failed on src/model/cuda.cu ({status})", nvcc.display()),
        Err(err) => panic!(
            "cannot run {} to build the CUDA kernels ({err}); put CUDA's nvcc on PATH \
             (benches/cuda-build.sh installs one from PyPI)",
            nvcc.display()
        ),
    }
}
