//! Writing report pages: a scenario's page beside its file (`x.json` → `x.html`), and a
//! campaign's page with every class's scenario page, each linking the other by a relative
//! address (so a folder of reports can be moved, zipped or uploaded whole). Every file is
//! written atomically; one that cannot be written is reported, never lost silently, and
//! the other pages are still written.

use std::path::{Component, Path, PathBuf};

use crate::campaign::check::Resolver;
use crate::campaign::findings::replay_command_for;
use crate::model::store::StoreFactory;
use crate::trace::html::{scenario_page, ScenarioPage};
use crate::trace::scenario::{load, Scenario};
use crate::util::fs::write_atomically;

use super::page::{campaign_page, ClassLink};
use super::view::CampaignView;

/// The stores scenarios are replayed on for their pages: the campaign's own, by name (an
/// `exec:` store the run already started), else what `resolve` makes of the file's
/// `store` (a shipped store, or an `exec:` command only with the user's consent).
pub struct Replayers<'a> {
    /// The stores of the run that saved the scenarios.
    pub stores: &'a [&'a dyn StoreFactory],
    /// For any other store a file names.
    pub resolve: Resolver<'a>,
}

/// What writing pages did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// The campaign page, when one was written.
    pub page: Option<PathBuf>,
    /// Every scenario page written.
    pub scenario_pages: Vec<PathBuf>,
    /// Pages not made, and why (a scenario whose store needs `--allow-exec`…): the
    /// campaign page says so beside the class.
    pub not_made: Vec<String>,
    /// Files that could not be written (`cannot write PATH: why`).
    pub errors: Vec<String>,
}

/// The page of scenario file `json` is `json` with `.html` for `.json` (or added).
pub fn page_path_of(json: &Path) -> PathBuf {
    json.with_extension("html")
}

/// The page of `scenario` (its file `json`), replayed on the store `replayers` gives it,
/// with the command that replays the file and an optional link back.
pub fn scenario_html(
    json: &Path,
    scenario: &Scenario,
    replayers: &Replayers<'_>,
    back: Option<(&str, &str)>,
) -> Result<String, String> {
    let owned;
    let store: &dyn StoreFactory =
        match replayers.stores.iter().find(|s| s.name() == scenario.store) {
            Some(s) => *s,
            None => {
                owned = (replayers.resolve)(json, scenario)
                    .map_err(|e| format!("{}: field `store`: {e}", json.display()))?;
                owned.as_ref()
            }
        };
    let file = json.display().to_string();
    let replay = replay_command_for(&scenario.store, json);
    Ok(scenario_page(
        store,
        &ScenarioPage {
            scenario,
            file: &file,
            replay: &replay,
            back,
        },
    ))
}

/// Write the page of scenario file `json` to `to`: `Ok(Err(why))` when the page could not
/// be made (its store cannot be used here), `Err` when it could not be written.
pub fn write_scenario_page(
    json: &Path,
    to: &Path,
    replayers: &Replayers<'_>,
    back: Option<(&str, &str)>,
) -> Result<Result<(), String>, String> {
    let scenario = match load(json) {
        Ok(s) => s,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let html = match scenario_html(json, &scenario, replayers, back) {
        Ok(h) => h,
        Err(why) => return Ok(Err(why)),
    };
    write_atomically(to, html.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", to.display()))?;
    Ok(Ok(()))
}

/// Write the campaign page of `view` to `page`, and each class's scenario page beside its
/// scenario file, linked both ways.
pub fn write_campaign(view: &CampaignView, page: &Path, replayers: &Replayers<'_>) -> Written {
    let mut written = Written::default();
    let page_dir = page.parent().unwrap_or(Path::new(""));
    let mut links = Vec::with_capacity(view.classes.len());
    let mut done: Vec<(PathBuf, Option<String>)> = Vec::new();
    for class in &view.classes {
        let Some(json) = &class.scenario else {
            links.push(None);
            continue;
        };
        let html = page_path_of(json);
        let missing = match done.iter().find(|(p, _)| p == json) {
            Some((_, m)) => m.clone(),
            None => {
                let back_href = relative_href(html.parent().unwrap_or(Path::new("")), page);
                let title = format!("the {} report", view.title);
                let m =
                    match write_scenario_page(json, &html, replayers, Some((&back_href, &title))) {
                        Ok(Ok(())) => {
                            written.scenario_pages.push(html.clone());
                            None
                        }
                        Ok(Err(why)) => {
                            written.not_made.push(why.clone());
                            Some(why)
                        }
                        Err(e) => {
                            written.errors.push(e.clone());
                            Some(e)
                        }
                    };
                done.push((json.clone(), m.clone()));
                m
            }
        };
        links.push(Some(ClassLink {
            href: missing.is_none().then(|| relative_href(page_dir, &html)),
            file: json.display().to_string(),
            replay: replay_command_for(&class.store, json),
            missing,
        }));
    }
    let html = campaign_page(view, &links);
    match write_atomically(page, html.as_bytes()) {
        Ok(()) => written.page = Some(page.to_path_buf()),
        Err(e) => written
            .errors
            .push(format!("cannot write {}: {e}", page.display())),
    }
    written
}

/// The address of `to` from a page in the folder `from_dir`: relative, `/`-separated and
/// percent-encoded, so that a folder of pages works wherever it is moved. Paths relative to
/// the working directory and absolute ones are compared as absolute ones.
pub fn relative_href(from_dir: &Path, to: &Path) -> String {
    let absolute = |p: &Path| -> Vec<String> {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        };
        let mut parts: Vec<String> = Vec::new();
        for c in p.components() {
            match c {
                Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
                Component::ParentDir => {
                    parts.pop();
                }
                _ => {}
            }
        }
        parts
    };
    let (from, to) = (absolute(from_dir), absolute(to));
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); from.len() - common];
    parts.extend(to[common..].iter().map(|p| encode(p)));
    parts.join("/")
}

/// A path segment with everything but unreserved characters percent-encoded.
fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Addresses are relative, go up where they must, and encode what a URL cannot hold.
    #[test]
    fn addresses_are_relative_and_encoded() {
        assert_eq!(
            relative_href(Path::new("out"), Path::new("out/a.html")),
            "a.html"
        );
        assert_eq!(
            relative_href(
                Path::new("n/2025-01-01/scenarios"),
                Path::new("n/2025-01-01/report.html")
            ),
            "../report.html"
        );
        assert_eq!(
            relative_href(Path::new("r"), Path::new("n/x y#1.html")),
            "../n/x%20y%231.html"
        );
        assert_eq!(
            relative_href(Path::new(""), Path::new("a/b.html")),
            "a/b.html"
        );
    }
}
