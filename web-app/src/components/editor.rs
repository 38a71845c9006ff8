//! The PTX editor: a plain `<textarea>` (so typing, selection, undo and screen readers behave as
//! everywhere) under a highlighted overlay with the same font metrics, beside a line-number gutter
//! that marks lines with diagnostics and the annotated listing of the selected kernel (live
//! registers, pressure strip, markers; see `listing.rs`). Gutters, overlay and textarea sit in one
//! scrolling box, so they scroll together without syncing. Long texts render only the window of
//! lines on screen.
//!
//! The textarea is the source of truth while typing: its value is never written back on a render
//! (a 10 MB text would be read out of the DOM and compared on every keystroke); it is set only
//! when the text changes from elsewhere (an example load, a restore), which keeps its undo history.
//!
//! ```text
//! ┌──────┬──────────────┬──────────────────────────────────────┐
//! │  12  │  9 ▇▇▇▁  U   │ @%p1 bra $L__BB0_2;                  │  <pre> overlay (colours)
//! │ ●13  │              │ bogus.op %r1;   ← error: unknown ins │  <textarea> on top (caret, input)
//! └──────┴──────────────┴──────────────────────────────────────┘
//! ```

use std::collections::BTreeMap;
use std::rc::Rc;

use web_sys::{Element, HtmlTextAreaElement};
use yew::prelude::*;

use super::listing::{self, annotation_rows};
use crate::highlight::{self, LineMetrics};
use crate::model::kernel::{KernelStatus, KernelView};
use crate::model::{Analysis, DiagnosticInfo};
use crate::state::Reveal;

/// Height of one line in pixels (the CSS `--line` must match).
pub const LINE_PX: usize = 20;
/// Texts with up to this many lines are rendered whole; longer ones by windows.
pub const FULL_RENDER_LINES: usize = 2_000;
/// Windows are made of chunks of this many lines.
const CHUNK: usize = 100;
/// Lines assumed visible before the first scroll event.
const INITIAL_VIEWPORT: usize = 80;

/// What the editor shows and reports.
#[derive(Properties, PartialEq)]
pub struct EditorProps {
    /// The text.
    pub source: AttrValue,
    /// The analysis whose diagnostics are marked in the gutter and beside their lines.
    pub analysis: Rc<Analysis>,
    /// True while the diagnostics belong to an older version of the text.
    #[prop_or_default]
    pub stale: bool,
    /// The latest request to move the caret to a line.
    #[prop_or_default]
    pub reveal: Option<Reveal>,
    /// Called with the new text on every edit.
    pub on_edit: Callback<AttrValue>,
    /// The analyses of the selected kernel, shown beside the lines.
    #[prop_or_default]
    pub kernel: Rc<KernelView>,
    /// True while the kernel's analyses belong to an older version of the text.
    #[prop_or_default]
    pub kernel_stale: bool,
}

/// The editor component.
#[function_component(Editor)]
pub fn editor(props: &EditorProps) -> Html {
    let scroller = use_node_ref();
    let textarea = use_node_ref();
    // View state only: which lines are on screen (unclamped; clamped to the text below).
    let viewport = use_state_eq(|| (0, INITIAL_VIEWPORT + 2 * CHUNK));
    let metrics = use_memo(props.source.clone(), |src| LineMetrics::new(src));
    let line_count = metrics.line_count();
    let (first, last) = if line_count <= FULL_RENDER_LINES {
        (0, line_count)
    } else {
        (viewport.0.min(line_count), viewport.1.min(line_count))
    };
    let markup = {
        let metrics = metrics.clone();
        use_memo((props.source.clone(), first, last), move |(src, first, last)| {
            AttrValue::from(highlight::window_markup(src, &metrics, *first, *last))
        })
    };
    let by_line = use_memo(props.analysis.clone(), |a| group_by_line(&a.diagnostics));
    // The text the textarea holds (what it last reported, or what it was last given).
    let shown = use_mut_ref(|| None::<AttrValue>);
    {
        let (textarea, shown) = (textarea.clone(), shown.clone());
        use_effect_with(props.source.clone(), move |source| {
            let mut shown = shown.borrow_mut();
            if shown.as_ref() != Some(source) {
                if let Some(area) = textarea.cast::<HtmlTextAreaElement>() {
                    area.set_value(source);
                }
                *shown = Some(source.clone());
            }
        });
    }

    {
        let (textarea, scroller, metrics, source) =
            (textarea.clone(), scroller.clone(), metrics.clone(), props.source.clone());
        use_effect_with(props.reveal, move |reveal| {
            if let Some(reveal) = reveal {
                reveal_line(&textarea, &scroller, &source, &metrics, reveal.line);
            }
        });
    }

    let onscroll = {
        let (scroller, viewport) = (scroller.clone(), viewport.clone());
        Callback::from(move |_: Event| {
            if let Some(el) = scroller.cast::<Element>() {
                let top = usize::try_from(el.scroll_top()).unwrap_or(0) / LINE_PX;
                let height = usize::try_from(el.client_height()).unwrap_or(0) / LINE_PX + 1;
                viewport.set(highlight::window_for_viewport(top, height, usize::MAX, CHUNK));
            }
        })
    };
    let oninput = props.on_edit.reform(move |e: InputEvent| {
        let area: HtmlTextAreaElement = e.target_unchecked_into();
        let text = AttrValue::from(area.value());
        *shown.borrow_mut() = Some(text.clone());
        text
    });

    let offset = format!("transform: translateY({}px)", first * LINE_PX);
    let height = format!("height: calc({}px + 2 * var(--pad))", line_count * LINE_PX);
    let size = format!("{height}; width: calc({}ch + 2 * var(--pad))", metrics.max_columns + 1);
    let gutter_style = format!("width: calc({}ch + 2.2em + 1px)", digits(line_count));
    let annotated = props.kernel.status == KernelStatus::Analysed;
    html! {
        <div class={classes!("editor", props.stale.then_some("stale"))}>
            <label for="ptx-source" class="visually-hidden">{ "PTX source" }</label>
            <div class="editor-scroll" ref={scroller} onscroll={onscroll}>
                <div class="gutters" aria-hidden="true" style={height.clone()}>
                    <div class="gutter" style={gutter_style}>
                        <div class="gutter-lines" style={offset.clone()}>
                            { for (first..last).map(|i| gutter_line(i + 1, by_line.get(&(i + 1)))) }
                        </div>
                    </div>
                    if annotated {
                        <div class={classes!("annotations", props.kernel_stale.then_some("stale"))} style={format!("width: {}ch", listing::COLUMN_CH)}>
                            <div class="ann-lines" style={offset.clone()}>{ annotation_rows(&props.kernel, first, last) }</div>
                        </div>
                    }
                </div>
                <div class="code" style={size}>
                    { for by_line.range(first + 1..=last).map(|(&line, diags)| line_note(line, diags, &props.source, &metrics)) }
                    <pre class="highlight" aria-hidden="true" style={offset}>
                        <code>{ Html::from_html_unchecked((*markup).clone()) }</code>
                    </pre>
                    <textarea
                        id="ptx-source"
                        ref={textarea}
                        class="source"
                        oninput={oninput}
                        spellcheck="false"
                        autocomplete="off"
                        autocapitalize="off"
                        wrap="off"
                        aria-describedby="editor-status"
                    />
                </div>
            </div>
        </div>
    }
}

