//! A shipped store's entry in the registry: its name, its one-line summary and its
//! constructor. Each store's file declares its own `KIND`; `store/mod.rs` lists them.

use crate::model::store::{Store, StoreFactory};

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
