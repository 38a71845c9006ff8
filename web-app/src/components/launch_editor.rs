//! The launch setup editor: grid and block dimensions, dynamic shared memory, one row per kernel
//! parameter (buffer: type, length, init pattern, output; scalar: type, value), a JSON view, and
//! the problems inline. View code only: every change is a `LabAction`.

use sim_core::exec::ParamSpec;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::lab::{LabAction, LabState};
use crate::launch_model::{init_text, scalar_text, LaunchEdit, ELEM_TYPES};

/// Properties of [`LaunchEditor`].
#[derive(Properties, Clone, PartialEq)]
pub struct LaunchEditorProps {
    /// The lab state (setup, kernels, errors).
    pub lab: std::rc::Rc<LabState>,
    /// Receives every change.
    pub on_action: Callback<LabAction>,
}

fn input_value(e: InputEvent) -> String {
    e.target_unchecked_into::<HtmlInputElement>().value()
}

fn edit_input(on: &Callback<LabAction>, make: impl Fn(String) -> LaunchEdit + 'static) -> Callback<InputEvent> {
    on.reform(move |e: InputEvent| LabAction::Edit(make(input_value(e))))
}

/// The launch setup editor.
#[function_component(LaunchEditor)]
pub fn launch_editor(props: &LaunchEditorProps) -> Html {
    let lab = &props.lab;
    let on = &props.on_action;
    let json_open = lab.json.is_some();
    let toggle = on.reform(move |_: MouseEvent| LabAction::ShowJson(!json_open));
    let reset = on.reform(|_: MouseEvent| LabAction::Reset);
    let body = match &lab.json {
        Some(text) => {
            let oninput = on
                .reform(|e: InputEvent| LabAction::EditJson(e.target_unchecked_into::<HtmlTextAreaElement>().value()));
            html! { <textarea id="launch-json" class="launch-json" spellcheck="false" aria-label="Launch setup JSON"
            value={text.clone()} oninput={oninput} rows="16" /> }
        }
        None => form(lab, on),
    };
    html! {
        <section class="launch-editor" aria-labelledby="launch-heading">
            <div class="lab-head">
                <h2 id="launch-heading">{ "Launch setup" }</h2>
                <span class="launch-origin" id="launch-origin">{ lab.origin.describe() }</span>
                <button type="button" onclick={reset} title="Back to the shipped or proposed setup">{ "Reset" }</button>
                <button type="button" id="launch-json-toggle" aria-pressed={json_open.to_string()} onclick={toggle}>{ "JSON" }</button>
            </div>
            if let Some(k) = lab.kernel() { <p class="launch-kernel-name">{ "Kernel: " }<code>{ k.to_owned() }</code>
                <span class="note">{ " (picked above the editor; block size and dynamic shared memory feed the occupancy panel)" }</span></p> }
            { body }
            if let Some(e) = &lab.edit_error { <p class="field-error" id="launch-edit-error" role="alert">{ e.clone() }</p> }
            if let Some(e) = &lab.invalid { <p class="launch-invalid" id="launch-invalid" role="alert">{ format!("Not runnable: {e}") }</p> }
        </section>
    }
}

fn dims_row(
    label: &str,
    id: &str,
    dims: &[u32],
    on: &Callback<LabAction>,
    make: fn(usize, String) -> LaunchEdit,
) -> Html {
    html! {
        <div class="dims">
            <span class="dims-label">{ label }</span>
            { for ["x", "y", "z"].iter().enumerate().map(|(axis, name)| {
                let value = dims.get(axis).copied().unwrap_or(1).to_string();
                html! { <label>{ *name }
                    <input id={format!("{id}-{axis}")} type="number" min="1" inputmode="numeric" value={value}
                           oninput={edit_input(on, move |t| make(axis, t))} />
                </label> }
            }) }
        </div>
    }
}

fn form(lab: &LabState, on: &Callback<LabAction>) -> Html {
    let s = &lab.setup;
    let outputs = s.outputs.clone().unwrap_or_default();
    let rows = s.params.iter().enumerate().map(|(i, p)| param_row(i, p, outputs.contains(&i), on));
    html! {
        <div class="launch-form">
            { dims_row("Grid (CTAs)", "grid", &s.grid, on, LaunchEdit::Grid) }
            { dims_row("Block (threads)", "block", &s.block, on, LaunchEdit::Block) }
            <label class="smem">{ "Dynamic shared memory (bytes) " }
                <input id="dynamic-smem" type="number" min="0" value={s.dynamic_smem.to_string()}
                       oninput={edit_input(on, LaunchEdit::DynamicSmem)} />
            </label>
            if !s.launches.is_empty() {
                <p class="launch-note">{ format!("This setup runs a sequence of {} launches with their own grids; edit them in the JSON view.", s.launches.len()) }</p>
            }
            <table class="params" id="launch-params">
                <thead><tr><th scope="col">{ "#" }</th><th scope="col">{ "Kind" }</th><th scope="col">{ "Type" }</th>
                    <th scope="col">{ "Length / value" }</th><th scope="col">{ "Init" }</th><th scope="col">{ "Output" }</th></tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
        </div>
    }
}

