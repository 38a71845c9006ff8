//! The scheme panel: one card per scheme instance (the same scheme may appear twice with other
//! parameters), each with Duplicate and Remove, a parameter form generated from the scheme's
//! schema (unit, range and default beside each field; a refused value shows its reason, from
//! `lab_schemes.rs`, and Run waits) and its model notes, collapsible; and "Add" for any registered
//! scheme. A card's colour swatch is the colour its scheme has in every chart.
//!
//! ```text
//! ▌baseline:collector_units=2          [Duplicate] [Remove]
//!  ▸ Parameters (5)   collector_units [ 2 ] collectors · 1 ..= 64 · default 16
//!  ▸ Model notes
//! [rfc-ob ▾] [Add]
//! ```

use std::rc::Rc;

use sim_core::gpu::GpuConfig;
use sim_core::timing::regfile::params::{NoteKind, ParamKind, ParamSpec};
use sim_core::timing::regfile::registry;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::draft_input::DraftInput;

use crate::components::chart::axes::color;
use crate::lab::{LabAction, LabState};
use crate::lab_schemes::{duplicate, field_value, remove, schema, set_param, spec_of, value_text};

/// Properties of [`SchemePanel`].
#[derive(Properties, Clone, PartialEq)]
pub struct SchemePanelProps {
    /// The lab state (its `schemes` are the instances).
    pub lab: Rc<LabState>,
    /// The GPU the schemas' defaults come from (`None`: no forms).
    pub gpu: Option<Rc<GpuConfig>>,
    /// Receives the edits.
    pub on_action: Callback<LabAction>,
}

/// The text of the form control that fired `e` (a checkbox gives `true`/`false`).
fn control_text(e: &Event) -> String {
    let target = e.target();
    if let Some(i) = target.as_ref().and_then(|t| t.dyn_ref::<web_sys::HtmlInputElement>()) {
        return if i.type_() == "checkbox" { i.checked().to_string() } else { i.value() };
    }
    target.and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()).map(|s| s.value()).unwrap_or_default()
}

/// The scheme panel.
#[function_component(SchemePanel)]
pub fn scheme_panel(props: &SchemePanelProps) -> Html {
    let add_pick = use_state(|| "rfc-ob".to_owned());
    let lab = &props.lab;
    let on = &props.on_action;
    let cards = lab.schemes.iter().enumerate().map(|(i, text)| card(i, text, props));
    let pick = {
        let add_pick = add_pick.clone();
        Callback::from(move |e: Event| add_pick.set(control_text(&e)))
    };
    let add = {
        let (specs, name) = (lab.schemes.clone(), (*add_pick).clone());
        on.reform(move |_: MouseEvent| {
            let mut next = specs.clone();
            next.push(name.clone());
            LabAction::SetSchemes(next)
        })
    };
    html! {
        <div class="scheme-instances" id="scheme-instances" aria-label="Scheme instances">
            { for cards }
            <div class="scheme-add">
                <label>{ "Scheme " }
                    <select id="add-scheme" onchange={pick}>
                        { for registry::SCHEMES.iter().map(|s| html! {
                            <option value={s.name} selected={*add_pick == s.name} title={s.description}>{ s.name }</option>
                        }) }
                    </select>
                </label>
                <button type="button" id="add-scheme-button" onclick={add}>{ "Add instance" }</button>
            </div>
        </div>
    }
}

fn card(i: usize, text: &str, props: &SchemePanelProps) -> Html {
    let spec = spec_of(text);
    let label = spec.label();
    let entry = registry::by_name(&spec.scheme);
    let specs = &props.lab.schemes;
    let dup = {
        let specs = specs.clone();
        props.on_action.reform(move |_: MouseEvent| LabAction::SetSchemes(duplicate(&specs, i)))
    };
    let del = {
        let specs = specs.clone();
        props.on_action.reform(move |_: MouseEvent| LabAction::SetSchemes(remove(&specs, i)))
    };
    let params = props.gpu.as_ref().map(|g| schema(&spec.scheme, g)).unwrap_or_default();
    let fields = params.iter().map(|p| field(i, &spec.scheme, p, value_text(&spec, p), props));
    let notes = entry.map(|e| e.notes).unwrap_or_default();
    html! {
        <article class="scheme-card" data-index={i.to_string()} data-scheme={spec.scheme.clone()} data-label={label.clone()}
                 style={format!("border-left-color: {}", color(i))}>
            <header class="scheme-card-head">
                <span class="scheme-swatch" style={format!("background: {}", color(i))} aria-hidden="true"></span>
                <strong class="scheme-label">{ label.clone() }</strong>
                <span class="scheme-description">{ entry.map(|e| e.description).unwrap_or_default() }</span>
                <button type="button" class="scheme-duplicate" onclick={dup} aria-label={format!("Duplicate {label}")}>{ "Duplicate" }</button>
                <button type="button" class="scheme-remove" onclick={del} aria-label={format!("Remove {label}")}>{ "Remove" }</button>
            </header>
            if !params.is_empty() {
                <details class="scheme-params">
                    <summary>{ format!("Parameters ({})", params.len()) }</summary>
                    <div class="param-grid">{ for fields }</div>
                </details>
            }
            if !notes.is_empty() {
                <details class="model-notes">
                    <summary>{ format!("Model notes ({})", notes.len()) }</summary>
                    <ul>{ for notes.iter().map(|n| {
                        let (class, kind) = match n.kind {
                            NoteKind::Modelled => ("note-modelled", "Modelled"),
                            NoteKind::NotModelled => ("note-not-modelled", "Not modelled"),
                            NoteKind::Assumption => ("note-assumption", "Assumption (A)"),
                        };
                        html! { <li class={class}><strong>{ kind }{ ": " }</strong>{ n.text }</li> }
                    }) }</ul>
                </details>
            }
        </article>
    }
}

fn field(i: usize, scheme: &str, p: &ParamSpec, value: String, props: &SchemePanelProps) -> Html {
    let id = format!("param-{i}-{}", p.name);
    let onchange = {
        let (specs, scheme, p) = (props.lab.schemes.clone(), scheme.to_owned(), p.clone());
        props.on_action.reform(move |e: Event| match field_value(&scheme, &p, &control_text(&e)) {
            Ok(v) => LabAction::SetSchemes(set_param(&specs, i, &p, v)),
            Err(reason) => LabAction::SchemeError(reason),
        })
    };
    let mut hint = vec![];
    if !p.unit.is_empty() {
        hint.push(p.unit.to_owned());
    }
    if !p.range_text().is_empty() {
        hint.push(p.range_text());
    }
    hint.push(format!("default {}", p.default));
    let title = if p.assumption {
        format!("{} (assumption) — {}", p.doc, p.source)
    } else {
        format!("{} — {}", p.doc, p.source)
    };
    let control = match &p.kind {
        ParamKind::Bool => {
            html! { <input type="checkbox" id={id.clone()} name={p.name} checked={value == "true"} onchange={onchange} /> }
        }
        ParamKind::Enum { choices } => html! {
            <select id={id.clone()} name={p.name} onchange={onchange}>
                { for choices.iter().map(|c| html! { <option value={*c} selected={value == *c}>{ *c }</option> }) }
            </select>
        },
        ParamKind::Int | ParamKind::Float => html! {
            <DraftInput inputmode="decimal" id={id.clone()} name={p.name} {value} {onchange} size="8" />
        },
    };
    html! {
        <div class="param" data-param={p.name}>
            <label for={id} title={title}>{ p.name }</label>
            { control }
            <span class="param-hint">{ hint.join(" · ") }</span>
        </div>
    }
}
