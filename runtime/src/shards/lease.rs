//! Holding shards: one `coordination.k8s.io/v1` Lease per shard, acquired and renewed by
//! `kube-lease-manager`, and the time a replica may act on a shard it holds.
//!
//! The lease itself (acquiring it when free or expired, renewing it, releasing it on the way
//! out) is the crate's. What this module adds is the guarantee that a replica which loses a
//! shard stops writing *before* another starts: the crate tells a holder that it lost the
//! lease only once it can read the Lease again, so a holder cut off from the API server (or
//! refused its renewals) would go on reconciling past the moment another replica takes over.
//! Here a replica holds a shard only while the shard's Lease, as the API server last showed
//! it, names it holder and its last renewal is younger than `duration - grace / 2`:
//!
//! ```text
//! since renewTime:  0 ........ duration - grace ........ duration - grace/2 ........ duration
//!                   renewed    the holder renews         a holder that did not      another replica
//!                              (10 s of 15)              renew stops (12.5 s)       may take over (15 s)
//! ```
//!
//! The holder wrote `renewTime` with its own clock and compares its own clock with it; another
//! replica compares its clock with the same `renewTime`, so the replicas' clocks may disagree
//! by up to `grace / 2` (and a request in flight when a replica stops may take as long to
//! land) before two replicas could write one object's status at once.
//!
//! Stopping closes the shard's [`Fence`] first: no reconcile starts after it, and those
//! running are waited for, at most `grace / 4` (half the margin), before the shard's work is
//! dropped, aborting any still running, and before the Lease is released. The fence also
//! shuts by itself at the end of the time the Lease allows, read on the clock each time it is
//! asked: a process paused past it (SIGSTOP, a frozen VM) writes nothing when it runs again,
//! though its lease loop has not yet run. What this does not guarantee: a request already
//! sent when the pause began may land after another replica took over, and a reconcile that
//! asked the fence just before the pause sends its write just after (the window between the
//! question and the request).

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures::{StreamExt, pin_mut};
use k8s_openapi::api::coordination::v1::Lease;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client};
use kube_lease_manager::{LeaseManagerBuilder, LeaseManagerError};
use tokio::time::Instant;

use super::{Fence, Shard};

/// One replica among those that share a kind's objects: its name, the shards the kind is cut
/// into, which of them it holds first, and its Leases' timing. One shard is leader election:
/// one replica works, the others wait.
#[derive(Clone, Debug)]
pub struct Replica {
    namespace: String,
    lease: String,
    identity: String,
    shards: u32,
    ordinal: u32,
    replicas: u32,
    duration: u64,
    grace: u64,
}

impl Replica {
    /// The replica named `identity` (unique among the replicas: a Pod's name), its Leases in
    /// `namespace` named after `lease`: the one shard's Lease is `lease` itself; with
    /// [`shards`](Self::shards) N > 1, shard i's is `lease-i-of-N`. Each renewal holds a lease
    /// 15 seconds, renewed after 10: a holder that cannot renew stops 12.5 seconds after its
    /// last renewal and another replica takes over after 15.
    pub fn new(
        namespace: impl Into<String>,
        lease: impl Into<String>,
        identity: impl Into<String>,
    ) -> Replica {
        Replica {
            namespace: namespace.into(),
            lease: lease.into(),
            identity: identity.into(),
            shards: 1,
            ordinal: 0,
            replicas: 1,
            duration: 15,
            grace: 5,
        }
    }

    /// Cuts the kind's objects into `count` shards (at least 1).
    #[must_use]
    pub fn shards(mut self, count: u32) -> Replica {
        self.shards = count.max(1);
        self
    }

    /// This replica is number `ordinal` of `replicas` (a StatefulSet's ordinal): it reaches for
    /// the shards `i` with `i % replicas == ordinal` at once, and for the others only once
    /// their Lease has been left to expire (their replica died or stalled), one lease duration
    /// after it starts. With every replica up, each holds its own shards.
    #[must_use]
    pub fn ordinal(mut self, ordinal: u32, replicas: u32) -> Replica {
        self.replicas = replicas.max(1);
        self.ordinal = ordinal % self.replicas;
        self
    }

