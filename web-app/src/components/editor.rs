//! The PTX editor: a plain `<textarea>` (so typing, selection, undo and screen readers behave as
//! everywhere) under a highlighted overlay with the same font metrics, beside a line-number gutter
//! that marks lines with diagnostics and the annotated listing of the selected kernel (live
//! registers, pressure strip, markers; see `listing.rs`). Gutters, overlay and textarea sit in one
//! scrolling box, so they scroll together without syncing. Long texts render only the window of
//! lines on screen.
//!
//! The textarea's value is never written back on a render (a 10 MB text would be read out of the
//! DOM and compared on every keystroke); it is set only when what it should hold changes. A text of
//! up to 2,000 lines is held whole; a longer one by a window of whole lines around the viewport
//! (`editor_window.rs`: a browser lays out a textarea's whole value on every keystroke), named by
//! the textarea's `data-held-first` (its first line, 0-based) and class `windowed`. Moving the
//! window (scrolling, an outside change) resets the textarea's own undo history.
//!
//! ```text
//! ┌──────┬──────────────┬──────────────────────────────────────┐
//! │  12  │  9 ▇▇▇▁  U   │ @%p1 bra $L__BB0_2;                  │  <pre> overlay (colours)
//! │ ●13  │              │ bogus.op %r1;   ← error: unknown ins │  <textarea> on top (caret, input)
//! └──────┴──────────────┴──────────────────────────────────────┘
//! ```

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{ClipboardEvent, Element, HtmlTextAreaElement};
use yew::prelude::*;

use super::editor_window::{self as win, Held, TextKey};
use super::listing::{self, annotation_rows};
use crate::highlight::{self, LineMetrics};
use crate::model::kernel::{KernelStatus, KernelView};
use crate::model::{Analysis, DiagnosticInfo};
use crate::state::Reveal;

/// Height of one line in pixels (the CSS `--line` must match).
pub const LINE_PX: usize = 20;
/// Texts with up to this many lines are rendered whole; longer ones by windows.
pub const FULL_RENDER_LINES: usize = win::WINDOW_ABOVE_LINES;
/// Windows are made of chunks of this many lines.
const CHUNK: usize = win::CHUNK;
/// Lines assumed visible before the first scroll event.
const INITIAL_VIEWPORT: usize = 80;
/// Pastes larger than this are spliced into the text here, never laid out whole by the textarea.
const LARGE_PASTE_BYTES: usize = 64 * 1024;

/// What the editor shows and reports.
#[derive(Properties)]
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
    /// True when the text may not be edited (an embed with `readonly=1`).
    #[prop_or_default]
    pub readonly: bool,
    /// The last finished run: a `compression` report's value formats join the listing.
    #[prop_or_default]
    pub run: Option<Rc<crate::run_job::RunOutput>>,
}

impl PartialEq for EditorProps {
    fn eq(&self, other: &Self) -> bool {
        win::same_text(&self.source, &other.source)
            && Rc::ptr_eq(&self.analysis, &other.analysis)
            && (self.stale, self.reveal, self.kernel_stale) == (other.stale, other.reveal, other.kernel_stale)
            && self.readonly == other.readonly
            && self.on_edit == other.on_edit
            && Rc::ptr_eq(&self.kernel, &other.kernel)
            && match (&self.run, &other.run) {
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
    }
}

/// A request from an event, carried out after the next render.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pending {
    /// Select full-text bytes `[from, to)` and scroll the caret into view.
    Select(usize, usize),
    /// Hold and select the whole text (select all).
    SelectAll,
}

/// The textarea's side of the editor: what it holds and what was asked of it.
#[derive(Default)]
struct Area {
    held: Option<Held>,
    pending: Option<Pending>,
}

