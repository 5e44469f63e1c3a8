//! The store under test: one small trait, one file per implementation, one registry.
//!
//! A store is everything a real frontend tab store is, seen from outside: it is told about
//! user actions, WebSocket events and HTTP responses ([`Input`]); it asks for POSTs and
//! fetches ([`Effect`]); and it shows rows ([`RenderRow`]). The harness never looks inside.
//!
//! The note's variants share one tab state machine ([`tab::TabStore`]) and differ only in
//! a [`tab::ReconcilePolicy`]: the three places the note's bugs live (the `turn-start`
//! backfill, the `message-consumed` handler and the reconcile keep-filter).

use crate::model::store::{Store, StoreFactory};

pub mod canary;
pub mod current;
pub mod durable;
pub mod exec;
pub mod fix_a;
pub mod fix_ab;
pub mod fix_abc;
pub mod membership;
pub mod naive;
pub mod tab;

impl StoreFactory for StoreKind {
    fn name(&self) -> String {
        self.name.to_string()
    }
    fn make(&self, _client: crate::model::wire::ClientId) -> Box<dyn Store> {
        (self.make)()
    }
}

/// A named store constructor.
#[derive(Clone, Copy)]
pub struct StoreKind {
    /// What `--store` takes and scenario files and reports name it by (`fix-abc`).
    pub name: &'static str,
    /// One line: which bug of the note this variant carries, or what it fixes.
    pub summary: &'static str,
    /// A fresh store for one tab; the world calls it once per client, so no two tabs
    /// share state.
    pub make: fn() -> Box<dyn Store>,
}

impl std::fmt::Debug for StoreKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Every shipped store, in the order the note's fixes landed, then the hypotheses.
pub const STORES: &[StoreKind] = &[
    naive::KIND,
    fix_a::KIND,
    fix_ab::KIND,
    fix_abc::KIND,
    current::KIND,
    membership::KIND,
    canary::KIND,
    durable::KIND,
];

/// Look a store up by name.
pub fn by_name(name: &str) -> Option<StoreKind> {
    STORES.iter().copied().find(|k| k.name == name)
}

/// The names of every shipped store, for error messages.
pub fn names() -> Vec<&'static str> {
    STORES.iter().map(|k| k.name).collect()
}

/// How stores in another process (`exec:'COMMAND'`) are run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecOptions {
    /// How long to wait for any one answer.
    pub timeout: std::time::Duration,
    /// Pin each thread and its adapter processes to one CPU (only speed depends on it).
    pub pin: bool,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            timeout: exec::TIMEOUT_DEFAULT,
            pin: true,
        }
    }
}

/// Why a store spec (what `--store` takes) names no store.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// Not a shipped store's name, nor `exec:`.
    #[error("unknown store '{name}'; known stores: {}", names().join(", "))]
    Unknown {
        /// The name given.
        name: String,
    },
    /// An `exec:` command that cannot be used.
    #[error(transparent)]
    Exec(#[from] exec::ExecError),
}

/// The store `spec` names: a shipped store's name, or `exec:'COMMAND ARGS'` for a store in
/// another process (started once now, so that a command that cannot run is an error here
/// rather than a crash finding in every run).
pub fn resolve(spec: &str, options: ExecOptions) -> Result<Box<dyn StoreFactory>, ResolveError> {
    if spec.starts_with(exec::SPEC_PREFIX) {
        let factory = exec::ExecFactory::from_spec(spec)?
            .with_timeout(options.timeout)
            .with_pinning(options.pin);
        factory.probe()?;
        return Ok(Box::new(factory));
    }
    match by_name(spec) {
        Some(kind) => Ok(Box::new(kind)),
        None => Err(ResolveError::Unknown {
            name: spec.to_string(),
        }),
    }
}

/// [`resolve`], where `all` names every shipped store.
pub fn resolve_all(
    spec: &str,
    options: ExecOptions,
) -> Result<Vec<Box<dyn StoreFactory>>, ResolveError> {
    if spec == "all" {
        return Ok(STORES
            .iter()
            .map(|k| Box::new(*k) as Box<dyn StoreFactory>)
            .collect());
    }
    Ok(vec![resolve(spec, options)?])
}
