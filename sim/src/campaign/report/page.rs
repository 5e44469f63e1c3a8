//! A campaign page: the run's facts, its store × invariant tables (`failing/run` per cell,
//! a failing cell marked ✗ as well as shaded), every class with its seeds, needs and a link
//! to its scenario's page and the command that replays it, a check's scenario replays, and
//! for a night its history ([`super::history`]).

use std::fmt::Write as _;

use crate::oracle::judged::JudgedExt;
use crate::oracle::Invariant;
use crate::trace::assume;
use crate::trace::html::page::{escape, page};

use super::history::history_html;
use super::view::{CampaignView, Matrix};

/// Where a class's scenario and its page are, seen from the campaign page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassLink {
    /// The scenario page, relative to the campaign page (`x.html`, `scenarios/x.html`);
    /// `None` when its page could not be made (the reason is in `missing`).
    pub href: Option<String>,
    /// The scenario file, as the command that replays it names it.
    pub file: String,
    /// The command that replays it.
    pub replay: String,
    /// Why there is no page, when there is none.
    pub missing: Option<String>,
}

/// The page of `view`, each class linked as `links` says (same order as `view.classes`).
pub fn campaign_page(view: &CampaignView, links: &[Option<ClassLink>]) -> String {
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<header>\n<h1>reconcile-sim {}</h1>\n<dl class=\"facts\">",
        escape(&view.title)
    );
    for (k, v) in &view.facts {
        let _ = writeln!(
            body,
            "<div><dt>{}</dt><dd>{}</dd></div>",
            escape(k),
            escape(v)
        );
    }
    body.push_str("</dl>\n</header>\n");
    if !view.tables.is_empty() {
        body.push_str("<section aria-labelledby=\"h-table\"><h2 id=\"h-table\">Stores × invariants</h2>\n<p>Each cell: seeds failing the invariant / seeds run (a run stops at its first violation, unless its class was masked to look further). ✗ marks a failing cell.</p>\n");
        for m in &view.tables {
            matrix_html(&mut body, m);
        }
        body.push_str("</section>\n");
    }
    if !view.history.is_empty() {
        let _ = writeln!(
            body,
            "<section aria-labelledby=\"h-history\"><h2 id=\"h-history\">Nights found ({})</h2>",
            view.history.len()
        );
        body.push_str(&history_html(&view.history));
        body.push_str("</section>\n");
    }
    classes_html(&mut body, view, links);
    if !view.scenarios.is_empty() {
        body.push_str("<section aria-labelledby=\"h-replays\"><h2 id=\"h-replays\">Scenarios replayed</h2>\n<table class=\"replays\"><thead><tr><th scope=\"col\">file</th><th scope=\"col\">store</th><th scope=\"col\">requirement</th><th scope=\"col\">got</th><th scope=\"col\">ok</th></tr></thead><tbody>\n");
        for s in &view.scenarios {
            let _ = writeln!(
                body,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&s.path),
                escape(&s.store),
                escape(&s.requirement),
                escape(&s.got),
                if s.ok { "✓ yes" } else { "✗ NO" }
            );
        }
        body.push_str("</tbody></table></section>\n");
    }
    if !view.notes.is_empty() {
        body.push_str("<section aria-labelledby=\"h-notes\"><h2 id=\"h-notes\">Notes</h2><ul>\n");
        for n in &view.notes {
            let _ = writeln!(body, "<li>{}</li>", escape(n));
        }
        body.push_str("</ul></section>\n");
    }
    page(
        &format!("reconcile-sim {}", view.title),
        &body,
        Some(COPY_SCRIPT),
    )
}

/// The copy buttons of a campaign page (its only script: the page reads without it).
const COPY_SCRIPT: &str = "(function () {\n  \"use strict\";\n  document.documentElement.classList.add(\"js\");\n  var buttons = document.querySelectorAll(\"button.copy\");\n  for (var i = 0; i < buttons.length; i++) {\n    buttons[i].addEventListener(\"click\", function (e) {\n      var b = e.currentTarget;\n      var code = document.getElementById(b.getAttribute(\"data-copy\"));\n      var done = function () { b.textContent = \"copied\"; };\n      var select = function () {\n        var r = document.createRange(); r.selectNodeContents(code);\n        var s = window.getSelection(); s.removeAllRanges(); s.addRange(r);\n        b.textContent = \"selected\";\n      };\n      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(code.textContent).then(done, select);\n      else select();\n    });\n  }\n})();\n";

