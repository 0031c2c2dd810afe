//! Several replicas of the operator, one reconciling: leader election on a
//! `coordination.k8s.io/v1` Lease.
//!
//! The lease itself (acquiring it when free or expired, renewing it, releasing it on the way
//! out) is `kube-lease-manager`'s, a maintained crate built on kube 5. What this module adds is
//! the guarantee that a replica which loses the lease stops writing *before* another starts:
//! the crate tells a holder that it lost the lease only once it can read the Lease again, so a
//! holder cut off from the API server (or refused its renewals) would go on reconciling past
//! the moment another replica takes over. Here a replica leads only while the Lease, as the
//! API server last showed it, names it holder and its last renewal is younger than
//! `duration - grace / 2`:
//!
//! ```text
//! since renewTime:  0 ........ duration - grace ........ duration - grace/2 ........ duration
//!                   renewed    the holder renews         a holder that did not      another replica
//!                              (10 s of 15)              renew stops (12.5 s)       may take over (15 s)
//! ```
//!
//! The holder wrote `renewTime` with its own clock and compares its own clock with it; the
//! other replica compares its clock with the same `renewTime`, so the replicas' clocks may
//! disagree by up to `grace / 2` (and a request in flight when a replica stops may take as
//! long to land) before two replicas could write at once.
//!
//! Stopping closes the replica's [`Fence`] first: no reconcile starts after it, and the
//! reconciles already running (on other threads: kube's Controller spawns them) are waited
//! for, at most `grace / 4` (half the margin), before the controller is dropped, aborting any
//! still running, and before the Lease is released on the way out. The chokepoint asks the
//! fence again right before each status write (`StatusReconciler::may_write`), so a reconcile
//! running past the close writes no status even before it is aborted. What this does not
//! guarantee: a reconcile still running after that wait is aborted at its next await, and a
//! request it already sent may land after this replica stopped (within the other half of the
//! margin, as the clocks' disagreement may); a replica whose process is frozen (a stopped VM)
//! past the lease's duration is not stopped by anything here. When the Lease shows this
//! replica renewed again, a new controller starts (its watches list everything again, and the
//! status chokepoint writes nothing for objects whose status is already right).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use futures::{StreamExt, pin_mut};
use k8s_openapi::api::coordination::v1::Lease;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client};
use kube_lease_manager::{LeaseManagerBuilder, LeaseManagerError};
use tokio::sync::Notify;
use tokio::time::Instant;

/// Who competes for which Lease, and its timing.
#[derive(Clone, Debug)]
pub struct Election {
    /// The Lease's namespace (the operator's own).
    pub namespace: String,
    /// The Lease's name, shared by every replica.
    pub lease: String,
    /// This replica's name, unique among the replicas (a Pod's name).
    pub identity: String,
    /// How long a renewal holds the lease, in seconds.
    pub duration: u64,
    /// How long before the lease expires the holder renews it, in seconds; half of it is the
    /// margin between this replica stopping and another starting.
    pub grace: u64,
}

impl Election {
    /// The example operator's Lease in `namespace`, for the replica named `identity`: held 15
    /// seconds from each renewal, renewed after 10, so a holder that cannot renew stops
    /// 12.5 seconds after its last renewal and another replica takes over after 15.
    pub fn new(namespace: impl Into<String>, identity: impl Into<String>) -> Self {
        Self {
            namespace: namespace.into(),
            lease: LEASE.to_owned(),
            identity: identity.into(),
            duration: 15,
            grace: 5,
        }
    }

    /// How long a replica that stops leading waits for its reconciles under way: half the
    /// margin between its stopping and another replica starting.
    fn drain_for(&self) -> Duration {
        Duration::from_millis(self.grace * 250)
    }

    /// How long after a renewal its holder stops leading unless it renewed again.
    fn holds_for(&self) -> Duration {
        Duration::from_millis((self.duration * 1000).saturating_sub(self.grace * 500))
    }

    /// Until when the Lease, as the server showed it, lets this replica lead: `None` when it
    /// names another holder (or none), or was never renewed.
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

/// The reconciles under way of a leading replica, and whether new ones may start: closed
/// when the replica stops leading, then waited for (bounded) before its controller is
/// dropped. A reconcile enters it ([`Fence::enter`]) and leaves when the guard drops.
#[derive(Clone, Debug, Default)]
pub struct Fence(Arc<FenceState>);

#[derive(Debug, Default)]
struct FenceState {
    closed: AtomicBool,
    running: AtomicUsize,
    idle: Notify,
}

/// A reconcile under way: it leaves the fence when dropped.
#[derive(Debug)]
pub struct Entered(Fence);

impl Fence {
    /// A reconcile starting: `None` once the fence is closed (the replica stopped leading:
    /// the reconcile must do nothing).
    pub fn enter(&self) -> Option<Entered> {
        self.0.running.fetch_add(1, Ordering::SeqCst);
        if self.0.closed.load(Ordering::SeqCst) {
            self.leave();
            return None;
        }
        Some(Entered(self.clone()))
    }