    /// How long a renewal holds a lease, and how long before it expires the holder renews it,
    /// in seconds; half of `grace` is the margin between this replica stopping and another
    /// starting. `grace` is kept below `duration`.
    #[must_use]
    pub fn timing(mut self, duration: u64, grace: u64) -> Replica {
        self.duration = duration.max(1);
        self.grace = grace.clamp(1, self.duration.saturating_sub(1).max(1));
        self
    }

    /// This replica's name.
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// How many shards the kind is cut into.
    pub fn shard_count(&self) -> u32 {
        self.shards
    }

    /// The name of `shard`'s Lease.
    pub fn lease_name(&self, shard: Shard) -> String {
        if self.shards == 1 {
            self.lease.clone()
        } else {
            format!("{}-{}-of-{}", self.lease, shard.index(), shard.count())
        }
    }

    /// Whether this replica reaches for `shard` at once.
    fn is_home(&self, shard: Shard) -> bool {
        shard.index() % self.replicas == self.ordinal
    }

    /// How long a replica that stops holding a shard waits for its reconciles under way:
    /// half the margin between its stopping and another replica starting.
    fn drain_for(&self) -> Duration {
        Duration::from_millis(self.grace * 250)
    }

    /// How long after a renewal its holder stops unless it renewed again.
    fn holds_for(&self) -> Duration {
        Duration::from_millis((self.duration * 1000).saturating_sub(self.grace * 500))
    }

    /// Until when the Lease, as the server showed it, lets this replica hold its shard:
    /// `None` when it names another holder (or none), or was never renewed.
    fn deadline(&self, lease: Option<&Lease>) -> Option<Instant> {
        let spec = lease?.spec.as_ref()?;
        if spec.holder_identity.as_deref() != Some(self.identity.as_str()) {
            return None;
        }
        let renewed: SystemTime = spec.renew_time.as_ref()?.0.into();
        let until = renewed + self.holds_for();
        // The Lease's time is this replica's own clock (it wrote renewTime): turn it into
        // the monotonic clock that timers run on.
        let left = until.duration_since(SystemTime::now()).unwrap_or_default();
        Some(Instant::now() + left)
    }
}

/// Runs `work(shard, fence)` for each shard while this replica holds it, and stops it as soon
/// as it may no longer hold it (the fence closed, its reconciles waited for, then the work
/// dropped: see the module's documentation), until `stop` completes (a shutdown signal); then
/// gives every lease up, so that other replicas take over at once instead of when the leases
/// expire.
///
/// The fence is the shard's permit: a reconcile enters it ([`Fence::enter`]) and the status
/// chokepoint asks it before each write (`StatusReconciler::may_write(move |object|
/// fence.is_open() && holds(shard, object))`), so no status is written for the shard's
/// objects once this replica may no longer hold it. Each shard's work runs on a task of its
/// own, with its own watch, store and chokepoint memory: a shard given up drops them all. A
/// work that ends by itself ends the holding of its shard (its Lease released), not the
/// others'.
pub async fn run_replica<F, Fut>(
    client: Client,
    replica: Replica,
    stop: impl Future<Output = ()>,
    work: F,
) -> Result<(), LeaseManagerError>
where
    F: Fn(Shard, Fence) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let work = Arc::new(work);
    let (quit, quitting) = tokio::sync::watch::channel(false);
    let mut holders = tokio::task::JoinSet::new();
    for shard in Shard::all(replica.shards) {
        let (client, replica, work) = (client.clone(), replica.clone(), work.clone());
        let mut quitting = quitting.clone();
        holders.spawn(async move {
            let stop = async move {
                let _ = quitting.wait_for(|quit| *quit).await;
            };
            hold(client, replica, shard, stop, move |fence| {
                work(shard, fence)
            })
            .await
        });
    }
    stop.await;
    let _ = quit.send(true);
    let mut result = Ok(());
    while let Some(joined) = holders.join_next().await {
        let held = joined.map_err(|e| LeaseManagerError::InconsistentState(e.to_string()));
        if let Err(error) = held.and_then(|held| held) {
            result = Err(error);
        }
    }
    result
}

