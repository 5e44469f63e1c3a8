//! Invariant 4, converges: after the drain phase (every send processed, the agent idle,
//! everything delivered, every user at the bottom), each render is exactly the DB, row
//! for row (`seq`, role, text), with no live rows left.

use crate::model::content::for_each_token;
use crate::model::wire::{ClientId, Origin, RenderRow};
use crate::model::world::World;
use crate::oracle::invariant::Invariant;
use crate::oracle::judged::JudgedExt;
use crate::oracle::violation::{render_lines, Violation};

/// Invariant 4 for every client: the first whose render is not the DB.
pub fn check_converged(world: &World, step_index: usize) -> Option<Violation> {
    (0..world.clients().len() as ClientId)
        .find_map(|client| converged(world, client, world.client(client).render(), step_index))
}

/// Invariant 4 for `rows` as `client`'s render.
pub fn converged(
    world: &World,
    client: ClientId,
    rows: &[RenderRow],
    step_index: usize,
) -> Option<Violation> {
    if !world.config().judged.judges(Invariant::Converges) {
        return None;
    }
    let db = world.backend().db();
    let matches = rows.len() == db.len()
        && rows.iter().zip(db).all(|(r, d)| {
            r.origin == Origin::Sealed { seq: d.seq } && r.role == d.role && r.text == d.text
        });
    (!matches).then(|| not_converged(world, client, rows, step_index))
}

fn not_converged(
    world: &World,
    client: ClientId,
    rows: &[RenderRow],
    step_index: usize,
) -> Violation {
    let db = world.backend().db();
    let mut involved: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| r.is_live()) {
        for_each_token(&r.text, |t, _| involved.push(t.to_string()));
    }
    Violation {
        invariant: Invariant::Converges,
        client: Some(client),
        step_index,
        messages: involved,
        expected: format!(
            "render equals the DB exactly ({} sealed rows: {}) with no live rows",
            db.len(),
            db.iter()
                .map(|r| format!("{}:{}", r.seq, r.text))
                .collect::<Vec<_>>()
                .join(" | ")
        ),
        seen: render_lines(rows),
        cause: None,
    }
}
