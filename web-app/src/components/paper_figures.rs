//! A table of a paper's statistics beside ours, one row per run and the paper's row last: the
//! one renderer of `value_shares` (Gilani et al.) and `single_use` (DeMO). The first column names
//! the run (a row header); the note under the table says what the figures count.

use yew::prelude::*;

/// One such table: `id` for the page and its tests, a heading, the column headers (the first is
/// the run's), the rows (empty: nothing is drawn) and the note.
pub fn paper_figures(id: &'static str, heading: &str, headers: &[&str], rows: Vec<Vec<String>>, note: &str) -> Html {
    if rows.is_empty() {
        return Html::default();
    }
    let row = |r: Vec<String>| {
        let mut cells = r.into_iter();
        let head = cells.next().unwrap_or_default();
        html! { <tr><th scope="row">{ head }</th>{ for cells.map(|c| html! { <td>{ c }</td> }) }</tr> }
    };
    html! {
        <div class="value-shares" {id}>
            <h3>{ heading.to_owned() }</h3>
            <table>
                <thead><tr>{ for headers.iter().map(|h| html! { <th scope="col">{ (*h).to_owned() }</th> }) }</tr></thead>
                <tbody>{ for rows.into_iter().map(row) }</tbody>
            </table>
            <p class="note">{ note.to_owned() }</p>
        </div>
    }
}
