//! The panics of reconcile bodies, which the chokepoint catches and retries with backoff.
//!
//! Rust's panic hook runs before the chokepoint sees a panic: by default it prints the panic
//! on stderr, with a whole backtrace under `RUST_BACKTRACE=1`, and a body that panics on every
//! retry prints it again on every retry. [`quiet_repeated_panics`] lets a panic of a body reach
//! the hook only the first time it happens, so its backtrace is printed once. Polls of a body
//! mark their thread ([`in_body`]), so the hook can tell a body's panic from any other.

use std::cell::Cell;
use std::collections::HashSet;
use std::future::Future;
use std::pin::pin;
use std::sync::{Mutex, Once, PoisonError};

thread_local! {
    /// Whether this thread is polling a reconcile body.
    static IN_BODY: Cell<bool> = const { Cell::new(false) };
}

/// How many distinct panics are remembered; past that the memory starts again (a body whose
/// panic messages never repeat, with a counter or a time in them, prints each anyway).
const REMEMBERED: usize = 1024;

/// The panics of bodies the hook has let through: `file:line:column: message`.
static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Restores the thread's mark when a poll ends, a panic's unwinding included.
struct Mark(bool);

impl Mark {
    fn enter() -> Self {
        Self(IN_BODY.with(|mark| mark.replace(true)))
    }
}

impl Drop for Mark {
    fn drop(&mut self) {
        IN_BODY.with(|mark| mark.set(self.0));
    }
}

/// `body`, each of its polls run with the thread marked as running a reconcile body.
pub(crate) async fn in_body<F: Future>(body: F) -> F::Output {
    let mut body = pin!(body);
    std::future::poll_fn(|cx| {
        let _mark = Mark::enter();
        body.as_mut().poll(cx)
    })
    .await
}

/// Whether the panic at `place` with `message` is the first of its kind (remembered then).
fn first(place: String) -> bool {
    let mut seen = SEEN.lock().unwrap_or_else(PoisonError::into_inner);
    let seen = seen.get_or_insert_with(HashSet::new);
    if seen.contains(&place) {
        return false;
    }
    if seen.len() >= REMEMBERED {
        seen.clear();
    }
    seen.insert(place)
}

/// Makes a reconcile body's panic reach the panic hook in place only the first time it
/// happens; its repeats, retry after retry, print nothing there.
///
/// Call it once in `main`, after installing any panic hook of your own (a crash reporter's,
/// say): it wraps the hook in place when it is called. A body's panic is the same panic again
/// when it happens at the same place (file, line and column) with the same message; the first
/// one goes to the wrapped hook as it would have (with its backtrace under `RUST_BACKTRACE=1`),
/// the later ones do not. The chokepoint still logs every one at error level with its message
/// (`reconcile body panicked`), and writes it into the summary condition with the reason
/// `ReconcilePanicked`. Every other panic (a pre- or post-check's, a task's the body spawned,
/// any outside the chokepoint) reaches the wrapped hook every time. The last 1,024 distinct
/// panics are remembered; past that the memory starts again.
///
/// It is not done by default because the panic hook belongs to the whole program: a library
/// that changed it unasked would hide panics from hooks the program relies on. Calling it more
/// than once changes nothing after the first call.
pub fn quiet_repeated_panics() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let wrapped = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_BODY.with(Cell::get) {
                let place = info
                    .location()
                    .map_or_else(String::new, ToString::to_string);
                let payload = info.payload();
                let message = payload
                    .downcast_ref::<&str>()
                    .copied()
                    .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("");
                if !first(format!("{place}: {message}")) {
                    return;
                }
            }
            wrapped(info);
        }));
    });
}
