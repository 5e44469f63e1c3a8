//! The page of one scenario: what it is, the verdict (the invariant broken, where, the
//! class, what it needs, the command that replays it), the sequence diagram
//! ([`super::diagram`]) and a step panel that shows, for any step, each tab's render beside
//! the DB with the differences marked ([`super::compare`]).
//!
//! Without its script the page still holds everything but the stepping: the diagram, the
//! steps as text, and the panel showing the breaking step (or the last one), which is also
//! what prints. With it, the steps are clicked, dragged (a slider) or keyed (`←` `→`
//! `Home` `End`, `b` for the breaking step), and the address says which (`#step-12`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::model::store::StoreFactory;
use crate::oracle::judged::JudgedExt;
use crate::run::Outcome;
use crate::trace::assume;
use crate::trace::scenario::Scenario;

use super::compare::{compare, Compared, Mark};
use super::diagram::{arrows, line_label, line_text, svg, ArrowKind};
use super::page::{escape, page, script_json};
use super::walk::{walk, Snapshot, Walk};

/// The stepping script every scenario page carries.
const STEPPER: &str = include_str!("stepper.js");

/// What a scenario page shows beside the replay itself.
pub struct ScenarioPage<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The file, as the page names it (the title).
    pub file: &'a str,
    /// The command that replays it, to copy.
    pub replay: &'a str,
    /// A link back to the page that lists it (a campaign's), as `(href, text)`.
    pub back: Option<(&'a str, &'a str)>,
}

/// The page of `input.scenario` replayed on `stores` (the store it names, or one chosen
/// instead): one self-contained HTML file, the same bytes for the same inputs.
pub fn scenario_page(stores: &dyn StoreFactory, input: &ScenarioPage<'_>) -> String {
    let sc = input.scenario;
    let w = walk(stores, sc.config.clone(), &sc.steps(), &sc.masked);
    let own_store = stores.name() == sc.store;
    let mut body = String::new();
    if let Some((href, text)) = input.back {
        let _ = writeln!(
            body,
            "<nav><a href=\"{}\">← {}</a></nav>",
            escape(href),
            escape(text)
        );
    }
    header(&mut body, input, &stores.name(), &w);
    verdict(&mut body, input, &w, own_store);
    let arrows = arrows(&w);
    let (data, initial) = steps_data(&w);
    body.push_str("<main class=\"layout\">\n<section class=\"diagram-pane\" aria-labelledby=\"h-diagram\">\n<h2 id=\"h-diagram\">The interleaving</h2>\n");
    legend(&mut body);
    body.push_str("<div class=\"scroll\" id=\"diagram\">\n");
    body.push_str(&svg(&w, &arrows));
    body.push_str("</div>\n");
    steps_text(&mut body, &w);
    body.push_str("</section>\n");
    panel(&mut body, &w, &data, initial);
    body.push_str("</main>\n");
    let _ = writeln!(
        body,
        "<script type=\"application/json\" id=\"steps-data\">{}</script>",
        script_json(&data)
    );
    page(
        &format!("{} · reconcile-sim scenario", input.file),
        &body,
        Some(STEPPER),
    )
}

fn header(body: &mut String, input: &ScenarioPage<'_>, replayed_on: &str, w: &Walk) {
    let sc = input.scenario;
    let _ = writeln!(
        body,
        "<header>\n<h1>Scenario <code>{}</code></h1>",
        escape(input.file)
    );
    if let Some(d) = &sc.description {
        let _ = writeln!(body, "<p class=\"description\">{}</p>", escape(d));
    }
    body.push_str("<dl class=\"facts\">\n");
    let mut fact = |k: &str, v: String| {
        let _ = writeln!(body, "<div><dt>{}</dt><dd>{}</dd></div>", escape(k), v);
    };
    fact("store", format!("<code>{}</code>", escape(&sc.store)));
    if replayed_on != sc.store {
        fact(
            "replayed on",
            format!("<code>{}</code>", escape(replayed_on)),
        );
    }
    if let Some(seed) = sc.seed {
        fact("seed", seed.to_string());
    }
    if let Some(s) = &sc.strategy {
        fact("strategy", escape(s));
    }
    let report = &w.narration.report;
    fact(
        "steps",
        format!(
            "{} main ({} skipped), {} drain",
            sc.steps.len(),
            report.skipped.len(),
            report.drain.len()
        ),
    );
    fact("tabs", sc.config.clients.to_string());
    if !sc.world_pins.is_empty() {
        fact("world pins", escape(&sc.world_pins.to_string()));
    }
    if !sc.config.judged.is_all() {
        fact("invariants", escape(&sc.config.judged.describe()));
    }
    let options = sc.config.describe();
    body.push_str(
        "</dl>\n<details class=\"options\"><summary>Every option of the world</summary><pre>",
    );
    body.push_str(&escape(&options));
    body.push_str("</pre></details>\n</header>\n");
}

