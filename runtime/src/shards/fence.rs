//! The reconciles of one held shard, and whether they may still act: open while the shard's
//! Lease, as the API server last showed it, lets this replica hold it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// The reconciles under way of a held shard, and whether new ones may start and write:
/// closed when the replica stops holding the shard, then waited for (bounded) before the
/// shard's controller is dropped. A reconcile enters it ([`Fence::enter`]) and leaves when the
/// guard drops.
///
/// It is also open only until the time the Lease allows ([`Fence::hold_until`]), read on the
/// clock at each question: a replica whose process was paused past that time (SIGSTOP, a
/// frozen VM) finds its fence shut the moment it runs again, before its own lease loop has
/// seen anything, so a reconcile resumed then writes no status.
#[derive(Clone, Debug, Default)]
pub struct Fence(Arc<FenceState>);

#[derive(Debug, Default)]
struct FenceState {
    closed: AtomicBool,
    until: Mutex<Option<Instant>>,
    running: AtomicUsize,
    idle: Notify,
}

/// A reconcile under way: it leaves the fence when dropped.
#[derive(Debug)]
pub struct Entered(Fence);

impl Fence {
    /// A fence open until `until`.
    pub fn until(until: Instant) -> Fence {
        let fence = Fence::default();
        fence.hold_until(until);
        fence
    }

    /// Moves the time the fence is open until (a renewal seen).
    pub fn hold_until(&self, until: Instant) {
        *self.0.until.lock().unwrap_or_else(PoisonError::into_inner) = Some(until);
    }

    /// A reconcile starting: `None` once the fence is closed or its time has passed (the
    /// replica no longer holds the shard: the reconcile must do nothing).
    pub fn enter(&self) -> Option<Entered> {
        self.0.running.fetch_add(1, Ordering::SeqCst);
        if !self.is_open() {
            self.leave();
            return None;
        }
        Some(Entered(self.clone()))
    }

    /// Whether the fence is still open: not closed, and its time not passed. The chokepoint
    /// asks it right before each status write (`StatusReconciler::may_write`), so that a
    /// reconcile that outlived [`close`](Self::close)'s bound, or a process paused past the
    /// lease, writes no status.
    pub fn is_open(&self) -> bool {
        if self.0.closed.load(Ordering::SeqCst) {
            return false;
        }
        let until = *self.0.until.lock().unwrap_or_else(PoisonError::into_inner);
        until.is_none_or(|until| Instant::now() < until)
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

    #[tokio::test(start_paused = true)]
    async fn a_fence_shuts_when_its_time_passes_though_nobody_closed_it() {
        let fence = Fence::until(Instant::now() + Duration::from_secs(10));
        assert!(fence.is_open());
        // A process paused past the lease: the clock moved, nothing else ran.
        tokio::time::advance(Duration::from_secs(10)).await;
        assert!(!fence.is_open(), "shut at its time");
        assert!(fence.enter().is_none(), "no reconcile starts");
        // A renewal seen moves it again.
        fence.hold_until(Instant::now() + Duration::from_secs(10));
        assert!(fence.is_open());
    }
}
