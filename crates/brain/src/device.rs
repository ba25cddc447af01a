//! Choosing where the model runs and with how many threads.

use candle_core::Device;
use std::str::FromStr;

/// A device as named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceChoice {
    /// The best device compiled in: CUDA, then Metal, then the CPU.
    #[default]
    Auto,
    /// The CPU.
    Cpu,
    /// The first CUDA GPU (needs the `cuda` feature).
    Cuda,
    /// The Apple GPU (needs the `metal` feature).
    Metal,
}

/// A device name that is none of `auto`, `cpu`, `cuda` (`gpu`) or `metal`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown device `{0}` (expected auto, cpu, cuda or metal)")]
pub struct UnknownDevice(pub String);

impl FromStr for DeviceChoice {
    type Err = UnknownDevice;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "cuda" | "gpu" => Ok(DeviceChoice::Cuda),
            "metal" => Ok(DeviceChoice::Metal),
            other => Err(UnknownDevice(other.to_string())),
        }
    }
}

/// Why the chosen device could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// This build has no support for the device.
    #[error("this loopd was built without {backend}; rebuild with `--features {feature}`")]
    NotBuilt {
        /// `CUDA` or `Metal`.
        backend: &'static str,
        /// The cargo feature that adds it.
        feature: &'static str,
    },
    /// The device is supported but could not be opened.
    #[error("cannot open {backend} device 0: {source}")]
    Open {
        /// `CUDA` or `Metal`.
        backend: &'static str,
        /// What candle reported.
        #[source]
        source: candle_core::Error,
    },
}

/// Opens the chosen device.
pub fn open(choice: DeviceChoice) -> Result<Device, DeviceError> {
    match choice {
        DeviceChoice::Cpu => Ok(Device::Cpu),
        DeviceChoice::Cuda => open_cuda(),
        DeviceChoice::Metal => open_metal(),
        DeviceChoice::Auto => {
            if cfg!(feature = "cuda") {
                if let Ok(device) = open_cuda() {
                    return Ok(device);
                }
            }
            if cfg!(feature = "metal") {
                if let Ok(device) = open_metal() {
                    return Ok(device);
                }
            }
            Ok(Device::Cpu)
        }
    }
}

fn open_cuda() -> Result<Device, DeviceError> {
    let device = open_gpu("CUDA", "cuda", cfg!(feature = "cuda"), Device::new_cuda)?;
    #[cfg(feature = "cuda")]
    if let Err(err) = tune_cuda(&device) {
        tracing::warn!("CUDA allocations stay untuned: {err}");
    }
    Ok(device)
}

/// Makes the many small allocations of a decode step cheap. A token is
/// hundreds of small operations, each allocating its output:
/// - cudarc gives every buffer two events for ordering work across streams,
///   created and destroyed with it; loopd runs one model on one stream, so
///   they order nothing and only cost driver calls;
/// - the driver's stream-ordered pool hands freed memory back to the system
///   at every synchronisation (each token, when its logits are read), so
///   the next token maps it again; keeping it pooled avoids that.
#[cfg(feature = "cuda")]
fn tune_cuda(device: &Device) -> candle_core::Result<()> {
    use candle_core::cuda_backend::cudarc::driver::{result, sys};
    use candle_core::cuda_backend::WrapErr;
    let Device::Cuda(cuda) = device else {
        return Ok(());
    };
    // SAFETY: every tensor of a loopd model lives on this device's one
    // stream, so no buffer is shared between streams (candle's condition).
    unsafe { cuda.disable_event_tracking() };
    let keep_all = u64::MAX;
    // SAFETY: the device handle is the context's own, and the release
    // threshold attribute takes a u64.
    unsafe {
        let pool =
            result::device::get_default_mem_pool(cuda.cuda_stream().context().cu_device()).w()?;
        result::mem_pool::set_attribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            &keep_all as *const u64 as *mut std::ffi::c_void,
        )
        .w()?;
    }
    Ok(())
}

fn open_metal() -> Result<Device, DeviceError> {
    open_gpu("Metal", "metal", cfg!(feature = "metal"), Device::new_metal)
}

/// Opens device 0 of a GPU backend, if this build has it (`built`).
fn open_gpu(
    backend: &'static str,
    feature: &'static str,
    built: bool,
    new: fn(usize) -> candle_core::Result<Device>,
) -> Result<Device, DeviceError> {
    if !built {
        return Err(DeviceError::NotBuilt { backend, feature });
    }
    new(0).map_err(|source| DeviceError::Open { backend, source })
}

/// A short name for a device: `cpu`, `cuda:0`, `metal:0`.
pub fn name(device: &Device) -> String {
    match device {
        Device::Cpu => "cpu".into(),
        Device::Cuda(_) => "cuda:0".into(),
        Device::Metal(_) => "metal:0".into(),
    }
}

/// How many spin-loop pauses candle's pool workers wait for the next
/// operation before they sleep: about 25 µs here, against candle's default
/// of 25 000 (about 0.6 ms). loopd's Q4_1 products run on a rayon pool of
/// their own between candle's operations, and a worker still spinning there
/// takes a core from them (3 busy threads on 2 cores).
const CANDLE_SPIN_LIMIT: u32 = 1000;

/// Sets the number of CPU compute threads, and keeps candle's idle workers
/// from spinning long unless `CANDLE_BARRIER_POOL_SPIN_LIMIT` says
/// otherwise. Must run before the first tensor operation (candle's thread
/// pools read both once); `None` keeps candle's default thread count, the
/// number of physical cores.
pub fn set_threads(threads: Option<usize>) {
    if let Some(n) = threads.filter(|&n| n > 0) {
        std::env::set_var("RAYON_NUM_THREADS", n.to_string());
        std::env::set_var("CANDLE_NUM_THREADS", n.to_string());
    }
    if std::env::var_os("CANDLE_BARRIER_POOL_SPIN_LIMIT").is_none() {
        std::env::set_var(
            "CANDLE_BARRIER_POOL_SPIN_LIMIT",
            CANDLE_SPIN_LIMIT.to_string(),
        );
    }
}

/// The number of CPU compute threads candle uses.
pub fn threads() -> usize {
    candle_core::utils::get_num_threads()
}
