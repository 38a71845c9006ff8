//! The launch setup the page runs, and every edit the launch editor can make to it. All launch
//! semantics come from `sim-core` (`exec::propose_launch`, `exec::plan::plan`, the `LaunchSetup`
//! JSON); this module only picks, edits and validates.
//!
//! ```text
//! kernel list changes → shipped launch of the example (static/examples/<id>.launch.json)
//!                       or propose_launch(module, kernel)
//! form edit "grid[0] = 32" → setup.grid[0] = 32 → plan(module, setup) → error shown inline or none
//! ```

use sim_core::exec::plan::plan;
use sim_core::exec::{propose_launch, ElemType, Init, LaunchSetup, ParamSpec, ScalarValue, Value};
use sim_core::ir::Module;

use crate::examples;

/// Element types offered for buffers and scalars.
pub const ELEM_TYPES: [&str; 11] = ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "f16", "f32", "f64"];

/// Where the current setup came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchOrigin {
    /// Proposed from the kernel's parameter list.
    Proposed,
    /// The setup shipped with the bundled example.
    Shipped,
    /// Edited by the user.
    Edited,
    /// Restored from local storage.
    Restored,
}

impl LaunchOrigin {
    /// A few words for the editor's header.
    pub fn describe(self) -> &'static str {
        match self {
            LaunchOrigin::Proposed => "proposed from the parameter list",
            LaunchOrigin::Shipped => "shipped with the example",
            LaunchOrigin::Edited => "edited",
            LaunchOrigin::Restored => "restored from this browser",
        }
    }
}

/// One edit of the form view.
#[derive(Clone, Debug, PartialEq)]
pub enum LaunchEdit {
    /// `grid[axis]` from text.
    Grid(usize, String),
    /// `block[axis]` from text.
    Block(usize, String),
    /// Dynamic shared memory in bytes from text.
    DynamicSmem(String),
    /// Buffer `param`'s element count from text.
    BufferLen(usize, String),
    /// Element type of buffer or scalar `param`.
    ParamType(usize, String),
    /// Buffer `param`'s init pattern (`zeros`, `iota`, `const:V`, `random:SEED`).
    BufferInit(usize, String),
    /// Scalar `param`'s value from text.
    ScalarValue(usize, String),
    /// Report buffer `param` (or stop reporting it).
    ToggleOutput(usize),
}

/// The `.entry` kernels of `module`, in declaration order.
pub fn entry_kernels(module: &Module) -> Vec<String> {
    sim_core::exec::plan::kernel_names(module)
}

/// The first kernel a setup launches.
pub fn setup_kernel(setup: &LaunchSetup) -> Option<&str> {
    setup.kernel.as_deref().or_else(|| setup.launches.first().map(|l| l.kernel.as_str()))
}

/// The launch to start from for `kernel`: the example's shipped setup if it launches that kernel
/// (or `kernel` is `None`), else the proposal from the parameter list.
pub fn initial_setup(
    module: &Module,
    kernel: Option<&str>,
    example: Option<&str>,
) -> Option<(LaunchSetup, LaunchOrigin)> {
    let names = entry_kernels(module);
    if let Some(shipped) = example.and_then(examples::launch_for).and_then(|t| LaunchSetup::from_json(t).ok()) {
        let k = setup_kernel(&shipped);
        if k.is_some_and(|k| names.iter().any(|n| n == k)) && (kernel.is_none() || kernel == k) {
            return Some((shipped, LaunchOrigin::Shipped));
        }
    }
    let kernel = kernel.or(names.first().map(String::as_str))?;
    Some((propose_launch(module, kernel), LaunchOrigin::Proposed))
}

/// Checks `setup` against `module` (kernel, parameter count and types, dimensions, …).
pub fn validate(module: Option<&Module>, setup: &LaunchSetup) -> Result<(), String> {
    let module = module.ok_or("the kernel text does not compile, so the launch cannot be checked")?;
    plan(module, setup).map(|_| ()).map_err(|e| e.message)
}

