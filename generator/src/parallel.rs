//! Work spread over the machine's cores, results kept in input order.
//!
//! Input files are read and their Rust is written independently of each other, so the two
//! heavy stages of `generate` run one file per core at a time. Threads take the next file
//! as they finish one, largest first, so one large CRD does not leave a core idle at the end.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The cores this process may run on, found once: `available_parallelism` reads the
/// affinity mask and the cgroup's quota files at every call, and a run asks for every CRD
/// and version it reads.
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `f` applied to every item, on up to as many threads as the machine has cores; the results
/// are in the items' order. `weight` estimates an item's cost (its size): the heaviest start
/// first.
pub fn map<T, R, W, F>(items: &[T], weight: W, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    W: Fn(&T) -> u64,
    F: Fn(&T) -> R + Sync,
{
    let threads = cores().min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weight(&items[i])));
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                        done.push((i, f(&items[i])));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            // A panic in `f` is a bug; it goes on as a panic here.
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e))
            })
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// `aside` on a thread of its own while `here` runs on this one; both results. A panic in
/// either is a bug; it goes on as a panic here. On one core both run on this thread, `here`
/// first: a second thread would only take turns with this one, and its allocations would go
/// to a heap of its own (glibc gives each thread an arena), touching more memory.
pub fn beside<A, B, RA, RB>(aside: A, here: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    RA: Send,
    B: FnOnce() -> RB,
{
    if cores() <= 1 {
        let here = here();
        return (aside(), here);
    }
    std::thread::scope(|scope| {
        let aside = scope.spawn(aside);
        let here = here();
        let aside = aside
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        (aside, here)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_items_order_whatever_the_weights() {
        let items: Vec<u64> = (0..100).collect();
        let squares = super::map(&items, |&n| n % 7, |&n| n * n);
        assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>());
    }

    #[test]
    fn beside_gives_both_results() {
        assert_eq!(super::beside(|| 1, || "here"), (1, "here"));
    }

    #[test]
    fn no_items_no_results() {
        let none: Vec<u64> = super::map(&[] as &[u64], |_| 0, |&n: &u64| n);
        assert!(none.is_empty());
    }
}