/// Diagnostics grouped by 1-based line.
fn group_by_line(diags: &[DiagnosticInfo]) -> BTreeMap<usize, Vec<DiagnosticInfo>> {
    let mut map: BTreeMap<usize, Vec<DiagnosticInfo>> = BTreeMap::new();
    for d in diags {
        map.entry(d.line as usize).or_default().push(d.clone());
    }
    map
}

fn severity_class(diags: &[DiagnosticInfo]) -> &'static str {
    if diags.iter().any(|d| d.severity == sim_core::diagnostic::Severity::Error) {
        "diag-error"
    } else {
        "diag-warning"
    }
}

fn gutter_line(line: usize, diags: Option<&Vec<DiagnosticInfo>>) -> Html {
    match diags {
        Some(diags) => {
            let title: Vec<String> = diags.iter().map(DiagnosticInfo::summary).collect();
            html! {
                <div class={classes!("ln", "marked", severity_class(diags))} title={title.join("\n")}>
                    <span class="marker">{ "●" }</span>{ line }
                </div>
            }
        }
        None => html! { <div class="ln">{ line }</div> },
    }
}

/// The message shown beside a line with diagnostics (the first one, and how many more).
fn line_note(line: usize, diags: &[DiagnosticInfo], src: &str, metrics: &LineMetrics) -> Html {
    let Some(first) = diags.first() else {
        return Html::default();
    };
    let start = metrics.line_start(line - 1, src.len());
    let end = metrics.line_start(line, src.len());
    let columns = highlight::display_width(src.get(start..end).unwrap_or(""));
    let style =
        format!("top: calc({}px + var(--pad)); left: calc({}ch + var(--pad))", (line - 1) * LINE_PX, columns + 3);
    let more = if diags.len() > 1 { format!(" (+{} more)", diags.len() - 1) } else { String::new() };
    let hint = first.hint.as_ref().map(|h| format!(" — {h}")).unwrap_or_default();
    html! {
        <>
            <div class={classes!("line-mark", severity_class(diags))} style={format!("top: calc({}px + var(--pad))", (line - 1) * LINE_PX)} />
            <div class={classes!("line-note", severity_class(diags))} style={style} aria-hidden="true">
                { format!("{}: {}{hint}{more}", first.severity.as_str(), first.message) }
            </div>
        </>
    }
}

fn digits(n: usize) -> usize {
    n.max(1).ilog10() as usize + 1
}

/// Puts the caret at the start of 1-based `line` and scrolls it into view.
fn reveal_line(textarea: &NodeRef, scroller: &NodeRef, src: &str, metrics: &LineMetrics, line: u32) {
    let index = (line as usize).saturating_sub(1);
    let offset = highlight::utf16_offset(src, metrics.line_start(index, src.len()));
    if let Some(area) = textarea.cast::<HtmlTextAreaElement>() {
        let _ = area.focus();
        let _ = area.set_selection_range(offset, offset);
    }
    if let Some(el) = scroller.cast::<Element>() {
        let target = i32::try_from(index * LINE_PX).unwrap_or(i32::MAX);
        el.set_scroll_top(target.saturating_sub(el.client_height() / 3));
    }
}
