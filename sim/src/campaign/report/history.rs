//! A night's history: every night found beside it (the folders of the nightly `--out`
//! directory holding a `summary.json`), each as a point: how many classes it met, how many
//! of them new, and its throughput. Drawn as two small charts and the same numbers as a
//! table (what a screen reader reads, and what prints exactly).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::campaign::nightly::NightlySummary;
use crate::trace::html::page::{escape, fixed};

/// One night, as its history shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct NightPoint {
    /// The night's folder name (`2025-06-01`, `2025-06-01-2`): its label, and its order.
    pub night: String,
    /// Signatures (store, class) the night met, new and known.
    pub classes: usize,
    /// Of them, new.
    pub new: usize,
    /// Runs per second over its in-process campaigns (summed: they ran one after another,
    /// each on every core, so the sum over strategies is not a rate; the mean is).
    pub runs_per_second: f64,
    /// Seeds its in-process campaigns ran, per store, added over strategies.
    pub seeds: u64,
    /// It was stopped early.
    pub interrupted: bool,
}

impl NightPoint {
    /// The point of `summary`, named `night`.
    pub fn of(night: &str, summary: &NightlySummary) -> NightPoint {
        let signatures: BTreeSet<(String, String)> = summary
            .findings
            .iter()
            .map(|f| (f.store.clone(), f.class_name.clone()))
            .collect();
        let new: BTreeSet<(String, String)> = summary
            .findings
            .iter()
            .filter(|f| f.new)
            .map(|f| (f.store.clone(), f.class_name.clone()))
            .collect();
        let campaigns = summary.campaigns.len().max(1) as f64;
        NightPoint {
            night: night.to_string(),
            classes: signatures.len(),
            new: new.len(),
            runs_per_second: summary
                .campaigns
                .iter()
                .map(|c| c.runs_per_second)
                .sum::<f64>()
                / campaigns,
            seeds: summary.campaigns.iter().map(|c| c.report.seeds).sum(),
            interrupted: summary.interrupted,
        }
    }
}

/// The nights in the folder `nights` (each a folder holding a readable `summary.json`),
/// by folder name; folders without one are passed over.
pub fn nights_in(nights: &Path) -> BTreeMap<String, (PathBuf, NightlySummary)> {
    let mut found = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(nights) else {
        return found;
    };
    for entry in entries.flatten() {
        let dir = entry.path();
        let Some(name) = dir.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(dir.join("summary.json")) else {
            continue;
        };
        if let Ok(summary) = serde_json::from_str::<NightlySummary>(&text) {
            found.insert(name, (dir, summary));
        }
    }
    found
}

const CHART_H: i64 = 150;
const PAD_T: i64 = 22;
const PAD_L: i64 = 60;
const PAD_B: i64 = 64;
const STEP_W: i64 = 56;