fn verdict(body: &mut String, input: &ScenarioPage<'_>, w: &Walk, own_store: bool) {
    let sc = input.scenario;
    let expect = if own_store { sc.expect } else { None };
    match &w.narration.report.outcome {
        Outcome::Pass => {
            body.push_str("<section class=\"verdict pass\" aria-labelledby=\"h-verdict\">\n<h2 id=\"h-verdict\">✓ PASS: no invariant broken</h2>\n");
        }
        Outcome::Fail(v) => {
            let at = w
                .break_line
                .map_or("the end of the drain".to_string(), |l| {
                    format!("step {}", line_label(w, l))
                });
            let on = v.client.map_or(String::new(), |c| format!(" on tab c{c}"));
            let _ = writeln!(
                body,
                "<section class=\"verdict fail\" aria-labelledby=\"h-verdict\">\n<h2 id=\"h-verdict\">✗ FAIL: <span class=\"invariant\">{}</span> broken at {}{}</h2>",
                escape(v.invariant.name()),
                escape(&at),
                escape(&on)
            );
            let _ = writeln!(
                body,
                "<p class=\"expected\"><strong>expected:</strong> {}</p>",
                escape(&v.expected)
            );
            if !v.messages.is_empty() {
                let _ = writeln!(
                    body,
                    "<p><strong>involving:</strong> <code>{}</code></p>",
                    escape(&v.messages.join(", "))
                );
            }
            if let Some(cause) = &v.cause {
                let _ = writeln!(
                    body,
                    "<pre class=\"cause\">{}</pre>",
                    escape(&cause.to_string())
                );
            }
        }
    }
    if let Some(c) = &w.class {
        let _ = writeln!(
            body,
            "<p><strong>class:</strong> <span class=\"class\">{}</span></p>",
            escape(&c.to_string())
        );
    }
    let needs = match &sc.needs {
        Some(n) => assume::describe(n),
        None => "needs: not judged (the file does not say)".to_string(),
    };
    let _ = writeln!(body, "<p class=\"needs\">{}</p>", escape(&needs));
    let got = w.narration.report.outcome.invariant();
    let expectation = match (expect, got) {
        (None, None) => None,
        (Some(e), Some(g)) if e == g => Some(format!("the file expects {e}: reproduced")),
        (Some(e), _) => Some(format!(
            "the file expects {e}: NOT reproduced (got {})",
            got.map_or("a pass".to_string(), |g| g.to_string())
        )),
        (None, Some(g)) => Some(format!("the file expects no violation, got {g}")),
    };
    if let Some(e) = expectation {
        let _ = writeln!(body, "<p class=\"expectation\">{}</p>", escape(&e));
    }
    let _ = writeln!(
        body,
        "<p class=\"replay\"><strong>replay:</strong> <code id=\"replay-command\">{}</code> <button type=\"button\" class=\"copy js-only\" data-copy=\"replay-command\">Copy</button> <span class=\"copied\" role=\"status\"></span></p>",
        escape(input.replay)
    );
    if w.break_line.is_some() {
        body.push_str("<p class=\"controls-only\"><button type=\"button\" id=\"go-break\">Go to the breaking step (b)</button></p>\n");
    }
    body.push_str("</section>\n");
}

