//! Stores made for the harness's own tests.

use crate::model::store::{Answer, Store, StoreFactory};
use crate::model::wire::{ClientId, Input, RenderRow};

/// The note's `current` store, but each tab's store panics on its second send: a crash
/// that some seeds reach (a tab that sends twice) and others do not.
pub struct PanicsOnSecondSend;

struct Panicking(Box<dyn Store>, u32);

impl Store for Panicking {
    fn handle(&mut self, input: &Input) -> Answer {
        if matches!(input, Input::UserSend { .. }) {
            self.1 += 1;
            assert!(self.1 < 2, "second send");
        }
        self.0.handle(input)
    }
    fn render(&self) -> &[RenderRow] {
        self.0.render()
    }
}

impl StoreFactory for PanicsOnSecondSend {
    fn name(&self) -> String {
        "panics-on-second-send".into()
    }
    fn make(&self, c: ClientId) -> Box<dyn Store> {
        Box::new(Panicking(crate::store::note::current::KIND.make(c), 0))
    }
}