/// The history of `points` (oldest first): a bar chart of classes per night (new ones
/// dotted, known ones grey), a line of throughput, and a table of the same numbers.
pub fn history_html(points: &[NightPoint]) -> String {
    let mut out = String::new();
    if points.is_empty() {
        return out;
    }
    let w = (PAD_L + STEP_W * points.len() as i64 + 24).max(260);
    let h = PAD_T + CHART_H + PAD_B;
    let max_classes = points.iter().map(|p| p.classes).max().unwrap_or(0).max(1) as i64;
    let y_of = |v: i64, max: i64| PAD_T + CHART_H - v * CHART_H / max.max(1);
    out.push_str("<div class=\"charts\">\n");
    // Classes per night.
    let _ = writeln!(
        out,
        "<figure><svg class=\"chart\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-labelledby=\"chart-classes\"><title id=\"chart-classes\">Classes per night, new ones dotted (the table below has the numbers)</title>"
    );
    out.push_str("<defs><pattern id=\"dots\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\"><rect width=\"5\" height=\"5\" fill=\"#fff\"/><circle cx=\"2.5\" cy=\"2.5\" r=\"1.3\" class=\"dot\"/></pattern></defs>");
    axes(&mut out, w, max_classes as f64);
    for (i, p) in points.iter().enumerate() {
        let x = PAD_L + STEP_W * i as i64 + 10;
        let known = (p.classes - p.new) as i64;
        let top_known = y_of(known, max_classes);
        let top_all = y_of(p.classes as i64, max_classes);
        let base = y_of(0, max_classes);
        let _ = write!(
            out,
            "<rect class=\"bar known\" x=\"{x}\" y=\"{top_known}\" width=\"30\" height=\"{}\"><title>{}: {} known</title></rect>",
            base - top_known,
            escape(&p.night),
            known
        );
        if p.new > 0 {
            let _ = write!(
                out,
                "<rect class=\"bar new\" x=\"{x}\" y=\"{top_all}\" width=\"30\" height=\"{}\"><title>{}: {} new</title></rect>",
                top_known - top_all,
                escape(&p.night),
                p.new
            );
        }
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x + 15,
            top_all - 3,
            p.classes
        );
        night_label(&mut out, x + 15, &p.night);
    }
    out.push_str(
        "</svg><figcaption>Classes met each night: grey known, dotted new.</figcaption></figure>\n",
    );
    // Throughput per night.
    let max_rate = points
        .iter()
        .map(|p| p.runs_per_second)
        .fold(0.0_f64, f64::max)
        .max(1.0);
    let rate_y = |v: f64| PAD_T + CHART_H - (v / max_rate * CHART_H as f64).round() as i64;
    let _ = writeln!(
        out,
        "<figure><svg class=\"chart\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-labelledby=\"chart-rate\"><title id=\"chart-rate\">In-process runs per second per night (the table below has the numbers)</title>"
    );
    axes(&mut out, w, max_rate);
    let path: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                "{},{}",
                PAD_L + STEP_W * i as i64 + 25,
                rate_y(p.runs_per_second)
            )
        })
        .collect();
    if points.len() > 1 {
        let _ = write!(
            out,
            "<polyline class=\"line\" points=\"{}\"/>",
            path.join(" ")
        );
    }
    for (i, p) in points.iter().enumerate() {
        let x = PAD_L + STEP_W * i as i64 + 25;
        let y = rate_y(p.runs_per_second);
        let _ = write!(
            out,
            "<circle class=\"point\" cx=\"{x}\" cy=\"{y}\" r=\"4\"><title>{}: {} runs/s</title></circle><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            escape(&p.night),
            fixed(p.runs_per_second, 0),
            y - 7,
            fixed(p.runs_per_second, 0)
        );
        night_label(&mut out, x, &p.night);
    }
    out.push_str("</svg><figcaption>In-process runs per second (mean over the night's strategies).</figcaption></figure>\n</div>\n");
    // The numbers.
    out.push_str("<table class=\"history\"><caption>Every night found</caption><thead><tr><th scope=\"col\">night</th><th scope=\"col\">classes</th><th scope=\"col\">new</th><th scope=\"col\">runs/s</th><th scope=\"col\">seeds per store</th><th scope=\"col\">note</th></tr></thead><tbody>\n");
    for p in points {
        let _ = writeln!(
            out,
            "<tr><th scope=\"row\">{}</th><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&p.night),
            p.classes,
            if p.new > 0 { "new" } else { "" },
            p.new,
            fixed(p.runs_per_second, 0),
            p.seeds,
            if p.interrupted { "interrupted" } else { "" }
        );
    }
    out.push_str("</tbody></table>\n");
    out
}

fn axes(out: &mut String, w: i64, max: f64) {
    let base = PAD_T + CHART_H;
    let _ = write!(
        out,
        "<line class=\"axis\" x1=\"{PAD_L}\" y1=\"{PAD_T}\" x2=\"{PAD_L}\" y2=\"{base}\"/><line class=\"axis\" x1=\"{PAD_L}\" y1=\"{base}\" x2=\"{}\" y2=\"{base}\"/><line class=\"grid\" x1=\"{PAD_L}\" y1=\"{PAD_T}\" x2=\"{}\" y2=\"{PAD_T}\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><text x=\"{}\" y=\"{base}\" text-anchor=\"end\">0</text>",
        w - 8,
        w - 8,
        PAD_L - 4,
        PAD_T + 4,
        fixed(max, 0),
        PAD_L - 4
    );
}

fn night_label(out: &mut String, x: i64, night: &str) {
    let _ = write!(
        out,
        "<text x=\"{x}\" y=\"{}\" text-anchor=\"end\" transform=\"rotate(-35 {x} {})\">{}</text>",
        PAD_T + CHART_H + 14,
        PAD_T + CHART_H + 14,
        escape(night)
    );
}