fn legend(body: &mut String) {
    body.push_str("<details class=\"legend\" open><summary>How to read it</summary><ul>\n");
    for kind in ArrowKind::ALL {
        let _ = writeln!(
            body,
            "<li><svg class=\"sample\" width=\"44\" height=\"10\" aria-hidden=\"true\"><g class=\"arrow {}\"><line x1=\"2\" y1=\"5\" x2=\"40\" y2=\"5\"/></g></svg> {}</li>",
            kind.name(),
            escape(kind.meaning())
        );
    }
    body.push_str("<li>An arrow drawn heavy overtook older messages of its queue: it crosses them, and its row says <q>overtakes N older</q>.</li>\n");
    body.push_str("<li>A square on the backend lane: the agent's own step. A ring on a tab's lane: its render changed. A dashed tab lane: its user is scrolled up (reconcile deferred).</li>\n");
    body.push_str("<li>The breaking step is hatched and marked ✗; a masked class's step (the run went on) says so.</li>\n");
    body.push_str("<li>An arrow that ends on the last row (the end of the run), drawn faint, was still in flight when the run ended.</li>\n");
    body.push_str("<li>Click a row to show that step, or use the panel's buttons, its slider, or the keys ← → Home End and b.</li>\n</ul></details>\n");
}

fn steps_text(body: &mut String, w: &Walk) {
    body.push_str("<details class=\"steps-text\"><summary>The steps as text</summary><ol>\n");
    for i in 0..w.narration.lines.len() {
        let mark = if w.break_line == Some(i) { "✗ " } else { "" };
        let _ = writeln!(
            body,
            "<li value=\"{}\"><span class=\"label\">{mark}{}</span> {}</li>",
            i + 1,
            escape(&line_label(w, i)),
            escape(&line_text(w, i))
        );
    }
    body.push_str("</ol></details>\n");
}

/// The step panel's data: per line, its heading and one view per tab (interned: most
/// steps leave most tabs as they were), and the line shown first (the breaking step, else
/// the last).
fn steps_data(w: &Walk) -> (serde_json::Value, usize) {
    let lines = w.narration.lines.len();
    let mut views: BTreeMap<String, usize> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut steps = Vec::with_capacity(lines);
    for i in 0..lines {
        let state = &w.after[i];
        let mut tabs = Vec::with_capacity(state.renders.len());
        for c in 0..state.renders.len() {
            let html = tab_view(w, state, c, i);
            let next = order.len();
            let id = *views.entry(html.clone()).or_insert(next);
            if id == next {
                order.push(html);
            }
            tabs.push(id);
        }
        steps.push(serde_json::json!({
            "label": line_label(w, i),
            "head": step_head(w, i),
            "tabs": tabs,
            "break": w.break_line == Some(i),
        }));
    }
    let initial = w.break_line.unwrap_or(lines.saturating_sub(1));
    (
        serde_json::json!({"steps": steps, "views": order, "initial": initial, "break": w.break_line}),
        initial,
    )
}

/// The heading of the panel at line `i`: which step, what it did, and, at the breaking
/// step, what broke.
fn step_head(w: &Walk, i: usize) -> String {
    let mut out = format!(
        "<p class=\"now\"><strong>Step {}</strong> <span class=\"count\">({} of {})</span>: {}</p>",
        escape(&line_label(w, i)),
        i + 1,
        w.narration.lines.len(),
        escape(&line_text(w, i))
    );
    if w.break_line == Some(i) {
        if let Some(v) = &w.violation {
            let on = v.client.map_or(String::new(), |c| format!(" on tab c{c}"));
            let _ = write!(
                out,
                "<p class=\"broke\" role=\"alert\">✗ <strong class=\"invariant\">{}</strong> broken here{}: expected {}</p>",
                escape(v.invariant.name()),
                escape(&on),
                escape(&v.expected)
            );
        }
    } else if w.break_line.is_some_and(|b| i > b) {
        out.push_str("<p class=\"after\">(after the breaking step)</p>");
    }
    out
}

