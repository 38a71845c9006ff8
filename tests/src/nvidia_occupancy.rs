//! NVIDIA's occupancy calculator as a test oracle. `cuda_occupancy.h` ships in the PyPI wheel
//! `nvidia-cuda-runtime-cu12`; [`reference_driver`] downloads the wheel with pip (once, cached under
//! `target/`), extracts the header, and compiles `tests/occupancy_ref/driver.cpp` against it with
//! g++. The header is never committed. Set `REGLAB_SKIP_NVIDIA_REF=1` to skip tests that need it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::repo_root;

/// The wheel the header comes from (pinned so that reference vectors are reproducible).
pub const WHEEL: &str = "nvidia-cuda-runtime-cu12==12.6.77";

/// Path of the header inside the wheel.
const HEADER_IN_WHEEL: &str = "include/cuda_occupancy.h";

/// True when the environment asks to skip tests that need NVIDIA's header.
pub fn skipped() -> bool {
    std::env::var("REGLAB_SKIP_NVIDIA_REF").is_ok_and(|v| v == "1")
}

/// Runs `cmd`, returning its stdout, or a message naming the command and its stderr.
fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `cache/cuda_occupancy.h`, downloading and extracting the wheel if it is not there yet.
pub fn header(cache: &Path) -> Result<PathBuf, String> {
    let header = cache.join("cuda_occupancy.h");
    if header.is_file() {
        return Ok(header);
    }
    let wheels = cache.join("wheel");
    std::fs::create_dir_all(&wheels).map_err(|e| format!("cannot create {}: {e}", wheels.display()))?;
    run(Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "--quiet", WHEEL, "-d"])
        .arg(&wheels))
    .map_err(|e| format!("could not download {WHEEL} with pip (set REGLAB_SKIP_NVIDIA_REF=1 to skip): {e}"))?;
    let wheel = std::fs::read_dir(&wheels)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|entry| entry.path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .ok_or_else(|| format!("pip left no wheel in {}", wheels.display()))?;
    let extract = "import sys, zipfile\n\
        z = zipfile.ZipFile(sys.argv[1])\n\
        name = next(n for n in z.namelist() if n.endswith(sys.argv[2]))\n\
        open(sys.argv[3], 'wb').write(z.read(name))\n";
    run(Command::new("python3").args(["-c", extract]).arg(&wheel).arg(HEADER_IN_WHEEL).arg(&header))?;
    Ok(header)
}

/// The compiled reference driver, built from `tests/occupancy_ref/driver.cpp` when missing or older
/// than its source.
pub fn reference_driver(cache: &Path) -> Result<PathBuf, String> {
    let header = header(cache)?;
    let source = repo_root().join("tests").join("occupancy_ref").join("driver.cpp");
    let binary = cache.join("occupancy_driver");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if binary.is_file() && modified(&binary) >= modified(&source) {
        return Ok(binary);
    }
    let include = header.parent().unwrap_or(cache);
    run(Command::new("g++").args(["-O2", "-std=c++11", "-I"]).arg(include).arg("-o").arg(&binary).arg(&source))
        .map_err(|e| format!("could not compile the reference driver (is g++ installed?): {e}"))?;
    Ok(binary)
}

/// Feeds `input` to the driver and returns its output.
pub fn run_driver(driver: &Path, input: &str) -> Result<String, String> {
    use std::io::Write as _;
    let mut child = Command::new(driver)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", driver.display()))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let feed = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(feed.as_bytes()));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    writer.join().map_err(|_| "writer thread failed".to_owned())?.map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("{} exited with {}", driver.display(), out.status));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}