fn matrix_html(body: &mut String, m: &Matrix) {
    let _ = write!(
        body,
        "<table class=\"matrix\"><caption>{}</caption><thead><tr><th scope=\"col\">store</th><th scope=\"col\">seeds</th>",
        escape(&m.caption)
    );
    for inv in Invariant::ALL {
        let _ = write!(body, "<th scope=\"col\">{}</th>", escape(inv.name()));
    }
    body.push_str("<th scope=\"col\">first failing seed</th></tr></thead><tbody>\n");
    for r in &m.rows {
        let _ = write!(
            body,
            "<tr><th scope=\"row\">{}</th><td>{}</td>",
            escape(&r.store),
            r.runs
        );
        for inv in Invariant::ALL {
            if !m.judged.judges(inv) {
                body.push_str("<td class=\"skipped\">skipped</td>");
                continue;
            }
            let n = r.failing.get(&inv).copied().unwrap_or(0);
            if n > 0 {
                let _ = write!(body, "<td class=\"fail\">✗ {n}/{}</td>", r.runs);
            } else {
                let _ = write!(body, "<td>{n}/{}</td>", r.runs);
            }
        }
        match r.first_failure {
            Some((seed, inv)) => {
                let _ = writeln!(body, "<td>{seed} ({})</td></tr>", escape(inv.name()));
            }
            None => body.push_str("<td>-</td></tr>\n"),
        }
    }
    body.push_str("</tbody></table>\n");
}

fn classes_html(body: &mut String, view: &CampaignView, links: &[Option<ClassLink>]) {
    let distinct: std::collections::BTreeSet<(&str, &str)> = view
        .classes
        .iter()
        .map(|c| (c.store.as_str(), c.name.as_str()))
        .collect();
    let count = if distinct.len() == view.classes.len() {
        distinct.len().to_string()
    } else {
        format!(
            "{}; {} findings over the run's campaigns",
            distinct.len(),
            view.classes.len()
        )
    };
    let _ = writeln!(
        body,
        "<section aria-labelledby=\"h-classes\"><h2 id=\"h-classes\">Classes ({count})</h2>"
    );
    if view.classes.is_empty() {
        body.push_str("<p>No failure: no class to show.</p></section>\n");
        return;
    }
    body.push_str("<p>Each root-cause class with the seeds that showed it, what its witness needs, and its shrunk scenario: its page draws the interleaving step by step.</p>\n");
    body.push_str("<table class=\"classes\"><thead><tr><th scope=\"col\">store</th><th scope=\"col\">class</th><th scope=\"col\">invariant</th><th scope=\"col\">seeds</th><th scope=\"col\">first seed</th><th scope=\"col\">needs</th><th scope=\"col\">scenario</th></tr></thead><tbody>\n");
    for (i, c) in view.classes.iter().enumerate() {
        let link = links.get(i).and_then(|l| l.as_ref());
        let status = c.status.map_or(String::new(), |s| format!(" ({s})"));
        let source = c.source.as_ref().map_or(String::new(), |s| {
            format!("<br><small>{}</small>", escape(s))
        });
        let _ = write!(
            body,
            "<tr id=\"class-{i}\"><td>{}</td><td class=\"{}\"><span class=\"class-name\">{}</span>{}{source}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>",
            escape(&c.store),
            c.status.unwrap_or(""),
            escape(&c.name),
            escape(&status),
            c.invariant.map_or("-".to_string(), |i| escape(i.name())),
            c.seeds.map_or("-".to_string(), |n| n.to_string()),
            c.first_seed.map_or("-".to_string(), |n| n.to_string()),
            escape(&c.needs.as_ref().map_or("not judged".to_string(), |n| {
                assume::describe(n)
                    .trim_start_matches("needs: ")
                    .to_string()
            }))
        );
        match link {
            Some(l) => {
                if let Some(href) = &l.href {
                    let _ = write!(
                        body,
                        "<a class=\"scenario-link\" href=\"{}\">the interleaving, step by step</a><br>",
                        escape(href)
                    );
                }
                if let Some(why) = &l.missing {
                    let _ = write!(body, "<em>no page: {}</em><br>", escape(why));
                }
                let _ = write!(
                    body,
                    "<code id=\"replay-{i}\">{}</code> <button type=\"button\" class=\"copy js-only\" data-copy=\"replay-{i}\">Copy</button>",
                    escape(&l.replay)
                );
            }
            None => {
                let _ = write!(
                    body,
                    "<em>{}</em>",
                    escape(c.note.as_deref().unwrap_or("no scenario"))
                );
            }
        }
        body.push_str("</td></tr>\n");
    }
    body.push_str("</tbody></table></section>\n");
}