/// Tab `c`'s render beside the DB after line `i`, as a section of the panel.
fn tab_view(w: &Walk, state: &Snapshot, c: usize, i: usize) -> String {
    let db = &w.db[..state.db_rows.min(w.db.len())];
    let involved: &[String] = w.violation.as_ref().map_or(&[], |v| &v.messages);
    let mut lines = compare(db, &state.renders[c], involved);
    let broken_here = w
        .violation
        .as_ref()
        .is_some_and(|v| v.client == Some(c as u8) && w.break_line.is_some_and(|b| i >= b));
    if broken_here {
        lost_tokens(&mut lines, involved);
    }
    let differences = lines.iter().filter(|l| l.mark.differs()).count();
    let scrolled = if state.scrolled_up.get(c).copied().unwrap_or(false) {
        "scrolled up (reconcile deferred)"
    } else {
        "at the bottom"
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "<section class=\"tab{}\"><h3>tab c{c} <span class=\"state\">· {scrolled} · {} row{} shown · {} difference{}{}</span></h3>",
        if broken_here { " broken" } else { "" },
        state.renders[c].len(),
        if state.renders[c].len() == 1 { "" } else { "s" },
        differences,
        if differences == 1 { "" } else { "s" },
        if broken_here { " · ✗ the invariant broke on this tab" } else { "" }
    );
    out.push_str("<table><thead><tr><th scope=\"col\" class=\"mark\">mark</th><th scope=\"col\">backend DB (the truth)</th><th scope=\"col\">what the tab shows</th></tr></thead><tbody>");
    if lines.is_empty() {
        out.push_str("<tr class=\"empty\"><td class=\"mark\"></td><td colspan=\"2\">(nothing in the DB, nothing shown)</td></tr>");
    }
    for l in &lines {
        let _ = write!(
            out,
            "<tr class=\"{}{}\"><td class=\"mark\" title=\"{}\">{}{}</td><td>{}</td><td>{}</td></tr>",
            l.mark.class(),
            if l.involved { " involved" } else { "" },
            escape(l.mark.meaning()),
            l.mark.symbol(),
            if l.involved { "!" } else { "" },
            l.db.as_deref().map(escape).unwrap_or_default(),
            l.shown.as_deref().map(escape).unwrap_or_default()
        );
    }
    out.push_str("</tbody></table></section>");
    out
}

/// Lines for the violation's tokens that neither the tab nor the DB shows (a message lost
/// before it was sealed): what the oracle expected and found nowhere.
fn lost_tokens(lines: &mut Vec<Compared>, involved: &[String]) {
    for token in involved {
        let anywhere = lines.iter().any(|l| {
            [&l.db, &l.shown]
                .into_iter()
                .flatten()
                .any(|t| t.split_ascii_whitespace().any(|w| w == token))
        });
        if !anywhere {
            lines.push(Compared {
                mark: Mark::Lost,
                db: None,
                shown: Some(format!("(not shown) {token}")),
                involved: true,
            });
        }
    }
}

