//! Steps in words, from what they did ([`StepRecord`]): the notes of timelines, traces and
//! scenario files. One place, so that every view of a run says the same thing.

use crate::model::record::StepRecord;
use crate::model::step::Step;
use crate::model::store::CrashCause;
use crate::model::wire::{
    AgentStatus, ConsumeReason, Effect, Event, Input, MessageId, PostOutcome,
};

/// What a step did, in words: what happened (`POST m1 reaches the backend (agent idle:
/// starts t1)`), then the events it broadcast (`→ e5 turn-start t1, e6 status running`)
/// and what the store asked for (`asks POST m2 · asks fetch f1`). A store crash is its
/// cause alone (`store panicked: …`, `store crashed: the adapter process exited …`).
pub fn note(record: &StepRecord) -> String {
    if let Some(crash) = &record.crash {
        return match &crash.cause {
            CrashCause::Panicked { message } => format!("store panicked: {message}"),
            cause => format!("store crashed: {cause}"),
        };
    }
    let mut note = what_happened(record);
    let mut extra: Vec<String> = Vec::new();
    if !record.broadcast.is_empty() {
        let events: Vec<String> = record
            .broadcast
            .iter()
            .map(|(id, e)| format!("e{id} {}", event(e)))
            .collect();
        extra.push(format!("→ {}", events.join(", ")));
    }
    // Posts first, then fetches, whatever order the store asked in.
    for e in &record.effects {
        if let Effect::Post { message_id, .. } = e {
            extra.push(format!("asks POST {}", posted_id(*message_id)));
        }
    }
    for e in &record.effects {
        if let Effect::Fetch { request_id } = e {
            extra.push(format!("asks fetch {request_id}"));
        }
    }
    for e in extra {
        if !note.is_empty() {
            note.push_str(if e.starts_with('→') { " " } else { " · " });
        }
        note.push_str(&e);
    }
    note
}

/// The first part of a note: what the step did, before its broadcasts and requests.
pub fn what_happened(record: &StepRecord) -> String {
    match (record.step, &record.input) {
        (Step::HandlePost { .. }, _) => match record.posted {
            Some((m, PostOutcome::Started { turn_id })) => {
                format!("POST {m} reaches the backend (agent idle: starts {turn_id})")
            }
            Some((m, PostOutcome::Queued)) => {
                format!("POST {m} reaches the backend (agent busy: queued)")
            }
            None => String::new(),
        },
        (Step::ServeFetch { .. }, _) => match record.served {
            Some((r, seq)) => format!("fetch {r} served: snapshot up to seq {seq}"),
            None => String::new(),
        },
        (Step::AgentEnd, _) => match record.consumed() {
            Some(ids) => format!("trailing drain of {}", list_ids(ids)),
            None => String::new(),
        },
        (Step::AgentSeal, _) => match record.consumed() {
            Some(ids) => format!("continuation with {}", list_ids(ids)),
            None => String::new(),
        },
        (Step::AgentToolResult { interrupt: true }, _) => {
            format!(
                "interrupt with {}",
                list_ids(record.consumed().unwrap_or(&[]))
            )
        }
        (_, Some(input)) => delivered(input),
        _ => String::new(),
    }
}

/// What a client step gave its store, in words.
fn delivered(input: &Input) -> String {
    match input {
        Input::UserSend { message_id, .. } => format!("user sends {message_id}"),
        Input::Event { event: e } => event(e),
        Input::PostResponse {
            message_id,
            response,
            server_id,
        } => {
            let outcome = match response {
                PostOutcome::Started { turn_id } => format!("started {turn_id}"),
                PostOutcome::Queued => "queued".to_string(),
            };
            let minted = server_id.map_or_else(String::new, |s| format!(" (server id {s})"));
            format!(
                "POST {} response: {outcome}{minted}",
                posted_id(*message_id)
            )
        }
        Input::FetchResponse {
            request_id,
            snapshot_seq,
            chunks,
            ..
        } => format!(
            "fetch {request_id} response: {} rows up to seq {snapshot_seq}",
            chunks.len()
        ),
        Input::Scroll { .. } => String::new(),
    }
}

/// The id a POST carried, or that it carried none.
fn posted_id(id: Option<MessageId>) -> String {
    id.map_or_else(|| "(no id)".to_string(), |m| m.to_string())
}

fn list_ids(ids: &[MessageId]) -> String {
    ids.iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// A consume reason as the wire writes it.
pub fn consume_reason(reason: ConsumeReason) -> &'static str {
    match reason {
        ConsumeReason::Interrupt => "interrupt",
        ConsumeReason::Trailing => "trailing",
        ConsumeReason::Continuation => "continuation",
    }
}

/// A short description of an event: `turn-start t1`, `text-delta txt:t1.1`.
pub fn event(e: &Event) -> String {
    match e {
        Event::TurnStart { turn_id } => format!("turn-start {turn_id}"),
        Event::TextDelta { text, .. } => format!("text-delta {text}"),
        Event::ToolCall { text, .. } => format!("tool-call {text}"),
        Event::ToolResult { text, .. } => format!("tool-result {text}"),
        Event::MessageQueued { message_id, text } => match text {
            None => format!("message-queued {message_id}"),
            Some(t) => format!("message-queued {message_id} {t:?}"),
        },
        Event::MessageConsumed {
            message_ids,
            reason,
        } => match reason {
            None => format!("message-consumed {}", list_ids(message_ids)),
            Some(r) => format!(
                "message-consumed {} ({})",
                list_ids(message_ids),
                consume_reason(*r)
            ),
        },
        Event::Status { status } => format!(
            "status {}",
            match status {
                AgentStatus::Idle => "idle",
                AgentStatus::Running => "running",
                AgentStatus::Error => "error",
            }
        ),
        Event::TurnSealed { turn_id } => format!("turn-sealed {turn_id}"),
    }
}