/// Applies a form edit; the error names the field and what is wrong (the setup is unchanged then).
pub fn apply(setup: &LaunchSetup, edit: &LaunchEdit) -> Result<LaunchSetup, String> {
    let mut s = setup.clone();
    match edit {
        LaunchEdit::Grid(axis, text) => set_dim(&mut s.grid, *axis, text, "grid")?,
        LaunchEdit::Block(axis, text) => set_dim(&mut s.block, *axis, text, "block")?,
        LaunchEdit::DynamicSmem(text) => {
            s.dynamic_smem =
                text.trim().parse().map_err(|_| format!("dynamic shared memory: '{text}' is not a byte count"))?;
        }
        LaunchEdit::BufferLen(i, text) => {
            let len: u64 = text.trim().parse().map_err(|_| format!("params[{i}] length: '{text}' is not a count"))?;
            buffer(&mut s, *i)?.len = Some(len);
        }
        LaunchEdit::ParamType(i, name) => {
            let ty = ElemType::from_name(name).ok_or_else(|| format!("params[{i}]: unknown type '{name}'"))?;
            match s.params.get_mut(*i) {
                Some(ParamSpec::Buffer(b)) => b.ty = ty,
                Some(ParamSpec::Scalar(v)) => v.ty = ty,
                Some(ParamSpec::Pointers(list)) => list.iter_mut().for_each(|b| b.ty = ty),
                Some(ParamSpec::Texture(t)) => t.ty = ty,
                Some(ParamSpec::Struct(_)) => {
                    return Err(format!("params[{i}] is a struct: set its fields' types in the JSON"))
                }
                None => return Err(format!("params[{i}] does not exist")),
            }
        }
        LaunchEdit::BufferInit(i, text) => {
            let init = Init::try_from(text.clone()).map_err(|e| format!("params[{i}] init: {e}"))?;
            buffer(&mut s, *i)?.init = Some(init);
        }
        LaunchEdit::ScalarValue(i, text) => match s.params.get_mut(*i) {
            Some(ParamSpec::Scalar(v)) => {
                let value = parse_value(text);
                value.to_bits(v.ty).map_err(|e| format!("params[{i}] value: {e}"))?;
                v.value = ScalarValue::One(value);
            }
            _ => return Err(format!("params[{i}] is not a scalar")),
        },
        LaunchEdit::ToggleOutput(i) => {
            let mut outs = s.outputs.clone().unwrap_or_default();
            match outs.iter().position(|o| o == i) {
                Some(at) => {
                    outs.remove(at);
                }
                None => {
                    outs.push(*i);
                    sim_core::sorting::sort(&mut outs);
                }
            }
            s.outputs = Some(outs);
        }
    }
    Ok(s)
}

fn set_dim(dims: &mut Vec<u32>, axis: usize, text: &str, what: &str) -> Result<(), String> {
    let n: u32 = text.trim().parse().map_err(|_| format!("{what}[{axis}]: '{text}' is not a whole number"))?;
    while dims.len() < 3 {
        dims.push(1);
    }
    match dims.get_mut(axis) {
        Some(d) => *d = n,
        None => return Err(format!("{what} has three dimensions")),
    }
    Ok(())
}

fn buffer(s: &mut LaunchSetup, i: usize) -> Result<&mut sim_core::exec::BufferSpec, String> {
    match s.params.get_mut(i) {
        Some(ParamSpec::Buffer(b)) => Ok(b),
        _ => Err(format!("params[{i}] is not a buffer")),
    }
}

/// A scalar from text: an integer if it reads as one, else a float, else the text itself
/// (`0x…` bits and the like, which `sim-core` interprets by type).
pub fn parse_value(text: &str) -> Value {
    let t = text.trim();
    if let Ok(u) = t.parse::<u64>() {
        Value::UInt(u)
    } else if let Ok(i) = t.parse::<i64>() {
        Value::Int(i)
    } else if let Ok(f) = t.parse::<f64>() {
        Value::Float(f)
    } else {
        Value::Text(t.into())
    }
}

/// The text of a scalar's value for an input field.
pub fn scalar_text(value: &ScalarValue) -> String {
    match value {
        ScalarValue::One(v) => v.to_text(),
        ScalarValue::Many(vs) => vs.iter().map(Value::to_text).collect::<Vec<_>>().join(", "),
    }
}

