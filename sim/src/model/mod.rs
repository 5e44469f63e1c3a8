//! The simulated world: one backend (agent, queue, durable chunk DB), several clients each
//! running a store under test, the network between them, and the users. It knows nothing
//! of invariants, strategies or scenario files.

pub mod backend;
mod backend_steps;
pub mod client;
mod client_steps;
pub mod config;
pub mod content;
pub mod judged;
pub mod memo;
pub mod pins;
pub mod record;
pub mod shared_store;
pub mod source_lines;
pub mod state;
pub mod step;
pub mod store;
pub mod wire;
pub mod world;