/// The panel: controls, the step's heading and each tab's view, filled with the initial
/// step so that the page reads (and prints) without its script.
fn panel(body: &mut String, w: &Walk, data: &serde_json::Value, initial: usize) {
    let last = w.narration.lines.len().saturating_sub(1);
    body.push_str("<aside class=\"panel\" aria-labelledby=\"h-panel\">\n<h2 id=\"h-panel\">Each tab and the DB, step by step</h2>\n");
    let _ = writeln!(
        body,
        "<div class=\"controls controls-only\" role=\"group\" aria-label=\"steps\"><button type=\"button\" id=\"first\" title=\"first step (Home)\">« first</button><button type=\"button\" id=\"prev\" title=\"previous step (←)\">◀ prev</button><button type=\"button\" id=\"next\" title=\"next step (→)\">next ▶</button><button type=\"button\" id=\"last\" title=\"last step (End)\">last »</button><label>step <input type=\"range\" id=\"step-slider\" min=\"0\" max=\"{last}\" value=\"{initial}\" aria-describedby=\"step-now\"></label></div>"
    );
    let step = &data["steps"][initial];
    let _ = writeln!(
        body,
        "<div id=\"step-now\" aria-live=\"polite\">{}</div>",
        step["head"].as_str().unwrap_or("")
    );
    body.push_str("<div id=\"tabs\">");
    for v in step["tabs"].as_array().into_iter().flatten() {
        let i = v.as_u64().unwrap_or(0) as usize;
        body.push_str("<div>");
        body.push_str(data["views"][i].as_str().unwrap_or(""));
        body.push_str("</div>");
    }
    body.push_str("</div>\n<details class=\"marks-legend\" open><summary>Marks</summary><ul>");
    for m in Mark::ALL {
        let _ = write!(
            body,
            "<li><span class=\"mark\">{}</span> {}</li>",
            m.symbol(),
            escape(m.meaning())
        );
    }
    body.push_str("<li><span class=\"mark\">!</span> holds a content token the violation involves</li></ul></details>\n</aside>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::by_name;
    use crate::trace::html::walk::tests::committed;

    fn page_of(name: &str) -> String {
        let sc = committed(name);
        let store = by_name(&sc.store).unwrap();
        scenario_page(
            &store,
            &ScenarioPage {
                scenario: &sc,
                file: &format!("scenarios/{name}.json"),
                replay: &format!("reconcile-sim replay scenarios/{name}.json"),
                back: None,
            },
        )
    }

    /// Bug D's page draws every step as a row, names the broken invariant, its class and
    /// the replay command, and shows the lingering bubble twice at the breaking step.
    #[test]
    fn bug_d_page_shows_the_break() {
        let p = page_of("bug-d");
        let sc = committed("bug-d");
        let store = by_name("fix-abc").unwrap();
        let w = walk(&store, sc.config.clone(), &sc.steps(), &sc.masked);
        let rows = p.matches(" id=\"row-").count();
        assert_eq!(rows, w.narration.lines.len());
        assert!(rows > sc.steps.len(), "the drain steps are drawn too");
        assert!(p.contains("✗ FAIL: <span class=\"invariant\">inv2-no-duplicate</span>"));
        assert!(p.contains("queued row (message consumed into a turn) lingers"));
        assert!(p.contains("reconcile-sim replay scenarios/bug-d.json"));
        // The panel starts at the breaking step, c1's bubble marked shown twice.
        let panel = &p[p.find("id=\"tabs\"").unwrap()..];
        assert!(panel.contains("class=\"twice involved\""));
        assert!(panel.contains("✗ the invariant broke on this tab"));
        // Each event delivered is an arrow; POSTs, responses and fetches too.
        for kind in [
            "event",
            "post",
            "post-response",
            "fetch",
            "fetch-response",
            "send",
        ] {
            assert!(
                p.contains(&format!("data-kind=\"{kind}\"")),
                "no {kind} arrow"
            );
        }
    }

    /// The same scenario gives the same bytes.
    #[test]
    fn a_page_is_deterministic() {
        assert_eq!(page_of("bug-a"), page_of("bug-a"));
    }

    /// Text from the file is escaped: a description that tries to open a script stays
    /// text, in the page and in the data its script reads.
    #[test]
    fn file_text_is_escaped() {
        let mut sc = committed("bug-b");
        sc.description = Some("</script><script>alert(1)</script> & <b>".to_string());
        let store = by_name(&sc.store).unwrap();
        let p = scenario_page(
            &store,
            &ScenarioPage {
                scenario: &sc,
                file: "x<y>.json",
                replay: "reconcile-sim replay 'x<y>.json'",
                back: Some(("report.html\" onclick=\"x", "back")),
            },
        );
        assert!(!p.contains("<script>alert"));
        assert!(!p.contains("x<y>"));
        assert!(p.contains("&lt;/script&gt;&lt;script&gt;alert(1)"));
        assert!(!p.contains("\" onclick=\"x"));
        assert_eq!(
            p.matches("<script").count(),
            2,
            "the data and the stepper only"
        );
    }

    /// A reordered delivery is drawn as an arrow that overtakes, and its row says so.
    #[test]
    fn a_reordered_event_overtakes() {
        let mut sc = committed("bug-d");
        // Deliver e3 to c0 before e2: within a window of 2.
        sc.config.ws_reorder_window = 2;
        let steps = sc.steps();
        let mut reordered: Vec<crate::model::step::Step> = steps[..3].to_vec();
        reordered.push(crate::model::step::Step::DeliverEvent {
            client: 0,
            event: 3,
        });
        reordered.push(crate::model::step::Step::DeliverEvent {
            client: 0,
            event: 2,
        });
        let store = by_name("current").unwrap();
        let w = walk(&store, sc.config.clone(), &reordered, &[]);
        let a = arrows(&w);
        let e3 = a
            .iter()
            .find(|a| a.id == "e3" && a.to == super::super::diagram::Lane::Tab(0));
        assert_eq!(e3.map(|a| a.overtakes), Some(1));
        let e2 = a
            .iter()
            .find(|a| a.id == "e2" && a.to == super::super::diagram::Lane::Tab(0));
        assert_eq!(e2.map(|a| a.overtakes), Some(0));
        assert!(line_text(&w, 3).ends_with("(overtakes 1 older)"));
        assert!(svg(&w, &a).contains("class=\"arrow event overtakes\""));
    }
}