/// Holds `shard` whenever this replica can: runs `work(fence)` while the shard's Lease lets
/// it, until `stop` completes or a work ends by itself; then gives the lease up.
async fn hold<F, Fut>(
    client: Client,
    replica: Replica,
    shard: Shard,
    stop: impl Future<Output = ()>,
    mut work: F,
) -> Result<(), LeaseManagerError>
where
    F: FnMut(Fence) -> Fut,
    Fut: Future<Output = ()>,
{
    pin_mut!(stop);
    if !replica.is_home(shard) {
        // Another replica's shard: reached for once it has had a lease's time to take it.
        tokio::select! {
            () = &mut stop => return Ok(()),
            () = tokio::time::sleep(Duration::from_secs(replica.duration)) => {}
        }
    }
    let name = replica.lease_name(shard);
    let manager = LeaseManagerBuilder::new(client.clone(), &name)
        .with_namespace(&replica.namespace)
        .with_identity(&replica.identity)
        .with_duration(replica.duration)
        .with_grace(replica.grace)
        .build()
        .await?;
    // The crate acquires and renews the lease while `holding` lives; when it is dropped, the
    // crate releases the lease and its task ends.
    let (holding, manager_task) = manager.watch().await;

    // The Lease as the API server has it: each renewal arrives as an event.
    let leases: Api<Lease> = Api::namespaced(client, &replica.namespace);
    // Backing off between failed tries: a replica refused the Lease would otherwise retry
    // at once, forever.
    let lease = watcher::watch_object(leases, &name).default_backoff();
    pin_mut!(lease);
    let mut deadline = None;
    'held: loop {
        // Not holding: wait for a Lease that names this replica, freshly renewed.
        while deadline.is_none_or(|d| d <= Instant::now()) {
            tokio::select! {
                () = &mut stop => break 'held,
                event = lease.next() => match event {
                    Some(Ok(seen)) => deadline = replica.deadline(seen.as_ref()),
                    // The watch retries by itself; while it cannot read the Lease this
                    // replica does not hold the shard.
                    Some(Err(error)) => tracing::warn!(%shard, %error, "watching the shard's lease"),
                    None => break 'held,
                },
            }
        }
        let until = deadline.unwrap_or_else(Instant::now);
        tracing::info!(identity = replica.identity, %shard, "holds");
        let fence = Fence::until(until);
        let mut running = Box::pin(work(fence.clone()));
        let leaving = loop {
            let until = deadline.unwrap_or_else(Instant::now);
            tokio::select! {
                () = &mut stop => break true,
                () = &mut running => break true,
                () = tokio::time::sleep_until(until) => break false,
                event = lease.next() => match event {
                    Some(Ok(seen)) => {
                        deadline = replica.deadline(seen.as_ref());
                        match deadline {
                            Some(until) => fence.hold_until(until),
                            None => break false,
                        }
                    }
                    Some(Err(error)) => tracing::warn!(%shard, %error, "watching the shard's lease"),
                    None => break true,
                },
            }
        };
        // No reconcile starts now; those running (spawned: they go on while `running` is not
        // polled) are waited for, bounded, then dropping `running` aborts any left.
        let left = fence.close(replica.drain_for()).await;
        if left > 0 {
            tracing::warn!(%shard, left, "reconciles still running when the shard was given up: aborted");
        }
        drop(running);
        deadline = None;
        tracing::info!(identity = replica.identity, %shard, "stopped holding");
        if leaving {
            break 'held;
        }
    }
    drop(holding);
    manager_task
        .await
        .map_err(|e| LeaseManagerError::InconsistentState(e.to_string()))?
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lease_names_and_home_shards() {
        let one = Replica::new("ns", "op", "a");
        let shard = Shard::new(0, 1).expect("a shard");
        assert_eq!(
            one.lease_name(shard),
            "op",
            "leader election keeps its Lease's name"
        );
        assert!(one.is_home(shard));
        let third = Replica::new("ns", "op", "c").shards(6).ordinal(2, 3);
        let homes: Vec<u32> = Shard::all(6)
            .filter(|s| third.is_home(*s))
            .map(Shard::index)
            .collect();
        assert_eq!(homes, [2, 5]);
        assert_eq!(
            third.lease_name(Shard::new(5, 6).expect("a shard")),
            "op-5-of-6"
        );
    }

    #[test]
    fn timing_keeps_grace_below_duration() {
        let replica = Replica::new("ns", "op", "a").timing(4, 9);
        assert_eq!((replica.duration, replica.grace), (4, 3));
        assert_eq!(replica.holds_for(), Duration::from_millis(2500));
    }
}