fn type_select(i: usize, current: &str, on: &Callback<LabAction>) -> Html {
    let onchange = on.reform(move |e: Event| {
        LabAction::Edit(LaunchEdit::ParamType(i, e.target_unchecked_into::<HtmlSelectElement>().value()))
    });
    html! {
        <select aria-label={format!("params[{i}] type")} onchange={onchange}>
            { for ELEM_TYPES.iter().map(|t| html! { <option value={*t} selected={*t == current}>{ *t }</option> }) }
        </select>
    }
}

fn param_row(i: usize, p: &ParamSpec, output: bool, on: &Callback<LabAction>) -> Html {
    match p {
        ParamSpec::Buffer(b) => {
            let len = b.len.or(b.data.as_ref().map(|d| d.len() as u64)).unwrap_or(0).to_string();
            let toggle = on.reform(move |_: Event| LabAction::Edit(LaunchEdit::ToggleOutput(i)));
            html! {
                <tr class="param-buffer">
                    <td>{ i }</td><td>{ "buffer" }</td>
                    <td>{ type_select(i, b.ty.name(), on) }</td>
                    <td><input class="param-len" aria-label={format!("params[{i}] length")} type="number" min="0" value={len}
                               oninput={edit_input(on, move |t| LaunchEdit::BufferLen(i, t))} /></td>
                    <td><input class="param-init" aria-label={format!("params[{i}] init")} value={init_text(b.init.as_ref())}
                               oninput={edit_input(on, move |t| LaunchEdit::BufferInit(i, t))} /></td>
                    <td><input type="checkbox" aria-label={format!("report params[{i}]")} checked={output} onchange={toggle} /></td>
                </tr>
            }
        }
        ParamSpec::Scalar(v) => html! {
            <tr class="param-scalar">
                <td>{ i }</td><td>{ "scalar" }</td>
                <td>{ type_select(i, v.ty.name(), on) }</td>
                <td><input class="param-value" aria-label={format!("params[{i}] value")} value={scalar_text(&v.value)}
                           oninput={edit_input(on, move |t| LaunchEdit::ScalarValue(i, t))} /></td>
                <td></td><td></td>
            </tr>
        },
        ParamSpec::Pointers(list) => {
            let ty = list.first().map_or("f32", |b| b.ty.name());
            let lens: Vec<String> = list.iter().map(|b| b.len.unwrap_or(0).to_string()).collect();
            html! {
                <tr class="param-pointers">
                    <td>{ i }</td><td>{ format!("pointer table ({} buffers)", list.len()) }</td>
                    <td>{ type_select(i, ty, on) }</td>
                    <td>{ lens.join(", ") }</td><td></td><td></td>
                </tr>
            }
        }
        ParamSpec::Texture(t) => html! {
            <tr class="param-texture">
                <td>{ i }</td><td>{ "texture" }</td>
                <td>{ type_select(i, t.ty.name(), on) }</td>
                <td>{ format!("{} × {} × {}", t.width, t.height, t.channels) }</td><td></td><td></td>
            </tr>
        },
        ParamSpec::Struct(fields) => html! {
            <tr class="param-struct">
                <td>{ i }</td><td>{ format!("struct ({} fields)", fields.len()) }</td><td></td>
                <td>{ struct_fields_text(fields) }</td><td></td><td></td>
            </tr>
        },
    }
}

/// A struct parameter's fields in one line: `+0: f32 × 1024, +8: s32 64`.
fn struct_fields_text(fields: &[sim_core::exec::FieldSpec]) -> String {
    let field = |f: &sim_core::exec::FieldSpec| match (&f.buffer, &f.scalar) {
        (Some(b), _) => format!("+{}: {} × {}", f.offset, b.ty.name(), b.len.unwrap_or(0)),
        (_, Some(v)) => format!("+{}: {} {}", f.offset, v.ty.name(), scalar_text(&v.value)),
        _ => format!("+{}: ?", f.offset),
    };
    fields.iter().map(field).collect::<Vec<_>>().join(", ")
}
