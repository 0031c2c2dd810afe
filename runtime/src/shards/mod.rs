//! Several replicas sharing one kind's objects (feature `shards`): each object's status
//! written by exactly one replica, the one holding the object's shard.
//!
//! - [`Shard`]: the `index`-th of `count` ranges of the API server's hash of an object's uid
//!   (the arithmetic of [`range`](Shard::range) and [`selector`](Shard::selector) is written
//!   once, in `range.rs`).
//! - [`shard_watcher`]: a shard's objects as a watch stream. Lists and watches carry the shard
//!   selector (`shardSelector`, kube-apiserver's `ShardedListAndWatch` gate), and what comes
//!   back is filtered again by the same hash, so a server without the gate (which ignores the
//!   parameter and answers everything) still leaves each replica only its shards' objects;
//!   its [`WatchTally`] counts the objects received and kept.
//!   [`selection`] says which of the two the server does; [`owner_holds`] sorts owned objects
//!   (a Deployment, a ConfigMap) to their owner's shard, which only the client can do.
//! - [`run_replica`]: one Lease per shard (`kube-lease-manager`); this replica runs a shard's
//!   work (a Controller over that shard's watch) only while it holds the shard's Lease; the
//!   shard's [`Fence`] answers the status chokepoint's `may_write`. One shard is leader
//!   election.
//!
//! All replicas are one controller: they write under one field manager. What a handover
//! loses, and what a replica that takes a shard over reads again, is in RELIABILITY.md.

mod fence;
mod lease;
mod range;
mod watch;

pub use fence::{Entered, Fence};
/// Why holding shards failed: the Lease crate's error.
pub use kube_lease_manager::LeaseManagerError;
pub use lease::{Replica, run_replica};
pub use range::{HashRange, Shard, uid_hash};
pub use watch::{
    Selection, ShardStream, WatchTally, holds, owner_holds, selection, shard_api, shard_watcher,
};
