//! The frame every report page shares: one self-contained HTML file (styles and script
//! inline, nothing fetched: a Content-Security-Policy forbids every request, so a page
//! opened from disk, an artifact or a mail attachment works the same offline), and the
//! escaping every text from a run goes through.
//!
//! Texts in a page come from files (a scenario's description, a store's `exec:` command,
//! a class name quoting a store's ids), so each is escaped where it is written: [`escape`]
//! for HTML text and attributes, [`script_json`] for data read by the page's script.

use std::fmt::Write as _;

/// The styles every page shares: plain, readable without colour (every mark is a symbol
/// and a word; colour only repeats it), and a print stylesheet (no controls, the diagram
/// fitted to the paper, the breaking step's tables kept whole).
pub const STYLE: &str = include_str!("report.css");

/// `text` for HTML text or a quoted attribute value: `& < > " '` escaped, and control
/// characters other than newline and tab written as `\u{…}` (as the CLI prints them), so
/// nothing from a file can open a tag, close an attribute or hide in the page.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    push_escaped(&mut out, text);
    out
}

/// [`escape`] appended to `out`.
pub fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {
                let _ = write!(out, "{}", c.escape_unicode());
            }
            c => out.push(c),
        }
    }
}

/// `value` as JSON that can sit inside `<script type="application/json">`: `<`, `>` and
/// `&` written as `\u003c`… (JSON reads them back the same), so no text in it can close
/// the script element or start a comment; U+2028 and U+2029 escaped too.
pub fn script_json(value: &serde_json::Value) -> String {
    let text = serde_json::to_string(value).expect("JSON values serialise");
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The policy every page carries: nothing may be loaded or sent (no fonts, images,
/// frames, connections or form posts); only the page's own inline style and script run.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; \
     script-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'";

/// A whole page: `title` (escaped here), `body` (HTML, already escaped by its maker) and
/// an optional inline `script` (run at the end of the body).
pub fn page(title: &str, body: &str, script: Option<&str>) -> String {
    let mut out = String::with_capacity(body.len() + STYLE.len() + 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(
        out,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CONTENT_SECURITY_POLICY}\">"
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"generator\" content=\"reconcile-sim\">\n");
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    out.push_str("<style>\n");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n");
    out.push_str(body);
    if let Some(script) = script {
        out.push_str("<script>\n");
        out.push_str(script);
        out.push_str("</script>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// A number with `decimals` digits after the point, the same on every machine (the
/// standard formatter rounds half to even, deterministically).
pub fn fixed(value: f64, decimals: usize) -> String {
    if value.is_finite() {
        format!("{value:.decimals$}")
    } else {
        "-".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character that could open a tag, end an attribute or start an entity is
    /// escaped; control characters are shown, not passed through.
    #[test]
    fn escape_leaves_no_markup() {
        let nasty = "<script>alert('x')</script> & \"q\" \u{1b}[31m";
        let e = escape(nasty);
        assert!(!e.contains('<') && !e.contains('>') && !e.contains('"') && !e.contains('\''));
        assert!(e.contains("&lt;script&gt;") && e.contains("&amp;") && e.contains("&quot;q&quot;"));
        assert!(e.contains("\\u{1b}") && !e.contains('\u{1b}'));
        assert_eq!(escape("plain text: msg:m1"), "plain text: msg:m1");
    }

    /// Data for the script cannot close its element, and reads back as the same value.
    #[test]
    fn script_json_cannot_close_the_script() {
        let v = serde_json::json!({"text": "</script><!-- & \u{2028}"});
        let s = script_json(&v);
        assert!(!s.contains("</") && !s.contains("<!--") && !s.contains('&'));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&s).unwrap(), v);
    }

    /// A page is one file: its style inline, a policy that forbids every request, and
    /// no reference to anything outside it.
    #[test]
    fn a_page_fetches_nothing() {
        let p = page("t <1>", "<p>body</p>", Some("var x = 1;"));
        assert!(p.contains("<title>t &lt;1&gt;</title>"));
        assert!(p.contains("default-src 'none'"));
        for outside in ["http://", "https://", "src=", "<link", "@import"] {
            assert!(!p.contains(outside), "the page names {outside}");
        }
        // The style refers to the page's own patterns only.
        assert!(p
            .match_indices("url(")
            .all(|(i, _)| p[i + 4..].starts_with('#')));
    }
}