/// The editor component.
#[function_component(Editor)]
pub fn editor(props: &EditorProps) -> Html {
    let scroller = use_node_ref();
    let textarea = use_node_ref();
    // View state only: the first line on screen and how many fit.
    let viewport = use_state_eq(|| (0, INITIAL_VIEWPORT));
    let metrics = use_memo(TextKey(props.source.clone()), |src| LineMetrics::new(&src.0));
    let line_count = metrics.line_count();
    let (first, last) = if line_count <= FULL_RENDER_LINES {
        (0, line_count)
    } else {
        highlight::window_for_viewport(viewport.0, viewport.1, line_count, CHUNK)
    };
    let markup = {
        let metrics = metrics.clone();
        use_memo((TextKey(props.source.clone()), first, last), move |(src, first, last)| {
            AttrValue::from(highlight::window_markup(&src.0, &metrics, *first, *last))
        })
    };
    let by_line = use_memo(props.analysis.clone(), |a| group_by_line(&a.diagnostics));
    let onscroll = {
        let (scroller, viewport) = (scroller.clone(), viewport.clone());
        Callback::from(move |_: Event| {
            if let Some(v) = viewport_of(&scroller) {
                viewport.set(v);
            }
        })
    };
    let view = View { textarea: textarea.clone(), scroller: scroller.clone(), viewport: viewport.clone() };
    let (target, handlers) = use_textarea(view, props, metrics.clone());
    let (held_first, held_last) = win::lines_of(&metrics, target.start, target.end);
    let area_style = (!target.is_whole()).then(|| {
        format!(
            "top: {}px; bottom: auto; height: calc({}px + 2 * var(--pad))",
            held_first * LINE_PX,
            (held_last - held_first) * LINE_PX
        )
    });

    let offset = format!("transform: translateY({}px)", first * LINE_PX);
    let height = format!("height: calc({}px + 2 * var(--pad))", line_count * LINE_PX);
    let size = format!("{height}; width: calc({}ch + 2 * var(--pad))", metrics.max_columns + 1);
    let gutter_style = format!("width: calc({}ch + 2.2em + 1px)", digits(line_count));
    let annotated = props.kernel.status == KernelStatus::Analysed;
    let formats = match (&props.run, &props.kernel.kernel) {
        (Some(run), Some(k)) => crate::components::slice_map::formats_by_line(&run.reports, k),
        _ => Default::default(),
    };
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
                            <div class="ann-lines" style={offset.clone()}>{ annotation_rows(&props.kernel, first, last, &formats) }</div>
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
                        class={classes!("source", (!target.is_whole()).then_some("windowed"))}
                        style={area_style}
                        data-held-first={held_first.to_string()}
                        oninput={handlers.input}
                        onpaste={handlers.paste}
                        onkeydown={handlers.keydown}
                        spellcheck="false"
                        autocomplete="off"
                        autocapitalize="off"
                        wrap="off"
                        readonly={props.readonly}
                        aria-describedby="editor-status"
                    />
                </div>
            </div>
        </div>
    }
}

/// What the textarea holds now and its handlers; puts it there after each render and carries out
/// "show line" requests.
#[hook]
fn use_textarea(view: View, props: &EditorProps, metrics: Rc<LineMetrics>) -> (Held, AreaHandlers) {
    let area = use_mut_ref(Area::default);
    let force = use_force_update();
    let target = target_window(&area.borrow(), &props.source, &metrics, *view.viewport);
    {
        let (area, target, metrics) = (area.clone(), target.clone(), metrics.clone());
        use_effect(move || apply_window(&view, &area, target, &metrics));
    }
    {
        let (area, force, source) = (area.clone(), force.clone(), props.source.clone());
        use_effect_with(props.reveal, move |reveal| {
            if let Some(reveal) = reveal {
                let at = metrics.line_start((reveal.line as usize).saturating_sub(1), source.len());
                area.borrow_mut().pending = Some(Pending::Select(at, at));
                force.force_update();
            }
        });
    }
    let handlers = area_handlers(&area, &force, &props.on_edit);
    (target, handlers)
}

/// What the textarea should hold now: the whole text if asked, a window around a requested caret,
/// the current window while it still fits the viewport, else a new window around the viewport.
fn target_window(area: &Area, text: &AttrValue, metrics: &LineMetrics, (top, height): (usize, usize)) -> Held {
    match area.pending {
        Some(Pending::SelectAll) => return Held::whole(text, true),
        Some(Pending::Select(at, _)) => {
            let line = win::lines_of(metrics, at, at).0;
            return win::window_for(text, metrics, line.saturating_sub(height / 3), height);
        }
        None => {}
    }
    match &area.held {
        Some(held) if win::keeps(held, text, metrics, top, height) => held.clone(),
        _ => win::window_for(text, metrics, top, height),
    }
}

/// Puts `target` in the textarea if it holds something else (keeping the selection's place in the
/// full text when only the window moved), and carries out a pending request.
fn apply_window(view: &View, area: &RefCell<Area>, target: Held, metrics: &LineMetrics) {
    let Some(el) = view.textarea.cast::<HtmlTextAreaElement>() else { return };
    let mut area = area.borrow_mut();
    let request = area.pending.take();
    let same = area.held.as_ref() == Some(&target);
    if same && request.is_none() {
        return;
    }
    let selection = match request {
        Some(Pending::Select(from, to)) => Some((from, to)),
        Some(Pending::SelectAll) => Some((0, target.text.len())),
        None => area.held.as_ref().filter(|h| win::same_text(&h.text, &target.text) && has_focus(&el)).map(|h| {
            let (s, e) = (el.selection_start().ok().flatten(), el.selection_end().ok().flatten());
            win::selection_of(h, s.unwrap_or(0), e.unwrap_or(0))
        }),
    };
    if !same {
        el.set_value(target.window());
    }
    match selection {
        // The caret scrolled away with the old window: typing must not land somewhere else.
        Some((from, to)) if request.is_none() && (from < target.start || to > target.end) => {
            let _ = el.blur();
        }
        Some((from, to)) => {
            let (s, e) = win::selection_in(&target, from, to);
            let _ = el.set_selection_range(s, e);
        }
        None => {}
    }
    if let Some(Pending::Select(at, _)) = request {
        let _ = el.focus();
        scroll_to_line(&view.scroller, win::lines_of(metrics, at, at).0);
        // The scroll event comes later: the next keystroke must already see this viewport.
        if let Some(v) = viewport_of(&view.scroller) {
            view.viewport.set(v);
        }
    }
    area.held = Some(target);
}

