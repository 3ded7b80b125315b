//! What the patched SurrealDB crate under `vendor/` (its PATCHED.md) must
//! keep: a transaction's cache finds what it stored. In 3.3.5 the cache's
//! keys and its lookups hashed five kinds apart, so every `DELETE` walked
//! the whole schema for each record it deleted and every statement read its
//! table's definition from the store again.

use std::sync::Arc;

use surrealdb_datastore::cache::tx::{Entry, Lookup, TransactionCache};
use surrealdb_datastore::catalog::{DatabaseId, NamespaceId};
use surrealdb_datastore::val::RecordIdKey;

/// Every kind of lookup a transaction makes, one of each (but a node's,
/// keyed by a `Uuid`), the record's being `record`.
fn every_lookup(record: &RecordIdKey) -> Vec<Lookup<'_>> {
    let (ns, db) = (NamespaceId(1), DatabaseId(2));
    vec![
        Lookup::Nds,
        Lookup::Rus,
        Lookup::Ras,
        Lookup::Rgs("a"),
        Lookup::Nss,
        Lookup::Nus(ns),
        Lookup::Nas(ns),
        Lookup::Ngs(ns, "a"),
        Lookup::Dbs(ns),
        Lookup::Dus(ns, db),
        Lookup::Das(ns, db),
        Lookup::Dgs(ns, db, "a"),
        Lookup::Aps(ns, db),
        Lookup::Azs(ns, db),
        Lookup::Bus(ns, db),
        Lookup::Fcs(ns, db),
        Lookup::Mds(ns, db),
        Lookup::Mls(ns, db),
        Lookup::Cgs(ns, db),
        Lookup::Pas(ns, db),
        Lookup::Sqs(ns, db),
        Lookup::Tbs(ns, db),
        Lookup::DbReferenceTargets(ns, db),
        Lookup::Evs(ns, db, "t"),
        Lookup::Fds(ns, db, "t"),
        Lookup::Fts(ns, db, "t"),
        Lookup::Ixs(ns, db, "t"),
        Lookup::Lvs(ns, db, "t"),
        Lookup::Rcg("a"),
        Lookup::Ru("a"),
        Lookup::Ra("a"),
        Lookup::Rg("a", "b"),
        Lookup::NsByName("n"),
        Lookup::Nu(ns, "a"),
        Lookup::Na(ns, "a"),
        Lookup::Ng(ns, "a", "b"),
        Lookup::DbByName("n", "d"),
        Lookup::Du(ns, db, "a"),
        Lookup::Da(ns, db, "a"),
        Lookup::Dg(ns, db, "a", "b"),
        Lookup::Ap(ns, db, "a"),
        Lookup::Az(ns, db, "a"),
        Lookup::Bu(ns, db, "a"),
        Lookup::Fc(ns, db, "a"),
        Lookup::Md(ns, db, "a"),
        Lookup::Ml(ns, db, "a", "1"),
        Lookup::Cg(ns, db, "a"),
        Lookup::Pa(ns, db, "a"),
        Lookup::Sq(ns, db, "a"),
        Lookup::Tb(ns, db, "t"),
        Lookup::TbByName("n", "d", "t"),
        Lookup::Ev(ns, db, "t", "e"),
        Lookup::Fd(ns, db, "t", "f"),
        Lookup::Ix(ns, db, "t", "i"),
        Lookup::Record(ns, db, "t", record),
    ]
}

#[test]
fn a_transactions_cache_finds_every_kind_it_stored() {
    let record = RecordIdKey::Number(7);
    let cache = TransactionCache::new(1000);
    for (index, lookup) in every_lookup(&record).into_iter().enumerate() {
        cache.insert(lookup, Entry::Any(Arc::new(index)));
    }
    let missed: Vec<String> = every_lookup(&record)
        .iter()
        .enumerate()
        .filter(|(index, lookup)| {
            let found = cache.get(lookup).and_then(|entry| match entry {
                Entry::Any(any) => any.downcast_ref::<usize>().copied(),
                _ => None,
            });
            found != Some(*index)
        })
        .map(|(_, lookup)| lookup_name(lookup))
        .collect();
    assert!(missed.is_empty(), "the cache missed {missed:?}");
}

/// A lookup's kind, for the failure's message (`Lookup` is not `Debug`).
fn lookup_name(lookup: &Lookup<'_>) -> String {
    let names = [
        (matches!(lookup, Lookup::Sqs(..)), "Sqs"),
        (matches!(lookup, Lookup::Tbs(..)), "Tbs"),
        (
            matches!(lookup, Lookup::DbReferenceTargets(..)),
            "DbReferenceTargets",
        ),
        (matches!(lookup, Lookup::Tb(..)), "Tb"),
        (matches!(lookup, Lookup::TbByName(..)), "TbByName"),
    ];
    names
        .iter()
        .find(|(is, _)| *is)
        .map_or("another kind", |(_, name)| name)
        .to_string()
}
