//! A tab's store as the world holds it: shared between copies of the world until one of
//! them feeds it (copy on write).
//!
//! `explore` copies the world at every state it searches more than one step from, and
//! most steps are the backend's, which never touch a store. A deep copy of the store at
//! every world copy was most of what a copy cost; shared, a store is copied only when a
//! step of its tab feeds it while another world still holds it.

use std::cell::Cell;
use std::rc::Rc;

use crate::model::memo::Memo;
use crate::model::store::{CrashCause, Store};

/// A store, shared by the world copies that hold it in the same state.
pub struct SharedStore {
    store: Rc<dyn Store>,
    /// Whether the store copies itself ([`Store::clone_box`] answered a copy), learnt at
    /// the first [`SharedStore::try_share`]: only such a store is ever shared, since a
    /// write to a shared one needs a copy. Not asked when the store is made, so a world
    /// that is never copied (a fuzz run) never pays for a copy it does not use.
    copies: Cell<Option<bool>>,
    /// A digest of the store's state, once asked for ([`SharedStore::digest`]); forgotten
    /// when the store is fed.
    digest: Memo,
}

impl SharedStore {
    /// Holds `store`.
    pub fn new(store: Box<dyn Store>) -> SharedStore {
        SharedStore {
            store: Rc::from(store),
            copies: Cell::new(None),
            digest: Memo::default(),
        }
    }

    /// The store, to read.
    pub fn get(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// The store, to feed: first copied for this holder when another holds it too. A
    /// store that answered a copy when first shared and none now cannot be fed here; that
    /// breaks [`Store::clone_box`]'s contract and is its crash, never the harness's.
    pub fn get_mut(&mut self) -> Result<&mut dyn Store, CrashCause> {
        self.digest.forget();
        if Rc::get_mut(&mut self.store).is_none() {
            let Some(copy) = self.store.clone_box() else {
                return Err(CrashCause::Panicked {
                    message: "clone_box answered no copy after answering one: a store that \
                              copies itself must do so in every state"
                        .into(),
                });
            };
            self.store = Rc::from(copy);
        }
        Ok(Rc::get_mut(&mut self.store).expect("held once"))
    }

    /// Another holder of this store in its current state, or `None` when the store cannot
    /// copy itself. The first call asks [`Store::clone_box`], and the copy it answers is
    /// the new holder's own: the one copy a first write to a shared store would have made
    /// anyway (if no holder is ever fed, it is the one copy the old probe at `new` made);
    /// later calls share.
    pub fn try_share(&self) -> Option<SharedStore> {
        let store = match self.copies.get() {
            Some(false) => return None,
            Some(true) => Rc::clone(&self.store),
            None => {
                let copy = self.store.clone_box();
                self.copies.set(Some(copy.is_some()));
                Rc::from(copy?)
            }
        };
        Some(SharedStore {
            store,
            copies: Cell::new(Some(true)),
            digest: self.digest.clone(),
        })
    }

    /// The digest of the store's current state: the one remembered since it was last fed,
    /// else `compute`'s (remembered when it gives one). `compute` must be a function of
    /// the store's state ([`Store::hash_state`]), the same at every call: the digest is
    /// only remembered here, never looked into.
    pub fn digest(&self, compute: impl FnOnce(&dyn Store) -> Option<u128>) -> Option<u128> {
        self.digest.get_or(|| compute(self.get()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::store::StoreFactory;
    use crate::model::wire::{Input, MessageId};

    fn send(store: &mut SharedStore, n: u32) {
        let input = Input::UserSend {
            message_id: MessageId(n),
            text: format!("msg:m{n}"),
        };
        store.get_mut().unwrap().handle(&input).unwrap();
    }

    /// A shared store is copied at the first write, and only the writer sees the write.
    #[test]
    fn a_write_to_a_shared_store_goes_to_a_copy_of_its_own() {
        let a = SharedStore::new(crate::store::by_name("durable").unwrap().make(0));
        // The first share asks for a copy, and the new holder keeps it; later ones share.
        let first = a.try_share().expect("durable copies itself");
        assert!(!Rc::ptr_eq(&a.store, &first.store));
        let mut b = a.try_share().expect("durable copies itself");
        assert!(Rc::ptr_eq(&a.store, &b.store));
        assert!(first
            .try_share()
            .is_some_and(|c| Rc::ptr_eq(&c.store, &first.store)));
        send(&mut b, 1);
        assert!(!Rc::ptr_eq(&a.store, &b.store));
        assert!(a.get().render().is_empty());
        assert_eq!(b.get().render().len(), 1);
        // Unshared now: a write stays in place.
        let before = Rc::as_ptr(&b.store).cast::<u8>();
        send(&mut b, 2);
        assert_eq!(Rc::as_ptr(&b.store).cast::<u8>(), before);
        assert_eq!(b.get().render().len(), 2);
    }

    /// A store that cannot copy itself is never shared.
    #[test]
    fn a_store_that_cannot_copy_itself_is_not_shared() {
        struct NoCopy;
        impl Store for NoCopy {
            fn handle(&mut self, _input: &Input) -> crate::model::store::Answer {
                Ok(Vec::new())
            }
            fn render(&self) -> &[crate::model::wire::RenderRow] {
                &[]
            }
        }
        let store = SharedStore::new(Box::new(NoCopy));
        assert!(store.try_share().is_none());
        assert!(store.try_share().is_none());
    }
}
