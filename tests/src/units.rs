//! The hand-written ZLUDA unit kernels of the corpus (`zluda/unit_*.ptx` with
//! `unit_*.io.json`) as launch setups: the input becomes the first buffer, a zeroed output of
//! the expected length the last; grid 1x1x1, the block of the io file, 1024 bytes of dynamic
//! shared memory, as ZLUDA's harness launches them.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use sim_core::exec::{BufferSpec, ElemType, Init, LaunchSetup, ParamSpec, Value};

/// One unit kernel with its expectation.
pub struct UnitCase {
    /// Stem (`unit_add`).
    pub name: String,
    /// The PTX file.
    pub ptx: PathBuf,
    /// The kernel.
    pub kernel: String,
    /// Block dimensions.
    pub block: Vec<u32>,
    /// Input element type and values (none for output-only kernels).
    pub input: Option<(ElemType, Vec<String>)>,
    /// Output element type and expected values.
    pub output: (ElemType, Vec<String>),
}

fn elem(v: &Json) -> Option<ElemType> {
    let s = v.get("elem_type")?.as_str()?;
    ElemType::from_name(s.split_whitespace().next()?)
}

fn values(v: &Json) -> Vec<String> {
    v.get("values")
        .and_then(Json::as_array)
        .map_or(Vec::new(), |a| a.iter().map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string)).collect())
}

/// Every `zluda/unit_*.io.json` below `corpus`, sorted.
pub fn unit_cases(corpus: &Path) -> Vec<UnitCase> {
    let dir = corpus.join("zluda");
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else { return out };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        let Some(fname) = p.file_name().and_then(|f| f.to_str()) else { continue };
        let Some(stem) = fname.strip_suffix(".io.json") else { continue };
        let Ok(text) = std::fs::read_to_string(&p) else { continue };
        let Ok(j) = serde_json::from_str::<Json>(&text) else { continue };
        let kernel = j.get("kernel").and_then(Json::as_str).unwrap_or_default().to_string();
        let block = j
            .pointer("/launch/block")
            .and_then(Json::as_array)
            .map_or(vec![1, 1, 1], |a| a.iter().filter_map(|x| x.as_u64().map(|v| v as u32)).collect());
        let input = j.get("input").filter(|v| !v.is_null()).and_then(|v| Some((elem(v)?, values(v))));
        let Some(output) = j.get("output").and_then(|v| Some((elem(v)?, values(v)))) else { continue };
        out.push(UnitCase { name: stem.into(), ptx: dir.join(format!("{stem}.ptx")), kernel, block, input, output });
    }
    out
}

impl UnitCase {
    /// The launch setup: `params` has one entry per kernel parameter (1 or 2).
    pub fn setup(&self, kernel_params: usize) -> LaunchSetup {
        let (oty, ovals) = &self.output;
        let out = ParamSpec::Buffer(BufferSpec {
            ty: *oty,
            len: Some(ovals.len() as u64),
            init: Some(Init::Zeros),
            data: None,
            offset: None,
        });
        let mut params = Vec::new();
        if kernel_params >= 2 {
            let (ity, ivals) = self.input.clone().unwrap_or((*oty, Vec::new()));
            let data = ivals.into_iter().map(Value::Text).collect::<Vec<_>>();
            params.push(ParamSpec::Buffer(BufferSpec {
                ty: ity,
                len: Some(data.len().max(1) as u64),
                init: None,
                data: Some(data),
                offset: None,
            }));
        }
        params.push(out);
        LaunchSetup {
            kernel: Some(self.kernel.clone()),
            grid: vec![1, 1, 1],
            block: self.block.clone(),
            dynamic_smem: 1024,
            outputs: Some(vec![params.len() - 1]),
            params,
            launches: Vec::new(),
            repeat: None,
            budget: None,
            textures: Default::default(),
        }
    }

    /// Expected output bits.
    pub fn expected_bits(&self) -> Vec<u64> {
        let (ty, vals) = &self.output;
        vals.iter().map(|v| Value::Text(v.clone()).to_bits(*ty).unwrap_or(u64::MAX)).collect()
    }
}