/// The first line on screen and how many lines fit.
fn viewport_of(scroller: &NodeRef) -> Option<(usize, usize)> {
    let el = scroller.cast::<Element>()?;
    let top = usize::try_from(el.scroll_top()).unwrap_or(0) / LINE_PX;
    Some((top, usize::try_from(el.client_height()).unwrap_or(0) / LINE_PX + 1))
}

/// The editor's nodes and view state that [`apply_window`] works on.
struct View {
    textarea: NodeRef,
    scroller: NodeRef,
    viewport: UseStateHandle<(usize, usize)>,
}

fn has_focus(el: &HtmlTextAreaElement) -> bool {
    let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
    active.is_some_and(|a| a == ***el)
}

/// The textarea's event handlers.
struct AreaHandlers {
    input: Callback<InputEvent>,
    paste: Callback<Event>,
    keydown: Callback<KeyboardEvent>,
}

fn area_handlers(
    area: &Rc<RefCell<Area>>,
    force: &UseForceUpdateHandle,
    on_edit: &Callback<AttrValue>,
) -> AreaHandlers {
    let input = {
        let (area, on_edit) = (area.clone(), on_edit.clone());
        Callback::from(move |e: InputEvent| {
            let el: HtmlTextAreaElement = e.target_unchecked_into();
            let value = el.value();
            let mut area = area.borrow_mut();
            let (start, full) = match &area.held {
                Some(h) if !h.is_whole() => (h.start, AttrValue::from(win::splice(&h.text, h.start, h.end, &value))),
                _ => (0, AttrValue::from(value.clone())),
            };
            let end = start + value.len();
            area.held = Some(Held { text: full.clone(), start, end, whole_by_request: false });
            drop(area);
            on_edit.emit(full);
        })
    };
    let paste = {
        let (area, on_edit) = (area.clone(), on_edit.clone());
        Callback::from(move |e: Event| large_paste(&e, &area, &on_edit))
    };
    let keydown = {
        let (area, force) = (area.clone(), force.clone());
        Callback::from(move |e: KeyboardEvent| {
            let mut a = area.borrow_mut();
            let Some(held) = a.held.as_ref().filter(|h| !h.is_whole()) else { return };
            let request = match (e.ctrl_key() || e.meta_key(), e.key().as_str()) {
                (true, "a" | "A") => Pending::SelectAll,
                (true, "Home") if !e.shift_key() => Pending::Select(0, 0),
                (true, "End") if !e.shift_key() => Pending::Select(held.text.len(), held.text.len()),
                _ => return,
            };
            e.prevent_default();
            a.pending = Some(request);
            drop(a);
            force.force_update();
        })
    };
    AreaHandlers { input, paste, keydown }
}

/// A large paste (or any paste into a window) is spliced into the full text here.
fn large_paste(e: &Event, area: &Rc<RefCell<Area>>, on_edit: &Callback<AttrValue>) {
    let Some(clip) = e.dyn_ref::<ClipboardEvent>() else { return };
    let Some(text) = clip.clipboard_data().and_then(|d| d.get_data("text/plain").ok()) else { return };
    let Some(el) = e.target().and_then(|t| t.dyn_into::<HtmlTextAreaElement>().ok()) else { return };
    let mut a = area.borrow_mut();
    let Some(held) = a.held.clone() else { return };
    if held.is_whole() && text.len() < LARGE_PASTE_BYTES {
        return; // the browser pastes, and keeps it in its undo history
    }
    e.prevent_default();
    let (s, t) = (el.selection_start().ok().flatten(), el.selection_end().ok().flatten());
    let (from, to) = win::selection_of(&held, s.unwrap_or(0), t.unwrap_or(0));
    let caret = from + text.len();
    a.pending = Some(Pending::Select(caret, caret));
    drop(a);
    on_edit.emit(AttrValue::from(win::splice(&held.text, from, to, &text)));
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

/// Scrolls 0-based `line` into view (a third from the top) unless it is on screen already.
fn scroll_to_line(scroller: &NodeRef, line: usize) {
    if let Some(el) = scroller.cast::<Element>() {
        let y = i32::try_from(line * LINE_PX).unwrap_or(i32::MAX);
        let (top, height) = (el.scroll_top(), el.client_height());
        if y < top || y + LINE_PX as i32 > top + height {
            el.set_scroll_top(y.saturating_sub(height / 3));
        }
    }
}
