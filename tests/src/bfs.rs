//! Rodinia BFS (`gpgpu-sim/pr219_bfs.1.sm_20.ptx`) as a launch setup: the SampleGraph input
//! format (node count; per node its first edge and edge count; the source; the edge count; per
//! edge its destination and weight), the two kernels iterated until the stop flag stays zero, and
//! the expected `"%d) cost:%d"` result file.

use std::path::Path;

use sim_core::exec::{
    BufferSpec, ElemType, LaunchSetup, LaunchStep, ParamSpec, Repeat, ScalarSpec, ScalarValue, Value,
};

/// The graph of a SampleGraph file.
pub struct Graph {
    /// (first edge, edge count) per node.
    pub nodes: Vec<(i64, i64)>,
    /// The source node.
    pub source: usize,
    /// Destination of each edge.
    pub edges: Vec<i64>,
}

/// Parses the Rodinia BFS input format.
pub fn parse_graph(text: &str) -> Option<Graph> {
    let mut it = text.split_whitespace().map(|t| t.parse::<i64>().ok());
    let n = it.next()?? as usize;
    let mut nodes = Vec::with_capacity(n);
    for _ in 0..n {
        nodes.push((it.next()??, it.next()??));
    }
    let source = it.next()?? as usize;
    let m = it.next()?? as usize;
    let mut edges = Vec::with_capacity(m);
    for _ in 0..m {
        edges.push(it.next()??);
        it.next()??;
    }
    Some(Graph { nodes, source, edges })
}

/// Parses `"%d) cost:%d"` lines.
pub fn parse_costs(text: &str) -> Vec<i64> {
    text.lines().filter_map(|l| l.split("cost:").nth(1)).filter_map(|c| c.trim().parse().ok()).collect()
}

/// `(kernel, gpu_sim_insn)` of each launch in a GPGPU-Sim log excerpt.
pub fn parse_log(text: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut kernel = String::new();
    for l in text.lines() {
        if let Some(k) = l.strip_prefix("kernel_name = ") {
            kernel = k.trim().to_string();
        } else if let Some(n) = l.strip_prefix("gpu_sim_insn = ") {
            if let Ok(n) = n.trim().parse() {
                out.push((kernel.clone(), n));
            }
        }
    }
    out
}

fn buffer(ty: ElemType, data: Vec<i64>) -> ParamSpec {
    let data = data.into_iter().map(|v| if v < 0 { Value::Int(v) } else { Value::UInt(v as u64) }).collect();
    ParamSpec::Buffer(BufferSpec { ty, len: None, init: None, data: Some(data), offset: None })
}

/// The launch setup of Rodinia's host code: one CTA of `n` threads (n ≤ 512), `Kernel` then
/// `Kernel2` repeated until the `over` flag (pool entry 7) stays zero; the output is `cost`
/// (pool entry 5).
pub fn setup(g: &Graph) -> LaunchSetup {
    let n = g.nodes.len() as i64;
    let flat: Vec<i64> = g.nodes.iter().flat_map(|&(s, c)| [s, c]).collect();
    let mark = |v: i64| (0..n).map(|i| if i as usize == g.source { v } else { 0 }).collect::<Vec<_>>();
    let cost = (0..n).map(|i| if i as usize == g.source { 0 } else { -1 }).collect();
    let params = vec![
        buffer(ElemType::S32, flat),
        buffer(ElemType::S32, g.edges.clone()),
        buffer(ElemType::U8, mark(1)),
        buffer(ElemType::U8, vec![0; n as usize]),
        buffer(ElemType::U8, mark(1)),
        buffer(ElemType::S32, cost),
        ParamSpec::Scalar(ScalarSpec { ty: ElemType::S32, value: ScalarValue::One(Value::UInt(n as u64)) }),
        buffer(ElemType::U8, vec![0]),
    ];
    let (blocks, threads) = if n > 512 { (((n + 511) / 512) as u32, 512) } else { (1, n as u32) };
    let step = |kernel: &str, args: Vec<usize>| LaunchStep {
        kernel: kernel.into(),
        grid: None,
        block: None,
        dynamic_smem: None,
        args: Some(args),
    };
    LaunchSetup {
        kernel: None,
        grid: vec![blocks, 1, 1],
        block: vec![threads, 1, 1],
        dynamic_smem: 0,
        params,
        outputs: Some(vec![5]),
        launches: vec![
            step("_Z6KernelP4NodePiPbS2_S2_S1_i", vec![0, 1, 2, 3, 4, 5, 6]),
            step("_Z7Kernel2PbS_S_S_i", vec![2, 3, 4, 7, 6]),
        ],
        repeat: Some(Repeat { max: 10_000, until_zero: 7 }),
        budget: None,
        textures: Default::default(),
    }
}

/// The setup for the corpus SampleGraph, if the corpus is there.
pub fn sample_setup(corpus: &Path) -> Option<LaunchSetup> {
    let text = std::fs::read_to_string(corpus.join("gpgpu-sim/pr219_bfs.SampleGraph.txt")).ok()?;
    Some(setup(&parse_graph(&text)?))
}