    /// Whether the fence is still open: the replica still leads. The chokepoint asks it right
    /// before each status write (`StatusReconciler::may_write`), so that a reconcile that
    /// outlived [`close`](Self::close)'s bound writes no status once the lease is given up.
    pub fn is_open(&self) -> bool {
        !self.0.closed.load(Ordering::SeqCst)
    }

    fn leave(&self) {
        if self.0.running.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }

    /// Closes the fence and waits until no reconcile is under way, at most `bound`. Returns
    /// how many were still running then.
    pub async fn close(&self, bound: Duration) -> usize {
        self.0.closed.store(true, Ordering::SeqCst);
        let drained = async {
            loop {
                // Made before the count is read: a leave in between still wakes it.
                let idle = self.0.idle.notified();
                if self.0.running.load(Ordering::SeqCst) == 0 {
                    return;
                }
                idle.await;
            }
        };
        let _ = tokio::time::timeout(bound, drained).await;
        self.0.running.load(Ordering::SeqCst)
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        self.0.leave();
    }
}

/// The name of the example operator's Lease.
pub const LEASE: &str = "securitygroup-operator-leader";

/// Runs `lead(fence)` whenever this replica holds the lease, and stops it as soon as it may no
/// longer hold it (the fence closed, its reconciles waited for, then what it runs dropped:
/// see the module's documentation), until `stop` completes (a shutdown signal) or a `lead()`
/// ends by itself; then gives the lease up, so that another replica takes over at once
/// instead of when the lease expires.
pub async fn run_elected<F, Fut>(
    client: Client,
    election: Election,
    stop: impl Future<Output = ()>,
    mut lead: F,
) -> Result<(), LeaseManagerError>
where
    F: FnMut(Fence) -> Fut,
    Fut: Future<Output = ()>,
{
    let manager = LeaseManagerBuilder::new(client.clone(), &election.lease)
        .with_namespace(&election.namespace)
        .with_identity(&election.identity)
        .with_duration(election.duration)
        .with_grace(election.grace)
        .build()
        .await?;
    // The crate acquires and renews the lease while `holding` lives; when it is dropped, the
    // crate releases the lease and its task ends.
    let (holding, manager_task) = manager.watch().await;

    // The Lease as the API server has it: each renewal arrives as an event.
    let leases: Api<Lease> = Api::namespaced(client, &election.namespace);
    // Backing off between failed tries: a replica refused the Lease would otherwise retry
    // at once, forever.
    let lease = watcher::watch_object(leases, &election.lease).default_backoff();
    pin_mut!(lease, stop);
    let mut deadline = None;
    'elected: loop {
        // Not leading: wait for a Lease that names this replica, freshly renewed.
        while deadline.is_none_or(|d| d <= Instant::now()) {
            tokio::select! {
                () = &mut stop => break 'elected,
                event = lease.next() => match event {
                    Some(Ok(seen)) => deadline = election.deadline(seen.as_ref()),
                    // The watch retries by itself; while it cannot read the Lease this
                    // replica does not lead.
                    Some(Err(error)) => eprintln!("watching the lease: {error}"),
                    None => break 'elected,
                },
            }
        }
        println!("{} leads", election.identity);
        let fence = Fence::default();
        let mut work = Box::pin(lead(fence.clone()));
        let leaving = loop {
            let until = deadline.unwrap_or_else(Instant::now);
            tokio::select! {
                () = &mut stop => break true,
                () = &mut work => break true,
                () = tokio::time::sleep_until(until) => break false,
                event = lease.next() => match event {
                    Some(Ok(seen)) => {
                        deadline = election.deadline(seen.as_ref());
                        if deadline.is_none() {
                            break false;
                        }
                    }
                    Some(Err(error)) => eprintln!("watching the lease: {error}"),
                    None => break true,
                },
            }
        };
        // No reconcile starts now; those running (spawned: they go on while `work` is not
        // polled) are waited for, bounded, then dropping `work` aborts any left.
        let left = fence.close(election.drain_for()).await;
        if left > 0 {
            eprintln!("{left} reconciles still running when leadership ended: aborted");
        }
        drop(work);
        deadline = None;
        println!("{} stopped leading", election.identity);
        if leaving {
            break 'elected;
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

    #[tokio::test(start_paused = true)]
    async fn a_closed_fence_waits_for_the_reconciles_under_way_and_lets_none_start() {
        let fence = Fence::default();
        let running = fence.enter().expect("open");
        let leaves = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            drop(running);
        });
        let start = Instant::now();
        assert_eq!(fence.close(Duration::from_secs(10)).await, 0, "all ended");
        assert_eq!(
            start.elapsed(),
            Duration::from_secs(1),
            "waited for the one under way"
        );
        assert!(fence.enter().is_none(), "none starts once closed");
        leaves.await.expect("the reconcile's task");
    }

    #[tokio::test(start_paused = true)]
    async fn the_wait_is_bounded() {
        let fence = Fence::default();
        let _stuck = fence.enter().expect("open");
        let start = Instant::now();
        assert_eq!(
            fence.close(Duration::from_secs(2)).await,
            1,
            "one left running"
        );
        assert_eq!(start.elapsed(), Duration::from_secs(2));
    }
}
