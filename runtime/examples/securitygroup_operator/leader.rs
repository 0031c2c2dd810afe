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
//! long to land) before two replicas could write at once. Stopping drops the controller, and
//! with it every reconcile in flight; when the Lease shows this replica renewed again, a new
//! controller starts (its watches list everything again, and the status chokepoint writes
//! nothing for objects whose status is already right).

use std::time::{Duration, SystemTime};

use futures::{StreamExt, pin_mut};
use k8s_openapi::api::coordination::v1::Lease;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client};
use kube_lease_manager::{LeaseManagerBuilder, LeaseManagerError};
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

/// The name of the example operator's Lease.
pub const LEASE: &str = "securitygroup-operator-leader";

/// Runs `lead()` whenever this replica holds the lease, and drops what it runs as soon as it
/// may no longer hold it (see the module's documentation), until `stop` completes (a shutdown
/// signal) or a `lead()` ends by itself; then gives the lease up, so that another replica
/// takes over at once instead of when the lease expires.
pub async fn run_elected<F, Fut>(
    client: Client,
    election: Election,
    stop: impl Future<Output = ()>,
    mut lead: F,
) -> Result<(), LeaseManagerError>
where
    F: FnMut() -> Fut,
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
        let work = lead();
        pin_mut!(work);
        loop {
            let until = deadline.unwrap_or_else(Instant::now);
            tokio::select! {
                () = &mut stop => break 'elected,
                () = &mut work => break 'elected,
                () = tokio::time::sleep_until(until) => break,
                event = lease.next() => match event {
                    Some(Ok(seen)) => {
                        deadline = election.deadline(seen.as_ref());
                        if deadline.is_none() {
                            break;
                        }
                    }
                    Some(Err(error)) => eprintln!("watching the lease: {error}"),
                    None => break 'elected,
                },
            }
        }
        // Dropping `work` here cancels every reconcile in flight.
        deadline = None;
        println!("{} stopped leading", election.identity);
    }
    drop(holding);
    manager_task
        .await
        .map_err(|e| LeaseManagerError::InconsistentState(e.to_string()))?
        .map(|_| ())
}