/// The text of an init pattern for an input field.
pub fn init_text(init: Option<&Init>) -> String {
    String::from(init.cloned().unwrap_or(Init::Zeros))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = ".version 8.5\n.target sm_75\n.address_size 64\n\n.visible .entry k(.param .u64 a, .param .u64 b, .param .u32 n)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n\tld.param.u64 %rd1, [a];\n\tld.param.u64 %rd2, [b];\n\tld.global.u32 %r1, [%rd1];\n\tst.global.u32 [%rd2], %r1;\n\tret;\n}\n";

    fn module() -> Module {
        sim_core::ptx::check(SRC).module.unwrap_or_default()
    }

    #[test]
    fn proposal_follows_the_parameter_list() {
        let m = module();
        let got = initial_setup(&m, None, None);
        assert!(matches!(got, Some((_, LaunchOrigin::Proposed))));
        let s = got.map(|(s, _)| s).unwrap_or_else(|| propose_launch(&m, "none"));
        assert_eq!(setup_kernel(&s), Some("k"));
        assert_eq!(s.params.len(), 3);
        assert_eq!(s.outputs, Some(vec![1]));
        assert_eq!(validate(Some(&m), &s), Ok(()));
    }

    #[test]
    fn the_vector_add_example_ships_its_launch() {
        let src = examples::find("vector_add").map_or("", |e| e.source);
        let m = sim_core::ptx::check(src).module.unwrap_or_default();
        let got = initial_setup(&m, None, Some("vector_add"));
        assert!(
            matches!(&got, Some((s, LaunchOrigin::Shipped)) if s.grid == vec![16, 1, 1] && s.block == vec![256, 1, 1])
        );
    }

    #[test]
    fn every_example_ships_a_valid_launch() {
        for e in examples::EXAMPLES {
            let m = sim_core::ptx::check(e.source).module;
            let shipped = examples::launch_for(e.id).map(LaunchSetup::from_json);
            assert!(matches!(shipped, Some(Ok(_))), "{}: {shipped:?}", e.id);
            if let Some(Ok(s)) = shipped {
                assert_eq!(validate(m.as_ref(), &s), Ok(()), "{}", e.id);
                let picked = m.as_ref().and_then(|m| initial_setup(m, None, Some(e.id)));
                assert!(matches!(picked, Some((_, LaunchOrigin::Shipped))), "{}", e.id);
            }
        }
    }

    #[test]
    fn edits_change_one_field_or_explain() {
        let m = module();
        let s = propose_launch(&m, "k");
        let g = apply(&s, &LaunchEdit::Grid(1, "4".into()));
        assert_eq!(g.map(|g| g.grid), Ok(vec![s.grid[0], 4, 1]));
        assert!(apply(&s, &LaunchEdit::Grid(0, "x".into())).is_err());
        let z = apply(&s, &LaunchEdit::Block(0, "0".into())).unwrap_or_else(|_| s.clone());
        assert!(validate(Some(&m), &z).is_err(), "block 0 is rejected");
        let t = apply(&s, &LaunchEdit::ParamType(0, "f64".into())).unwrap_or_else(|_| s.clone());
        assert!(matches!(&t.params[0], ParamSpec::Buffer(b) if b.ty == ElemType::F64));
        assert!(apply(&s, &LaunchEdit::BufferInit(0, "nonsense".into())).is_err());
        assert!(apply(&s, &LaunchEdit::ScalarValue(0, "1".into())).is_err(), "param 0 is a buffer");
        let v = apply(&s, &LaunchEdit::ScalarValue(2, "77".into())).unwrap_or_else(|_| s.clone());
        assert!(matches!(&v.params[2], ParamSpec::Scalar(x) if scalar_text(&x.value) == "77"));
        let o = apply(&s, &LaunchEdit::ToggleOutput(0)).unwrap_or_else(|_| s.clone());
        assert_eq!(o.outputs, Some(vec![0, 1]));
        // A struct parameter has no single type: the edit explains instead of guessing.
        let mut st = s.clone();
        st.params[0] = ParamSpec::Struct(Vec::new());
        assert!(apply(&st, &LaunchEdit::ParamType(0, "f64".into())).is_err_and(|e| e.contains("struct")));
    }
}
